package simplex

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// scripted is an Engine whose steps log what Run asks of them: enters
// entering variables are offered, each step degenerate (length 0) unless
// steps says otherwise; its bounds are perturbed between Perturb and the
// Unperturb verdict.
type scripted struct {
	log       []string
	enters    int
	steps     []float64
	perturbed bool
	limitAt   int // Limits ends the solve with errLimit at this call (0: never)
	limits    int
}

var errLimit = errors.New("limit")

func (e *scripted) add(f string, a ...any) { e.log = append(e.log, fmt.Sprintf(f, a...)) }
func (e *scripted) Refactor() error        { return nil }
func (e *scripted) Price() bool            { return false }
func (e *scripted) Perturb() (Flow, error) {
	e.add("perturb")
	e.perturbed = true
	return Restart, nil
}
func (e *scripted) Bland(bool) bool { return false }
func (e *scripted) Enter(_, bland bool) (int, float64) {
	if e.enters == 0 {
		e.add("enter none")
		return -1, 0
	}
	e.enters--
	e.add("enter bland=%v", bland)
	return 0, -1
}
func (e *scripted) Trusted() bool   { return true }
func (e *scripted) Perturbed() bool { return e.perturbed }
func (e *scripted) Conclude(v Verdict) (Flow, error) {
	e.add("conclude %d", v)
	if v == Unperturb {
		e.perturbed = false
		return Restart, nil
	}
	return Finish, nil
}
func (e *scripted) Limits(bool, bool) (Flow, error) {
	e.limits++
	if e.limits == e.limitAt {
		return Finish, errLimit
	}
	return Proceed, nil
}
func (e *scripted) Ratio(int, float64, bool, bool) (bool, float64) {
	if len(e.steps) > 0 {
		s := e.steps[0]
		e.steps = e.steps[1:]
		return s >= 0, s
	}
	return true, 0
}
func (e *scripted) Ray(bool) (Flow, error) { e.add("ray"); return Restart, nil }
func (e *scripted) Step(_ int, _, step float64, moved bool) {
	e.add("step %g moved=%v", step, moved)
}

// Run perturbs the bounds once the degenerate run is longer than Run,
// prices by Bland's rule once it is long again, restores the bounds on the
// first verdict and ends on the optimal one; a ray goes round without a
// step, and a limit ends the solve with its error.
func TestRunFollowsTheStrategy(t *testing.T) {
	e := &scripted{enters: 9, steps: []float64{0, -1, 0, 0, 1}}
	require.NoError(t, Run(e, &Degeneracy{Run: 2}))
	want := []string{
		"enter bland=false", "step 0 moved=false",
		"enter bland=false", "ray",
		"enter bland=false", "step 0 moved=false",
		"enter bland=false", "step 0 moved=false", // three degenerate steps: the run is long
		"perturb",
		"enter bland=false", "step 1 moved=true",
		"enter bland=false", "step 0 moved=false",
		"enter bland=false", "step 0 moved=false",
		"enter bland=false", "step 0 moved=false", // long again, the bounds already perturbed
		"enter bland=true", "step 0 moved=false",
		"enter none", fmt.Sprintf("conclude %d", Unperturb),
		"enter none", fmt.Sprintf("conclude %d", Optimal),
	}
	require.Equal(t, strings.Join(want, "\n"), strings.Join(e.log, "\n"))

	e = &scripted{enters: 10, limitAt: 3}
	require.ErrorIs(t, Run(e, &Degeneracy{Run: 50}), errLimit)
	require.Equal(t, []string{"enter bland=false", "step 0 moved=false", "enter bland=false", "step 0 moved=false", "enter bland=false"}, e.log)
}
