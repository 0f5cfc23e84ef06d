package expected

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// Tolerances of the pipeline.
const (
	// supportEntry is the size above which an entry of the interior point
	// counts as used: entries off the optimal face are about 1e-13.
	supportEntry = 1e-9
	// bracketSlack is the relative slack within which the LP on the
	// support must land in the interior point's bracket [value, bound].
	bracketSlack = 1e-9
	// polishTol is the excess over the budget above which an LP optimum
	// is polished by a solve of the row-scaled LP.
	polishTol = 1e-9
	// margMass is the output mass below which a marg row is scaled by
	// about the output's inverse mass when a polished ε-PML optimum still
	// fails the audit (solveModel); maxMargExp bounds that factor's
	// exponent, so that the row's other entries stay finite.
	margMass   = 0x1p-10
	maxMargExp = 900
	// margRounds bounds the solves with scaled marg rows: each round
	// scales the outputs whose mass the last one found small, which
	// may move mass to others.
	margRounds = 3
	// negligibleShare, times max(1, |Σ_i π_i max_j u_ij|), bounds the
	// total share of the expected utility, Σ π_i (max_j u_ij − min_j u_ij),
	// of the letters withoutNegligible sets aside: far below the
	// interior point's accepted gap, so that what they lose does not
	// count against it.
	negligibleShare = 1e-12
	// negligibleMass bounds the prior mass of the letters set aside: the
	// budget of the kept letters shrinks by about as much.
	negligibleMass = 1e-9
	// ratioGap is the relative gap within which ratio takes the interior
	// point of the whole problem at once. ipm accepts up to
	// ipm.AcceptedGap when rounding stalls the iterations, which letters
	// of tiny mass do at large budgets: a wider gap is worth the solve
	// with those letters set aside.
	ratioGap = 1e-9
	// narrowMargin and wideMargin are the nats by which
	// ratioWithoutNegligible lowers a LIP or ALIP lower budget to make
	// room for the letters it sets aside, tried in turn while the gap
	// exceeds ratioGap: a margin θ lets letters of mass up to θ·e^{−ε_u}
	// aside, and costs the value about θ times the loss the lower budget
	// forces. Which letters stall the interior point is not known in
	// advance: the narrow margin costs nothing, the wide one sets more
	// letters aside.
	narrowMargin = 1e-9
	wideMargin   = 1e-3
	// longLP is the number of columns from which an LP is announced to
	// Options.Notify: about a hundred letters, where a solve becomes long
	// (docs/performance.md).
	longLP = 10000
)

// Options configures Maximize. The zero value is ready to use.
type Options struct {
	// Solver is the LP backend. With Solver nil an ε-PML problem is
	// answered by the interior point alone (step 1), and the full LP, when
	// needed, is solved by solver.Auto().
	Solver solver.Solver
	// FullLP skips steps 1 and 2 and solves the whole LP: for
	// cross-checks.
	FullLP bool
	// WholeProblem skips the active set over outputs (step 0) on large
	// problems: the interior point runs on the whole problem.
	WholeProblem bool
	// Notify, if not nil, is told before the pipeline starts a step that
	// can take long: the full LP (its size, and why it is solved).
	Notify func(msg string)
	// Pattern, if not nil, restricts the mechanisms to those that are zero
	// wherever it is false (a worst case to keep: mech.Order.Pattern or
	// mech.Utility.Pattern). Such a problem goes straight to the LP (see
	// pattern.go) and may be infeasible: then Maximize returns
	// ErrInfeasible.
	Pattern mech.Pattern
	// Workers is the number of goroutines the active set's interior
	// points split their passes over the pairs among; 0 or 1 means one.
	// The result is the same for any number.
	Workers int
}

func (o Options) notify(format string, args ...any) {
	if o.Notify != nil {
		o.Notify(fmt.Sprintf(format, args...))
	}
}

