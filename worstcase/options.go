package worstcase

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/patternbasis"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// DefaultTol is the bracket width OptimalEpsilon − OptimalEpsilonLower that the searches aim
// for when Options.Tol is zero.
const DefaultTol = 1e-9

// budgetSlack is the relative tolerance with which a budget ε is compared
// in BestOrder and BestValue, so that a budget typed as a breakpoint itself
// (e.g. ε = log 2) selects it despite rounding.
const budgetSlack = 1e-12

// Options configures the searches. The zero value is ready to use.
type Options struct {
	// Solver solves the feasibility LPs. nil means solver.Auto(). When it
	// is a solver.WarmSolver, each pattern is loaded once into a Session
	// and ε is moved in place. With Workers > 1 the curves call it from
	// several goroutines at once, so it must be safe for concurrent use
	// (the built-in backends are: each Solve or Load has its own state).
	Solver solver.Solver
	// Tol is the width of the bracket [OptimalEpsilonLower, OptimalEpsilon] at which a
	// search stops; 0 means DefaultTol. It must not be negative or NaN.
	Tol float64
	// Workers is the number of thresholds the curves solve at once; 0 means
	// runtime.GOMAXPROCS(0). LeastEpsilon, BestOrder and BestValue solve
	// one pattern at a time and spread the column generation's vector
	// work and ipm.ProbeWorkers' Newton updates over Workers goroutines
	// instead; their results are the same for any Workers.
	Workers int
	// Probes chooses who answers the search's probes "is there an ε-PML
	// mechanism with the pattern at ε = t?": ProbesAuto (the zero value)
	// asks the column generation of package colgen first below ipmLetters
	// letters and ipm.Probe first from there, and the solver settles what
	// they leave open; ProbesLP asks only the solver; ProbesIPM and
	// ProbesColumns ask ipm.Probe or the column generation first at every
	// size.
	Probes Probes
	// Progress, if not nil, is called by the curves after each threshold
	// is resolved with the number resolved so far and the total. Calls are
	// serialised (never concurrent) and done increases by at least one per
	// call.
	Progress func(done, total int)
	// Settled, if not nil, is called by the curves with each threshold's
	// point as soon as its bracket is settled, in the order they settle
	// (not the order of the thresholds), so that a caller can write each
	// point before the curve completes. Calls are serialised. For
	// ValueCurve every threshold is reported (ThresholdMax = Threshold),
	// not only the first of each step.
	Settled func(Point)
	// Stand, if not nil, is told where a single search stands:
	// BestOrder and BestValue after each decision at the budget and then,
	// as LeastEpsilon, after each probe of the final search. The curves
	// do not call it (Progress is theirs).
	Stand func(Stand)
	// Shard, if set, makes OrderCurve and ValueCurve solve only that
	// shard's thresholds (see Shard); the zero value solves them all.
	Shard Shard
	// Symmetry, if not nil, is a group of symmetries of the prior and
	// the utility (for BestOrder: of the order's ranks) by which
	// BestValue, BestOrder and ValueCurve fold the column
	// generation (see Symmetry; it is checked, and refused with an error
	// when it is not one). nil lets them look for the reflections of a
	// location grid (GridSymmetry) themselves; an empty Symmetry turns
	// the folding off. With a symmetry the column generation answers the
	// probes at every size under ProbesAuto. Other Probes than ProbesAuto
	// and ProbesColumns ignore it.
	Symmetry *Symmetry

	// sym is the symmetry the searches fold by (symmetryFor), set by
	// BestValue, BestOrder and ValueCurve.
	sym *colgen.Symmetry
}

// Probes says who answers a search's probes.
type Probes int

const (
	// ProbesAuto: the column generation first below ipmLetters letters,
	// ipm.Probe first from there; the LP for what they leave open.
	ProbesAuto Probes = iota
	// ProbesLP: the solver's feasibility LP only.
	ProbesLP
	// ProbesIPM: ipm.Probe first at every size, the LP for what it
	// leaves open.
	ProbesIPM
	// ProbesColumns: the column generation of package colgen first at
	// every size (ipm.Probe where its master fails or stops at its round
	// limit), the LP for what they leave open.
	ProbesColumns
)

