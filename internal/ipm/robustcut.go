package ipm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/internal/golden"
	"github.com/pmlopt/pmlopt/internal/vec"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
)

// RobustProblem is an expected-utility problem over a set of priors:
// maximise Σ_ij π̂_i u_ij p_ij (π̂ = Set.Center, the estimate) over the
// mechanisms that keep Budget (PML, LIP or ALIP) for every prior of Set.
type RobustProblem struct {
	Utility mech.Utility
	Budget  mech.Budget
	Set     *mech.PriorSet
}

// RobustResult is SolveRobust's answer.
type RobustResult struct {
	// Mechanism keeps the budget over the set up to RobustBudgetSlack;
	// Level is its audited level over the set (ε_u for ALIP, LevelLower
	// its ε_l), as leakage.LevelOver gives them.
	Mechanism         mech.Mechanism
	Level, LevelLower float64
	// Value is the mechanism's expected utility under the estimate; Bound
	// an upper bound on the robust optimum, proven by the multipliers
	// Alpha of the rows Σ_j p_ij = 1 with, for each output j, the prior
	// Priors[j] of the set in its column's constraint (RobustBound).
	Value, Bound float64
	Alpha        []float64
	Priors       [][]float64
	// Under LIP and ALIP, BoundTwo is the upper bound proven by Alpha
	// with two priors per output, PriorsUpper[j] for the upper caps and
	// PriorsLower[j] for the lower ones, and CapWeights[j] = [R, T] the
	// totals of the caps' multipliers (RobustBoundTwo); +Inf when absent.
	BoundTwo                 float64
	PriorsUpper, PriorsLower [][]float64
	CapWeights               [][]float64
	// Rounds is the number of interior-point solves, Cuts the priors
	// added to the outputs' lists beyond the first ones, Iterations the
	// interior-point iterations of all rounds.
	Rounds, Cuts, Iterations int
	// Converged reports that the last round's interior point reached
	// SolveRobust's gap on the relaxation over the lists (whose
	// optimum, with no cut left to add, is the robust one).
	Converged bool
	// pending is settle's check of a stalled run, left for when the run
	// is wanted (resolve); nil once done.
	pending func() error
}

// RobustBudgetSlack is the relative excess of the returned mechanism's
// level over the set above the budget that SolveRobust accepts without
// mixing (the rounding of the interior point's residuals).
const RobustBudgetSlack = 1e-9

// robustCutTol is the relative violation of an output's constraint over
// the set below which no prior is added to its list.
const robustCutTol = 1e-9

// robustFeasTol is the largest residual of the scaled equations at which
// the relaxation's complementarity counts as its duality gap.
const robustFeasTol = 1e-9

// robustTiedRounds is the round from which SolveRobust gives up when a
// round cuts more than half of the outputs' constraints: columns with
// many tied entries (the Hamming utility's) over a box have as many
// worst priors as ways to break the ties, and every round finds others.
// The dualised LP, which holds them all, is the better route there.
const robustTiedRounds = 3

// robustTieTol is the relative size below which separate takes the
// entries of a column as tied.
const robustTieTol = 1e-7

// robustLooseTol is the relative gap and residual at which a round of
// SolveRobust first looks for cuts.
const robustLooseTol = 1e-4

// robustAcceptGap is the largest relative gap and residual of the last
// point at which settle answers at once when its iterations stall short
// of the gap aimed at: the value is then within about that much of the
// optimum. A run that stalls past it is held back (errStalledWithinGap
// where its value is within the accepted gap of its bound), and answers
// only where no later route does.
const robustAcceptGap = 1e-8

// robustRegs are the relative regularisations of the output blocks'
// prior rows (robustIPM.reg) in the runs that SolveRobust repeats after a
// breakdown or a stall, the smallest first: large enough to keep the
// blocks' inverses accurate with several tight priors, small enough for
// the iterations to reach robustRegAcceptGap; a larger one answers some
// stalls of a smaller one (most of them over L1 balls at 16 letters).
var robustRegs = []float64{1e-8, 1e-7, 1e-6}

// robustRegAcceptGap is robustAcceptGap for a point of the regularised
// iterations, whose stalls leave the value further from the optimum
// than the plain iterations' at the same gap.
const robustRegAcceptGap = 1e-9

// robustHeldGap is the relative gap and residual of a round's point below
// which SolveRobust keeps it rather than rerun the round regularised, and
// at which a regularised rerun stops: its value is then within about that
// much of the relaxation's optimum, a tenth of the tolerance the answers
// are held to (robustRegAcceptGap).
const robustHeldGap = 1e-10

// robustGap is the least relative duality gap SolveRobust aims at on each
// round's relaxation: its iterations break down soon below it.
const robustGap = 1e-11

// robustSnapshot holds what SolveRobust reads off a round's best point:
// the mechanism's entries and the multipliers of the rows and the lists.
type robustSnapshot struct {
	p, y     []float64
	bet, gam [][]float64
}

func (s *robustSnapshot) save(x *robustIPM) {
	s.p, s.y = append(s.p[:0], x.p...), append(s.y[:0], x.y...)
	s.bet, s.gam = copyRows(s.bet, x.bet), copyRows(s.gam, x.gam)
}

func (s *robustSnapshot) restore(x *robustIPM) {
	copy(x.p, s.p)
	copy(x.y, s.y)
	copyRows(x.bet, s.bet)
	copyRows(x.gam, s.gam)
}

// copyRows copies src into dst, allocating dst's rows where needed, and
// returns dst.
func copyRows(dst, src [][]float64) [][]float64 {
	if len(dst) != len(src) {
		dst = make([][]float64, len(src))
	}
	for j := range src {
		dst[j] = append(dst[j][:0], src[j]...)
	}
	return dst
}

// robustDualAfter is the round at which SolveRobust hands a problem
// still cutting to the dualised route (solveRobustDual): a round costs
// about a fifth of the dualised interior point, which answers in one,
// and most problems end within three rounds.
const robustDualAfter = 3

// robustMaxRounds bounds the cutting-plane rounds: the set's extreme
// points are finitely many, but ties can make many rounds. Rounds that
// each cut a few outputs' constraints are a slow tail worth running out:
// a round costs about a solve at one prior, the LP that decides after the
// last one far more (docs/performance.md, "More cutting-plane rounds").
const robustMaxRounds = 30

// ErrRobustNotConverged means that SolveRobust did not reach a certified
// optimum over the set within its rounds and iterations.
var ErrRobustNotConverged = errors.New("ipm: the interior point over the prior set did not certify the optimum")

