// Package overset solves the problems whose budget must hold for every
// prior of a set (docs/theory.md §7): the least PML over the set for a
// zero pattern, the strongest worst case a budget keeps over it, and the
// expected utility over it, alone or keeping a worst case.
//
// What callers can rely on:
//
//   - Every mechanism returned is audited over the whole set (the greedy
//     worst priors of leakage.LevelOver), within certify.AuditTol of the
//     budget or of the upper end reported.
//   - A lower end or an expected-utility bound comes with the proof behind
//     it (certificate.Hint: multipliers and the prior, or a prior per
//     output, they hold at); an LP engine's status never moves one.
//   - Nothing here writes a certificate: the caller turns the answers and
//     their proofs into its own values and certificates (package
//     internal/certificate).
//
// The routes: the worst cases go through column generation over the set
// (internal/colgen's robust master, up to 512 letters), the LP backend
// on the dualised constraints deciding what it leaves and finishing a
// bracket its degenerate master left open (finishByLP); the expected
// utility through the optimum at the estimate where that keeps the
// budget over the set, the interior points over the set (ipm.SolveRobust),
// then the LP backend.
package overset

import (
	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// Options are what the routes over a set take from their caller.
type Options struct {
	// Solver is the LP backend of the LPs over the set; its name is the
	// one error messages give.
	Solver solver.Solver
	// PointSolver is the backend of the lower ends proven at one prior
	// of the set (worstcase.LeastEpsilon).
	PointSolver solver.Solver
	// Tol is the width of the worst cases' brackets; 0 means DefaultTol.
	Tol float64
	// Stand, if not nil, is told where BestWorstCase and LeastEpsilon
	// stand: after each decision at the budget, then with the bracket of
	// the least ε as it narrows.
	Stand func(worstcase.Stand)
	// Expected are the options of the optimum at the estimate. Its
	// Solver and Workers are also those of the bounds at the set's
	// priors, and a Solver or FullLP keeps the interior points over the
	// set out.
	Expected expected.Options
}

// report tells o.Stand the bracket [lower, upper] of the least ε.
func (o Options) report(lower, upper float64) {
	if o.Stand != nil {
		o.Stand(worstcase.Stand{Lower: lower, Upper: upper})
	}
}

func (o Options) tol() float64 {
	if o.Tol <= 0 {
		return DefaultTol
	}
	return o.Tol
}
