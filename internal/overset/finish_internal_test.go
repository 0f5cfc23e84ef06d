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
		pi, set, pat, r := safeStart(t, family)
		ref, err := colgen.RobustLeastEpsilon(context.Background(), set, pat, 1e-10)
		if err != nil || ref.Mechanism == nil || ref.Upper-ref.Lower > 1e-9 || ref.Upper < 0.05 {
			t.Fatalf("%s: reference [%g, %g], %v", family, ref.Lower, ref.Upper, err)
		}
		var told []string
		finishByLP(context.Background(), &r, set, pi, pat, solver.Revised(), 1e-9, func(msg string) { told = append(told, msg) }, nil)
		if len(told) != 1 || !strings.Contains(told[0], "bisection on the 12×12 LP") {
			t.Errorf("%s: told %q", family, told)
		}
		if w := r.Upper - r.Lower; !(w >= 0 && w <= 1e-8) || r.LPs == 0 {
			t.Errorf("%s: bracket [%.12g, %.12g] after %d LPs", family, r.Lower, r.Upper, r.LPs)
		}
		if math.Abs(r.Upper-ref.Upper) > 1e-8 {
			t.Errorf("%s: upper end %.12g, the master's least ε %.12g", family, r.Upper, ref.Upper)
		}
		checkFinished(t, family, set, pat, r)
	}
}

// checkFinished checks the ends of a finished bracket on their own: the
// mechanism keeps the pattern and audits at the upper end over the set,
// and the proof's priors lie in the set and prove the lower end
// (certify).
func checkFinished(t *testing.T, family string, set *mech.PriorSet, pat mech.Pattern, r Bracket) {
	t.Helper()
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

// A bracket already within the engines' reach is left alone: no LP.
func TestFinishByLPLeavesNarrowBrackets(t *testing.T) {
	pi, set, pat, r := safeStart(t, "square-geometric")
	up := r.Upper
	r.Lower = up - finishMinWidth/2
	finishByLP(context.Background(), &r, set, pi, pat, solver.Revised(), 1e-9, nil, nil)
	if r.LPs != 0 || r.Lower != up-finishMinWidth/2 {
		t.Errorf("%d LPs, lower end %g", r.LPs, r.Lower)
	}
}

// The interior point's finish leaves a bracket within finishMinWidth as
// the LP's does: no round, no report.
func TestFinishByInteriorPointLeavesNarrowBrackets(t *testing.T) {
	_, set, pat, r := safeStart(t, "square-geometric")
	g, err := colgen.NewRobust(set, pat)
	if err != nil {
		t.Fatal(err)
	}
	up := r.Upper
	r.Lower = up - finishMinWidth/2
	rounds := 0
	raises := finishByInteriorPoint(context.Background(), &r, g, set, pat, 1e-9, func(lower, upper float64) { rounds++ })
	if rounds != 0 || raises != 0 || r.Lower != up-finishMinWidth/2 || r.Upper != up {
		t.Errorf("%d rounds, %d raises, bracket [%g, %g] from [%g, %g]", rounds, raises, r.Lower, r.Upper, up-finishMinWidth/2, up)
	}
}

// safeStart is the finish's start on the family's instance of 12 letters
// (seed 3) over the box 0.5-2 times its prior: the value pattern that a
// budget of 1 nat over the set reaches (BestWorstCase's decisions), and
// the bracket [0, level over the set of the utility-safe mechanism] with
// that mechanism.
func safeStart(t *testing.T, family string) (mech.Prior, *mech.PriorSet, mech.Pattern, Bracket) {
	t.Helper()
	in, set, err := randinst.FamilyBox(family, 12, 3, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, PriorSet: set, Objective: problem.WorstCaseValue, Privacy: &mech.Budget{Measure: mech.PML, Epsilon: 1}}
	pats, _, err := Patterns(p)
	if err != nil {
		t.Fatal(err)
	}
	best := pats[0]
	for _, pat := range pats {
		m, _, ok := probeByColumns(context.Background(), p, pat, 1, nil)
		if !ok {
			t.Fatal("a decision did not settle")
		}
		if m != nil {
			best = pat
		}
	}
	safe := colgen.UniformOverAllowed(best)
	return in.Prior, set, best, Bracket{Upper: leakage.PMLOver(set, safe), Mechanism: safe}
}

// A cancelled context leaves the bracket as it came: no LP.
func TestFinishByLPStopsWithTheContext(t *testing.T) {
	pi, set, pat, r := safeStart(t, "grid")
	up := r.Upper
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	finishByLP(ctx, &r, set, pi, pat, solver.Revised(), 1e-9, nil, nil)
	if r.LPs != 0 || r.Lower != 0 || r.Upper != up || r.Proofs != nil {
		t.Errorf("%d LPs, bracket [%g, %g]", r.LPs, r.Lower, r.Upper)
	}
}

// finishByInteriorPoint, from a lower end halfway below the least ε and
// the utility-safe mechanism, narrows the bracket to within the
// tolerance and the audit's rounding (2e-9) around the least ε the robust
// master's own search finds (an independent method) with the interior
// point's proofs, one at least, and the master's probes alone: its lower end is
// what certify proves with the priors it returns, each in the set, its
// upper end the level over the set of a mechanism that keeps the pattern.
func TestFinishByInteriorPointBracketsTheLeastEpsilon(t *testing.T) {
	for _, family := range []string{"square-geometric", "random", "grid", "counting-dirichlet"} {
		_, set, pat, r := safeStart(t, family)
		ref, err := colgen.RobustLeastEpsilon(context.Background(), set, pat, 1e-10)
		if err != nil || ref.Mechanism == nil || ref.Upper-ref.Lower > 1e-9 || ref.Upper < 0.05 {
			t.Fatalf("%s: reference [%g, %g], %v", family, ref.Lower, ref.Upper, err)
		}
		r.Lower = ref.Lower / 2
		g, err := colgen.NewRobust(set, pat)
		if err != nil {
			t.Fatal(err)
		}
		raises := finishByInteriorPoint(context.Background(), &r, g, set, pat, 1e-9, nil)
		if raises == 0 {
			t.Errorf("%s: the interior point raised nothing", family)
		}
		if w := r.Upper - r.Lower; !(w >= 0 && w <= 2e-9) {
			t.Errorf("%s: bracket [%.12g, %.12g], the master's [%.12g, %.12g]", family, r.Lower, r.Upper, ref.Lower, ref.Upper)
		}
		if r.Lower > ref.Upper || r.Upper < ref.Lower {
			t.Errorf("%s: bracket [%.12g, %.12g] misses the master's [%.12g, %.12g]", family, r.Lower, r.Upper, ref.Lower, ref.Upper)
		}
		checkFinished(t, family, set, pat, r)
	}
}
