package overset

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/worstcase"
)

// Bracket is the least PML over a prior set for one pattern: [Lower,
// Upper] with Mechanism audited at Upper over the set (Upper +Inf and
// Mechanism nil when the backend finds no mechanism even at
// maxEpsilon; both +Inf when certificate.NoFiniteLevel proves that none
// exists).
type Bracket struct {
	Lower, Upper float64
	Mechanism    mech.Mechanism
	// LPs is the number of LPs the LP backend solved.
	LPs int
	// Proofs are the proofs behind Lower, for its certificate.
	Proofs []certificate.Hint
}

// maxEpsilon is the budget (nats) at which LeastEpsilon first looks for a
// mechanism when it is given none. A pattern that needs outputs some prior
// of the set never produces has none at any ε, and is answered before
// (certificate.NoFiniteLevel); one whose outputs some prior of the set makes
// rarer than e^-50 is taken for one of those.
const maxEpsilon = 50

// DefaultTol is the default width of the brackets over a prior set, that
// of the searches at one prior: the robust master's last probe, just below
// an upper end that Newton's estimate reached with an audited mechanism,
// closes them there with its proof. The LP fallback's probes only steer
// its bisection.
const DefaultTol = 1e-9

// Patterns returns the zero patterns of p's worst-case objective, from the
// weakest (every pair allowed) to the strongest, and the threshold each
// stands for.
func Patterns(p *problem.Problem) ([]mech.Pattern, []float64, error) {
	th, pattern, err := patternLevels(p)
	if err != nil {
		return nil, nil, err
	}
	pats := make([]mech.Pattern, len(th))
	for k := range th {
		pats[k] = pattern(k)
	}
	return pats, th, nil
}

// patternLevels returns the thresholds of Patterns and the function that
// builds the pattern of each: a binary search over them builds only the
// few it decides (a utility of distinct values has about N·M).
func patternLevels(p *problem.Problem) ([]float64, func(k int) mech.Pattern, error) {
	if p.Objective == problem.WorstCaseOrder {
		o, err := p.RequireOrder()
		if err != nil {
			return nil, nil, err
		}
		th := make([]float64, len(o[0]))
		for k := range th {
			th[k] = float64(k + 1)
		}
		return th, func(k int) mech.Pattern { return o.Pattern(k + 1) }, nil
	}
	u, err := p.RequireUtility()
	if err != nil {
		return nil, nil, err
	}
	th := u.ReachableValues()
	return th, func(k int) mech.Pattern { return u.Pattern(th[k]) }, nil
}

