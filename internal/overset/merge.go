package overset

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// leastByMerging brackets the least PML over the set of a mechanism with
// the pattern on smaller problems first, in the manner of dynamic
// constraint aggregation (Elhallaoui, Villeneuve, Soumis and Desaulniers,
// "Dynamic aggregation of set-partitioning constraints in column
// generation", Operations Research 2005). The robust master's rows are the
// inputs, and its optimum most often sends whole groups of inputs through
// the same row (a letter's neighbours share its outputs and their split):
// its basis is then degenerate in every row of a group but one, and its
// duals wander among optimal ones for hundreds of pricing rounds. Merged,
// a group is one row.
//
//  1. The groups start as the inputs whose rows in start are equal.
//  2. The merged problem (mech.PriorSet.Merge; a group may use the
//     outputs all its inputs may) is solved by colgen's search, its last
//     mechanism starting the next. Its mechanism, each group's row given
//     to each of its inputs, has the pattern and keeps its level over the
//     set: it lowers the upper end once audited.
//  3. The merged proof's multipliers are shared among a group's inputs in
//     proportion to their estimated masses, and colgen.RobustBound reads
//     a lower end from them on the whole pattern.
//  4. Where the ends are within tol, the bracket is closed. Otherwise
//     some output's column prices in against those multipliers, at the
//     merged search's lower end: the first such column (by its value)
//     whose entries differ within a group splits every group by them, and
//     step 2 is asked again.
//
// It stops after mergeMaxRounds merged problems, or once their masters
// have run mergeMaxPricing pricing rounds per input, or where no priced
// column splits a group, with what it has: Mechanism nil where no merged
// problem gave one, and Lower 0 where no proof came out. Every end is
// audited or proven on the whole problem. It asks nothing where start has
// one row for all inputs or more distinct rows than half the inputs,
// where merging gains little. report, if not nil, is told each bracket.
func leastByMerging(ctx context.Context, set *mech.PriorSet, pat mech.Pattern, start mech.Mechanism, tol float64, report func(lower, upper float64)) Bracket {
	r := Bracket{Upper: math.Inf(1)}
	gs := newGroups(set, pat, start)
	if gs == nil {
		return r
	}
	var warm mech.Mechanism // the last merged mechanism, one row per input
	pricing := 0
	for range mergeMaxRounds {
		if ctx.Err() != nil {
			return r
		}
		// 2. The merged problem.
		ms, master, err := gs.merged(ctx)
		if err != nil {
			return r
		}
		var from mech.Mechanism
		if warm != nil {
			from = make(mech.Mechanism, gs.k)
			for i, g := range gs.of {
				from[g] = warm[i]
			}
		}
		// A split's merged problem holds the last merged mechanism (its
		// groups are unions of the new ones), and its least ε is most
		// often that mechanism's level still: what the split needs is
		// its multipliers, from one probe just below the upper end. The
		// whole merged search runs where there is no such mechanism yet,
		// or where that probe ends without a proof (a mechanism below
		// it: the split lowered the least ε; an unsettled probe; an
		// engine's failure). A proof that falls short of the upper end
		// still splits the groups by its own μ, as a search's would.
		var b colgen.RobustBracket
		held := false // b.Mechanism is from: warm, audited already
		if from != nil && r.Mechanism != nil {
			before := master.Rounds
			pr, err := master.Probe(r.Upper - tol/2)
			pricing += master.Rounds - before
			if err == nil && pr.Mechanism == nil && !pr.Unsettled && pr.Alpha != nil {
				b = colgen.RobustBracket{Lower: pr.Lower, Mechanism: from, Alpha: pr.Alpha}
				held = true
			}
		}
		if b.Mechanism == nil {
			b, err = master.LeastEpsilon(ctx, tol, from)
			pricing += b.Rounds
		}
		if err != nil || b.Mechanism == nil {
			return r
		}
		if !held {
			warm = gs.unmerge(b.Mechanism)
			if pat.Holds(warm) {
				if lvl := leakage.PMLOver(set, warm); lvl < r.Upper {
					r.Upper, r.Mechanism = lvl, warm
				}
			}
		}
		// 3. The merged proof on the whole pattern. A merged search
		// closed by its pruning bound or its cover has no multipliers:
		// a probe of its master just below its lower end gives them.
		if b.Alpha == nil && b.Lower > mergeBelow {
			before := master.Rounds
			if pr, err := master.Probe(b.Lower - mergeBelow); err == nil {
				b.Alpha = pr.Alpha
			}
			pricing += master.Rounds - before
		}
		var alpha []float64
		if b.Alpha != nil {
			alpha = shareByMass(set.Center, ms.Center, gs.of, b.Alpha)
			if lb, priors, ok := colgen.RobustBound(set, pat, alpha); ok && lb > r.Lower {
				r.Lower = min(lb, r.Upper)
				r.Proofs = []certificate.Hint{{Priors: priors, Alpha: alpha}}
			}
		}
		r.Lower = min(r.Lower, r.Upper) // a proof a rounding above an audit
		if report != nil && r.Mechanism != nil {
			report(r.Lower, r.Upper)
		}
		// 4. Closed, or split by a column that prices in.
		if r.Mechanism != nil && r.Upper-r.Lower <= tol || alpha == nil || pricing > mergeMaxPricing*gs.n() {
			return r
		}
		if !gs.split(alpha, math.Exp(-b.Lower)) {
			return r
		}
	}
	return r
}