// config is Options with defaults filled in.
type config struct {
	slv      solver.Solver
	tol      float64
	workers  int
	progress func(done, total int)
	settled  func(Point)
	stand    func(Stand)
	probes   Probes
	shard    Shard
	sym      *colgen.Symmetry // fold the column generation by it (Options.sym)
	// inner is the number of goroutines one search's column generation
	// and interior point may use (colgen.Master.SetWorkers,
	// ipm.ProbeWorkers): Workers for the single searches, 1 on a curve,
	// whose workers are its thresholds.
	inner int

	// eng answers the pure-Go probes; nil means the engines themselves
	// (goEngines). Only tests set it (leastEpsilon), to make an engine
	// fail.
	eng engines
}

// ipmFor reports whether the searches ask ipm.Probe first on an n-letter
// prior.
func (c config) ipmFor(n int) bool {
	return c.probes == ProbesIPM || (c.probes == ProbesAuto && n >= ipmLetters && c.sym == nil)
}

// colsFor reports whether the searches ask the column generation (package
// colgen) first on an n-letter prior.
func (c config) colsFor(n int) bool {
	return c.probes == ProbesColumns || (c.probes == ProbesAuto && (n < ipmLetters || c.sym != nil))
}

func (o Options) config() (config, error) {
	c := config{slv: o.Solver, tol: o.Tol, workers: o.Workers, progress: o.Progress, settled: o.Settled, stand: o.Stand, probes: o.Probes, shard: o.Shard, sym: o.sym}
	if c.probes < ProbesAuto || c.probes > ProbesColumns {
		return c, fmt.Errorf("worstcase: unknown probes %d", o.Probes)
	}
	if err := o.Shard.Check(); err != nil {
		return c, fmt.Errorf("worstcase: %w", err)
	}
	if c.slv == nil {
		c.slv = solver.Auto()
	}
	switch {
	case math.IsNaN(c.tol) || c.tol < 0 || math.IsInf(c.tol, 0):
		return c, fmt.Errorf("worstcase: tolerance %g is not a finite non-negative number", o.Tol)
	case c.tol == 0:
		c.tol = DefaultTol
	}
	if c.workers < 0 {
		return c, fmt.Errorf("worstcase: %d workers", o.Workers)
	}
	if c.workers == 0 {
		c.workers = runtime.GOMAXPROCS(0)
	}
	return c, nil
}

// Bound says how OptimalEpsilonLower of a Result is known. In every case no mechanism
// that respects the pattern has a PML below OptimalEpsilonLower: the feasibility LP is
// infeasible at every ε < OptimalEpsilonLower.
type Bound int

const (
	// BoundZero: OptimalEpsilonLower = 0, because a PML is never negative.
	BoundZero Bound = iota
	// BoundPruning: OptimalEpsilonLower = max_i min_{j allowed for i} −log Σ_{k
	// allowed for j} π_k. Row i must use an allowed output j, and the PML
	// of an output is at least −log of the prior mass of the inputs that
	// can produce it (Song & Oechtering (2026), Lemmas 2 and 3).
	BoundPruning
	// BoundInfeasible: certify.DualBound proves OptimalEpsilonLower from the
	// multipliers in Result.Proof (an LP engine's duals or Farkas ray,
	// the column generation's or ipm.Probe's), either for this pattern or
	// for a weaker one (a smaller threshold on a curve, whose bound holds
	// for this pattern too). No solver status alone makes one.
	BoundInfeasible
)

func (b Bound) String() string {
	switch b {
	case BoundZero:
		return "zero"
	case BoundPruning:
		return "pruning"
	case BoundInfeasible:
		return "infeasible-lp"
	}
	return "unknown"
}