// BestWorstCase finds the strongest pattern of p's worst-case objective
// for which a mechanism keeps ε-PML over the set (column generation over
// the set; where its master does not settle a pattern, merged problems,
// the interior point's proof and the LP backend, in turn), then brackets
// the least ε over the set for that pattern as LeastEpsilon does, from
// the mechanism found. The bracket's LPs count those of both steps.
func BestWorstCase(ctx context.Context, p *problem.Problem, eps float64, o Options) (Bracket, error) {
	set := p.PriorSet
	slv := o.Solver
	levels, pattern, err := patternLevels(p)
	if err != nil {
		return Bracket{}, err
	}
	lps := 0
	told := false
	var last *colgen.RobustMaster // the last decision's master
	probe := func(pat mech.Pattern, e float64) (mech.Mechanism, *colgen.RobustMaster, error) {
		m, g, ok := decideByColumns(ctx, p, pat, e, last)
		if ok {
			if g != nil {
				last = g
			}
			return m, g, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err // stopped, not unsettled
		}
		if m, refuted := decideOnMergedProblems(ctx, p, pat, g, e); m != nil || refuted {
			return m, nil, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if refutedByInteriorPoint(ctx, p, pat, e) {
			return nil, nil, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if !told && o.Expected.Notify != nil {
			told = true
			o.Expected.Notify(lpNote(len(p.Prior), len(pat[0]), slv.Name(), "deciding the worst case"))
		}
		m, _, n, err := solveLP(ctx, mechSpec(p.Prior, pat, e), set, slv)
		lps += n
		return m, nil, err
	}
	// Feasibility falls as the pattern strengthens; the weakest pattern
	// (every pair allowed) always holds the independent mechanism.
	best, bestM := -1, mech.Mechanism(nil)
	var bestG *colgen.RobustMaster // the master that found bestM, if one did
	lo, hi := 0, len(levels)-1
	decided := 0
	stand := o.Stand
	tell := func(lower, upper float64) {
		if stand != nil {
			stand(worstcase.Stand{Decided: decided, Decisions: decided + worstcase.DecisionsLeft(hi-lo+2), Lower: lower, Upper: upper})
		}
	}
	for ; lo <= hi; decided++ {
		tell(math.NaN(), math.NaN())
		if err := ctx.Err(); err != nil {
			return Bracket{}, err
		}
		mid := (lo + hi) / 2
		m, g, err := probe(pattern(mid), eps)
		if err != nil {
			return Bracket{}, err
		}
		if m != nil {
			best, bestM, bestG = mid, m, g
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if best < 0 {
		return Bracket{}, fmt.Errorf("prior_set: the %s backend found no mechanism over the prior set, not even the independent one", slv.Name())
	}
	tell(math.NaN(), math.NaN())
	if stand != nil {
		// The bracket's search: every decision taken.
		o.Stand = func(s worstcase.Stand) {
			s.Decided, s.Decisions = decided, decided
			stand(s)
		}
	}
	pat := pattern(best)
	r, ok, err := leastByColumnsFrom(ctx, p, pat, bestG, bestM, o)
	if !ok && err == nil {
		r, err = LeastEpsilon(ctx, p, pat, bestM, o)
	}
	if err != nil {
		return Bracket{}, err
	}
	r.LPs += lps
	tell(r.Lower, r.Upper)
	return r, nil
}

// decideByColumns is BestWorstCase's first means for each decision.
// Tests replace it by one that leaves the master's decisions unsettled,
// as a master of a few hundred rows stalls, to drive the routes that
// follow on an instance that takes a second; they restore it before they
// end.
var decideByColumns = probeByColumns

// LeastEpsilon brackets the least PML over p's prior set of a mechanism
// with the pattern: by column generation over the set where it answers,
// else the upper end by bisection on the LP backend (each mechanism
// audited over the set) and the lower end by lowerAtSetPriors; both ends
// are +Inf, with no search, when certificate.NoFiniteLevel proves it. start,
// if not nil, is a mechanism with the pattern that keeps some budget over
// the set.
func LeastEpsilon(ctx context.Context, p *problem.Problem, pat mech.Pattern, start mech.Mechanism, o Options) (Bracket, error) {
	if start == nil && certificate.NoFiniteLevel(p, pat) {
		return Bracket{Lower: math.Inf(1), Upper: math.Inf(1)}, nil
	}
	if q := colgen.IndependentOver(pat); q != nil {
		return Bracket{Mechanism: q}, nil // PML 0 at every prior
	}
	if r, ok, err := leastByColumns(ctx, p, pat, o); ok || err != nil {
		return r, err
	}
	set := p.PriorSet
	var r Bracket
	rp := &prober{ctx: ctx, prior: p.Prior, pat: pat, set: set, slv: o.Solver}
	defer rp.close()
	probe := func(e float64) (mech.Mechanism, error) {
		m, n, err := rp.probe(e)
		r.LPs += n
		return m, err
	}
	// The pruning bound over the set is a lower end for free (the
	// certificate proves it by its own rule); a start at that level closes
	// the bracket without the set's priors' searches or an LP.
	pruning := colgen.SetPruningBound(set, pat)
	if start != nil && !math.IsInf(pruning, 1) {
		if up := leakage.PMLOver(set, start); up-pruning <= o.tol() {
			return Bracket{Lower: min(pruning, up), Upper: up, Mechanism: start}, nil
		}
	}
	if o.Expected.Notify != nil {
		o.Expected.Notify(lpNote(len(p.Prior), len(pat[0]), o.Solver.Name(), "bracketing the least ε"))
	}
	var hint certificate.Hint
	r.Lower, hint = lowerAtSetPriors(ctx, p, pat, o)
	r.Proofs = []certificate.Hint{hint}
	r.Upper, r.Mechanism = math.Inf(1), start
	if start == nil {
		m, err := probe(max(r.Lower, maxEpsilon))
		if err != nil {
			return r, err
		}
		r.Mechanism = m
	}
	if r.Mechanism == nil {
		return r, nil
	}
	r.Upper = leakage.PMLOver(set, r.Mechanism)
	tol := o.tol()
	a := r.Lower
	for it := 0; it < 80 && r.Upper-a > tol; it++ {
		o.report(r.Lower, r.Upper)
		if err := ctx.Err(); err != nil {
			return r, err
		}
		mid := (a + r.Upper) / 2
		m, err := probe(mid)
		if err != nil {
			return r, err
		}
		if m == nil {
			a = mid // the backend's word, not a proof: it only steers the search
			continue
		}
		r.Upper, r.Mechanism = leakage.PMLOver(set, m), m
	}
	r.Lower = min(r.Lower, r.Upper)
	return r, nil
}

// lowerAtSetPriors is the largest proven lower bound on the least PML
// with the pattern at the estimate and at the set's extreme priors for a
// few directions (each column of the identity, cheapest and dearest): a
// mechanism that is ε-PML for every prior of the set is ε-PML at each of
// them. The hint holds the prior and the multipliers of the bound
// returned, for its certificate.
func lowerAtSetPriors(ctx context.Context, p *problem.Problem, pat mech.Pattern, o Options) (float64, certificate.Hint) {
	best := 0.0
	var hint certificate.Hint
	bo := worstcase.Options{Solver: o.PointSolver, Tol: o.Tol}
	for _, pi := range setPriors(p.Prior, p.PriorSet) {
		r, err := worstcase.LeastEpsilon(ctx, pi, pat, bo)
		if err == nil && r.OptimalEpsilonLower > best {
			best, hint = r.OptimalEpsilonLower, certificate.Hint{Prior: pi, Alpha: r.Proof}
		}
	}
	return best, hint
}

// lpNote is the notice before a worst-case search over the set goes to
// the LP over the set (what, an n×m one, on the backend named slv):
// past robustColumnsMaxLetters because the column generation does not
// serve that size, below it because its master did not settle.
func lpNote(n, m int, slv, what string) string {
	why := "the column generation over the prior set did not settle"
	if n > robustColumnsMaxLetters {
		why = fmt.Sprintf("the column generation over the prior set serves up to %d letters", robustColumnsMaxLetters)
	}
	return fmt.Sprintf("%s: %s by the %d×%d LP over the set with %s, which can take long", why, what, n, m, slv)
}
