package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/worstcase"
)

var cmdMerge = &command{
	name:  "merge",
	usage: "FILE PART... [--json | --csv] [--plot out.svg|png|pdf] [--mechanisms]",
	short: "stitch the parts of a sharded curve (curve --shard K/N --jsonl) into the curve",
	long:  mergeHelp,
	nargs: -1,
	flags: mergeFlags,
}

const mergeHelp = `Reads the parts written by "pmlopt curve FILE --shard K/N --jsonl" for
K = 1..N (files, or - for standard input) and prints the curve that
"pmlopt curve FILE" prints with the same options: a table, --json, --csv,
and --plot (--mechanisms when the parts were written with it). FILE is the
problem the parts were computed from: it gives the thresholds the parts
must cover, the utility-safe staircase and the plot's title, and every
record must carry its fingerprint (a SHA-256 of its prior, order and
utility, and of its prior set when it has one).

Every record is checked: the same problem, objective, backend and --tol in
every part; each threshold in the shard its record names, and where the
curve has it; each bracket the right way up (a bracket wider than --tol is
printed and warned about, as curve does). A threshold given twice must be
given identically. Merge refuses, exit status 1, naming the missing
thresholds and the shards absent or incomplete, when the parts do not
cover the curve; rerun those shards and merge again. A part whose last line
was cut short (its shard was stopped while writing) loses that line only.

Example:

	pmlopt merge testdata/counting-query.yaml part-1.jsonl part-2.jsonl --json

where part-K.jsonl is what "pmlopt curve FILE --shard K/2 --jsonl" wrote,
as in docs/cli.md's "Curves on a cluster" (examples/slurm runs the shards
as a Slurm job array).`

// mergeFlags declares merge's flags on fs and returns its run function.
func mergeFlags(fs *flagSet) runFunc {
	load := loaderFlag(fs)
	asJSON := jsonFlag(fs)
	asCSV := csvFlag(fs)
	plotPath := plotFlag(fs)
	mechanisms := mechanismsFlag(fs)
	return func(ctx context.Context, e *env, pos []string) error {
		if len(pos) < 2 {
			return usagef("want the problem FILE and at least one PART, got %d argument(s)", len(pos))
		}
		if *asJSON && *asCSV {
			return usagef("give one of --json and --csv")
		}
		stdin := 0
		for _, a := range pos {
			if a == "-" {
				stdin++
			}
		}
		if stdin > 1 {
			return usagef("standard input (-) can be read once: name the other parts as files")
		}
		if *plotPath != "" {
			if err := checkPlotPath(*plotPath, pos...); err != nil {
				return err
			}
		}
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		var recs []partRecord
		for _, path := range pos[1:] {
			rs, err := readPart(e, path, *mechanisms)
			if err != nil {
				return err
			}
			recs = append(recs, rs...)
		}
		m, err := mergeParts(p, recs, *mechanisms)
		if err != nil {
			return err
		}
		warnOpen(e.stderr, "merge", m.pts, m.tol)
		var safeSteps []closedform.SafeValueStep
		if m.obj == problem.WorstCaseValue {
			if safeSteps, err = safeValueSteps(p); err != nil {
				return err
			}
		}
		var b buffered
		if err := writeWorstCurve(&b, curveFormat{json: *asJSON, csv: *asCSV, mechanisms: *mechanisms}, m.obj, m.solver, p, m.pts, safeSteps); err != nil {
			return err
		}
		if err := b.commit(e.stdout); err != nil {
			return err
		}
		if *plotPath != "" {
			if err := plotCurve(*plotPath, curveTitle(p.Name), m.obj, m.pts, safeSteps); err != nil {
				return fmt.Errorf("the curve is on stdout, but --plot failed: %w", err)
			}
		}
		return nil
	}
}

// partRecord is one record of a part and where it was read.
type partRecord struct {
	where string // PART:LINE
	shardRecord
}

// readPart reads the records of one part, keeping their mechanisms only
// when asked (a value curve's part has one per threshold). A last line
// without its newline that is no record was being written when its shard
// stopped: it is dropped with a warning, and its threshold counts as
// missing.
func readPart(e *env, path string, keepMechanisms bool) ([]partRecord, error) {
	r, closeIn, err := openInput(e, path)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	name := path
	if path == "-" {
		name = "standard input"
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var out []partRecord
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		where := name + ":" + strconv.Itoa(line)
		if t := bytes.TrimSpace(b); len(t) > 0 {
			var rec shardRecord
			dec := json.NewDecoder(bytes.NewReader(t))
			dec.DisallowUnknownFields()
			derr := dec.Decode(&rec)
			if derr == nil && dec.More() {
				derr = errors.New("more than one JSON value on the line")
			}
			switch {
			case derr != nil && err == io.EOF:
				fmt.Fprintf(e.stderr, "pmlopt merge: warning: %s: last line cut short (its shard stopped while writing it): ignored\n", where)
			case derr != nil:
				return nil, fmt.Errorf("%s: not a record of curve --shard K/N --jsonl: %v", where, derr)
			case rec.Problem == "" || rec.Shard == "":
				return nil, fmt.Errorf("%s: a point without the keys problem and shard: write the parts with curve --shard K/N --jsonl", where)
			default:
				if !keepMechanisms {
					rec.Mechanism = nil
				}
				out = append(out, partRecord{where: where, shardRecord: rec})
			}
		}
		if err == io.EOF {
			return out, nil
		}
	}
}

