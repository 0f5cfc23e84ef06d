package overset

import (
	"context"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// prober answers the probes of a bisection on ε over a prior set for one
// zero pattern: the ε-PML feasibility LP of BuildRobust, loaded once into
// the backend and re-solved from its last basis with only the
// coefficients e^ε changed (polytope.RobustModel.SetUpperLevel), instead
// of being built and solved from scratch at every probe. A probe above
// the level the model was built for, a backend without sessions, an
// engine error or a mechanism that fails the audit over the set falls
// back on solveLP at that ε, so the answers are those of solveLP: a
// mechanism audited over the set, or nil (the backend's word, which only
// steers the search).
type prober struct {
	ctx   context.Context // ends the probes' solves (solver.StoppableSession)
	prior mech.Prior
	pat   mech.Pattern
	set   *mech.PriorSet
	slv   solver.Solver
	mod   *polytope.RobustModel
	sess  solver.Session
	built float64
}

// warmProbeLevel is the largest ε (nats) a loaded model is re-solved at.
// The first probe of a search without a mechanism asks at maxEpsilon,
// where e^ε is about 5e21: a basis of that model is no start for the
// probes near the answer (the engine's scaling is that of the first
// model), so such probes are solved from scratch.
const warmProbeLevel = 10

func (rp *prober) spec(e float64) polytope.Spec { return mechSpec(rp.prior, rp.pat, e) }

// probe returns an ε-PML mechanism over the set with the pattern, or nil,
// and the number of LPs it solved.
func (rp *prober) probe(e float64) (mech.Mechanism, int, error) {
	if m, ok := rp.warm(e); ok {
		return m, 1, nil
	}
	m, _, n, err := solveLP(rp.ctx, rp.spec(e), rp.set, rp.slv)
	return m, n, err
}

// warm answers the probe from the loaded model; ok is false when it can
// not (the caller then solves from scratch).
func (rp *prober) warm(e float64) (mech.Mechanism, bool) {
	ws, isWarm := rp.slv.(solver.WarmSolver)
	if !isWarm || e > warmProbeLevel {
		return nil, false
	}
	if rp.sess == nil || e > rp.built {
		rp.close()
		mod, err := polytope.BuildRobust(rp.spec(e), rp.set)
		if err != nil {
			return nil, false
		}
		sess, err := ws.Load(mod.LP)
		if err != nil {
			return nil, false
		}
		if ss, ok := sess.(solver.StoppableSession); ok {
			ss.SetStop(func() bool { return rp.ctx.Err() != nil })
		}
		rp.mod, rp.sess, rp.built = mod, sess, e
	} else if err := rp.mod.SetUpperLevel(rp.sess, e); err != nil {
		return nil, false
	}
	sol, err := rp.sess.Solve()
	if err != nil {
		rp.close() // the next probe loads the model afresh
		return nil, false
	}
	if sol.Status == solver.Infeasible {
		return nil, true
	}
	if sol.Status != solver.Optimal {
		return nil, false
	}
	m := rp.mod.Mechanism(sol.X)
	b := mech.Budget{Measure: mech.PML, Epsilon: e}
	if (rp.pat != nil && !rp.pat.Holds(m)) || !withinOver(rp.set, m, b) {
		return nil, false
	}
	return m, true
}

func (rp *prober) close() {
	if rp.sess != nil {
		rp.sess.Close()
		rp.sess = nil
	}
}

// mechSpec is the feasibility spec of an ε-PML mechanism with the pattern.
func mechSpec(pi mech.Prior, pat mech.Pattern, e float64) polytope.Spec {
	return polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: e}, Pattern: pat}
}

// robustColumnsMaxLetters is the largest problem (inputs) whose searches
// over a prior set go through colgen's robust master, as the nominal
// searches go through its master below 512 letters.
const robustColumnsMaxLetters = 512

// leastByColumns is LeastEpsilon by colgen.RobustLeastEpsilon: one
// master over the set, its columns priced by cutting planes over the
// set's worst priors, no LP. The upper end is audited over the set, the
// lower end proven with a prior of the set per output (or the pruning
// bound over the set), as the certificate checks it. ok is false when the
// engine found no mechanism or failed: the caller then takes the LP
// route.
func leastByColumns(ctx context.Context, p *problem.Problem, pat mech.Pattern, o Options) (Bracket, bool, error) {
	return leastByColumnsFrom(ctx, p, pat, nil, nil, o)
}