// SolveRobust returns an optimal mechanism of p over its prior set, with
// an upper bound on the optimum proven with one prior of the set per
// output.
//
// A box that leaves some mass free is tried first by the dualised
// interior point specialised to it (leanBox under ε-PML, leanTwo under
// LIP and ALIP); its answer stands when settle certifies it, and
// otherwise the routes below decide as if it had not run
// (solveRobustRounds). An L1 ball of positive radius is tried first
// likewise, by leanBall under ε-PML and leanBallTwo under LIP and ALIP.
//
// The first route is cutting planes over the set's extreme priors: each
// output starts with two priors for each side of its budget, the
// estimate and the set's extreme prior for the output's utilities
// (PriorSet.Extreme of the column u_·j, the least mass on the inputs it
// values most); the relaxed
// problem over these lists is solved by the interior point of robustIPM,
// first to robustLooseTol; every output whose column breaks its
// constraint over the set by more than robustCutTol gets its worst prior
// (PriorSet.Extreme of the column, the greedy closed form) added to its
// list, and the next round solves again. A round that cuts nothing runs
// on to the gap (opt.Gap, at least robustGap) and cuts once more. The
// lists hold priors of the set, so every round's problem is a relaxation
// of the robust one: when the last cuts nothing, its optimum is the
// robust optimum, and the mechanism read off it is audited over the
// whole set (mixed towards its output marginal, should rounding leave it
// above the budget).
//
// The bound is RobustBound's for the multipliers of the rows Σ_j p_ij = 1
// and, for each output, the best of a few priors of the set (the
// multiplier-weighted mixtures of its lists, the estimate). Under PML one
// such prior per output proves the optimum. Under LIP and ALIP the upper
// and the lower caps each have their own mixture, and one prior for both
// may leave the bound above the optimum; BoundTwo is proven with both
// (RobustBoundTwo). A value further than opt.Gap's accepted gap
// (AcceptedGap by default, that of Solve at one prior) below the least of
// the bounds is an error: every answer is certified within it.
//
// A problem still cutting at round robustDualAfter, or whose rounds end
// without an answer (past robustMaxRounds, when a round from
// robustTiedRounds on cuts most outputs: tied columns, whose worst priors
// are as many as the ways to break the ties; when the last round's
// iterations stall short of robustAcceptGap, robustRegAcceptGap for the
// reruns with the output blocks regularised by robustRegs; or when they
// break down before any point near the optimum), goes to the second
// route: the constraints over the set dualised inside one interior point
// (dualIPM), whose worst priors per output, read off its multipliers,
// prove the bound the same way. A set that is a single prior has no
// interior for that route (dualApplies). The error wraps
// ErrRobustNotConverged when neither route answers; the caller then has
// the dualised LP decide. A run of any route that stalled short of its
// tolerance, but whose value lies within the accepted gap of the bound
// its multipliers prove (errStalledWithinGap), is the answer where no
// route answers by its own tolerance: the one of the largest value, not
// Converged, its Rounds and Iterations its own run's. At dozens of
// letters the LP would take minutes. The result returned with
// ErrRobustNotConverged, when not nil, holds the point the cutting
// planes stalled at, neither proven nor within the accepted gap: a start
// for that LP (its worst priors), not an answer.
func SolveRobust(p RobustProblem, opt Options) (*RobustResult, error) {
	set := p.Set
	if set == nil {
		return nil, errors.New("ipm: SolveRobust needs a prior set")
	}
	u := p.Utility
	if _, err := mech.NewUtility(u); err != nil {
		return nil, err
	}
	n, _ := u.Dims()
	if n != set.N() {
		return nil, &mech.FieldError{Field: "utility", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d rows but the prior set has %d letters", n, set.N())}
	}
	b := p.Budget
	mu, kap, lip, err := robustRates(b)
	if err != nil {
		return nil, err
	}
	if mu == 1 || (lip && kap == 1) {
		return nil, ErrRobustNotConverged // no interior: the LP decides
	}
	gap, accept, maxIter, err := opt.settings()
	if err != nil {
		return nil, err
	}
	ctx := opt.ctx()
	pi := normalised(set.Center)
	target := max(gap, robustGap)
	if !dualApplies(set) {
		r, err := solveRobustCuts(ctx, p, pi, mu, kap, lip, maxIter, target, accept, nil)
		if errors.Is(err, errStalledWithinGap) && ctx.Err() == nil {
			return r, nil
		}
		return r, err
	}
	var stalled stalledAnswer
	if r, tried, err := solveRobustLeanRoute(ctx, p, pi, mu, kap, lip, maxIter, target, accept); tried {
		if err == nil {
			return r, nil
		}
		if cerr := ctx.Err(); cerr != nil {
			// A stop during the lean route ends the solve, whatever the
			// route's own error: the rounds would be more work after it.
			return nil, cerr
		}
		stalled.offer(r, err)
	}
	r, err := solveRobustRounds(ctx, p, pi, mu, kap, lip, maxIter, target, accept)
	if err != nil && ctx.Err() == nil {
		if stalled.offer(r, err); stalled.best != nil {
			return stalled.best, nil
		}
	}
	return r, err
}

// solveRobustLeanRoute runs the lean route that takes p's set and budget,
// if any (tried): leanBox or leanTwo over a box, leanBall or leanBallTwo
// over a ball.
func solveRobustLeanRoute(ctx context.Context, p RobustProblem, pi mech.Prior, mu, kap float64, lip bool, maxIter int, target, accept float64) (r *RobustResult, tried bool, err error) {
	if mu == 0 || (lip && kap == 0) {
		// A budget past e^{−ε}'s underflow: the lean starts put t_j at
		// 1/μ, and the routes past them decide.
		return nil, false, nil
	}
	switch {
	case leanFits(p.Set):
		r, err = solveRobustLean(ctx, p, pi, mu, kap, lip, maxIter, target, accept)
	case leanBallApplies(p.Set, lip):
		r, err = solveRobustLeanBall(ctx, p, pi, mu, kap, lip, maxIter, target, accept)
	case leanBallTwoApplies(p.Set, lip):
		r, err = solveRobustLeanBallTwo(ctx, p, pi, mu, kap, lip, maxIter, target, accept)
	default:
		return nil, false, nil
	}
	return r, true, err
}

// solveRobustRounds is SolveRobust past the lean routes: the cutting
// planes, handing over to the dualised route (dualIPM) at round
// robustDualAfter, or after their rounds end without an answer.
func solveRobustRounds(ctx context.Context, p RobustProblem, pi mech.Prior, mu, kap float64, lip bool, maxIter int, target, accept float64) (*RobustResult, error) {
	// The dualised route is tried once: at the hand-over, or after the
	// cutting planes give no answer before it.
	var stalled stalledAnswer
	var derr error
	tried := false
	dual := func() (*RobustResult, error) {
		tried = true
		var r *RobustResult
		r, derr = solveRobustDual(ctx, p, pi, mu, kap, lip, maxIter, target, accept)
		stalled.offer(r, derr)
		return r, derr
	}
	out, err := solveRobustCuts(ctx, p, pi, mu, kap, lip, maxIter, target, accept, dual)
	if err == nil {
		return out, nil
	}
	stalled.offer(out, err)
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if !tried {
		r, derr := dual()
		if derr == nil {
			if out != nil {
				r.Rounds += out.Rounds
				r.Iterations += out.Iterations
				r.Cuts += out.Cuts
			}
			return r, nil
		}
		if ctx.Err() != nil {
			return nil, derr
		}
	}
	if stalled.best != nil {
		// Certified, though stalled: SolveRobust's answer where the lean
		// route left none better.
		return stalled.best, fmt.Errorf("%w; %v (the dualised route: %v)", errStalledWithinGap, err, derr)
	}
	return out, fmt.Errorf("%w (the dualised route: %v)", err, derr)
}

// robustRates returns the rates of budget b's caps: μ = e^{−ε_u} (e^{−ε}
// for ε-PML and LIP), κ = e^{−ε_l} (e^{−ε} for LIP) and whether b has
// lower caps (LIP, ALIP).
func robustRates(b mech.Budget) (mu, kap float64, lip bool, err error) {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	switch b.Measure {
	case mech.PML:
		if bad(b.Epsilon) {
			return 0, 0, false, fmt.Errorf("ipm: budget %g is not a finite number ≥ 0", b.Epsilon)
		}
		return math.Exp(-b.Epsilon), 0, false, nil
	case mech.LIP:
		if bad(b.Epsilon) {
			return 0, 0, false, fmt.Errorf("ipm: budget %g is not a finite number ≥ 0", b.Epsilon)
		}
		return math.Exp(-b.Epsilon), math.Exp(-b.Epsilon), true, nil
	case mech.ALIP:
		if bad(b.EpsilonLower) || bad(b.EpsilonUpper) {
			return 0, 0, false, fmt.Errorf("ipm: budget (%g, %g) is not finite and ≥ 0", b.EpsilonLower, b.EpsilonUpper)
		}
		return math.Exp(-b.EpsilonUpper), math.Exp(-b.EpsilonLower), true, nil
	}
	return 0, 0, false, fmt.Errorf("ipm: SolveRobust takes pml, lip or alip budgets, not %q", b.Measure)
}

// solveRobustCuts is SolveRobust's first route, cutting planes over the
// set's extreme priors. At round robustDualAfter it asks dual (when not
// nil), the second route: its answer, with the rounds, iterations and
// cuts so far added, is returned; without one the rounds go on.
func solveRobustCuts(ctx context.Context, p RobustProblem, pi mech.Prior, mu, kap float64, lip bool, maxIter int, target, accept float64, dual func() (*RobustResult, error)) (*RobustResult, error) {
	set, u := p.Set, p.Utility
	n, m := u.Dims()
	lo, hi := make([][][]float64, m), make([][][]float64, m)
	col := make([]float64, n)
	for j := range m {
		lo[j] = [][]float64{set.Center}
		for i := range n {
			col[i] = u[i][j]
		}
		addPrior(&lo[j], set.Extreme(col, false))
		if lip {
			hi[j] = [][]float64{set.Center}
			addPrior(&hi[j], set.Extreme(col, true))
		}
	}
	res := &RobustResult{}
	first := 0
	for j := range m {
		first += len(lo[j]) + len(hi[j])
	}
	// Each round runs its interior point to robustLooseTol first and
	// cuts there: a prior of the set found at any point makes a valid
	// cut, and most rounds end before the iterations' slow tail. A round
	// whose loose point breaks no constraint over the set runs on to the
	// gap from where it is, and cuts again.
	sides := 1
	if lip {
		sides = 2
	}
	var x *robustIPM
	for round := 0; ; round++ {
		if round == robustDualAfter && dual != nil {
			r, err := dual()
			if err == nil {
				r.Rounds += res.Rounds
				r.Iterations += res.Iterations
				r.Cuts += countCuts(lo, hi) - first
				return r, nil
			}
			if ctx.Err() != nil {
				return nil, err
			}
		}
		if round == robustMaxRounds {
			return nil, fmt.Errorf("%w (%d rounds, %d cuts)", ErrRobustNotConverged, round, countCuts(lo, hi)-first)
		}
		res.Rounds++
		x = newRobustIPM(pi, u, mu, kap, lip, lo, hi)
		iters, done, err := x.runTo(ctx, maxIter, robustLooseTol, robustLooseTol)
		res.Iterations += iters
		if errors.Is(err, ErrRobustNotConverged) {
			// A breakdown before any point near the optimum: once more
			// with the output blocks regularised.
			x = newRobustIPM(pi, u, mu, kap, lip, lo, hi)
			x.reg = robustRegs[0]
			iters, done, err = x.runTo(ctx, maxIter, robustLooseTol, robustLooseTol)
			res.Iterations += iters
		}
		if err != nil {
			return nil, err
		}
		if added := x.separate(set, lo, hi); added > 0 {
			if round >= robustTiedRounds && 2*added > m*sides {
				return nil, fmt.Errorf("%w (round %d cut %d of %d outputs' constraints: tied worst priors)", ErrRobustNotConverged, round+1, added, m)
			}
			continue
		}
		if done {
			iters, done, err = x.runTo(ctx, maxIter, 1e-6, target)
			res.Iterations += iters
			if err != nil {
				return nil, err
			}
		}
		// Stalled short of the gap (the iterations from the loose point,
		// or the loose run itself, which started from the same point and
		// would stall there again): once more with the output blocks
		// regularised, whose directions stay accurate where several
		// tight priors make the blocks nearly singular, by each of
		// robustRegs in turn until a point is the better and within
		// robustRegAcceptGap. A point already within robustHeldGap is
		// kept: the reruns start from scratch and cost more than all the
		// rounds before them, for digits below the answers' tolerance.
		for _, reg := range robustRegs {
			if x.held <= max(robustHeldGap, target) {
				break
			}
			y := newRobustIPM(pi, u, mu, kap, lip, lo, hi)
			y.reg = reg
			iters, _, err := y.runTo(ctx, maxIter, 1e-6, max(target, robustHeldGap))
			res.Iterations += iters
			if err != nil && ctx.Err() != nil {
				return nil, err
			}
			if err == nil && y.held < x.held && y.held <= max(robustRegAcceptGap, target) {
				x = y
				break
			}
		}
		if x.separate(set, lo, hi) > 0 {
			continue
		}
		break
	}
	cuts := countCuts(lo, hi) - first
	out := *x.reading().result(p, pi)
	out.Rounds, out.Cuts, out.Iterations = res.Rounds, cuts, res.Iterations
	out.Converged = x.held <= target
	if x.reg > 0 && !(x.held <= max(robustRegAcceptGap, target)) {
		return &out, fmt.Errorf("%w (the last round's iterations stalled at a relative gap or residual of %.3g)", ErrRobustNotConverged, x.held)
	}
	return &out, settle(&out, p, x.held, target, accept)
}

// settle checks a result whose iterations ended at relative gap or
// residual held: within robustAcceptGap (or the gap aimed at, target,
// when the caller asked for a looser one), a bound not below the value
// (beyond the rounding that RobustBudgetSlack allows, after which the
// bound is raised to the value, a weaker bound) and within accept of the
// least bound proven (BoundTwo under LIP and ALIP, when lower). The gap
// is the answer's own: held is relative to the scaled objective, whose
// unit can be many times the value's, so a point within held of its
// relaxation's optimum can leave the value further from the optimum
// than accept allows. A two-prior bound more than accept above the value
// first gets its caps' totals chosen again (TightenBoundTwo). The error
// wraps ErrRobustNotConverged; for a run that stalled short of
// robustAcceptGap but whose value is within accept of its bound, it
// wraps errStalledWithinGap too, and out is such an answer.
func settle(out *RobustResult, p RobustProblem, held, target, accept float64) error {
	stalled := !(held <= max(robustAcceptGap, target))
	// result computed BoundTwo for these totals: only a bound settle
	// would refuse is worth TightenBoundTwo's second look.
	if out.CapWeights != nil && out.BoundTwo-out.Value > accept*max(1, math.Abs(out.Value)) {
		out.BoundTwo = TightenBoundTwo(p.Set.Center, p.Utility, p.Budget, out.Alpha, out.PriorsUpper, out.PriorsLower, out.CapWeights, out.Value, accept)
	}
	return check(out, held, stalled, accept)
}

// settleLater is settle for a run that ends a route which another run or
// route follows: a stalled run is an answer only where all that follow
// fail, so its check (TightenBoundTwo's sweeps over every output above
// the target, most of a lean solve's time where they run) waits for
// resolve, and the error wraps errStalledPending until then.
func settleLater(out *RobustResult, p RobustProblem, held, target, accept float64) error {
	if held <= max(robustAcceptGap, target) {
		return settle(out, p, held, target, accept)
	}
	out.pending = func() error { return settle(out, p, held, target, accept) }
	return fmt.Errorf("%w (the iterations stalled at a relative gap or residual of %.3g)", errStalledPending, held)
}

// errStalledPending marks a stalled run whose check waits (settleLater).
var errStalledPending = fmt.Errorf("%w: the iterations stalled", ErrRobustNotConverged)

// resolve runs the check that settleLater left pending on r, if any, and
// returns its verdict in place of err (errStalledWithinGap for an answer
// within the accepted gap); other errors come back as they are.
func resolve(r *RobustResult, err error) error {
	if r == nil || r.pending == nil || !errors.Is(err, errStalledPending) {
		return err
	}
	check := r.pending
	r.pending = nil
	return check()
}

// check is settle's verdict on out once its bounds are final.
func check(out *RobustResult, held float64, stalled bool, accept float64) error {
	var refused error
	least := leastBound(out)
	switch {
	case !(out.Bound >= out.Value-RobustBudgetSlack*max(1, math.Abs(out.Value))) || math.IsInf(out.Bound, 0):
		refused = ErrRobustNotConverged
	case max(out.Value, least)-out.Value > accept*max(1, math.Abs(out.Value)):
		refused = fmt.Errorf("%w (the value %.12g is %.3g below the bound its multipliers prove)", ErrRobustNotConverged, out.Value, least-out.Value)
	}
	if refused == nil {
		out.Bound = max(out.Bound, out.Value)
	}
	switch {
	case stalled && refused == nil:
		return fmt.Errorf("%w (the iterations stalled at a relative gap or residual of %.3g)", errStalledWithinGap, held)
	case stalled:
		return fmt.Errorf("%w (the iterations stalled at a relative gap or residual of %.3g)", ErrRobustNotConverged, held)
	}
	return refused
}

// errStalledWithinGap marks a run that stalled short of robustAcceptGap
// but whose value lies within the accepted gap of the bound its
// multipliers prove: an answer as certified as any other (the mechanism
// keeps the budget over the set and the bound holds for every mechanism
// that does, whatever point they were read from), kept back only because
// the routes after it most often end nearer the optimum. SolveRobust
// answers with the best such run where none of its routes answers,
// rather than leave the LP over the set to decide.
var errStalledWithinGap = fmt.Errorf("%w: the iterations stalled, but the value is within the accepted gap of its bound", ErrRobustNotConverged)

// stalledAnswer keeps, of the results that settle refused with
// errStalledWithinGap, the one of the largest value.
type stalledAnswer struct {
	best *RobustResult
}

// offer keeps r when err marks it as such a result and its mechanism's
// value is above the kept one's: every such result is certified within
// the accepted gap, and the better mechanism is the better answer.
func (a *stalledAnswer) offer(r *RobustResult, err error) {
	if err = resolve(r, err); r == nil || !errors.Is(err, errStalledWithinGap) {
		return
	}
	if a.best == nil || r.Value > a.best.Value {
		a.best = r
	}
}

// leastBound is the least of r's bounds: Bound, or BoundTwo where it is
// lower (a NaN BoundTwo leaves Bound to decide).
func leastBound(r *RobustResult) float64 {
	if r.BoundTwo < r.Bound {
		return r.BoundTwo
	}
	return r.Bound
}

// solveRobustDual is SolveRobust's second route: the constraints over
// the set dualised inside one interior point (dualIPM), no rounds. Its
// Rounds is 1 and Cuts 0.
func solveRobustDual(ctx context.Context, p RobustProblem, pi mech.Prior, mu, kap float64, lip bool, maxIter int, target, accept float64) (*RobustResult, error) {
	return solveOnce(ctx, newDualIPM(pi, p.Utility, p.Set, mu, kap, lip), p, pi, min(maxIter, dualMaxIter), target, accept)
}

// dualMaxIter caps the dualised route's iterations: it answers within a
// few dozen; past that it is stalling, and SolveRobust cuts on.
const dualMaxIter = 40

// countCuts is the number of priors in the lists.
func countCuts(lo, hi [][][]float64) int {
	c := 0
	for j := range lo {
		c += len(lo[j]) + len(hi[j])
	}
	return c
}

// runTo iterates from the current point until its residuals and relative
// complementarity are below tol, watching the points below near. done
// reports that it stopped there; otherwise x is left at the best point
// it saw (the iterations may break down after it), whose other variables
// are not restored: such a point is read, not iterated from. An error
// comes only from the context or from a breakdown before any point came
// below near.
func (x *robustIPM) runTo(ctx context.Context, maxIter int, near, tol float64) (iters int, done bool, err error) {
	best := math.Inf(1)
	var snap robustSnapshot
	err = x.run(ctx, maxIter, near, func(it int) (bool, bool) {
		iters = it
		g := x.measureRel()
		if !(g < best) {
			return false, false
		}
		best = g
		done = x.converged(tol)
		if !done {
			snap.save(x)
		}
		return true, done
	})
	x.held = best
	if err != nil && ctx.Err() != nil {
		return iters, false, err
	}
	if err != nil && math.IsInf(best, 1) {
		return iters, false, fmt.Errorf("%w (%v)", ErrRobustNotConverged, err)
	}
	if math.IsInf(best, 1) {
		return iters, false, fmt.Errorf("%w (no point within %g after %d iterations)", ErrRobustNotConverged, near, iters)
	}
	if !done {
		snap.restore(x)
	}
	return iters, done, nil
}

// measureRel is the largest of the relative complementarity and the
// residuals: the relaxation's duality gap at a point that is feasible to
// rounding is its complementarity.
func (x *robustIPM) measureRel() float64 {
	return relativeGap(x.comp, x.primI, x.dualI, vec.Dot(x.c, x.p))
}

// relativeGap is the largest of the complementarity relative to the
// objective obj and the residuals primI and dualI: the duality gap of a
// point feasible to rounding.
func relativeGap(comp, primI, dualI, obj float64) float64 {
	return max(comp/max(1, math.Abs(obj)), max(primI, dualI))
}

// withinGap reports that the relative gap is at most tol and the
// residuals at most tol and robustFeasTol.
func withinGap(comp, primI, dualI, obj, tol float64) bool {
	return comp <= tol*max(1, math.Abs(obj)) && primI <= min(tol, robustFeasTol) && dualI <= min(tol, robustFeasTol)
}

// converged reports that the current point's relative gap is at most tol
// and its residuals at most robustFeasTol.
func (x *robustIPM) converged(tol float64) bool {
	return withinGap(x.comp, x.primI, x.dualI, vec.Dot(x.c, x.p), tol)
}

// addPrior appends pr to the list unless it holds it already.
func addPrior(list *[][]float64, pr []float64) bool {
	for _, q := range *list {
		if slices.Equal(q, pr) {
			return false
		}
	}
	*list = append(*list, pr)
	return true
}

// separate adds to each output's lists the set's worst prior for its
// column at the current point where the column breaks its constraint over
// the set by more than robustCutTol, and returns how many it added.
func (x *robustIPM) separate(set *mech.PriorSet, lo, hi [][][]float64) int {
	n := x.n
	added := 0
	for j := range x.m {
		col := x.p[j*n : (j+1)*n]
		mx, mn := slices.Max(col), slices.Min(col)
		if mx <= clean.InteriorColumnNoise {
			continue
		}
		// The worst prior is that of the column with its entries rounded
		// to robustTieTol of the largest: tied entries (the Hamming
		// utility's) differ by the interior point's noise, and without
		// the rounding each round would break the ties another way and
		// bring another worst prior of the same value.
		c, q := make([]float64, n), tiedColumn(col)
		for i, v := range col {
			c[i] = max(0, v)
		}
		if w := set.Extreme(q, false); mx*x.mu > massOf(w, c)*(1+robustCutTol) {
			if addPrior(&lo[j], w) {
				added++
			}
		}
		if x.lip {
			if w := set.Extreme(q, true); x.kap*massOf(w, c) > mn*(1+robustCutTol) {
				if addPrior(&hi[j], w) {
					added++
				}
			}
		}
	}
	return added
}

// robustReading is what a result is read from: the point's entries
// p[j·n + i] and row multipliers y (of the objective scaled by 1/scale)
// and, for each output, the priors its multipliers weigh (up for the
// upper caps, down for the lower ones; nil where they vanish) and the
// totals of its upper and lower caps' multipliers.
type robustReading struct {
	n, m           int
	lip            bool
	p, y           []float64
	scale          float64
	up, down       [][]float64
	capUp, capDown []float64
}

// reading returns what a result is read from at the current point.
func (x *robustIPM) reading() *robustReading {
	n, m := x.n, x.m
	rd := &robustReading{n: n, m: m, lip: x.lip, p: x.p, y: x.y, scale: x.scale,
		up: make([][]float64, m), down: make([][]float64, m), capUp: make([]float64, m), capDown: make([]float64, m)}
	for j := range m {
		rd.up[j] = x.weights(j, false)
		if x.lip {
			rd.down[j] = x.weights(j, true)
		}
		for i := range n {
			rd.capUp[j] += x.w[j*n+i]
			rd.capDown[j] += x.z[j*n+i]
		}
	}
	return rd
}

// tiedColumn returns the column with its entries clipped at 0 and rounded
// to robustTieTol of the largest, so that entries tied up to the interior
// point's noise give one worst prior.
func tiedColumn(col []float64) []float64 {
	q := make([]float64, len(col))
	step := robustTieTol * slices.Max(col)
	for i, v := range col {
		q[i] = math.Round(max(0, v)/step) * step
	}
	return q
}

// result turns the point read into a mechanism audited over the set,
// with its value and the bound its multipliers prove.
func (x *robustReading) result(p RobustProblem, pi mech.Prior) *RobustResult {
	n, m := x.n, x.m
	read := func(clear float64) mech.Mechanism {
		P := mech.Zeros(n, m)
		for j := range m {
			col := x.p[j*n : (j+1)*n]
			if slices.Max(col) <= clean.InteriorColumnNoise {
				continue // an unused output's ratios are noise
			}
			for i, v := range col {
				if v > clear {
					P[i][j] = v
				}
			}
		}
		for i := range n {
			mech.Normalise(P[i])
		}
		return P
	}
	// The entries off the optimal face are cleared where the mechanism
	// keeps its budget over the set without them; else they stay.
	P := read(certify.DustEntry)
	level, lower, _ := leakage.LevelOver(p.Set, P, p.Budget)
	if !withinBudget(level, lower, p.Budget, RobustBudgetSlack) {
		P = read(0)
		level, lower, _ = leakage.LevelOver(p.Set, P, p.Budget)
	}
	P, level, lower = mixOverSet(pi, P, level, lower, p.Set, p.Budget)
	alpha := make([]float64, n)
	for i, v := range x.y {
		alpha[i] = v * x.scale
	}
	cands := make([][][]float64, m)
	for j := range m {
		up := x.up[j]
		if up != nil {
			cands[j] = append(cands[j], up)
		}
		if x.lip {
			// One prior serves both caps in the certificate: the upper
			// caps' prior, the lower caps', and points between them.
			if down := x.down[j]; down != nil {
				cands[j] = append(cands[j], down)
				if up != nil {
					for _, t := range []float64{0.25, 0.5, 0.75} {
						mix := make([]float64, n)
						for i := range mix {
							mix[i] = (1-t)*up[i] + t*down[i]
						}
						cands[j] = append(cands[j], mix)
					}
				}
			}
		}
		cands[j] = append(cands[j], p.Set.Center)
	}
	bound, priors := RobustBound(p.Set.Center, p.Utility, p.Budget, alpha, cands)
	r := &RobustResult{Mechanism: P, Level: level, LevelLower: lower, Value: p.Utility.ExpectedUtility(p.Set.Center, P),
		Bound: bound, Alpha: alpha, Priors: priors, BoundTwo: math.Inf(1)}
	if x.lip {
		// The relaxation's dual: on output j the caps' multipliers w_·j
		// and z_·j, whose totals scaled back to the estimate's objective
		// are R and T, and the mixtures of the lists' priors by β and γ.
		C := 0.0
		for _, v := range p.Set.Center {
			C += v
		}
		r.PriorsUpper, r.PriorsLower, r.CapWeights = make([][]float64, m), make([][]float64, m), make([][]float64, m)
		for j := range m {
			R, T := x.capUp[j], x.capDown[j]
			up, down := x.up[j], x.down[j]
			if up == nil {
				up, R = p.Set.Center, 0
			}
			if down == nil {
				down, T = p.Set.Center, 0
			}
			r.PriorsUpper[j], r.PriorsLower[j] = up, down
			r.CapWeights[j] = []float64{max(0, C*x.scale*R), max(0, C*x.scale*T)}
		}
		r.BoundTwo = RobustBoundTwo(p.Set.Center, p.Utility, p.Budget, alpha, r.PriorsUpper, r.PriorsLower, r.CapWeights)
	}
	return r
}

// TightenBoundTwo returns RobustBoundTwo's bound for the caps' totals
// caps, or, where that lies more than accept·max(1, |value|) above value
// (the expected utility of the answer's mechanism), the lower one after
// TightenCaps has chosen the totals again for the outputs whose κ keeps it
// there, caps then holding the new totals. value is no bound: the target
// only tells which outputs to work on.
func TightenBoundTwo(c mech.Prior, u mech.Utility, b mech.Budget, alpha []float64, up, down, caps [][]float64, value, accept float64) float64 {
	bound := RobustBoundTwo(c, u, b, alpha, up, down, caps)
	room := accept * max(1, math.Abs(value))
	if !(bound-value > room) || math.IsNaN(value) {
		return bound
	}
	sum := 0.0
	for _, a := range alpha {
		sum += a
	}
	old := make([][]float64, len(caps))
	for j, rt := range caps {
		old[j] = slices.Clone(rt)
	}
	TightenCaps(c, u, b, alpha, up, down, caps, value-sum+room/2)
	// The rounding margin grows with the totals: a bound that did not
	// come down keeps the totals it had.
	if tight := RobustBoundTwo(c, u, b, alpha, up, down, caps); tight < bound {
		return tight
	}
	for j := range caps {
		copy(caps[j], old[j])
	}
	return bound
}

// RobustBoundTwo returns an upper bound on the expected utility
// Σ_ij c_i u_ij p_ij (c the estimate) of every mechanism that keeps the
// LIP or ALIP budget b for every prior of a set, proven by the
// multipliers alpha of the rows Σ_j p_ij = 1 and, for each output j, the
// prior up[j] of its upper caps, down[j] of its lower ones and the totals
// caps[j] = [R, T] of the caps' multipliers: the proof package verify
// checks (twoPriorBound), the priors taken to lie above priors of the set
// (down[j]'s excess δ = Σ down[j] − Σ c shrinking its caps). Each
// output's κ_j, the least κ for which Σ_k max(0, g_k) + max(0, T −
// Σ_k max(0, −g_k)) ≤ R with g_k = C w_kj − κ c_k + hi up_k R − lo (down_k
// − δ hi up_k) T (C = Σ c, w_kj = c_k u_kj − α_k), is found by
// leastKappa; the bound is Σ α_i + max_j κ_j,
// with a margin for rounding. +Inf when some output needs no finite κ.
func RobustBoundTwo(c mech.Prior, u mech.Utility, b mech.Budget, alpha []float64, up, down, caps [][]float64) float64 {
	n, m := u.Dims()
	lo, hi, ok := twoPriorRates(b)
	if !ok || !twoPriorShapes(n, m, c, alpha, up, down, caps) {
		return math.Inf(1)
	}
	C, sum, mag := 0.0, 0.0, 0.0
	for i := range n {
		if math.IsNaN(alpha[i]) || math.IsInf(alpha[i], 0) {
			return math.Inf(1)
		}
		C += c[i]
		sum += alpha[i]
		mag += math.Abs(alpha[i])
	}
	o := newTwoPriorOutput(n)
	worst := math.Inf(-1)
	size := 0.0
	for j := range m {
		o.set(c, u, j, alpha, up[j], down[j], lo, hi, C)
		R, T := caps[j][0], caps[j][1]
		size = max(size, o.size(R, T))
		h, free := o.kappa(c, R, T)
		if free {
			continue
		}
		if math.IsInf(h, 1) {
			return h
		}
		worst = max(worst, h)
	}
	if math.IsInf(worst, -1) {
		worst = 0
	}
	// The count's terms hold κ c_k too, large where κ is.
	for _, ck := range c {
		size = max(size, math.Abs(worst)*ck)
	}
	return sum + worst + 16*float64(n+2)*certify.UnitRoundoff*(mag+size*float64(n)/max(C, 1e-300))
}

// twoPriorRates are the budget's rates e^{−ε_l} and e^{ε_u} as
// RobustBoundTwo counts them, each moved by a few roundings the way that
// weakens the bound; ok is false for a budget without lower caps.
func twoPriorRates(b mech.Budget) (lo, hi float64, ok bool) {
	switch b.Measure {
	case mech.LIP:
		lo, hi = math.Exp(-b.Epsilon), math.Exp(b.Epsilon)
	case mech.ALIP:
		lo, hi = math.Exp(-b.EpsilonLower), math.Exp(b.EpsilonUpper)
	default:
		return 0, 0, false
	}
	return lo * (1 - 8*certify.UnitRoundoff), hi * (1 + 8*certify.UnitRoundoff), true
}

// twoPriorShapes reports whether the estimate c, the multipliers alpha,
// the priors up and down and the caps' totals caps fit n letters and m
// outputs, with every total finite and at least 0 (a proof's).
func twoPriorShapes(n, m int, c, alpha []float64, up, down, caps [][]float64) bool {
	if len(c) != n || len(alpha) != n || len(up) != m || len(down) != m || len(caps) != m {
		return false
	}
	for j := range m {
		if len(up[j]) != n || len(down[j]) != n || len(caps[j]) != 2 {
			return false
		}
		for _, v := range caps[j] {
			if !(v >= 0) || math.IsInf(v, 1) {
				return false
			}
		}
	}
	return true
}

// twoPriorOutput is one output's count in RobustBoundTwo as a function of
// its caps' totals: g_k = cw_k + A_k R + B_k T − κ c_k, with cw_k = C
// (c_k u_kj − α_k), A_k = hi up_k and B_k = lo (δ hi up_k − down_k).
type twoPriorOutput struct {
	cw, coefR, coefT []float64 // cw_k, A_k, B_k
	up, down         []float64 // the priors behind A and B
	base, bp         []float64 // leastKappa's g at κ = 0 and its storage
	lo, hi, delta    float64   // the budget's rates and the lower prior's excess δ
}

func newTwoPriorOutput(n int) *twoPriorOutput {
	return &twoPriorOutput{cw: make([]float64, n), coefR: make([]float64, n), coefT: make([]float64, n),
		base: make([]float64, n), bp: make([]float64, 0, n)}
}

// set makes o output j's count.
func (o *twoPriorOutput) set(c mech.Prior, u mech.Utility, j int, alpha, up, down []float64, lo, hi, C float64) {
	delta := -C
	for _, v := range down {
		delta += v
	}
	o.delta, o.lo, o.hi, o.up, o.down = max(0, delta), lo, hi, up, down
	for i := range o.cw {
		o.cw[i] = C * (c[i]*u[i][j] - alpha[i])
		o.coefR[i] = hi * up[i]
		o.coefT[i] = lo * (o.delta*hi*up[i] - down[i])
	}
}

// kappa is the least κ of the count with caps R and T (leastKappa). It
// forms g_k as RobustBoundTwo always has, up_k·(hi R + lo δ hi T) − lo T
// down_k, which rounds otherwise than A_k R + B_k T, the form of the LP
// in leastCaps.
func (o *twoPriorOutput) kappa(c []float64, R, T float64) (float64, bool) {
	for i := range o.base {
		o.base[i] = o.cw[i] + o.up[i]*(o.hi*R+o.lo*o.delta*o.hi*T) - o.lo*T*o.down[i]
	}
	return leastKappa(o.base, c, T, R, o.bp[:0])
}

// size is the largest magnitude of a term of the count with caps R and T,
// the scale of its rounding.
func (o *twoPriorOutput) size(R, T float64) float64 {
	s := 0.0
	for i := range o.cw {
		s = max(s, math.Abs(o.cw[i])+o.up[i]*o.hi*R+o.lo*T*(o.down[i]+o.delta*o.hi*o.up[i]))
	}
	return s
}

// TightenCaps lowers, where it can, the least κ of each output whose κ
// lies above target by new totals of its caps' multipliers (caps[j] = [R,
// T], replaced in place). Any R, T ≥ 0 make a valid proof with the same α
// and priors, and κ_j is a convex function of them: the least κ over
// them is the small LP
//
//	min κ  s.t.  s_k − A_k R − B_k T + c_k κ ≥ cw_k,  Σ_k s_k ≤ R,
//	             Σ_k (cw_k + A_k R + B_k T − c_k κ) + T ≤ R,  s, R, T ≥ 0,
//
// (the count is max(Σ_k max(0, g_k), Σ_k g_k + T)). The interior point's
// totals are those of its last point; where a letter's mass is a rounding
// of the others' (a binomial's tails), the point's multipliers of its
// caps are read to no digit, and a κ the tails alone set can exceed the
// optimum by orders of magnitude. A new pair is kept only where leastKappa
// finds it lowers κ_j.
func TightenCaps(c mech.Prior, u mech.Utility, b mech.Budget, alpha []float64, up, down, caps [][]float64, target float64) {
	n, m := u.Dims()
	lo, hi, ok := twoPriorRates(b)
	if !ok || !twoPriorShapes(n, m, c, alpha, up, down, caps) {
		return
	}
	C := 0.0
	for _, v := range c {
		C += v
	}
	o := newTwoPriorOutput(n)
	for j := range m {
		o.set(c, u, j, alpha, up[j], down[j], lo, hi, C)
		k0, free := o.kappa(c, caps[j][0], caps[j][1])
		if free || !(k0 > target) {
			continue
		}
		k := func(R, T float64) float64 {
			if h, free := o.kappa(c, R, T); !free {
				return h
			}
			return math.Inf(-1)
		}
		// least is the point of [0, end] where f, convex, is least:
		// golden sections inside, and the end at 0 (a cap the output
		// does not need).
		least := func(f func(float64) float64, end float64) float64 {
			x1, f1, x2, f2 := golden.Section(f, 0, end, capsGoldenSteps)
			x, fx := x1, f1
			if f2 < f1 {
				x, fx = x2, f2
			}
			if f(0) <= fx {
				return 0
			}
			return x
		}
		// The engine's answer holds to its tolerances, the count must
		// hold in floats: from it and from the point's own totals, each
		// total is moved in turn to the least κ along its line (0 to
		// twice it and a little more), a few times.
		starts := make([][2]float64, 0, 2)
		own := [2]float64{caps[j][0], caps[j][1]}
		best := k0
		if R, T, ok := o.leastCaps(c); ok {
			// Where the engine's totals bring κ_j within the target as
			// the count reads them in floats (most outputs), they are
			// kept as they are; the sweeps are for the totals the engine
			// or the point reads to few digits.
			if k1 := k(R, T); k1 < best {
				best, caps[j][0], caps[j][1] = k1, R, T
				if best <= target {
					continue
				}
			}
			starts = append(starts, [2]float64{R, T})
		}
		starts = append(starts, own)
	sweeps:
		for _, st := range starts {
			R, T := st[0], st[1]
			for range capsSweeps {
				wide := 1e-6 * (1 + R + T)
				R = least(func(r float64) float64 { return k(r, T) }, 2*R+wide)
				T = least(func(t float64) float64 { return k(R, t) }, 2*T+wide)
				if k1 := k(R, T); k1 < best {
					best, caps[j][0], caps[j][1] = k1, R, T
				}
				if best <= target {
					break sweeps
				}
			}
		}
	}
}

// capsSweeps is the number of turns TightenCaps gives each of an output's
// two totals from each start: κ_j is convex in them but not smooth, and
// moves along one line at a time can stop at a kink short of its least.
const capsSweeps = 3

// capsGoldenSteps is the number of golden-section steps by which
// TightenCaps moves a cap's total: the interval shrinks to 1e-13 of its
// width, a millionth of which is about where the engine's totals are off.
const capsGoldenSteps = 64

// leastCaps solves TightenCaps's LP for the output o; ok is false when
// the engine gives no optimum.
func (o *twoPriorOutput) leastCaps(c []float64) (R, T float64, ok bool) {
	x := &lp.Model{}
	kap := x.AddCol(1, -lp.Inf, lp.Inf, "")
	rc := x.AddCol(0, 0, lp.Inf, "")
	tc := x.AddCol(0, 0, lp.Inf, "")
	sum := []lp.Nonzero{lp.Entry(rc, -1)}
	var cw, ca, cb, cc float64
	for k := range o.cw {
		sk := x.AddCol(0, 0, lp.Inf, "")
		sum = append(sum, lp.Entry(sk, 1))
		x.AddRow(o.cw[k], lp.Inf, "", lp.Entry(sk, 1), lp.Entry(rc, -o.coefR[k]), lp.Entry(tc, -o.coefT[k]), lp.Entry(kap, c[k]))
		cw, ca, cb, cc = cw+o.cw[k], ca+o.coefR[k], cb+o.coefT[k], cc+c[k]
	}
	x.AddRow(-lp.Inf, 0, "", sum...)
	x.AddRow(-lp.Inf, -cw, "", lp.Entry(rc, ca-1), lp.Entry(tc, cb+1), lp.Entry(kap, -cc))
	sol, err := solver.Revised().Solve(x)
	if err != nil || sol.Status != solver.Optimal {
		return 0, 0, false
	}
	return max(0, sol.X[rc]), max(0, sol.X[tc]), true
}

// kappaNeed is RobustBoundTwo's count for one output at κ, less R:
// Σ_k max(0, g_k) + max(0, T − Σ_k max(0, −g_k)) − R, g_k = base_k − κ c_k.
func kappaNeed(base, c []float64, T, R, kappa float64) float64 {
	pos, neg := 0.0, 0.0
	for i := range base {
		if g := base[i] - kappa*c[i]; g > 0 {
			pos += g
		} else {
			neg -= g
		}
	}
	return pos + max(0, T-neg) - R
}

// leastKappa returns the least κ at which kappaNeed is at most 0, as
// evaluated in floats; free when every κ is (no letter has c_k > 0 and
// the count is within R), +Inf when none is. For c ≥ 0 the count is
// nonincreasing and piecewise linear in κ, its breakpoints the ratios
// base_k/c_k (each g_k changes sign there) and one kink where T meets the
// negative parts: bisection over the sorted ratios (bp is their
// storage) finds the piece where it crosses R, and the crossing is solved
// on that piece (moved up, by steps that double and then by bisection,
// where rounding leaves the count above R there).
func leastKappa(base, c []float64, T, R float64, bp []float64) (kappa float64, free bool) {
	need := func(k float64) float64 { return kappaNeed(base, c, T, R, k) }
	for i, ci := range c {
		if ci > 0 {
			bp = append(bp, base[i]/ci)
		}
	}
	if len(bp) == 0 {
		if need(0) <= 0 {
			return 0, true
		}
		return math.Inf(1), false
	}
	slices.Sort(bp)
	// Past the last ratio every g_k with c_k > 0 is negative: the count
	// falls to the positive g_k of the letters with c_k = 0.
	tail := -R
	for i, ci := range c {
		if ci == 0 && base[i] > 0 {
			tail += base[i]
		}
	}
	if tail > 0 {
		return math.Inf(1), false
	}
	// The first ratio at which the count is within R; the crossing lies
	// in the piece before it (or past the last ratio).
	first := sort.Search(len(bp), func(i int) bool { return need(bp[i]) <= 0 })
	lo, hi := math.Inf(-1), math.Inf(1)
	if first > 0 {
		lo = bp[first-1]
	}
	if first < len(bp) {
		hi = bp[first]
	}
	// On the piece, P(κ) = p0 − κ pc and N(κ) = κ nc − n0 (the positive
	// and negative parts' sums), at a point strictly inside it.
	mid := 0.0
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		mid = 0
	case math.IsInf(lo, -1):
		mid = hi - max(1, math.Abs(hi))
	case math.IsInf(hi, 1):
		mid = lo + max(1, math.Abs(lo))
	default:
		mid = lo + (hi-lo)/2
	}
	p0, pc, n0, nc := 0.0, 0.0, 0.0, 0.0
	for i := range base {
		if base[i]-mid*c[i] > 0 {
			p0, pc = p0+base[i], pc+c[i]
		} else {
			n0, nc = n0+base[i], nc+c[i]
		}
	}
	// need = p0 − κ pc − R + max(0, T − κ nc + n0): the crossing where
	// T's part is positive (kA), where it is not (kB), or at the kink.
	cands := []float64{hi}
	if pc+nc > 0 {
		cands = append(cands, (p0-R+T+n0)/(pc+nc))
	}
	if pc > 0 {
		cands = append(cands, (p0-R)/pc)
	}
	if nc > 0 {
		cands = append(cands, (T+n0)/nc)
	}
	// The ratios' magnitude is the scale of κ's rounding.
	scale := max(math.Abs(bp[0]), math.Abs(bp[len(bp)-1]))
	best := math.Inf(1)
	for _, k := range cands {
		k = min(max(k, lo), hi)
		// A crossing solved in floats may leave the count a rounding
		// above R: steps up from 2⁻⁵² of the scale, doubling, until it
		// is within R or no nearer than the best so far.
		step := max(max(math.Abs(k), scale)*0x1p-52, 0x1p-1000)
		below := math.NaN() // the last κ tried whose count is above R
		for !math.IsNaN(k) && k < best && need(k) > 0 {
			below = k
			k += step
			step *= 2
		}
		if !(k < best) || math.IsNaN(k) {
			continue
		}
		// Back down between the two by bisection.
		for range 64 {
			mid := below + (k-below)/2
			if math.IsNaN(below) || mid <= below || mid >= k {
				break
			}
			if need(mid) > 0 {
				below = mid
			} else {
				k = mid
			}
		}
		best = k
	}
	if math.IsInf(best, 1) {
		// No candidate held: the piece's end, or past the last ratio
		// the first of the doubling steps that holds.
		best = hi
		for step := max(1, math.Abs(lo)); math.IsInf(best, 1) && !math.IsInf(step, 1); step *= 2 {
			if need(lo+step) <= 0 {
				best = lo + step
			}
		}
	}
	return best, false
}

