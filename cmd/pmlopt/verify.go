package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

var cmdVerify = &command{
	name:  "verify",
	usage: "FILE [--problem PROBLEM]",
	short: "re-check an answer's certificate in exact arithmetic",
	long:  verifyHelp,
	nargs: 1,
	flags: verifyFlags,
}

const verifyHelp = `Re-checks the certificate of an answer in exact arithmetic, with nothing
of the engines: every float64 is read as the rational it is, and e^x enters
only through rational bounds (docs/certificates.md states each claim).

FILE is what 'solve --out' wrote (the problem, the mechanism and its
certificate), or the output of 'solve --json' or 'curve --json
--certificates' with --problem naming the problem it was computed for.
Each claim prints "verified" or the inequality that fails; the exit status
is 0 only when every claim holds, 1 otherwise. Over a prior_set the claims
hold for every prior of the set, which must be the one solved for.

Example:

	pmlopt verify solved.yaml

with solved.yaml written by 'pmlopt solve testdata/counting-query.yaml --out solved.yaml'.`

// certDoc is the part of a document that carries certificates: a
// problem file from solve --out or solve --json's output (certificate,
// mechanism), or curve --json's (points).
type certDoc struct {
	Prior       any                 `json:"prior" yaml:"prior"` // a problem file has one
	Mechanism   any                 `json:"mechanism" yaml:"mechanism"`
	Certificate *verify.Certificate `json:"certificate" yaml:"certificate"`
	jsonout.Reported
	Points certPoints `json:"points" yaml:"points"`
	// Curves are an expected-utility curve's series, each with points.
	// A series of curve --robustness says which priors it is over: the
	// estimate, the whole simplex (ldp) or a prior set of its own.
	Curves []struct {
		Over       string      `json:"over" yaml:"over"`
		Confidence *float64    `json:"confidence" yaml:"confidence"`
		PriorSet   *seriesSet  `json:"prior_set" yaml:"prior_set"`
		Points     []certPoint `json:"points" yaml:"points"`
	} `json:"curves" yaml:"curves"`
}

// seriesSet is a curve --robustness series' prior set: the set, and how
// it was built from the file's samples.
type seriesSet struct {
	verify.PriorSet `yaml:",inline"`
	Method          string  `json:"method" yaml:"method"`
	Samples         int     `json:"samples" yaml:"samples"`
	Confidence      float64 `json:"confidence" yaml:"confidence"`
}

// seriesSource is how the problem's set was estimated (recordedCounts),
// read once for all the series of a document.
type seriesSource struct {
	src    problem.PriorSetSource
	counts []float64
	err    error
	read   bool
}

// checkSeriesSet refuses a series whose prior set is not the one its
// confidence names: rebuilt, as curve --robustness builds it, from the
// counts of the problem's samples at that level (a reader takes the
// label for the series' level, and the claims hold over the set).
func checkSeriesSet(p *problem.Problem, from *seriesSource, label *float64, ss *seriesSet) error {
	if label == nil || *label != ss.Confidence {
		return fmt.Errorf("its confidence label is not its prior_set's confidence %v", ss.Confidence)
	}
	if !from.read {
		from.src, from.counts, from.err = recordedCounts(p)
		from.read = true
	}
	src, counts, err := from.src, from.counts, from.err
	if err != nil {
		return fmt.Errorf("its prior_set can not be rebuilt from the problem: %v", strings.TrimPrefix(err.Error(), "--robustness: "))
	}
	if ss.Method != src.Method || ss.Samples != src.Samples {
		return fmt.Errorf("its prior_set is built by %s from %d samples, the problem's by %s from %d", ss.Method, ss.Samples, src.Method, src.Samples)
	}
	want, err := instance.ConfidenceSet(counts, p.Prior, ss.Confidence, ss.Method)
	if err != nil {
		return err
	}
	var got *mech.PriorSet
	if ss.L1Radius != nil {
		got, err = mech.NewL1Set(p.Prior, *ss.L1Radius)
	} else {
		got, err = mech.NewBoxSet(p.Prior, ss.Lower, ss.Upper)
	}
	if err != nil || !sameSet(want, got) || !holdsSet(got, want) {
		return fmt.Errorf("its prior_set is not the %s set of the problem's %d samples at its confidence %v", ss.Method, ss.Samples, ss.Confidence)
	}
	return nil
}