// leastByColumnsFrom is leastByColumns on the master g (a new one when
// nil), with start, if not nil, a mechanism with the pattern.
func leastByColumnsFrom(ctx context.Context, p *problem.Problem, pat mech.Pattern, g *colgen.RobustMaster, start mech.Mechanism, o Options) (Bracket, bool, error) {
	var r Bracket
	if len(p.Prior) > robustColumnsMaxLetters {
		return r, false, nil
	}
	tol := o.tol()
	if g == nil {
		var err error
		if g, err = newMaster(p, pat); err != nil {
			return r, false, nil
		}
	}
	// Where start (else the estimate routed along the pattern's cover)
	// sends groups of inputs through equal rows, the problem with each
	// group merged into one input is solved first: often its answer
	// closes the bracket on the whole problem, and otherwise its ends
	// stand where they are the better ones. Its mechanism does not start
	// the search: a search started just above ε* probes first where the
	// master is at its most degenerate.
	// Not where an output open to every input answers at ε = 0, nor
	// below mergeMinInputs inputs, where the whole search takes a
	// fraction of a millisecond and a merged problem that does not close
	// costs as much, nor where a symmetry folds the master into a
	// quarter of its rows or fewer (a grid's reflections): its search
	// then settles in a fraction of the merged problems' rounds. A
	// line's reflection, which halves them, still gains by merging.
	from := start
	if len(pat) < mergeMinInputs || colgen.IndependentOver(pat) != nil || g.Rows()*4 <= len(pat) {
		from = nil
	} else if !mergeable(from) {
		from = g.CoverFlow()
	}
	var merged Bracket
	if mergeable(from) {
		merged = leastByMerging(ctx, p.PriorSet, pat, from, tol, o.report)
		if err := ctx.Err(); err != nil {
			return r, false, err
		}
		if merged.Mechanism != nil && merged.Upper-merged.Lower <= tol {
			return merged, true, nil
		}
	}
	// The stand told is the better of each end, so that it only narrows.
	report := o.report
	if merged.Mechanism != nil {
		report = func(lower, upper float64) { o.report(max(lower, merged.Lower), min(upper, merged.Upper)) }
	}
	if o.Stand != nil {
		g.SetReport(report)
		defer g.SetReport(nil)
	}
	b, err := g.LeastEpsilon(ctx, tol, start)
	if err != nil && ctx.Err() != nil {
		return r, false, ctx.Err()
	}
	if err == nil && b.Mechanism != nil && !math.IsInf(b.Upper, 0) && !math.IsNaN(b.Lower) && !math.IsInf(b.Lower, 0) {
		r.Lower, r.Upper, r.Mechanism = min(b.Lower, b.Upper), b.Upper, b.Mechanism
		if b.Alpha != nil {
			r.Proofs = []certificate.Hint{{Priors: b.Priors, Alpha: b.Alpha}}
		}
	}
	keepBetterEnds(&r, merged)
	if r.Mechanism == nil {
		return r, false, nil
	}
	finishByLP(ctx, &r, p.PriorSet, p.Prior, pat, o.Solver, tol, o.Expected.Notify, report)
	finishByInteriorPoint(ctx, &r, g, p.PriorSet, pat, tol, report)
	if err := ctx.Err(); err != nil {
		return r, false, err
	}
	return r, true, nil
}

// keepBetterEnds gives r the better of each end of r and m, both brackets
// of the same pattern's least ε over the set, each end audited or proven
// (an empty r, with no mechanism, takes m's): the lower upper end with its
// mechanism, the higher lower end with its proof, the lower end kept at
// most the upper (a proof may come out a rounding above an audit).
func keepBetterEnds(r *Bracket, m Bracket) {
	if m.Mechanism != nil && (r.Mechanism == nil || m.Upper < r.Upper) {
		r.Upper, r.Mechanism = m.Upper, m.Mechanism
	}
	if r.Mechanism == nil {
		return
	}
	if m.Proofs != nil && m.Lower > r.Lower {
		r.Lower, r.Proofs = m.Lower, m.Proofs
	}
	r.Lower = min(r.Lower, r.Upper)
}

