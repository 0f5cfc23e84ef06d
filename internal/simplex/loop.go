package simplex

// Flow says how an iteration goes on after a step that may end it. A
// step's error is non-nil only with Finish.
type Flow int8

const (
	Proceed Flow = iota // to the iteration's next step
	Restart             // to the next iteration
	Finish              // the solve ends
)

// An Engine is one simplex engine's basis representation and bounds, as
// the iteration of Run uses them: each method is a step whose work depends
// on the factorisation (sparse LU or explicit inverse), on which bounds the
// variables have and on the arithmetic of a step to a bound. A step that
// may end the iteration or the solve says so by its Flow; on Finish the
// engine holds its result, also when it returns an error (the pivots made
// before it failed, say). The engine keeps its own counters of the solve
// (iterations, phase 1 progress, a stalled phase 2) and its own limits.
type Engine interface {
	// Refactor computes fresh factors and basic values when the updates
	// since the last ones call for it; the iteration goes on with them.
	Refactor() error
	// Price sets the basic costs of the phase, those of the sum of
	// infeasibilities when some basic value is off its bounds (phase 1),
	// and the duals that price the nonbasics.
	Price() (phase1 bool)
	// Perturb relaxes the bounds by small amounts after a long run of
	// degenerate steps: Restart prices again on the relaxed bounds,
	// Proceed prices with the duals Price set. Run then records the
	// perturbation in the degenerate run (Degeneracy.Perturbing).
	Perturb() (Flow, error)
	// Bland reports whether the engine's own progress calls for Bland's
	// rule (a long degenerate run always does).
	Bland(phase1 bool) bool
	// Enter returns the entering variable and its reduced cost, q < 0
	// when none prices out (Pricing.Enter).
	Enter(phase1, bland bool) (q int, dq float64)
	// Trusted reports whether the factors are fresh or checked accurate
	// (NoEntering's first input).
	Trusted() bool
	// Perturbed reports whether the bounds are relaxed.
	Perturbed() bool
	// Conclude acts on the verdict of a pass that found no entering
	// variable.
	Conclude(v Verdict) (Flow, error)
	// Limits checks, before the step, what may end or restart the
	// solve short of a verdict: the iteration limit, a stall, the
	// caller's stop, a phase 1 going round. An engine that counts the
	// passes that reach the ratio test counts this one here; one that
	// counts pivots, in Step.
	Limits(phase1, bland bool) (Flow, error)
	// Ratio computes the entering column and chooses the step and what
	// ends it (a leaving basic, or q reaching its other bound); blocked
	// is false when nothing does.
	Ratio(q int, dq float64, phase1, bland bool) (blocked bool, step float64)
	// Ray handles a pass whose step nothing blocks.
	Ray(phase1 bool) (Flow, error)
	// Step takes the step Ratio chose and changes the basis; moved: the
	// step was longer than DegenerateStep.
	Step(q int, dq, step float64, phase1, moved bool)
}

// Run is the primal simplex method from the engine's current basis, one
// iteration a pass of the numbered steps below. deg is the run of
// degenerate steps, which the engine may also reset (after restoring its
// bounds, say).
func Run(e Engine, deg *Degeneracy) error {
	for {
		// 1. Fresh factors when the updates call for them.
		if err := e.Refactor(); err != nil {
			return err
		}
		// 2. The phase, the basic costs and the duals.
		phase1 := e.Price()
		// 3. A long run of degenerate steps perturbs the bounds.
		if deg.PerturbNow() {
			f, err := e.Perturb()
			deg.Perturbing()
			if f == Finish {
				return err
			}
			if f == Restart {
				continue
			}
		}
		// 4. Pricing: the entering variable q.
		bland := deg.Long() || e.Bland(phase1)
		q, dq := e.Enter(phase1, bland)
		// 5. No entering variable: optimal, infeasible, or not yet sure.
		if q < 0 {
			f, err := e.Conclude(NoEntering(e.Trusted(), e.Perturbed(), phase1))
			if f == Finish {
				return err
			}
			continue
		}
		// 6. The engine's limits.
		if f, err := e.Limits(phase1, bland); f != Proceed {
			if f == Finish {
				return err
			}
			continue
		}
		// 7. The entering column and the ratio test.
		blocked, step := e.Ratio(q, dq, phase1, bland)
		// 8. Nothing blocks the step: a ray.
		if !blocked {
			f, err := e.Ray(phase1)
			if f == Finish {
				return err
			}
			continue
		}
		// 9. The step and the new basis.
		e.Step(q, dq, step, phase1, deg.Took(step))
	}
}
