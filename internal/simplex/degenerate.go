package simplex

// Degeneracy counts the degenerate steps in a row (steps no longer than
// DegenerateStep). A run longer than Run is how a cycle or a stall at a
// degenerate vertex shows: the engines perturb their bounds once a solve
// when it happens, and, should it happen again, price by Bland's rule until
// a step moves the point.
type Degeneracy struct {
	Run, Steps int
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