// decideByMerging decides whether some mechanism with the pattern keeps
// ε-PML over the set on merged problems, as leastByMerging brackets its
// least ε: the groups start as start's equal rows, and each merged
// problem is decided at ε (colgen.RobustMaster.Decide). A mechanism of a
// merged problem, each group's row given to its inputs, has the pattern
// and keeps ε on the whole problem once audited: it is the answer. A
// refuted merged problem's multipliers, shared among each group's inputs,
// either prove more than ε on the whole pattern (refuted) or price in a
// column that splits the groups for the next merged problem. It answers
// neither (m nil, refuted false) where a merged problem is not settled,
// no column splits the groups, or after mergeMaxRounds of them or
// mergeMaxPricing pricing rounds per input in all.
func decideByMerging(ctx context.Context, set *mech.PriorSet, pat mech.Pattern, start mech.Mechanism, eps float64) (m mech.Mechanism, refuted bool) {
	gs := newGroups(set, pat, start)
	if gs == nil {
		return nil, false
	}
	pricing := 0
	for range mergeMaxRounds {
		if ctx.Err() != nil || pricing > mergeMaxPricing*gs.n() {
			return nil, false
		}
		ms, master, err := gs.merged(ctx)
		if err != nil {
			return nil, false
		}
		r, err := master.Decide(eps)
		if err == nil && r.Mechanism == nil && !r.Unsettled && r.Alpha == nil {
			// Refuted by its Lagrangian bound alone: the master's
			// duals, once more, for the proof and the split.
			r, err = master.Probe(eps)
		}
		pricing += master.Rounds
		if err != nil || r.Unsettled {
			return nil, false
		}
		if r.Mechanism != nil {
			p := gs.unmerge(r.Mechanism)
			if pat.Holds(p) && leakage.PMLOver(set, p) <= eps+certify.AuditTol {
				return p, false
			}
			return nil, false
		}
		if r.Alpha == nil {
			return nil, false
		}
		alpha := shareByMass(set.Center, ms.Center, gs.of, r.Alpha)
		if lb, _, ok := colgen.RobustBound(set, pat, alpha); ok && lb > eps {
			return nil, true
		}
		if !gs.split(alpha, math.Exp(-eps)) {
			return nil, false
		}
	}
	return nil, false
}

// groups are the groups of inputs of a merged problem of the pattern over
// the set: input i lies in group of[i] of k; rows lists the inputs each
// output allows. prev is the last merged problem's master and parent[h]
// the group of prev's problem that group h lies in, for the next master's
// columns (InheritSplit).
type groups struct {
	set    *mech.PriorSet
	pat    mech.Pattern
	rows   [][]int
	of     []int
	k      int
	prev   *colgen.RobustMaster
	parent []int
}

// newGroups returns the groups of start's equal rows, or nil where start
// does not fit the pattern or is not mergeable.
func newGroups(set *mech.PriorSet, pat mech.Pattern, start mech.Mechanism) *groups {
	n := len(pat)
	if n == 0 || len(start) != n || !mergeable(start) {
		return nil
	}
	gs := &groups{set: set, pat: pat, rows: make([][]int, len(pat[0]))}
	gs.of, gs.k = equalRows(start, nil)
	for i, row := range pat {
		for j, ok := range row {
			if ok {
				gs.rows[j] = append(gs.rows[j], i)
			}
		}
	}
	return gs
}

// n is the number of inputs.
func (gs *groups) n() int { return len(gs.of) }

// merged returns the merged problem's set and its master, which holds the
// last master's columns split to the groups.
func (gs *groups) merged(ctx context.Context) (*mech.PriorSet, *colgen.RobustMaster, error) {
	ms, err := gs.set.Merge(gs.of, gs.k)
	if err != nil {
		return nil, nil, err
	}
	master, err := colgen.NewRobust(ms, gs.pat.Merge(gs.of, gs.k))
	if err != nil {
		return nil, nil, err
	}
	master.InheritSplit(gs.prev, gs.parent)
	gs.prev = master
	master.SetStop(func() bool { return ctx.Err() != nil })
	return ms, master, nil
}

