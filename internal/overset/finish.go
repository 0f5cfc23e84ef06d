package overset

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
)

// finishByLP narrows a bracket that the robust master left open (its
// master degenerate near ε*, most often over a wide set), by probes of
// the dualised feasibility LP (BuildRobust) in a warm backend, as the
// searches at one prior finish theirs:
//
//  1. A probe goes to the middle of [max(lower, steer), upper].
//  2. A mechanism the LP finds lowers the upper end once audited over
//     the set. One that audits no lower (just above a breakpoint, whose
//     points audit a hair above their ε) sends one probe to the lower
//     end itself, where they audit within rounding; a second ends the
//     finish.
//  3. An infeasible probe raises steer to its ε. The engine's
//     infeasibility ray y, read on the rows Σ_j p_ij = 1 (either sign),
//     is the α that colgen.RobustBound turns into a lower end with a
//     prior of the set per output, as it does the master's duals; the
//     lower end moves only with such a proof. A ray may lean on the
//     bounds p_ij ≤ 1, which that proof does not know: where the column
//     of p_ij has z = (Aᵀy)_ij > 0, the ray pays z for it. The row sum
//     holds the same bound (p ≥ 0 and Σ_j p_ij = 1), so lowering α_i by
//     the largest such z of row i leaves no column leaning on a bound
//     and does not shrink the ray's gap (the row's sum pays that z once,
//     where the bounds paid each). Both readings are tried.
//  4. Once steer is within tol of the upper end and the lower end is
//     not, probes at 4, 16, 64 and 256 tol below the upper end ask for
//     the proof there (a ray taken further from ε* holds up to the
//     engine's tolerance better).
//
// The model is loaded once and re-solved from its last basis, and built
// again (cold) only where an output's opening over the set lies between
// the probe and the level it was built at: such an output's column is
// forced to 0 at the probe, and the simplex can go round those
// degenerate vertices for thousands of iterations. A cold solve is cut at
// finishColdIterations times the model's rows and columns, each warm one
// at the iterations of the last cold one; a warm solve that reaches its
// limit (round a degenerate vertex, most often just below a breakpoint)
// is asked again once from a fresh load, whose path differs (engines
// without limits, such as Clp's sessions, have their own). The finish
// stops at finishMaxLPs LPs, finishMaxBuilds models or the first other
// failure, with the
// bracket it has: every end it moved is audited or proven. A bracket
// within finishMinWidth is left as it is: the master's ladder left it
// there, and the engines hold their rows to about 1e-9. notify, if not
// nil, is told before the first LP (a finish at 64 letters takes seconds).
func finishByLP(ctx context.Context, r *Bracket, set *mech.PriorSet, pi mech.Prior, pat mech.Pattern, slv solver.Solver, tol float64, notify func(string)) {
	ws, ok := slv.(solver.WarmSolver)
	if !ok || r.Mechanism == nil || !(r.Upper-r.Lower > math.Max(tol, finishMinWidth)) || len(pat) == 0 || len(pi)*len(pat[0]) > finishMaxPairs {
		return
	}
	if notify != nil {
		notify(fmt.Sprintf("the column generation over the prior set stalled with the least ε in [%.12g, %.12g]: finishing it by bisection on the %d×%d LP over the set with %s", r.Lower, r.Upper, len(pi), len(pat[0]), slv.Name()))
	}
	// The openings over the set: output j can carry mass at ε only from
	// −log min_{π∈Π} π(A_j) on (BuildRobust prunes it below).
	openings := make([]float64, len(pat[0]))
	for j := range openings {
		c := make([]float64, len(pi))
		for i := range c {
			if pat[i][j] {
				c[i] = 1
			}
		}
		openings[j] = math.Inf(1)
		if low := set.MinMass(c); low > 0 {
			openings[j] = -math.Log(low)
		}
	}
	var (
		mod     *polytope.RobustModel
		built   float64 // the level mod was built at
		builds  int     // the models built
		sess    solver.Session
		limited solver.LimitedSession
	)
	// load loads mod afresh, its first solve cut at the cold limit.
	load := func() bool {
		if sess != nil {
			sess.Close()
			sess = nil
		}
		var err error
		if sess, err = ws.Load(mod.LP); err != nil {
			sess = nil
			return false
		}
		if ss, ok := sess.(solver.StoppableSession); ok {
			ss.SetStop(func() bool { return ctx.Err() != nil })
		}
		if limited, _ = sess.(solver.LimitedSession); limited != nil {
			limited.SetIterationLimit(finishColdIterations * (mod.LP.NumRows() + mod.LP.NumCols()))
		}
		return true
	}
	// model makes mod one that serves a probe at t with the outputs
	// pruned at t: built at the upper end, or just below the first
	// opening above t where one lies in between. An output the model
	// keeps that t leaves no mass is a column forced to 0, and a cold
	// solve round such degenerate vertices can go on for thousands of
	// iterations.
	model := func(t float64) (fresh, ok bool) {
		keep := mod != nil && t <= built
		level := r.Upper
		for _, o := range openings {
			keep = keep && !(o > t && o <= built)
			if o > t && o <= level {
				level = math.Nextafter(o, 0)
			}
		}
		if keep {
			return false, true
		}
		if builds++; builds > finishMaxBuilds {
			return false, false
		}
		m, err := polytope.BuildRobust(mechSpec(pi, pat, level), set)
		if err != nil {
			return false, false
		}
		mod, built = m, level
		return true, load()
	}
	defer func() {
		if sess != nil {
			sess.Close()
		}
	}()
	cold, reloads := true, 0
	alpha := make([]float64, len(pi))
	steer, ladder := r.Lower, 0
	atLower, askedLower := false, false // the next probe is at the lower end; one was
	for k := 0; k < finishMaxLPs && r.Upper-r.Lower > tol && ctx.Err() == nil; k++ {
		wasLower := false // this probe is at the lower end (atLower)
		lo := math.Max(r.Lower, steer)
		t := lo + (r.Upper-lo)/2
		rung := r.Upper-lo <= tol
		switch {
		case atLower:
			t, atLower, rung = r.Lower, false, false
			wasLower = true
		case rung:
			if ladder == finishLadder {
				return
			}
			ladder++
			if t = r.Upper - tol*math.Pow(4, float64(ladder)); t <= r.Lower {
				return
			}
		}
		fresh, ok := model(t)
		if !ok {
			return
		}
		cold = cold || fresh
		if err := mod.SetUpperLevel(sess, t); err != nil {
			return
		}
		sol, err := sess.Solve()
		r.LPs++
		if err != nil {
			return
		}
		if cold && sol.Status != solver.Limit && limited != nil {
			limited.SetIterationLimit(max(sol.Iterations, finishMinIterations))
		}
		wasCold := cold
		cold = false
		switch sol.Status {
		case solver.Optimal:
			m := mod.Mechanism(sol.X)
			lvl := leakage.PMLOver(set, m)
			if !pat.Holds(m) {
				return
			}
			if !(lvl < r.Upper) {
				// Feasible, but its point audits above the upper end:
				// most often ε* is a breakpoint just below t (an
				// output's opening), above which the feasible set is a
				// sliver of nearly parallel columns whose points audit
				// a hair above their ε. At the breakpoint itself they
				// audit within rounding: the proven lower end is asked
				// once, in case it is that point.
				if askedLower {
					return
				}
				atLower, askedLower = true, true
				continue
			}
			r.Upper, r.Mechanism = lvl, m
		case solver.Infeasible:
			steer = math.Max(steer, t)
			y := sol.Ray
			if y == nil {
				y = sol.Certificate
			}
			if len(y) != mod.LP.NumRows() {
				continue
			}
			z := make([]float64, mod.LP.NumCols())
			for _, e := range mod.LP.ConstMatrix {
				z[e.Col] += e.Val * y[e.Row]
			}
			for _, sign := range []float64{1, -1} {
				for _, lean := range []bool{false, true} {
					for i, row := range mod.Sum {
						alpha[i] = sign * y[row]
						if !lean {
							continue
						}
						d := 0.0
						for _, c := range mod.P[i] {
							if c >= 0 {
								d = math.Max(d, sign*z[c])
							}
						}
						alpha[i] -= d
					}
					if lb, priors, ok := colgen.RobustBound(set, pat, alpha); ok && lb > r.Lower {
						r.Lower = math.Min(lb, r.Upper)
						r.Proofs = []certificate.Hint{{Priors: priors, Alpha: slices.Clone(alpha)}}
					}
				}
			}
		case solver.Limit:
			// Round a degenerate vertex: once, the same ε from a fresh
			// load, whose path differs from a warm solve's (a cold
			// solve's would be the same).
			if wasCold {
				return
			}
			if reloads++; reloads > finishReloads || !load() {
				return
			}
			cold = true
			if rung {
				ladder-- // the same rung, asked again
			}
			atLower = wasLower // and the lower end
		default:
			return // the engine's other failures
		}
	}
}

// finishMaxLPs is the number of LPs finishByLP may solve, enough to halve
// a bracket of a tenth of a nat to 1e-9 and climb its ladder;
// finishLadder is the ladder's rungs; finishMaxPairs the largest pattern
// (inputs × outputs) it is tried on, where one cold solve of the
// dualised LP by the pure-Go engine takes seconds; finishMinIterations
// the least iteration limit of its warm solves, finishColdIterations that
// of its cold one per row and column; finishMinWidth the narrowest bracket
// it is tried on; finishReloads the fresh loads after a solve cut at its
// limit; finishMaxBuilds the models it builds (each a cold solve).
const (
	finishMaxLPs         = 40
	finishLadder         = 4
	finishMaxPairs       = 10000
	finishMinIterations  = 1000
	finishColdIterations = 4
	finishMinWidth       = 1e-8
	finishReloads        = 1
	finishMaxBuilds      = 8
)
