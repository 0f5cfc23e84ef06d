package overset

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// finishByLP, given only the utility-safe mechanism and no proof, brackets
// the least PML over a wide box of the value patterns of four families to
// within 1e-8 by LPs alone, around the least ε the robust master finds by
// column generation (an independent method). Its upper end is the level
// over the set of its mechanism, which keeps the pattern; its lower end is
// what certify proves with the priors it returns, each a prior of the set.
func TestFinishByLPBracketsTheLeastEpsilon(t *testing.T) {
	for _, family := range []string{"square-geometric", "counting-binomial", "random", "grid"} {
		in, set, err := randinst.FamilyBox(family, 12, 3, 0.5, 2)
		if err != nil {
			t.Fatal(err)
		}
		pat := valuePattern(t, in.Prior, in.Utility, set)
		ref, err := colgen.RobustLeastEpsilon(context.Background(), set, pat, 1e-10)
		if err != nil || ref.Mechanism == nil || ref.Upper-ref.Lower > 1e-9 || ref.Upper < 0.05 {
			t.Fatalf("%s: reference [%g, %g], %v", family, ref.Lower, ref.Upper, err)
		}
		safe := colgen.UniformOverAllowed(pat)
		r := Bracket{Upper: leakage.PMLOver(set, safe), Mechanism: safe}
		var told []string
		finishByLP(context.Background(), &r, set, in.Prior, pat, solver.Revised(), 1e-9, func(msg string) { told = append(told, msg) })
		if len(told) != 1 || !strings.Contains(told[0], "bisection on the 12×12 LP") {
			t.Errorf("%s: told %q", family, told)
		}
		if w := r.Upper - r.Lower; !(w >= 0 && w <= 1e-8) || r.LPs == 0 {
			t.Errorf("%s: bracket [%.12g, %.12g] after %d LPs", family, r.Lower, r.Upper, r.LPs)
		}
		if math.Abs(r.Upper-ref.Upper) > 1e-8 {
			t.Errorf("%s: upper end %.12g, the master's least ε %.12g", family, r.Upper, ref.Upper)
		}
		if !pat.Holds(r.Mechanism) || leakage.PMLOver(set, r.Mechanism) != r.Upper {
			t.Errorf("%s: the mechanism breaks the pattern or audits off its end", family)
		}
		if len(r.Proofs) != 1 {
			t.Fatalf("%s: %d proofs", family, len(r.Proofs))
		}
		h := r.Proofs[0]
		for j, pr := range h.Priors {
			if !set.Contains(pr, 1e-12) {
				t.Fatalf("%s: output %d's prior is not in the set", family, j)
			}
		}
		c, ok := certify.DualCertificateColumns(h.Priors, pat, h.Alpha)
		if !ok || c.Epsilon < r.Lower {
			t.Errorf("%s: the proof gives %g (%v), the lower end %g", family, c.Epsilon, ok, r.Lower)
		}
	}
}

// A bracket already within the engines' reach is left alone: no LP.
func TestFinishByLPLeavesNarrowBrackets(t *testing.T) {
	in, set, err := randinst.FamilyBox("square-geometric", 12, 3, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	pat := valuePattern(t, in.Prior, in.Utility, set)
	safe := colgen.UniformOverAllowed(pat)
	up := leakage.PMLOver(set, safe)
	r := Bracket{Lower: up - finishMinWidth/2, Upper: up, Mechanism: safe}
	finishByLP(context.Background(), &r, set, in.Prior, pat, solver.Revised(), 1e-9, nil)
	if r.LPs != 0 || r.Lower != up-finishMinWidth/2 {
		t.Errorf("%d LPs, lower end %g", r.LPs, r.Lower)
	}
}

// valuePattern is the value pattern of u that a budget of 1 nat over the
// set reaches (BestWorstCase's decisions).
func valuePattern(t *testing.T, pi mech.Prior, u mech.Utility, set *mech.PriorSet) mech.Pattern {
	t.Helper()
	p := &problem.Problem{Prior: pi, Utility: u, PriorSet: set, Objective: problem.WorstCaseValue, Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 1}}
	pats, _, err := Patterns(p)
	if err != nil {
		t.Fatal(err)
	}
	best := pats[0]
	for _, pat := range pats {
		m, _, ok := probeByColumns(context.Background(), p, pat, 1)
		if !ok {
			t.Fatal("a decision did not settle")
		}
		if m != nil {
			best = pat
		}
	}
	return best
}

// A cancelled context leaves the bracket as it came: no LP.
func TestFinishByLPStopsWithTheContext(t *testing.T) {
	in, set, err := randinst.FamilyBox("grid", 12, 3, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	pat := valuePattern(t, in.Prior, in.Utility, set)
	safe := colgen.UniformOverAllowed(pat)
	up := leakage.PMLOver(set, safe)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := Bracket{Upper: up, Mechanism: safe}
	finishByLP(ctx, &r, set, in.Prior, pat, solver.Revised(), 1e-9, nil)
	if r.LPs != 0 || r.Lower != 0 || r.Upper != up || r.Proofs != nil {
		t.Errorf("%d LPs, bracket [%g, %g]", r.LPs, r.Lower, r.Upper)
	}
}