// unmerge gives each input its group's row of the merged mechanism p.
func (gs *groups) unmerge(p mech.Mechanism) mech.Mechanism {
	whole := make(mech.Mechanism, len(gs.of))
	for i, g := range gs.of {
		whole[i] = slices.Clone(p[g])
	}
	return whole
}

// split splits the groups by the best column that prices in against alpha
// at mu and differs within a group (splitByPricing); false where none
// does.
func (gs *groups) split(alpha []float64, mu float64) bool {
	of, k := splitByPricing(gs.set, gs.rows, alpha, mu, gs.of, gs.k)
	if k == gs.k {
		return false
	}
	gs.parent = make([]int, k)
	for i, h := range of {
		gs.parent[h] = gs.of[i]
	}
	gs.of, gs.k = of, k
	return true
}

// mergeable reports whether the mechanism p has more than one distinct
// row and at most half as many as rows: merging its equal rows leaves a
// problem of at most half the inputs.
func mergeable(p mech.Mechanism) bool {
	if len(p) == 0 {
		return false
	}
	_, k := equalRows(p, nil)
	return k > 1 && 2*k <= len(p)
}

// mergeMaxRounds is the number of merged problems leastByMerging and
// decideByMerging solve at most, mergeMaxPricing the pricing rounds per
// input their masters may run in all: past them the whole problem's search
// is the faster, or, for a decision, the interior point and the LP. A
// split most often adds one or two groups, and the counting queries'
// value patterns at 64 letters and more close only past twelve merged
// problems, each a few rounds, where the whole search's proof takes
// hundreds; the pricing cap bounds what the rounds may cost.
const (
	mergeMaxRounds  = 24
	mergeMaxPricing = 10
)

// mergeMinInputs is the fewest inputs whose least ε leastByColumnsFrom
// asks of merged problems first.
const mergeMinInputs = 16

// mergeBelow is how far below a merged search's lower end its master is
// probed for multipliers where the search closed without them.
const mergeBelow = 1e-7

// shareByMass shares each group's multiplier among its inputs in
// proportion to their estimated masses (all positive).
func shareByMass(center, merged []float64, of []int, groupAlpha []float64) []float64 {
	alpha := make([]float64, len(of))
	for i, g := range of {
		alpha[i] = groupAlpha[g] * center[i] / merged[g]
	}
	return alpha
}

// splitByPricing prices every output against alpha at mu
// (colgen.PriceColumn) and splits the groups of (of, k) by the entries of
// the best-priced column whose entries differ within some group; it
// returns the groups unchanged where none does.
func splitByPricing(set *mech.PriorSet, rows [][]int, alpha []float64, mu float64, of []int, k int) ([]int, int) {
	type priced struct {
		val float64
		v   []float64
	}
	var cols []priced
	for _, in := range rows {
		if len(in) == 0 {
			continue
		}
		if v, val, ok := colgen.PriceColumn(set, alpha, in, mu); ok {
			cols = append(cols, priced{val, v})
		}
	}
	slices.SortStableFunc(cols, func(a, b priced) int { return cmp.Compare(b.val, a.val) })
	for _, c := range cols {
		if split, kk := equalRows(mech.Mechanism{c.v}, of); kk > k {
			return split, kk
		}
	}
	return of, k
}

// equalRows numbers the inputs' classes: for a mechanism of n rows, the
// inputs whose rows are equal (to mergeQuantum); for one row v of n
// entries (with within, a grouping of the n inputs), the inputs of a group
// whose entries of v are equal. It returns each input's class and their
// number.
func equalRows(p mech.Mechanism, within []int) ([]int, int) {
	n := len(p)
	if within != nil {
		n = len(within)
	}
	quantum := func(v float64) int64 { return int64(math.Round(v / mergeQuantum)) }
	of := make([]int, n)
	class := make(map[string]int)
	var key []byte
	for i := range n {
		key = key[:0] // the quantised row of input i
		if within != nil {
			key = binary.AppendVarint(key, int64(within[i]))
			key = binary.AppendVarint(key, quantum(p[0][i]))
		} else {
			for _, v := range p[i] {
				key = binary.AppendVarint(key, quantum(v))
			}
		}
		c, ok := class[string(key)]
		if !ok {
			c = len(class)
			class[string(key)] = c
		}
		of[i] = c
	}
	return of, len(class)
}

// mergeQuantum is the resolution at which entries count as equal: a
// master's rows are sums of its columns' weights, equal up to rounding
// where its optimum sends inputs through the same row.
const mergeQuantum = 1e-9