// Result is the outcome of a least-ε search for one zero pattern.
//
// The least ε at which an ε-PML mechanism with the pattern exists, ε*, lies
// in [OptimalEpsilonLower, OptimalEpsilon]. OptimalEpsilon is the audited PML (leakage.PML) of
// Mechanism, which respects the pattern; Lower says how OptimalEpsilonLower is known.
// When ε* = 0 is proven (an output allowed for every input), OptimalEpsilonLower =
// OptimalEpsilon = 0 and Mechanism sends every input to that output.
//
// When Lower is BoundInfeasible, Proof holds multipliers α (one per input,
// on the rows Σ_j p_ij = 1) from which certify.DualBound proves at least
// OptimalEpsilonLower for the pattern: a certificate anyone can check without an LP
// solver. It is nil for the other kinds of lower end.
type Result struct {
	OptimalEpsilonLower, OptimalEpsilon float64
	Lower                               Bound
	Mechanism                           mech.Mechanism
	LPSolves                            int
	GoProbes                            int // probes answered in Go, by ipm.Probe or colgen (Options.Probes)
	Proof                               []float64

	// Failure is the engine error that left a curve's threshold with a
	// bracket wider than Tol after every other route was tried (another
	// backend, other probes); the bracket is still certified. nil for a
	// settled threshold.
	Failure error

	basis *patternbasis.Keyed // the warm session's last basis, for a neighbour; cleared by the curve
	seed  *colgen.Seed        // the column generation's last basic columns, for a neighbour; cleared by the curve

	// exact reports that the upper end came from a probe at a candidate
	// exact value of ε* (see exactProbe).
	exact bool
}

// Stand is where a single search stands (Options.Stand).
type Stand struct {
	// Decided counts the patterns a best worst case has decided at the
	// budget, of at most Decisions in all (the binary search's bound,
	// which can only fall as the search narrows); both are 0 for
	// LeastEpsilon.
	Decided, Decisions int
	// Lower and Upper bracket the least ε of the pattern being searched
	// once its search has started (NaN before): the certified lower end
	// and the audited level of the best mechanism found.
	Lower, Upper float64
}

// Point is one point of a trade-off curve.
//
// For OrderCurve, H is the order threshold h and Threshold = float64(H).
// For ValueCurve, Threshold is a utility value v (pairs with u'_ij < v are
// forbidden) and H is its 1-based position among the reachable distinct
// values. ThresholdMax is the largest threshold with the same ε* (within
// Tol): the best worst case reachable at OptimalEpsilon. For OrderCurve,
// where every h is reported, ThresholdMax = Threshold.
//
// SafeEpsilon is the PML of the utility-safe mechanism of the threshold
// (closedform.SafeEpsilon for orders, the audited PML of the mechanism
// uniform over each row's allowed outputs for values). OptimalEpsilonLower
// and OptimalEpsilon bracket ε* as OptimalEpsilonLower and OptimalEpsilon of a Result do,
// Mechanism reaches OptimalEpsilon, and LPSolves counts the LPs spent on
// this point (0 when its bracket was inherited from its neighbours by
// monotonicity); for ValueCurve, on every threshold of its step, so that
// the points' counts add up to the curve's work. A point whose bracket
// was inherited shares its neighbour's Mechanism: treat it as read-only.
type Point struct {
	H                   int
	Threshold           float64
	ThresholdMax        float64
	SafeEpsilon         float64
	OptimalEpsilon      float64
	OptimalEpsilonLower float64
	Lower               Bound
	Mechanism           mech.Mechanism
	LPSolves            int
	GoProbes            int       // as Result.GoProbes, for this point
	Proof               []float64 // as Result.Proof
	Failure             error     // as Result.Failure
}

// checkContext refuses a nil context, which would crash the workers that
// watch it. A context already done is no error here: the searches return
// what needs no LP (the closed-form bracket) with ctx.Err().
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return errors.New("worstcase: nil context (pass context.Background())")
	}
	return nil
}
