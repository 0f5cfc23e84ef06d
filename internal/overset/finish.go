package overset

import (
	"context"
	"fmt"
	"math"

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
//     infeasibility ray, read as multipliers on the rows Σ_j p_ij = 1
//     (polytope.RobustModel.RayMultipliers), is the α that
//     colgen.RobustBound turns into a lower end with a prior of the set
//     per output, as it does the master's duals; the lower end moves
//     only with such a proof.
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
// failure, with the bracket it has: every end it moved is audited or
// proven. A bracket within finishMinWidth is left as it is: the master's
// ladder left it there, and the engines hold their rows to about 1e-9.
// notify, if not nil, is told before the first LP (a finish at 64
// letters takes seconds), and report, if not nil, the bracket before each.
func finishByLP(ctx context.Context, r *Bracket, set *mech.PriorSet, pi mech.Prior, pat mech.Pattern, slv solver.Solver, tol float64, notify func(string), report func(lower, upper float64)) {
	ws, ok := slv.(solver.WarmSolver)
	if !ok || !r.worthFinishing(tol) || len(pat) == 0 || len(pi)*len(pat[0]) > finishMaxPairs {
		return
	}
	if notify != nil {
		notify(fmt.Sprintf("the column generation over the prior set stalled with the least ε in [%.12g, %.12g]: finishing it by bisection on the %d×%d LP over the set with %s", r.Lower, r.Upper, len(pi), len(pat[0]), slv.Name()))
	}
	openings := polytope.Openings(set, pat, len(pat[0]))
	var (
		mod     *polytope.RobustModel
		built   float64 // the level mod was built at
		builds  int     // the models built
		sess    solver.Session
		limited solver.LimitedSession
		cold    bool // no solve since sess was loaded
	)
	defer func() {
		if sess != nil {
			sess.Close()
		}
	}()
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
		cold = true
		return true
	}
	// model makes mod one that serves a probe at t with the outputs
	// pruned at t: built at the upper end, or just below the first
	// opening above t where one lies in between. An output the model
	// keeps that t leaves no mass is a column forced to 0, and a cold
	// solve round such degenerate vertices can go on for thousands of
	// iterations.
	model := func(t float64) bool {
		keep := mod != nil && t <= built
		level := r.Upper
		for _, o := range openings {
			keep = keep && !(o > t && o <= built)
			if o > t && o <= level {
				level = math.Nextafter(o, 0)
			}
		}
		if keep {
			return true
		}
		if builds++; builds > finishMaxBuilds {
			return false
		}
		m, err := polytope.BuildRobust(mechSpec(pi, pat, level), set)
		if err != nil {
			return false
		}
		mod, built = m, level
		return load()
	}
	steer, ladder, reloads := r.Lower, 0, 0
	next := math.NaN()  // the next probe's ε where it is not the bisection's
	askedLower := false // a probe went to the lower end
	for k := 0; k < finishMaxLPs && r.Upper-r.Lower > tol && ctx.Err() == nil; k++ {
		if report != nil {
			report(r.Lower, r.Upper)
		}
		lo := max(r.Lower, steer)
		t := lo + (r.Upper-lo)/2
		switch {
		case !math.IsNaN(next):
			t, next = next, math.NaN()
		case r.Upper-lo <= tol:
			if ladder == finishLadder {
				return
			}
			ladder++
			if t = r.Upper - tol*math.Pow(4, float64(ladder)); t <= r.Lower {
				return
			}
		}
		if !model(t) {
			return
		}
		if err := mod.SetUpperLevel(sess, t); err != nil {
			return
		}
		sol, err := sess.Solve()
		r.LPs++
		if err != nil {
			return
		}
		wasCold := cold
		cold = false
		if wasCold && sol.Status != solver.Limit && limited != nil {
			limited.SetIterationLimit(max(sol.Iterations, finishMinIterations))
		}
		switch sol.Status {
		case solver.Optimal:
			m := mod.Mechanism(sol.X)
			if !pat.Holds(m) {
				return
			}
			if lvl := leakage.PMLOver(set, m); lvl < r.Upper {
				r.Upper, r.Mechanism = lvl, m
				continue
			}
			// Feasible, but its point audits above the upper end: most
			// often ε* is a breakpoint just below t (an output's
			// opening), above which the feasible set is a sliver of
			// nearly parallel columns whose points audit a hair above
			// their ε. At the breakpoint itself they audit within
			// rounding: the proven lower end is asked once, in case it
			// is that point.
			if askedLower {
				return
			}
			next, askedLower = r.Lower, true
		case solver.Infeasible:
			steer = max(steer, t)
			y := sol.Ray
			if y == nil {
				y = sol.Certificate
			}
			for _, alpha := range mod.RayMultipliers(y) {
				if lb, priors, ok := colgen.RobustBound(set, pat, alpha); ok && lb > r.Lower {
					r.Lower = min(lb, r.Upper)
					r.Proofs = []certificate.Hint{{Priors: priors, Alpha: alpha}}
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
			next = t
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
// it (and finishByInteriorPoint) is tried on; finishReloads the fresh loads after a solve cut at its
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

// worthFinishing reports whether a finish should narrow r: it holds a
// mechanism, and its ends are further apart than tol and finishMinWidth.
func (r *Bracket) worthFinishing(tol float64) bool {
	return r.Mechanism != nil && r.Upper-r.Lower > max(tol, finishMinWidth)
}

// finishByInteriorPoint narrows a bracket that the robust master's search
// (and finishByLP, where it applies) left wider than tol, each end by the
// method that serves it near ε*, where the master's column generation
// tails off: the lower end by the lean interior point's proof at it
// (interiorPointProof: from a few 1e-4 below ε* its multipliers most
// often prove within 1e-8 of ε*), the upper end by a probe of the master
// g just above the lower end, where a mechanism is found in a few rounds.
// It stops after finishIPMRounds rounds, or once the interior point has
// proven nothing twice (it has nothing to refute at ε*), or at once when
// its first proof is none (its iterations stall on priors with masses of
// 1e-17). A master whose simplex fails a probe is replaced, once, by a
// new one. Every end it moves is proven or audited. A bracket within
// finishMinWidth is left as it is, as finishByLP leaves it: the interior
// point's proofs come within about 1e-8 of ε*, and one of them over a
// 20×20 grid costs ten times the master's whole search. report, if not
// nil, is told the bracket before each round. It returns the times the
// interior point raised the lower end.
func finishByInteriorPoint(ctx context.Context, r *Bracket, g *colgen.RobustMaster, set *mech.PriorSet, pat mech.Pattern, tol float64, report func(lower, upper float64)) (raises int) {
	if g == nil || !r.worthFinishing(tol) {
		return 0
	}
	silent := 0
	fresh := false // g is a master of the finish's own
	for k := 0; k < finishIPMRounds && r.Upper-r.Lower > tol && silent < 2 && ctx.Err() == nil; k++ {
		if report != nil {
			report(r.Lower, r.Upper)
		}
		raised := false
		if alpha := interiorPointProof(ctx, set, pat, r.Lower); alpha != nil {
			if lb, priors, ok := colgen.RobustBound(set, pat, alpha); ok && lb > r.Lower {
				r.Lower, raised = min(lb, r.Upper), true
				raises++
				r.Proofs = []certificate.Hint{{Priors: priors, Alpha: alpha}}
			}
		}
		if !raised {
			if k == 0 {
				return raises // no proof from well below ε*: none nearer it
			}
			silent++
		}
		if r.Upper-r.Lower <= tol {
			return raises
		}
		t := r.Lower + max(tol/2, finishIPMStep*(r.Upper-r.Lower))
		res, err := g.Probe(t)
		if err != nil && !fresh && ctx.Err() == nil {
			// The master simplex went round a degenerate vertex: a new
			// master, from its slacks, once.
			if g, err = g.Renew(); err != nil {
				return raises
			}
			g.SetStop(func() bool { return ctx.Err() != nil })
			fresh = true
			res, err = g.Probe(t)
		}
		if err != nil {
			return raises
		}
		switch {
		case res.Mechanism != nil && res.PML < r.Upper && pat.Holds(res.Mechanism):
			r.Upper, r.Mechanism = res.PML, res.Mechanism
		case res.Mechanism == nil && res.Alpha != nil && res.Lower > r.Lower:
			r.Lower = res.Lower
			r.Proofs = []certificate.Hint{{Priors: res.Priors, Alpha: res.Alpha}}
		}
		// A proof and a mechanism that cross by rounding: the lower end
		// is clipped, its proof proving more.
		r.Lower = min(r.Lower, r.Upper)
	}
	return raises
}

// finishIPMRounds is the rounds of finishByInteriorPoint; finishIPMStep
// the fraction of the bracket above its lower end at which its master
// probes: the interior point's proof lies within 1e-8 of ε* or so, and
// the master most often tails off on a probe that close above ε*.
const (
	finishIPMRounds = 8
	finishIPMStep   = 1e-3
)