func withinBudget(level, lower float64, b mech.Budget, slack float64) bool {
	in := func(v, eps float64) bool { return v <= eps+slack*max(1, eps) }
	if b.Measure == mech.ALIP {
		return in(level, b.EpsilonUpper) && in(lower, b.EpsilonLower)
	}
	return in(level, b.Epsilon)
}

// mixOverSet returns P, or P mixed with the mechanism whose every row is
// P's output marginal under pi where P breaks the budget over the set by
// more than RobustBudgetSlack (level and lower its levels over the set):
// the mixture moves every ratio towards 1 for every prior, and the least
// weight that keeps the budget is clean.MixOver's, checked by the audit
// over the set. It returns the mechanism with its levels.
func mixOverSet(pi mech.Prior, P mech.Mechanism, level, lower float64, s *mech.PriorSet, b mech.Budget) (mech.Mechanism, float64, float64) {
	if withinBudget(level, lower, b, RobustBudgetSlack) {
		return P, level, lower
	}
	// The mixture returned is the last one the audit passed, bit for bit
	// (or θ = 1 where none did): its levels are that audit's.
	met := false
	out := clean.MixOver(pi, P, s, b, func(M mech.Mechanism) bool {
		l, w, _ := leakage.LevelOver(s, M, b)
		if !withinBudget(l, w, b, 0) {
			return false
		}
		level, lower, met = l, w, true
		return true
	})
	if !met {
		level, lower, _ = leakage.LevelOver(s, out, b)
	}
	return out, level, lower
}