// newMaster returns colgen's robust master of the pattern over p's set,
// folded by the reflections of a location grid (worstcase.DetectSymmetry),
// else by the reflection of a line (lineReflection), where they leave
// the utility, the estimate, the set and the pattern unchanged
// (colgen.NewRobustSymmetric): a square grid's master then has about an
// eighth of the rows, a line's half, and its optimum, reached by a
// mechanism the reflections keep, is the same.
func newMaster(p *problem.Problem, pat mech.Pattern) (*colgen.RobustMaster, error) {
	if p.Utility != nil {
		var syms []*colgen.Symmetry // the larger group first
		if s := worstcase.DetectSymmetry(p.PriorSet.Center, p.Utility); s != nil && len(s.In) > 0 {
			syms = append(syms, &colgen.Symmetry{In: s.In, Out: s.Out})
		}
		syms = append(syms, lineReflection(p.Utility))
		for _, sym := range syms {
			if sym == nil {
				continue
			}
			// A group that moves the set's bounds or the pattern is
			// refused; a smaller one may still keep them.
			if g, err := colgen.NewRobustSymmetric(p.PriorSet, pat, *sym); err == nil {
				return g, nil
			}
		}
	}
	return colgen.NewRobust(p.PriorSet, pat)
}

// lineReflection returns the reflection of a line, input i to N−1−i and
// output j to M−1−j, where it keeps the utility (a loss of the distance
// on a line, buckets of it), or nil.
func lineReflection(u mech.Utility) *colgen.Symmetry {
	n := len(u)
	if n < 2 {
		return nil
	}
	m := len(u[0])
	for i := range n {
		for j := range m {
			if u[n-1-i][m-1-j] != u[i][j] {
				return nil
			}
		}
	}
	in, out := make([]int, n), make([]int, m)
	for i := range in {
		in[i] = n - 1 - i
	}
	for j := range out {
		out[j] = m - 1 - j
	}
	return &colgen.Symmetry{In: [][]int{in}, Out: [][]int{out}}
}

// probeByColumns answers whether a mechanism with the pattern keeps
// ε-PML over the set by a deciding probe of colgen's robust master
// (RobustMaster.Decide, which goes on past a plateau): the
// mechanism (audited over the set) or nil, and the master when one was
// probed (its columns start a search of the same pattern). seed, if not
// nil, is an earlier decision's master over the set, whose columns on
// pat start this one (RobustMaster.Inherit). ok is false when the master
// did not settle or failed: the caller then asks other means, with the
// master where one was built (its pattern's cover, often solved by then,
// routes the estimate for decideOnMergedProblems).
func probeByColumns(ctx context.Context, p *problem.Problem, pat mech.Pattern, eps float64, seed *colgen.RobustMaster) (mech.Mechanism, *colgen.RobustMaster, bool) {
	// The free answers first, at every size: an output open to every
	// input takes everything at PML 0, the pruning bound over the set
	// above ε rules the pattern out, and the utility-safe mechanism may
	// keep ε.
	if q := colgen.IndependentOver(pat); q != nil {
		return q, nil, true
	}
	if colgen.SetPruningBound(p.PriorSet, pat) > eps+certify.AuditTol {
		return nil, nil, true
	}
	if safe := colgen.UniformOverAllowed(pat); safe != nil && leakage.PMLOver(p.PriorSet, safe) <= eps {
		return safe, nil, true
	}
	if len(p.Prior) > robustColumnsMaxLetters {
		return nil, nil, false
	}
	g, err := newMaster(p, pat)
	if err != nil {
		return nil, nil, false
	}
	g.Inherit(seed)
	g.SetStop(func() bool { return ctx.Err() != nil })
	r, err := g.Decide(eps)
	if err != nil || r.Unsettled || r.Mechanism != nil && !(r.PML <= eps+certify.AuditTol) {
		return nil, g, false
	}
	return r.Mechanism, g, true
}