// holdsSet reports whether a holds b up to a few ulps: no bound of a
// lies inside b's by more than a relative 1e-13. sameSet's 1e-9 would
// let a document narrow a set by more than the outward margin of its
// Clopper–Pearson ends.
func holdsSet(a, b *mech.PriorSet) bool {
	const ulps = 1e-13
	for k := range b.Lower {
		if a.Lower[k] > b.Lower[k]*(1+ulps) || a.Upper[k] < b.Upper[k]*(1-ulps) {
			return false
		}
	}
	return a.Radius >= b.Radius*(1-ulps)
}

// certPoints are a worst-case curve's points, each with its certificate.
// A problem file's points are the sites of its utility rule, [x, y]
// pairs: they carry no certificate and read as none.
type certPoints []certPoint

type certPoint struct {
	Certificate *verify.Certificate `json:"certificate" yaml:"certificate"`
	jsonout.Reported
}

func (c *certPoints) UnmarshalJSON(b []byte) error {
	var items []json.RawMessage
	if err := json.Unmarshal(b, &items); err != nil {
		return err
	}
	for _, it := range items {
		if t := bytes.TrimLeft(it, " \t\r\n"); len(t) == 0 || t[0] != '{' {
			*c = nil
			return nil
		}
	}
	var pts []certPoint
	if err := json.Unmarshal(b, &pts); err != nil {
		return err
	}
	*c = pts
	return nil
}

func (c *certPoints) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.SequenceNode {
		for _, it := range n.Content {
			if it.Kind != yaml.MappingNode {
				*c = nil
				return nil
			}
		}
	}
	var pts []certPoint
	if err := n.Decode(&pts); err != nil {
		return err
	}
	*c = pts
	return nil
}

