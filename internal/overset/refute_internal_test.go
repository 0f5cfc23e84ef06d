package overset

import (
	"context"
	"math"
	"testing"

	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// The interior point's refutation against the robust master's brackets,
// on every pattern of Clopper–Pearson boxes of 12 to 20 letters (the
// ball too, its estimate's L1 ball of radius 0.2) at three budgets: it
// never rules out a pattern the master found a mechanism for within the
// budget, and it rules out every pattern the master proves 1e-3 or more
// above it (patterns no ε reaches, whose pruning bound is +Inf, are the
// free answers', asked before).
func TestInteriorPointRefutesOnlyWhatIsOut(t *testing.T) {
	ctx := context.Background()
	refuted, owed, kept := 0, 0, 0
	for _, n := range []int{12, 16, 20} {
		for seed := uint64(1); seed <= 2; seed++ {
			box := confidenceProblem(t, n, seed)
			ball := *box
			var err error
			if ball.PriorSet, err = mech.NewL1Set(box.Prior, 0.2); err != nil {
				t.Fatal(err)
			}
			for _, p := range []*problem.Problem{box, &ball} {
				pats, th, err := Patterns(p)
				if err != nil {
					t.Fatal(err)
				}
				for k, pat := range pats {
					b, err := colgen.RobustLeastEpsilon(ctx, p.PriorSet, pat, 1e-9)
					if err != nil {
						t.Fatal(err)
					}
					for _, eps := range []float64{0.5, 1, 2} {
						ref := refutedByInteriorPoint(ctx, p, pat, eps)
						if b.Mechanism != nil && b.Upper <= eps {
							kept++
						}
						switch {
						case b.Mechanism != nil && b.Upper <= eps && ref:
							t.Errorf("n=%d seed %d threshold %g, ε=%g: refuted, but the master's mechanism keeps %.12g", n, seed, th[k], eps, b.Upper)
						case b.Lower > eps+1e-3 && !math.IsInf(b.Lower, 1):
							owed++
							if ref {
								refuted++
							} else {
								t.Errorf("n=%d seed %d threshold %g, ε=%g: not refuted, least ε proven ≥ %.12g", n, seed, th[k], eps, b.Lower)
							}
						}
					}
				}
			}
		}
	}
	if kept == 0 || owed == 0 {
		t.Fatalf("%d patterns kept, %d out by 1e-3: nothing to check", kept, owed)
	}
	t.Logf("%d kept, none refuted; %d of %d out by 1e-3 or more refuted", kept, refuted, owed)
}
