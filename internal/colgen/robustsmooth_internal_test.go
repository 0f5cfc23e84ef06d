package colgen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
)

// exactLagrangian is lagrangian's bound at y with best the largest y·v
// over the outputs' slices as setPriceBound proves it (the dual's least
// value, exact by strong duality), not as the pricing's golden sections
// find it.
func exactLagrangian(g *RobustMaster, y []float64) float64 {
	var w priceWork
	best := math.Inf(-1)
	for _, rows := range g.allowed {
		if len(rows) > 0 {
			best = max(best, setPriceBound(g.set, y, rows, g.mu, &w))
		}
	}
	return g.lagrangian(y, best)
}

// The automatic smoothing steers by a supergradient of the Lagrangian
// bound at the priced point: the bound at any other duals lies on or
// below the plane it spans (the bound is concave), up to what the
// pricing's column falls short of the exact best; and the weight moves
// the way that plane says, within its limits. The priors' total is 1,
// so the mass factor Σπ̂ of the supergradient is not tested here.
func TestSmoothingSteersByASupergradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 3))
	planes, slackPlanes := 0, 0
	for trial := range 120 {
		n, m := 4+rng.IntN(6), 3+rng.IntN(4)
		pi, pat := randinst.RobustCase(rng, n, m)
		var set *mech.PriorSet
		if trial%2 == 0 {
			l, u := make([]float64, n), make([]float64, n)
			for i, v := range pi {
				l[i], u[i] = v*(0.5+0.5*rng.Float64()), math.Min(1, v*(1+rng.Float64()))
			}
			set, _ = mech.NewBoxSet(pi, l, u)
		} else {
			set, _ = mech.NewL1Set(pi, 0.3*rng.Float64())
		}
		g, err := NewRobust(set, pat)
		if err != nil {
			t.Fatal(err)
		}
		g.setEps(0.2 + 1.5*rng.Float64())
		yp := make([]float64, n)
		for i := range yp {
			yp[i] = 1 - 2*rng.Float64()
		}
		if trial%3 == 0 {
			yp[rng.IntN(n)] = 1 + rng.Float64() // a slack prices in: its term is the least
		}
		_, best := g.price(yp, yp)
		// The plane through the bound at yp, with the best the pricing
		// found there: its column's value, at most the exact best, and
		// within the golden sections' reach of it.
		at, least := g.lagrangianAt(yp, best)
		d := append([]float64(nil), g.supergradient(least, best)...)
		if exact := exactLagrangian(g, yp); at-exact > 1e-6*(1+math.Abs(exact)) {
			t.Fatalf("trial %d: the bound at the priced point %v, the plane's %v: the pricing missed the best column", trial, exact, at)
		}
		if best > 0 && g.work.topVal > math.Inf(-1) {
			planes++
		}
		if d[slackArg(yp, pi)] < 0 {
			slackPlanes++
		}
		for k := range 20 {
			y := make([]float64, n)
			plane := at
			for i := range y {
				y[i] = yp[i] + 0.3*rng.NormFloat64()*float64(1+k%3)
				plane += d[i] * (y[i] - yp[i])
			}
			if got := exactLagrangian(g, y); got > plane+1e-9*(1+math.Abs(plane)) {
				t.Fatalf("trial %d: the bound at %v is %v, above the supergradient's plane %v", trial, y, got, plane)
			}
			// yp is a mix w·c + (1 − w)·y of a centre c and the duals y:
			// the weight falls where the plane rises from c towards y,
			// and rises otherwise, within [stabAlpha, smoothCap].
			w := stabAlpha + (smoothCap-stabAlpha)*rng.Float64()
			c := make([]float64, n)
			rise := 0.0
			for i := range c {
				c[i] = (yp[i] - (1-w)*y[i]) / w
				rise += d[i] * (y[i] - c[i])
			}
			got := g.smoothing(w, y, c, least, best)
			want := min(smoothCap, w+smoothStep*(1-w))
			if rise > 0 {
				want = max(stabAlpha, w-smoothStep)
			}
			if got != want {
				t.Fatalf("trial %d: weight %v → %v, want %v (the plane rises by %v from the centre)", trial, w, got, want, rise)
			}
		}
	}
	if planes < 30 || slackPlanes < 20 {
		t.Fatalf("%d of the trials priced a column, %d a slack: a plane is barely tested", planes, slackPlanes)
	}
}

// slackArg is the input whose slack term (1 − y_i)/π̂_i is the least.
func slackArg(y []float64, pi mech.Prior) int {
	at := 0
	for i := range y {
		if (1-y[i])/pi[i] < (1-y[at])/pi[at] {
			at = i
		}
	}
	return at
}