// verifyFlags declares verify's flags on fs and returns its run function.
func verifyFlags(fs *flagSet) runFunc {
	load := loaderFlag(fs)
	probPath := fs.String("problem", "", "the problem `file` the answer in FILE was computed for (when FILE is solve --json or curve --json output)")
	quiet := fs.Bool("quiet", false, "print only the claims that fail and the summary")
	return func(ctx context.Context, e *env, pos []string) error {
		path := pos[0]
		if path == "-" {
			return usagef("verify reads FILE by name, not from standard input")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var doc certDoc
		if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
			err = json.Unmarshal(data, &doc)
		} else {
			err = yaml.Unmarshal(data, &doc)
		}
		if err != nil {
			return fmt.Errorf("%s: %s", path, jsonout.DecodeMessage(err))
		}
		// The problem: FILE itself when it is one (it has a prior), else
		// --problem.
		from := path
		if doc.Prior == nil {
			if *probPath == "" {
				return usagef("%s holds no problem (no prior): name the problem it was computed for with --problem", path)
			}
			from = *probPath
		} else if *probPath != "" {
			return usagef("%s is a problem file itself: --problem does not apply", path)
		}
		p, err := load(from)
		if err != nil {
			return err
		}
		type item struct {
			name string
			c    *verify.Certificate
			// set is the prior set the item's claims are checked over: the
			// problem's, or the series' own (nil: at the estimate).
			set *verify.PriorSet
			// stated is what the problem file FILE, whose certificate
			// this is, still states of its objective and budget.
			stated *verify.Stated
			// rep is what the document reports beside the certificate.
			rep *verify.Reported
			// noBudget, instead of a certificate, is the pattern of a
			// threshold that no budget reaches over the set.
			noBudget mech.Pattern
		}
		set := pmlopt.VerifyPriorSet(p.PriorSet)
		var items []item
		if doc.Certificate != nil {
			c := *doc.Certificate
			if c.Mechanism == nil && doc.Prior == nil {
				m, err := decodedMechanism(doc.Mechanism, len(p.Prior), p.M())
				if err != nil {
					return fmt.Errorf("%s: mechanism: %v", path, err)
				}
				c.Mechanism = m
			}
			it := item{c: &c, set: set}
			if doc.Prior != nil {
				it.stated = certificate.Stated(p)
			} else {
				it.rep = doc.Of(&c)
			}
			items = append(items, it)
		}
		for k, pt := range doc.Points {
			name := fmt.Sprintf("point %d: ", k)
			if pat := pt.NoBudgetPattern(p); pat != nil && pt.Certificate == nil {
				// A threshold no budget reaches over the set has no
				// mechanism to certify; its claim is the pattern's.
				items = append(items, item{name: name, set: set, noBudget: pat})
				continue
			}
			if pt.Certificate == nil {
				return fmt.Errorf("%s: point %d has no certificate (run curve with --certificates)", path, k)
			}
			items = append(items, item{name: name, c: pt.Certificate, set: set, rep: pt.Of(pt.Certificate)})
		}
		var estimated seriesSource // the problem's estimate, for the series' sets
		for s, cv := range doc.Curves {
			over, label := set, ""
			labelled := cv.Confidence != nil || cv.PriorSet != nil
			switch cv.Over {
			case "", "estimate", "simplex":
				// A series at the file's own priors, the estimate or the
				// simplex carries no level of its own.
				if labelled {
					return fmt.Errorf("%s: curve %d: a confidence or prior_set on a series over %q", path, s, cv.Over)
				}
				if cv.Over != "" {
					over, label = nil, " (at the estimate)"
				}
			case "prior_set":
				if cv.PriorSet == nil {
					return fmt.Errorf("%s: curve %d: over prior_set, but no prior_set", path, s)
				}
				if err := checkSeriesSet(p, &estimated, cv.Confidence, cv.PriorSet); err != nil {
					return fmt.Errorf("%s: curve %d: %v", path, s, err)
				}
				over, label = &cv.PriorSet.PriorSet, " (over the series' own prior set)"
			default:
				return fmt.Errorf("%s: curve %d: over %q (want estimate, prior_set or simplex)", path, s, cv.Over)
			}
			for k, pt := range cv.Points {
				if pt.Certificate == nil {
					return fmt.Errorf("%s: curve %d, point %d has no certificate (run curve with --certificates)", path, s, k)
				}
				items = append(items, item{name: fmt.Sprintf("curve %d%s, point %d: ", s, label, k), c: pt.Certificate, set: over, rep: pt.Of(pt.Certificate)})
			}
		}
		if len(items) == 0 {
			return fmt.Errorf("%s: no certificate (solve --out, solve --json and curve --json --certificates write one)", path)
		}
		var o [][]int
		if p.Order != nil {
			o = p.Order
		}
		var b buffered
		total, bad := 0, 0
		for _, it := range items {
			vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Order: o, PriorSet: it.set, Stated: it.stated, Reported: it.rep}
			var claims []verify.Claim
			if it.noBudget != nil {
				claims = verify.Unreachable(vp, it.noBudget)
			} else {
				if it.c.Mechanism == nil {
					vp.Mechanism = p.Mechanism
				}
				claims = verify.Check(vp, *it.c)
			}
			for _, cl := range claims {
				total++
				if !cl.OK {
					bad++
				}
				if !cl.OK || !*quiet {
					fmt.Fprintf(&b, "%s%s\n", it.name, cl)
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if bad > 0 {
			if err := b.commit(e.stdout); err != nil {
				return err
			}
			return fmt.Errorf("%s: %d of %d claims fail", path, bad, total)
		}
		fmt.Fprintf(&b, "all %d claims verified\n", total)
		return b.commit(e.stdout)
	}
}

// floatMatrix converts a decoded matrix of numbers (JSON or YAML) to
// [][]float64.
func floatMatrix(v any) ([][]float64, error) {
	rows, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not a matrix of numbers")
	}
	out := make([][]float64, len(rows))
	for i, r := range rows {
		row, ok := r.([]any)
		if !ok {
			return nil, fmt.Errorf("row %d is not a list of numbers", i)
		}
		out[i] = make([]float64, len(row))
		for j, x := range row {
			switch x := x.(type) {
			case float64:
				out[i][j] = x
			case int:
				out[i][j] = float64(x)
			default:
				return nil, fmt.Errorf("row %d, column %d is not a number", i, j)
			}
		}
	}
	return out, nil
}
