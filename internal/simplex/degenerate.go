package simplex

// Degeneracy counts the degenerate steps in a row (steps no longer than
// DegenerateStep). A run longer than Run is how a cycle or a stall at a
// degenerate vertex shows: the engines perturb their bounds once a solve
// when it happens, and, should it happen again, price by Bland's rule until
// a step moves the point.
type Degeneracy struct {
	Run, Steps int
	// Perturbed: the bounds have been perturbed in this solve.
	Perturbed bool
}

// Took counts a step of length step and reports whether it moved the point.
func (d *Degeneracy) Took(step float64) (moved bool) {
	if step > DegenerateStep {
		d.Steps = 0
		return true
	}
	d.Steps++
	return false
}

// Long reports whether the run of degenerate steps is longer than Run.
func (d *Degeneracy) Long() bool { return d.Steps > d.Run }

// PerturbNow reports whether the run calls for perturbing the bounds: it
// is longer than Run and they have not been perturbed yet in this solve
// (they are once against a degenerate run; should one come again, Bland's
// rule takes over).
func (d *Degeneracy) PerturbNow() bool { return d.Long() && !d.Perturbed }

// Perturbing records that the engine perturbs its bounds; the run starts
// again.
func (d *Degeneracy) Perturbing() { d.Perturbed, d.Steps = true, 0 }