// merged is a curve stitched from its parts.
type merged struct {
	obj    problem.Objective
	solver string
	tol    float64
	pts    []pmlopt.Point
}

// mergeParts checks the records against p and each other and returns the
// curve's points as curve reports them.
func mergeParts(p *problem.Problem, recs []partRecord, mechanisms bool) (*merged, error) {
	if len(recs) == 0 {
		return nil, errors.New("the parts hold no records")
	}
	first := recs[0]
	obj, err := problem.ParseObjective(first.Objective)
	if err != nil || obj == problem.ExpectedUtility {
		return nil, fmt.Errorf("%s: objective %q: parts are of worst-case-order or worst-case-value curves", first.where, first.Objective)
	}
	sh, err := worstcase.ParseShard(first.Shard)
	if err != nil {
		return nil, fmt.Errorf("%s: shard: %v", first.where, err)
	}
	n := sh.N
	fp := problemFingerprint(p)
	// The thresholds, in p's units, as the curve computes them.
	var vs []float64
	switch obj {
	case problem.WorstCaseOrder:
		o, err := p.RequireOrder()
		if err != nil {
			return nil, err
		}
		_, m := o.Dims()
		for h := 1; h <= m; h++ {
			vs = append(vs, float64(h))
		}
	case problem.WorstCaseValue:
		q := *p
		scale, err := q.ScaleExtremeUtility()
		if err != nil {
			return nil, err
		}
		u, err := q.RequireUtility()
		if err != nil {
			return nil, err
		}
		for _, v := range u.ReachableValues() {
			vs = append(vs, math.Ldexp(v, scale))
		}
	}
	m := len(vs)
	name := func(k int) string { // threshold of index k (0-based)
		if obj == problem.WorstCaseOrder {
			return "h " + strconv.Itoa(k+1)
		}
		return fmt.Sprintf("%s (#%d)", strconv.FormatFloat(vs[k], 'g', -1, 64), k+1)
	}
	byIndex := make([]*partRecord, m)
	for i := range recs {
		r := &recs[i]
		switch {
		case r.Problem != fp:
			return nil, fmt.Errorf("%s: computed for another problem than %s (fingerprint %s, the file's %s)", r.where, orStdin(p.Name), r.Problem, fp)
		case r.Objective != first.Objective:
			return nil, fmt.Errorf("%s: objective %s, but %s has %s: the parts come from different runs", r.where, r.Objective, first.where, first.Objective)
		case r.Solver != first.Solver:
			return nil, fmt.Errorf("%s: backend %s, but %s has %s: the parts come from different runs", r.where, r.Solver, first.where, first.Solver)
		case r.Tol != first.Tol:
			return nil, fmt.Errorf("%s: --tol %g, but %s has %g: the parts come from different runs", r.where, float64(r.Tol), first.where, float64(first.Tol))
		}
		s, err := worstcase.ParseShard(r.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: shard: %v", r.where, err)
		}
		if s.N != n {
			return nil, fmt.Errorf("%s: shard %s, but %s has shard %s: the parts come from different splits", r.where, r.Shard, first.where, first.Shard)
		}
		k := r.Index - 1
		if k < 0 || k >= m {
			return nil, fmt.Errorf("%s: index %d, but the curve has %d thresholds", r.where, r.Index, m)
		}
		if !s.Holds(k, m) {
			return nil, fmt.Errorf("%s: threshold %s is not in shard %s", r.where, name(k), r.Shard)
		}
		if err := checkRecord(r, obj, vs[k], p, mechanisms); err != nil {
			return nil, fmt.Errorf("%s: threshold %s: %v", r.where, name(k), err)
		}
		if prev := byIndex[k]; prev != nil {
			a, _ := json.Marshal(prev.curvePointJSON)
			b, _ := json.Marshal(r.curvePointJSON)
			if !bytes.Equal(a, b) {
				return nil, fmt.Errorf("%s and %s disagree on threshold %s: %s against %s", prev.where, r.where, name(k), a, b)
			}
			continue
		}
		byIndex[k] = r
	}
	if err := missing(byIndex, n, name); err != nil {
		return nil, err
	}
	out := &merged{obj: obj, solver: first.Solver, tol: float64(first.Tol)}
	pts := make([]pmlopt.Point, m)
	for k, r := range byIndex {
		pts[k] = r.point(k, vs[k])
	}
	if obj == problem.WorstCaseValue {
		pts = pmlopt.ValueSteps(pts, out.tol)
	}
	out.pts = pts
	return out, nil
}