// Result is an audited optimal mechanism.
type Result struct {
	Mechanism mech.Mechanism
	// Epsilon is the audited level of the budget's measure reached by
	// Mechanism (for ALIP the upper level ε_u; ALIPLower holds ε_l).
	Epsilon   float64
	ALIPLower float64
	// Value is the expected utility of Mechanism, and Bound a proven upper
	// bound on the optimal expected utility, else NaN: the optimum lies in
	// [Value, Bound]. For ε-PML the interior point or the LP's duals prove
	// one; the LIP, ALIP and LDP LPs solved whole prove none.
	Value, Bound float64
	// Alpha are the multipliers of the rows Σ_j p_ij = 1 that prove Bound
	// through certify.UpperBound or certify.RatioUpperBound on the prior
	// as given (nil when Bound is NaN or proven otherwise): a certificate
	// anyone can re-check.
	Alpha []float64
	// Solver names who found Mechanism: a backend's name, or "ipm".
	Solver   string
	LPSolves int
	// FullLP reports that Mechanism is the backend's optimum of the whole
	// LP (with Options.Pattern, of the LP restricted to it), not a vertex
	// of the interior point's face.
	FullLP bool

	// duals are the LP's duals of the rows Σ_j p_ij = 1 in the units of
	// the model as built, for dualBound (nil off the LP).
	duals []float64
}

// errUncertified means that the interior point could not certify the
// optimum, or that the LP on its support left its bracket: the full LP
// decides.
var errUncertified = errors.New("expected: the interior point was not certified")

// Maximize returns a mechanism of largest expected utility under u among
// those within budget b for the prior pi, audited against b.
//
// When ctx is done Maximize returns ctx.Err() at once. An LP engine
// already running (the engines do not watch a context) finishes in the
// background and its answer is dropped; a nil ctx is an error.
func Maximize(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, opt Options) (Result, error) {
	if err := checkContext(ctx); err != nil {
		return Result{}, err
	}
	if opt.Pattern != nil {
		return maximizePattern(ctx, pi, u, b, opt)
	}
	if n, m := u.Dims(); !opt.FullLP && !opt.WholeProblem && opt.Solver == nil && n*m >= activeCells {
		r, err := activeSet(ctx, pi, u, b, seedOutputs(normalised(pi), u, firstOutputs), opt)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Result{}, ctxErr
		}
		if err == nil {
			return r.finish(pi, u), nil
		}
		opt.notify("%v: solving the whole problem", err)
	}
	rejected := 0 // the backend's LPs whose answers were not kept
	if b.Measure == mech.PML && !opt.FullLP {
		r, err := structured(ctx, pi, u, b, opt)
		var rej *rejectedFullLP
		errors.As(err, &rej)
		if errors.Is(err, errUncertified) {
			rejected += r.LPSolves
			r, err = withoutNegligible(ctx, pi, u, b)
			if err == nil && opt.Solver != nil {
				r, err = onSupport(ctx, pi, u, b, opt, r)
			}
		}
		if err == nil {
			r.LPSolves += rejected
			return r.finish(pi, u), nil
		}
		rejected += r.LPSolves
		if !errors.Is(err, errUncertified) {
			return Result{}, err
		}
		if rej != nil {
			r, err := elsewhere(ctx, pi, u, b, opt, rej)
			if err != nil {
				return Result{}, err
			}
			r.LPSolves += rejected
			return r.finish(pi, u), nil
		}
	}
	if b.Measure != mech.PML && !opt.FullLP {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		r, err := ratio(ctx, pi, u, b)
		if err == nil && opt.Solver != nil {
			r, err = checkedFullLP(ctx, pi, u, b, opt, r)
		}
		if err == nil {
			return r.finish(pi, u), nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Result{}, ctxErr
		}
	}
	slv := opt.Solver
	if slv == nil {
		slv = solver.Auto()
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	mod, err := polytope.Build(polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u})
	if err != nil {
		return Result{}, err
	}
	switch {
	case b.Measure == mech.PML && !opt.FullLP:
		opt.notify("the interior point was not certified: solving the full LP (%d rows × %d columns) with %s",
			mod.LP.NumRows(), mod.LP.NumCols(), slv.Name())
	case mod.LP.NumCols() >= longLP:
		opt.notify("solving the %s LP (%d rows × %d columns) with %s", b.Measure, mod.LP.NumRows(), mod.LP.NumCols(), slv.Name())
	}
	r, err := solveModel(ctx, pi, b, mod, slv)
	if err != nil {
		return Result{}, err
	}
	r.Solver, r.LPSolves, r.FullLP = slv.Name(), r.LPSolves+rejected, true
	r = r.finish(pi, u)
	if b.Measure == mech.PML {
		// No interior point bracketed the optimum: the LP's own duals do.
		if bound, alpha := dualBoundAlpha(pi, u, nil, b.Epsilon, r.duals); !math.IsInf(bound, 1) {
			r.Bound, r.Alpha = max(bound, r.Value), alpha
		}
	}
	return r, nil
}