// RobustBound returns an upper bound on the expected utility
// Σ_ij c_i u_ij p_ij (c the estimate) of every mechanism that keeps the
// budget b (PML, LIP or ALIP) for every prior of a set, proven by the
// multipliers alpha of the rows Σ_j p_ij = 1 and, for each output j, one
// prior a_j of the set chosen among cands[j]; it returns the priors
// chosen. The proof is the one package verify checks: every such
// mechanism keeps p_ij ≤ e^{ε_u} a_j·p_·j (and p_ij ≥ e^{−ε_l} a_j·p_·j),
// so its column is (a_j·p_·j) z with z in Z_j = {lo ≤ z ≤ hi, a_j·z = 1};
// with w_ij = c_i u_ij − α_i and C = Σ c_i, the utility is
// Σ α_i + Σ_j (a_j·p_·j) w_·j·z ≤ Σ α_i + Σ_j κ_j c·p_·j with κ_j the
// largest ratio w·z / c·z over Z_j (Dinkelbach's iterations, each a
// fractional knapsack), hence at most Σ α_i + C max(0, max_j κ_j).
func RobustBound(c mech.Prior, u mech.Utility, b mech.Budget, alpha []float64, cands [][][]float64) (float64, [][]float64) {
	n, m := u.Dims()
	loZ, hiZ := 0.0, 0.0
	switch b.Measure {
	case mech.PML:
		hiZ = math.Exp(b.Epsilon)
	case mech.LIP:
		loZ, hiZ = math.Exp(-b.Epsilon), math.Exp(b.Epsilon)
	case mech.ALIP:
		loZ, hiZ = math.Exp(-b.EpsilonLower), math.Exp(b.EpsilonUpper)
	default:
		return math.Inf(1), nil
	}
	loZ *= 1 - 8*certify.UnitRoundoff
	hiZ *= 1 + 8*certify.UnitRoundoff
	sum, mag, C := 0.0, 0.0, 0.0
	for i, a := range alpha {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return math.Inf(1), nil
		}
		sum += a
		mag += math.Abs(a)
		C += c[i]
	}
	w := make([]float64, n)
	worst := 0.0
	priors := make([][]float64, m)
	scratch := newRatioScratch(n)
	for j := range m {
		size := 0.0
		for i := range n {
			w[i] = c[i]*u[i][j] - alpha[i]
			size = max(size, math.Abs(c[i]*u[i][j])+math.Abs(alpha[i]))
		}
		bestK := math.Inf(1)
		for _, a := range cands[j] {
			// Under LIP and ALIP a prior a above one of the set, by δ in
			// its sum, bounds the column's entries from below by
			// e^{−ε_l} (a·p)(1 − e^{ε_u} δ) only (package verify's check).
			lo := loZ
			if lo > 0 {
				sa := 0.0
				for _, v := range a {
					sa += v
				}
				if delta := sa - C + 4*float64(n+2)*certify.UnitRoundoff*sa; delta > 0 {
					lo *= max(0, 1-hiZ*delta)
				}
			}
			if k := columnRatio(w, c, a, lo, hiZ, &scratch); k < bestK {
				bestK, priors[j] = k, a
			}
		}
		if math.IsInf(bestK, 1) {
			return math.Inf(1), nil
		}
		worst = max(worst, bestK+8*float64(n+2)*certify.UnitRoundoff*size*hiZ)
	}
	bound := sum + C*worst
	return bound + 8*float64(n+2)*certify.UnitRoundoff*(mag+C*math.Abs(worst)), priors
}

