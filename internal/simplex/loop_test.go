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
// steps says otherwise (a negative one: nothing blocks, a ray); its bounds
// are perturbed between Perturb and the Unperturb verdict. The flows of
// Perturb, Limits, Ray and Refactor's error are scripted by call.
type scripted struct {
	log       []string
	enters    int
	steps     []float64
	perturbed bool
	perturb   Flow
	// limits[k], rays[k]: the flow of the k-th call (Proceed, Restart
	// beyond the list); a Finish comes with errEnd.
	limits, rays   []Flow
	nLimits, nRays int
	refactorFails  int // the call of Refactor that fails with errEnd (0: none)
	nRefactor      int
}

var errEnd = errors.New("end")

func (e *scripted) add(f string, a ...any) { e.log = append(e.log, fmt.Sprintf(f, a...)) }

func (e *scripted) Refactor() error {
	e.nRefactor++
	if e.nRefactor == e.refactorFails {
		e.add("refactor fails")
		return errEnd
	}
	return nil
}

func (e *scripted) Price() bool {
	e.add("price")
	return false
}

func (e *scripted) Perturb() (Flow, error) {
	e.add("perturb")
	e.perturbed = true
	if e.perturb == Finish {
		return Finish, errEnd
	}
	return e.perturb, nil
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

// scriptedFlow returns the k-th flow of fs (Proceed beyond it), errEnd
// with Finish.
func scriptedFlow(fs []Flow, k *int) (Flow, error) {
	f := Proceed
	if *k < len(fs) {
		f = fs[*k]
	}
	*k++
	if f == Finish {
		return f, errEnd
	}
	return f, nil
}

func (e *scripted) Limits(bool, bool) (Flow, error) {
	f, err := scriptedFlow(e.limits, &e.nLimits)
	if f != Proceed {
		e.add("limits %d", f)
	}
	return f, err
}

func (e *scripted) Ratio(int, float64, bool, bool) (bool, float64) {
	if len(e.steps) > 0 {
		s := e.steps[0]
		e.steps = e.steps[1:]
		return s >= 0, s
	}
	return true, 0
}

func (e *scripted) Ray(bool) (Flow, error) {
	e.add("ray")
	f, err := scriptedFlow(e.rays, &e.nRays)
	if f == Proceed {
		f = Restart
	}
	return f, err
}

func (e *scripted) Step(_ int, _, step float64, _, moved bool) {
	e.add("step %g moved=%v", step, moved)
}

// Run perturbs the bounds once the degenerate run is longer than Run and
// prices again (Restart) or goes on to pricing (Proceed), prices by
// Bland's rule once the run is long again, restores the bounds on the
// first verdict and ends on the optimal one; a ray goes round without a
// step.
func TestRunFollowsTheStrategy(t *testing.T) {
	for _, perturb := range []Flow{Restart, Proceed} {
		e := &scripted{enters: 9, steps: []float64{0, -1, 0, 0, 1}, perturb: perturb}
		require.NoError(t, Run(e, &Degeneracy{Run: 2}))
		after := []string{"perturb", "price"} // priced again on the relaxed bounds
		if perturb == Proceed {
			after = []string{"perturb"}
		}
		want := []string{
			"price", "enter bland=false", "step 0 moved=false",
			"price", "enter bland=false", "ray",
			"price", "enter bland=false", "step 0 moved=false",
			"price", "enter bland=false", "step 0 moved=false", // three degenerate steps: the run is long
			"price"}
		want = append(want, after...)
		want = append(want,
			"enter bland=false", "step 1 moved=true",
			"price", "enter bland=false", "step 0 moved=false",
			"price", "enter bland=false", "step 0 moved=false",
			"price", "enter bland=false", "step 0 moved=false", // long again, the bounds already perturbed
			"price", "enter bland=true", "step 0 moved=false",
			"price", "enter none", fmt.Sprintf("conclude %d", Unperturb),
			"price", "enter none", fmt.Sprintf("conclude %d", Optimal))
		require.Equal(t, strings.Join(want, "\n"), strings.Join(e.log, "\n"), "perturb flow %d", perturb)
	}
}

// A Limits that restarts goes round without a step, and every step that
// finishes ends Run with its error: Limits, Ray, Refactor, Perturb.
func TestRunEndsWhereAStepFinishes(t *testing.T) {
	e := &scripted{enters: 10, limits: []Flow{Proceed, Restart, Finish}}
	require.ErrorIs(t, Run(e, &Degeneracy{Run: 50}), errEnd)
	require.Equal(t, []string{
		"price", "enter bland=false", "step 0 moved=false",
		"price", "enter bland=false", fmt.Sprintf("limits %d", Restart),
		"price", "enter bland=false", fmt.Sprintf("limits %d", Finish),
	}, e.log)

	e = &scripted{enters: 10, steps: []float64{-1, -1}, rays: []Flow{Restart, Finish}}
	require.ErrorIs(t, Run(e, &Degeneracy{Run: 50}), errEnd)
	require.Equal(t, []string{"price", "enter bland=false", "ray", "price", "enter bland=false", "ray"}, e.log)

	e = &scripted{enters: 10, refactorFails: 3}
	require.ErrorIs(t, Run(e, &Degeneracy{Run: 50}), errEnd)
	require.Equal(t, []string{
		"price", "enter bland=false", "step 0 moved=false",
		"price", "enter bland=false", "step 0 moved=false",
		"refactor fails",
	}, e.log)

	e = &scripted{enters: 10, perturb: Finish}
	require.ErrorIs(t, Run(e, &Degeneracy{Run: 1}), errEnd)
	require.Equal(t, []string{
		"price", "enter bland=false", "step 0 moved=false",
		"price", "enter bland=false", "step 0 moved=false",
		"price", "perturb",
	}, e.log)
}