// decideOnMergedProblems decides a pattern at ε by merged problems
// (decideByMerging), their groups those of the estimate routed along the
// pattern's cover (colgen.RobustMaster.CoverFlow), where the whole
// problem's master did not settle: at a few hundred letters of a location
// grid whose prior was estimated, its simplex goes round degenerate
// plateaus for minutes, the interior point's proof often falls short, and
// the LP over the set takes longer still, where a merged problem of a
// tenth of the rows settles in a second. g is the whole problem's master
// of the pattern (probeByColumns'), whose cover gives the routing; where
// there is none (past robustColumnsMaxLetters letters) it asks nothing.
// A mechanism is audited over the set; a refutation is proven on the
// whole pattern.
func decideOnMergedProblems(ctx context.Context, p *problem.Problem, pat mech.Pattern, g *colgen.RobustMaster, eps float64) (mech.Mechanism, bool) {
	if g == nil {
		return nil, false
	}
	return decideByMerging(ctx, p.PriorSet, pat, g.CoverFlow(), eps)
}

// interiorPointProof asks the lean interior point over the set
// (ipm.RobustLean) whether some mechanism with the pattern keeps ε-PML
// over it, and returns multipliers α, one per input, that prove it does
// not (colgen.RobustBound turns them into a lower bound on the least ε
// over the set, most often well above ε), or nil. The interior point
// maximises the expected utility, under the estimate c, of the
// pattern's indicator (1 on its pairs, 0 elsewhere), which a mechanism
// with the pattern holds at C = Σc, its whole mass on them. Its bound B =
// Σβ + K·C, proven by row multipliers β and a prior a_j of the set per
// output (every column v of a mechanism keeping ε at a_j has
// (c − β)·v ≤ K c·v), makes α = (1 − K)c − β a Farkas certificate when B
// < C: α·v ≤ 0 on every such column, and Σα = C − B > 0, so no mixture
// of them sums to 1 on every row. Such columns include those that keep
// ε over the set, whose least mass is at most a_j·v.
func interiorPointProof(ctx context.Context, set *mech.PriorSet, pat mech.Pattern, eps float64) []float64 {
	u := make(mech.Utility, len(pat))
	for i, row := range pat {
		u[i] = make([]float64, len(row))
		for j, a := range row {
			if a {
				u[i][j] = 1
			}
		}
	}
	r := ipm.RobustLean(ipm.RobustProblem{Utility: u, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Set: set}, ipm.Options{Context: ctx})
	if r == nil || len(r.Alpha) != len(pat) {
		return nil
	}
	// The bound is on the expected utility under the set's centre c, as
	// written (ipm.RobustBound), whose total C is the indicator's largest
	// value.
	total, sumBeta := 0.0, 0.0
	for _, v := range set.Center {
		total += v
	}
	for _, b := range r.Alpha {
		sumBeta += b
	}
	if !(r.Bound < total*(1-leanRefuteMargin)) {
		return nil
	}
	k := (r.Bound - sumBeta) / total
	alpha := make([]float64, len(pat))
	for i, b := range r.Alpha {
		alpha[i] = (1-k)*set.Center[i] - b
	}
	return alpha
}

// refutedByInteriorPoint reports whether interiorPointProof's multipliers
// prove the least ε over the set of a mechanism with the pattern above
// ε (colgen.RobustBound). It is asked where the robust master did not
// settle a decision at the budget, whose ε* is then most often within a
// few 1e-3 of it, and saves the LP over the set; where it proves nothing
// the LP decides.
func refutedByInteriorPoint(ctx context.Context, p *problem.Problem, pat mech.Pattern, eps float64) bool {
	if len(p.Prior) > robustColumnsMaxLetters {
		return false // past the master's sizes, where nobody measured it
	}
	alpha := interiorPointProof(ctx, p.PriorSet, pat, eps)
	if alpha == nil {
		return false
	}
	lb, _, ok := colgen.RobustBound(p.PriorSet, pat, alpha)
	return ok && lb > eps
}

// leanRefuteMargin is how far below C interiorPointProof wants the
// interior point's bound, relative to C: far above the rounding of its
// sums (about 1e-15 per term), far below the gaps it refutes (the bound
// falls short of C by 1e-7 and more where the pattern's least ε is 1e-5
// above the budget).
const leanRefuteMargin = 1e-9