// ratioScratch is columnRatio's room, kept from column to column.
type ratioScratch struct {
	g, z, ratio []float64
	order       []int
}

func newRatioScratch(n int) ratioScratch {
	return ratioScratch{g: make([]float64, n), z: make([]float64, n), ratio: make([]float64, n), order: make([]int, n)}
}

// columnRatio returns max over z in {lo ≤ z ≤ hi, a·z = 1} of w·z / c·z
// (−Inf when no such z exists: no mechanism within the budget uses the
// output; +Inf when c·z can vanish with w·z > 0).
func columnRatio(w, c, a []float64, lo, hi float64, s *ratioScratch) float64 {
	n := len(w)
	sa := 0.0
	for _, v := range a {
		sa += v
	}
	if hi*sa < 1 || lo*sa > 1 {
		return math.Inf(-1)
	}
	g, z, order, ratio := s.g[:n], s.z[:n], s.order[:n], s.ratio[:n]
	knap := func(kappa float64) {
		for i := range n {
			g[i] = w[i] - kappa*c[i]
		}
		verify.ByRatioWith(order, ratio, g, a)
		left := 1 - lo*sa
		for i := range n {
			z[i] = lo
		}
		for _, i := range order {
			if a[i] == 0 {
				if g[i] > 0 {
					z[i] = hi
				}
				continue
			}
			add := min(hi-lo, left/a[i])
			if add <= 0 {
				break
			}
			z[i] += add
			left -= add * a[i]
		}
	}
	kappa := 0.0
	knap(0)
	for range 60 {
		wz, cz := 0.0, 0.0
		for i := range n {
			wz += w[i] * z[i]
			cz += c[i] * z[i]
		}
		if !(cz > 0) {
			if wz > 0 {
				return math.Inf(1)
			}
			return kappa
		}
		next := wz / cz
		if next <= kappa*(1+1e-15)+1e-300 && next >= kappa-1e-15*math.Abs(kappa) {
			return max(kappa, next)
		}
		if next < kappa {
			return kappa
		}
		kappa = next
		knap(kappa)
	}
	return kappa
}