// finish fills the expected utility of r's mechanism.
func (r Result) finish(pi mech.Prior, u mech.Utility) Result {
	r.Value = u.ExpectedUtility(pi, r.Mechanism)
	return r
}

// structured runs steps 1 and 2 for an ε-PML budget: the interior point,
// then an optimal vertex of its face: with opt.Solver nil the pure-Go one
// (ipm.SolveVertex), else the named backend's LP on the point's support
// (onSupport).
func structured(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, opt Options) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	p := ipm.Problem{Prior: pi, Utility: u, Epsilon: b.Epsilon}
	if opt.Solver == nil {
		r, err := ipm.SolveVertex(p, ipm.Options{Context: ctx})
		return vertexResult(pi, u, b, r, err)
	}
	r, err := ipm.Solve(p, ipm.Options{Context: ctx})
	if errors.Is(err, ipm.ErrNotConverged) && r != nil {
		// Rounding can stop the iterations short of the gap while the
		// vertex of the point's face is certified by its own multipliers
		// (as for Solver nil): the backend then works on its support.
		v, verr := ipm.CertifiedVertex(p, r, ipm.Options{Context: ctx})
		vertex, err := vertexResult(pi, u, b, v, verr)
		if err != nil {
			return Result{}, err
		}
		return onSupport(ctx, pi, u, b, opt, vertex)
	}
	if errors.Is(err, ipm.ErrNotConverged) {
		return Result{}, errUncertified
	}
	if err != nil {
		return Result{}, err
	}
	point := Result{Mechanism: r.Mechanism, Value: r.Value, Bound: r.Bound, Alpha: r.Alpha}
	sol, err := onSupport(ctx, pi, u, b, Options{Solver: opt.Solver}, point)
	if !errors.Is(err, errUncertified) {
		return sol, err
	}
	// The backend failed on the support, or left the point's bracket: its
	// full LP, checked the same way, then the pure-Go vertex of the point.
	// spent counts the backend's LPs on every route, kept or not.
	spent := sol.LPSolves
	why := fmt.Sprintf("%s's LP on the interior point's support failed or left its certified bracket [%.17g, %.17g]",
		opt.Solver.Name(), r.Value, r.Bound)
	sol, err = withinBracket(ctx, pi, u, b, opt, nil, r.Value, r.Bound, why)
	sol.Alpha = r.Alpha
	spent += sol.LPSolves
	sol.LPSolves = spent
	if !errors.Is(err, errUncertified) {
		return sol, err
	}
	v, verr := ipm.CertifiedVertex(p, r, ipm.Options{Context: ctx})
	sol, err = vertexResult(pi, u, b, v, verr)
	sol.LPSolves = spent
	if err == nil {
		opt.notify("%s's full LP failed or left the certified bracket: returning the pure-Go vertex", opt.Solver.Name())
	}
	if errors.Is(err, errUncertified) {
		return sol, &rejectedFullLP{backend: opt.Solver.Name(), lo: r.Value, hi: r.Bound}
	}
	return sol, err
}

// rejectedFullLP says that a backend's full ε-PML LP failed or left the
// interior point's certified bracket [lo, hi] on the optimum, and that no
// vertex of the point certified. The same engine on the same LP can only
// repeat that, so Maximize asks the other engines (elsewhere).
type rejectedFullLP struct {
	backend string
	lo, hi  float64
}

func (e *rejectedFullLP) Error() string { return "expected: " + e.reason() }

// reason says what went wrong, as Options.Notify is told it.
func (e *rejectedFullLP) reason() string {
	return fmt.Sprintf("%s's full LP failed or left the certified bracket [%.17g, %.17g]", e.backend, e.lo, e.hi)
}

func (e *rejectedFullLP) Unwrap() error { return errUncertified }