func orStdin(name string) string {
	if name == "" {
		return "FILE"
	}
	return name
}

// checkRecord checks one record's threshold and bracket.
func checkRecord(r *partRecord, obj problem.Objective, v float64, p *problem.Problem, mechanisms bool) error {
	if obj == problem.WorstCaseOrder {
		if r.H == nil || *r.H != r.Index || r.Threshold != nil {
			return fmt.Errorf("want h = %d and no threshold key", r.Index)
		}
	} else if r.H != nil || r.Threshold == nil || float64(*r.Threshold) != v {
		return fmt.Errorf("want threshold = %s and no h key", strconv.FormatFloat(v, 'g', -1, 64))
	}
	lo, up := float64(r.OptimalEpsilonLower), float64(r.OptimalEpsilon)
	if !(lo >= 0 && lo <= up) {
		return fmt.Errorf("bracket [%v, %v] is no bracket of ε* (want 0 ≤ lower ≤ upper)", lo, up)
	}
	if r.LPSolves < 0 {
		return fmt.Errorf("lp_solves %d is negative", r.LPSolves)
	}
	// An upper end of +Inf has no mechanism: none was found, or over a
	// prior set none exists (lower end +Inf too).
	if !mechanisms || math.IsInf(up, 1) {
		return nil
	}
	if r.Mechanism == nil {
		return errors.New("no mechanism: merge --mechanisms needs parts written with --mechanisms")
	}
	// The upper end is the audited PML of the point's mechanism (over the
	// prior set when the file has one): audit it, as curve did, against
	// the prior and the threshold's pattern.
	pm := r.mechanism()
	if _, ok := certify.Within(p.Prior, pm, up); !ok {
		return fmt.Errorf("the mechanism is not one row per letter, or its audited PML %v is above the bracket's upper end %v",
			leakage.PML(p.Prior, pm), up)
	}
	if p.PriorSet != nil {
		if level := leakage.PMLOver(p.PriorSet, pm); !(level <= up+certify.ProbeSlack) {
			return fmt.Errorf("the mechanism's audited PML over the prior set %v is above the bracket's upper end %v", level, up)
		}
	}
	if !certify.RowsSumToOne(pm) {
		return errors.New("a row of the mechanism does not sum to 1")
	}
	pat := mech.Pattern(nil)
	if obj == problem.WorstCaseOrder {
		pat = p.Order.Pattern(r.Index)
	} else {
		pat = p.Utility.Pattern(v)
	}
	if !pat.Holds(pm) {
		return errors.New("the mechanism does not reach the threshold: it uses a pair the threshold forbids, or has the wrong width")
	}
	return nil
}

// mechanism is the record's mechanism in float64 (nil if none).
func (r *partRecord) mechanism() mech.Mechanism {
	if r.Mechanism == nil {
		return nil
	}
	return jmech(r.Mechanism).mechanism()
}

// point is the record's threshold as the curve's Settled reports it.
func (r *partRecord) point(k int, v float64) pmlopt.Point {
	pt := pmlopt.Point{H: k + 1, Threshold: v, ThresholdMax: v, SafeEpsilon: float64(r.SafeEpsilon),
		OptimalEpsilon: float64(r.OptimalEpsilon), OptimalEpsilonLower: float64(r.OptimalEpsilonLower),
		LPSolves: r.LPSolves, WorstCaseValue: math.NaN()}
	if r.WorstCaseValue != nil {
		pt.WorstCaseValue = float64(*r.WorstCaseValue)
	}
	if r.Failure != "" {
		pt.Failure = errors.New(r.Failure)
	}
	pt.Mechanism = r.mechanism()
	return pt
}

// missing refuses an incomplete cover, naming the missing thresholds and
// the shards absent or incomplete.
func missing(byIndex []*partRecord, n int, name func(int) string) error {
	var gone []int
	for k, r := range byIndex {
		if r == nil {
			gone = append(gone, k)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	const shown = 20
	var names []string
	for i, k := range gone {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(gone)-shown))
			break
		}
		names = append(names, name(k))
	}
	var absent, partial []string
	m := len(byIndex)
	for K := 1; K <= n; K++ {
		sh := worstcase.Shard{K: K, N: n}
		idx := sh.Indices(m)
		if len(idx) == 0 {
			continue
		}
		held := 0
		for _, k := range idx {
			if byIndex[k] != nil {
				held++
			}
		}
		switch {
		case held == 0:
			absent = append(absent, sh.String())
		case held < len(idx):
			partial = append(partial, sh.String())
		}
	}
	msg := fmt.Sprintf("%d of %d thresholds missing: %s", len(gone), m, strings.Join(names, ", "))
	if len(absent) > 0 {
		msg += "; no part of shard " + strings.Join(absent, ", ")
	}
	if len(partial) > 0 {
		msg += "; shard " + strings.Join(partial, ", ") + " incomplete (stopped?)"
	}
	return errors.New(msg + ": rerun those shards and merge again")
}
