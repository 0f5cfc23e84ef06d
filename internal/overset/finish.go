package overset

import (
	"context"
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
// the dualised feasibility LP (BuildRobust) loaded once into a warm
// backend, as the searches at one prior finish theirs:
//
//  1. A probe goes to the middle of [max(lower, steer), upper].
//  2. A mechanism the LP finds lowers the upper end once audited over
//     the set.
//  3. An infeasible probe raises steer to its ε. The engine's
//     infeasibility ray, read on the rows Σ_j p_ij = 1 (either sign), is
//     the α that colgen.RobustBound turns into a lower end with a prior
//     of the set per output, as it does the master's duals; the lower
//     end moves only with such a proof.
//  4. Once steer is within tol of the upper end and the lower end is
//     not, probes at 4, 16, 64 and 256 tol below the upper end ask for
//     the proof there (a ray taken further from ε* holds up to the
//     engine's tolerance better).
//
// The first, cold solve is cut at finishColdIterations times the model's
// rows and columns, each warm one at the iterations of the cold one (a
// solve that needs more goes round a degenerate vertex, most often just
// below a breakpoint), and the whole finish at finishMaxLPs LPs; it stops
// at the first engine failure, with the bracket it has: every end it moved
// is audited or proven. A bracket within finishMinWidth is left as it is:
// the master's ladder left it there, and the engines hold their rows to
// about 1e-9.
func finishByLP(ctx context.Context, r *Bracket, set *mech.PriorSet, pi mech.Prior, pat mech.Pattern, slv solver.Solver, tol float64) {
	ws, ok := slv.(solver.WarmSolver)
	if !ok || r.Mechanism == nil || !(r.Upper-r.Lower > math.Max(tol, finishMinWidth)) || len(pi)*len(pat[0]) > finishMaxPairs {
		return
	}
	mod, err := polytope.BuildRobust(mechSpec(pi, pat, r.Upper), set)
	if err != nil {
		return
	}
	sess, err := ws.Load(mod.LP)
	if err != nil {
		return
	}
	defer sess.Close()
	if ss, ok := sess.(solver.StoppableSession); ok {
		ss.SetStop(func() bool { return ctx.Err() != nil })
	}
	limited, _ := sess.(solver.LimitedSession)
	if limited != nil {
		limited.SetIterationLimit(finishColdIterations * (mod.LP.NumRows() + mod.LP.NumCols()))
	}
	alpha := make([]float64, len(mod.Sum))
	steer, ladder := r.Lower, 0
	for k := 0; k < finishMaxLPs && r.Upper-r.Lower > tol && ctx.Err() == nil; k++ {
		lo := math.Max(r.Lower, steer)
		t := lo + (r.Upper-lo)/2
		if r.Upper-lo <= tol {
			if ladder == finishLadder {
				return
			}
			ladder++
			if t = r.Upper - tol*math.Pow(4, float64(ladder)); t <= r.Lower {
				return
			}
		}
		if err := mod.SetUpperLevel(sess, t); err != nil {
			return
		}
		sol, err := sess.Solve()
		r.LPs++
		if err != nil {
			return
		}
		if k == 0 && limited != nil {
			limited.SetIterationLimit(max(sol.Iterations, finishMinIterations))
		}
		switch sol.Status {
		case solver.Optimal:
			m := mod.Mechanism(sol.X)
			lvl := leakage.PMLOver(set, m)
			if !pat.Holds(m) || !(lvl < r.Upper) {
				return // a point that breaks the pattern or audits above the upper end
			}
			r.Upper, r.Mechanism = lvl, m
		case solver.Infeasible:
			steer = math.Max(steer, t)
			y := sol.Ray
			if y == nil {
				y = sol.Certificate
			}
			if len(y) == 0 {
				continue
			}
			for _, sign := range []float64{1, -1} {
				for i, row := range mod.Sum {
					alpha[i] = sign * y[row]
				}
				if lb, priors, ok := colgen.RobustBound(set, pat, alpha); ok && lb > r.Lower {
					r.Lower = math.Min(lb, r.Upper)
					r.Proofs = []certificate.Hint{{Priors: priors, Alpha: slices.Clone(alpha)}}
				}
			}
		default:
			return // the iteration limit, or the engine's other failures
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
// it is tried on.
const (
	finishMaxLPs         = 40
	finishLadder         = 4
	finishMaxPairs       = 10000
	finishMinIterations  = 1000
	finishColdIterations = 4
	finishMinWidth       = 1e-8
)