// elsewhere solves the full ε-PML LP with each pure-Go backend other than
// the rejected one and keeps the first optimum within the bracket of rej
// (withinBracket). When none is kept it returns an error: an answer
// outside a proven bracket is not an optimum.
func elsewhere(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, opt Options, rej *rejectedFullLP) (Result, error) {
	spent := 0
	for _, name := range []string{"revised", "gonum"} {
		slv, err := solver.Get(name)
		if err != nil || name == rej.backend {
			continue
		}
		o := opt
		o.Solver = slv
		sol, err := withinBracket(ctx, pi, u, b, o, nil, rej.lo, rej.hi, rej.reason())
		spent += sol.LPSolves
		sol.LPSolves = spent
		if !errors.Is(err, errUncertified) {
			return sol, err
		}
	}
	return Result{LPSolves: spent}, fmt.Errorf("%w, and so did every pure-Go backend's", rej)
}

// vertexResult is the audited Result of ipm's certified vertex r (err
// being ipm's error), or errUncertified. ipm's bound is at the prior
// divided by its sum: the multipliers prove one at the prior as given,
// which the certificate is checked against (a prior summing to 1 + 9e-10
// has an expected utility 9e-10 above ipm's bound).
func vertexResult(pi mech.Prior, u mech.Utility, b mech.Budget, r *ipm.Result, err error) (Result, error) {
	if errors.Is(err, ipm.ErrNotConverged) {
		return Result{}, errUncertified
	}
	if err != nil {
		return Result{}, err
	}
	return certified(pi, u, b, r.Mechanism, r.Alpha, math.Inf(1))
}

// certified is the Result of the mechanism P with the bound the
// multipliers alpha prove at the prior as given (certify.UpperBound under
// ε-PML, certify.RatioUpperBound under LIP, ALIP and LDP): P audited
// against b, the bound at least P's expected utility less bracketSlack
// and at most maxGap above it (relative to max(1, |value|)); else
// errUncertified.
func certified(pi mech.Prior, u mech.Utility, b mech.Budget, P mech.Mechanism, alpha []float64, maxGap float64) (Result, error) {
	a, err := certify.Audit(pi, P, b)
	if err != nil {
		return Result{}, errUncertified
	}
	bound := certify.RatioUpperBound(pi, u, b, alpha)
	if b.Measure == mech.PML {
		bound = certify.UpperBound(pi, u, nil, b.Epsilon, alpha)
	}
	v := u.ExpectedUtility(pi, P)
	scale := max(1, math.Abs(v))
	if !(bound >= v-bracketSlack*scale) || math.IsInf(bound, 1) || bound-v > maxGap*scale {
		return Result{}, errUncertified
	}
	return Result{Mechanism: P, Epsilon: a.Level, ALIPLower: a.ALIPLower, Bound: max(bound, v), Alpha: alpha, Solver: "ipm"}, nil
}

// onSupport has the backend opt.Solver solve the ε-PML LP restricted to
// the support of point, a mechanism with a proven bracket [Value, Bound]
// on the optimum (withinBracket). When the backend fails or leaves the
// bracket it returns point itself if that is a finished vertex (Solver
// set; opt is told), else errUncertified.
func onSupport(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, opt Options, point Result) (Result, error) {
	lo := point.Value
	if point.Solver != "" { // a finished vertex, whose Value finish fills
		lo = u.ExpectedUtility(pi, point.Mechanism)
	}
	support := make(mech.Pattern, len(point.Mechanism))
	for i, row := range point.Mechanism {
		support[i] = make([]bool, len(row))
		for j, v := range row {
			support[i][j] = v > supportEntry
		}
	}
	sol, err := withinBracket(ctx, pi, u, b, opt, support, lo, point.Bound, "")
	sol.Alpha = point.Alpha
	if !errors.Is(err, errUncertified) || point.Solver == "" {
		return sol, err
	}
	opt.notify("%s's LP on the certified vertex's support left its bracket [%.17g, %.17g]: returning the pure-Go vertex",
		opt.Solver.Name(), lo, point.Bound)
	point.LPSolves += sol.LPSolves
	return point, nil
}

// checkedFullLP has the backend opt.Solver solve the whole LP of a LIP,
// ALIP or LDP budget and keeps its optimum when it lies in the bracket of
// the certified pure-Go vertex point (withinBracket); else it returns
// point, and opt is told.
func checkedFullLP(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, opt Options, point Result) (Result, error) {
	lo := u.ExpectedUtility(pi, point.Mechanism)
	sol, err := withinBracket(ctx, pi, u, b, opt, nil, lo, point.Bound, "")
	sol.Alpha = point.Alpha
	if !errors.Is(err, errUncertified) {
		return sol, err
	}
	opt.notify("%s's optimum of the %s LP left the certified bracket [%.17g, %.17g]: returning the pure-Go vertex",
		opt.Solver.Name(), b.Measure, lo, point.Bound)
	point.LPSolves += sol.LPSolves
	return point, nil
}

// withinBracket solves the expected-utility LP of b, restricted to
// pattern when not nil, with the backend opt.Solver, and accepts its
// audited optimum when its value lies in the proven bracket [lo, hi] on
// the optimum (within a relative bracketSlack): an engine's tolerances
// can leave it short of the optimum (Clp's, by up to 5e-9 on letters of
// mass 1e-19). It returns errUncertified when the backend fails or
// leaves the bracket (LPSolves then counts the LPs spent), and ctx's
// error when ctx ends. A whole LP is
// announced to opt with its size, and why when not empty.
func withinBracket(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, opt Options, pattern mech.Pattern, lo, hi float64, why string) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	mod, err := polytope.Build(polytope.Spec{Prior: pi, Budget: b, Objective: polytope.ExpectedUtility, Utility: u, Pattern: pattern})
	if err != nil {
		return Result{}, err
	}
	switch {
	case pattern == nil && why != "":
		opt.notify("%s: solving the full LP (%d rows × %d columns) with %s", why, mod.LP.NumRows(), mod.LP.NumCols(), opt.Solver.Name())
	case pattern == nil && mod.LP.NumCols() >= longLP:
		opt.notify("solving the %s LP (%d rows × %d columns) with %s", b.Measure, mod.LP.NumRows(), mod.LP.NumCols(), opt.Solver.Name())
	}
	sol, err := solveModel(ctx, pi, b, mod, opt.Solver)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return Result{}, ctxErr
	}
	if err != nil {
		return Result{LPSolves: 1}, errUncertified
	}
	v := u.ExpectedUtility(pi, sol.Mechanism)
	slack := bracketSlack * max(1, math.Abs(lo))
	if v < lo-slack || v > hi+slack {
		return Result{LPSolves: sol.LPSolves}, errUncertified
	}
	sol.Solver, sol.Bound, sol.FullLP = opt.Solver.Name(), max(hi, v), pattern == nil
	return sol, nil
}

// ratio answers a LIP, ALIP or LDP budget with the structured interior
// point of those polytopes and an optimal vertex of its face, certified by
// its upper bound. A result certified only to more than ratioGap, or a
// failure, is retried with the negligible letters set aside
// (ratioWithoutNegligible), and the narrower bracket kept; when both fail
// the full LP decides.
func ratio(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget) (Result, error) {
	r, err := ratioWhole(ctx, pi, u, b)
	if err == nil && r.gap(pi, u) <= ratioGap {
		return r, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return Result{}, ctxErr
	}
	for _, margin := range []float64{narrowMargin, wideMargin} {
		r2, err2 := ratioWithoutNegligible(ctx, pi, u, b, margin)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Result{}, ctxErr
		}
		if err2 == nil && (err != nil || r2.gap(pi, u) < r.gap(pi, u)) {
			r, err = r2, nil
		}
		if b.Measure == mech.LDP || (err == nil && r.gap(pi, u) <= ratioGap) {
			break // an LDP budget has no margin to vary
		}
	}
	return r, err
}

// ratioWhole is SolveRatio on the whole problem, audited.
func ratioWhole(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget) (Result, error) {
	r, err := ipm.SolveRatio(ipm.RatioProblem{Prior: pi, Utility: u, Budget: b}, ipm.Options{Context: ctx})
	if err != nil {
		return Result{}, errUncertified
	}
	return certified(pi, u, b, r.Mechanism, r.Alpha, math.Inf(1))
}

// gap returns r's certified gap relative to max(1, |value|).
func (r Result) gap(pi mech.Prior, u mech.Utility) float64 {
	v := u.ExpectedUtility(pi, r.Mechanism)
	return (r.Bound - v) / max(1, math.Abs(v))
}

// checkContext refuses a nil context, which would crash the workers that
// watch it, and a context already done, before any work starts.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return errors.New("expected: nil context (pass context.Background())")
	}
	return ctx.Err()
}
