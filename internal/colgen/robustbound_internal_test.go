package colgen

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
)

// setMinPositive's prior lies in the set, its value is freeMass.value's,
// and no prior of the set sampled at random (mixtures of its extreme
// priors) does better: the greedy is the minimum it claims.
func TestSetMinPositiveIsTheMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 9))
	for trial := range 200 {
		n := 3 + rng.IntN(6)
		pi := randinst.Prior(rng, n, 0.1)
		var set *mech.PriorSet
		if trial%2 == 0 {
			l, u := make([]float64, n), make([]float64, n)
			for i, v := range pi {
				l[i], u[i] = v*rng.Float64(), math.Min(1, v*(1+2*rng.Float64()))
			}
			set, _ = mech.NewBoxSet(pi, l, u)
		} else {
			set, _ = mech.NewL1Set(pi, 0.5*rng.Float64())
		}
		var rows []int
		for i := range n {
			if rng.Float64() < 0.6 || trial%4 == 1 {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 {
			rows = []int{0}
		}
		in := inRows(rows, n)
		a := make([]float64, n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		nu := math.Exp(2 * rng.NormFloat64())
		got := make([]float64, n)
		v := setMinPositive(set, a, rows, in, nu, got)
		if !set.Contains(got, 1e-12) {
			t.Fatalf("trial %d: the minimiser %v is not in the set", trial, got)
		}
		cost := func(p []float64) float64 {
			c := 0.0
			for _, i := range rows {
				c += math.Max(0, p[i]+nu*a[i])
			}
			return c
		}
		if math.Abs(cost(got)-v) > 1e-12 {
			t.Fatalf("trial %d: value %v, its prior costs %v", trial, v, cost(got))
		}
		if w := newFreeMass(set, in).value(set, a, rows, nu); math.Abs(w-v) > 1e-12 {
			t.Fatalf("trial %d: freeMass.value %v, setMinPositive %v", trial, w, v)
		}
		for range 50 {
			p := make([]float64, n)
			ws := 0.0
			for range 3 {
				c := make([]float64, n)
				for i := range c {
					c[i] = rng.NormFloat64()
				}
				w := rng.Float64()
				ws += w
				for i, x := range set.Extreme(c, rng.IntN(2) == 0) {
					p[i] += w * x
				}
			}
			for i := range p {
				p[i] /= ws
			}
			if cost(p) < v-1e-12 {
				t.Fatalf("trial %d: a prior of the set costs %v, below the greedy's %v", trial, cost(p), v)
			}
		}
	}
}

// setColumn's columns keep the constraint over the set, and none of the
// set's slice sampled at random (vertices of the cone moved into the
// slice) prices higher.
func TestSetColumnKeepsTheSetAndIsBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 10))
	var w priceWork
	for trial := range 200 {
		n := 3 + rng.IntN(6)
		pi := randinst.Prior(rng, n, 0.1)
		var set *mech.PriorSet
		if trial%2 == 0 {
			l, u := make([]float64, n), make([]float64, n)
			for i, v := range pi {
				l[i], u[i] = 0.8*v, math.Min(1, 1.25*v)
			}
			set, _ = mech.NewBoxSet(pi, l, u)
		} else {
			set, _ = mech.NewL1Set(pi, 0.2)
		}
		rows := []int{}
		for i := range n - 1 { // one input outside: the ball's form is exact
			if rng.Float64() < 0.7 {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 {
			rows = []int{0}
		}
		c := make([]float64, n)
		for i := range c {
			c[i] = rng.NormFloat64()
		}
		mu := 0.2 + 0.5*rng.Float64()
		v, val, ok := setColumn(set, c, rows, mu, &w)
		if !ok {
			continue
		}
		if m := set.MinMass(v); m < mu*(1-1e-9) {
			t.Fatalf("trial %d: column %v has least mass %v below μ = %v", trial, v, m, mu)
		}
		best := val
		for range 300 {
			x := make([]float64, n)
			for _, i := range rows {
				x[i] = rng.Float64()
				if rng.IntN(3) == 0 {
					x[i] = float64(rng.IntN(2))
				}
			}
			m := set.MinMass(x)
			top := 0.0
			for _, e := range x {
				top = math.Max(top, e)
			}
			if m <= 0 || top <= 0 {
				continue
			}
			// x/top lies in the slice when its least mass reaches μ.
			if m/top < mu {
				continue
			}
			sc := 1 / top
			got := 0.0
			for i := range x {
				got += c[i] * x[i] * sc
			}
			if got > best+1e-7 {
				t.Fatalf("trial %d: a point of the slice prices %v above setColumn's %v", trial, got, best)
			}
		}
	}
}

// setPriceBound is the optimum of setColumn's problem, its dual's least
// value (setPriceAt at every ρ is at least it, and equal at the sweep's
// minimiser): never below a column of the slice (setColumn's, every vertex of a fine scan of τ's
// knapsacks), and within the golden-section search's precision of the
// best of them; -Inf exactly when setColumn finds the slice empty.
func TestSetPriceBoundIsTheOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 11))
	var w, scan priceWork
	for trial := range 400 {
		n := 3 + rng.IntN(8)
		pi := randinst.Prior(rng, n, 0.1)
		var set *mech.PriorSet
		box := trial%2 == 0
		if box {
			l, u := make([]float64, n), make([]float64, n)
			for i, v := range pi {
				l[i], u[i] = v*rng.Float64(), math.Min(1, v*(1+rng.Float64()))
			}
			set, _ = mech.NewBoxSet(pi, l, u)
		} else {
			set, _ = mech.NewL1Set(pi, 0.4*rng.Float64())
		}
		rows := []int{}
		for i := range n - 1 {
			if rng.Float64() < 0.7 {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 {
			rows = []int{0}
		}
		c := make([]float64, n)
		for i := range c {
			c[i] = rng.NormFloat64()
			if trial%3 == 0 && rng.IntN(2) == 0 {
				c[i] = -math.Abs(c[i]) // mostly negative: the knapsack binds
			}
		}
		mu := 0.05 + 0.9*rng.Float64()
		ub := setPriceBound(set, c, rows, mu, &w)
		// The dual at one ρ (setPriceAt, price's screen) is the bound at
		// the sweep's minimiser and above it elsewhere (weak duality).
		if !math.IsInf(ub, -1) {
			if at := setPriceAt(set, c, rows, mu, w.rho); math.Abs(at-ub) > 1e-12*(1+math.Abs(ub)) {
				t.Fatalf("trial %d: the dual at its minimiser %v is %v, the sweep's least %v", trial, w.rho, at, ub)
			}
			for range 5 {
				rho := w.rho * 2 * rng.Float64()
				if rng.IntN(3) == 0 {
					rho = 10 * rng.Float64()
				}
				if at := setPriceAt(set, c, rows, mu, rho); at < ub-1e-12*(1+math.Abs(ub)) {
					t.Fatalf("trial %d: the dual at ρ = %v is %v, below the least %v", trial, rho, at, ub)
				}
			}
		}
		_, val, ok := setColumn(set, c, rows, mu, &w)
		if !ok {
			if !math.IsInf(ub, -1) {
				t.Fatalf("trial %d: empty slice, bound %v", trial, ub)
			}
			continue
		}
		if ub < val-1e-12 {
			t.Fatalf("trial %d: bound %v below setColumn's %v", trial, ub, val)
		}
		// The knapsack at each τ of a fine grid (setColumn's inner
		// problem, exact for a fixed τ).
		var C float64
		rate1 := func(k int) float64 { return set.Center[k] }
		rate2 := func(k int) float64 { return 0 }
		if box {
			for _, u := range set.Upper {
				C += u
			}
			C--
			rate1 = func(k int) float64 { return set.Upper[k] }
			rate2 = func(k int) float64 { return set.Lower[k] }
		} else {
			C = math.Min(set.Radius/2, 1)
		}
		scan.prepare(c, rows, rate1, rate2)
		grid := val
		for g := 0; g <= 4000; g++ {
			tau := float64(g) / 4000
			grid = math.Max(grid, scan.cover(c, rows, tau, mu+C*tau, false))
		}
		if ub < grid-1e-12 {
			t.Fatalf("trial %d: bound %v below a knapsack's %v", trial, ub, grid)
		}
		if ub > math.Max(val, grid)+1e-6*(1+math.Abs(ub)) {
			t.Fatalf("trial %d: bound %v well above the best column found, %v", trial, ub, math.Max(val, grid))
		}
	}
}

// bestPrior's prior reaches the least over ν of the set's minimum (h, by
// freeMass.value on a fine grid of ν): for its own prior the sum is
// convex and piecewise linear in ν, least at a kink π_i/−a_i or at 0,
// and no point of the grid does better.
func TestBestPriorReachesTheLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 12))
	for trial := range 300 {
		n := 3 + rng.IntN(8)
		pi := randinst.Prior(rng, n, 0.1)
		var set *mech.PriorSet
		if trial%2 == 0 {
			l, u := make([]float64, n), make([]float64, n)
			for i, v := range pi {
				l[i], u[i] = v*rng.Float64(), math.Min(1, v*(1+2*rng.Float64()))
			}
			set, _ = mech.NewBoxSet(pi, l, u)
		} else {
			set, _ = mech.NewL1Set(pi, rng.Float64())
		}
		var rows []int
		for i := range n {
			if rng.Float64() < 0.7 || trial%4 == 1 {
				rows = append(rows, i)
			}
		}
		if len(rows) == 0 {
			rows = []int{0}
		}
		a := make([]float64, n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		got := bestPrior(set, a, rows)
		if !set.Contains(got, 1e-12) {
			t.Fatalf("trial %d: prior %v outside the set", trial, got)
		}
		sum := func(nu float64) float64 {
			v := 0.0
			for _, i := range rows {
				v += math.Max(0, got[i]+nu*a[i])
			}
			return v
		}
		reached := sum(0)
		for _, i := range rows {
			if a[i] < 0 {
				reached = math.Min(reached, sum(got[i]/-a[i]))
			}
		}
		free := newFreeMass(set, inRows(rows, n))
		least := free.value(set, a, rows, 0)
		for g := 0; g <= 6000; g++ {
			nu := math.Exp(-12 + 18*float64(g)/6000)
			least = math.Min(least, free.value(set, a, rows, nu))
		}
		if reached > least+1e-12 {
			t.Fatalf("trial %d (box %v): bestPrior's prior reaches %.15g, the grid %.15g", trial, set.IsBox(), reached, least)
		}
	}
}

// minMassOf is modelMinMass of an indicator to the last bit, on
// boxes (some bounds tight, some letters fixed) and balls (radii large
// enough to move every letter's mass, and none), including the indicator
// of every letter and of one.
func TestMinMassOfIsMinMass(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 13))
	for trial := range 2000 {
		n := 1 + rng.IntN(12)
		pi := make(mech.Prior, n)
		s := 0.0
		for i := range pi {
			pi[i] = rng.Float64() + 1e-3
			if rng.IntN(5) == 0 {
				pi[i] = 1e-9
			}
			s += pi[i]
		}
		for i := range pi {
			pi[i] /= s
		}
		var set *mech.PriorSet
		var err error
		if trial%2 == 0 {
			l, u := make([]float64, n), make([]float64, n)
			for i, p := range pi {
				l[i], u[i] = p*(0.5+0.5*rng.Float64()), math.Min(1, p*(1+rng.Float64()))
				if rng.IntN(6) == 0 {
					l[i], u[i] = p, p
				}
			}
			set, err = mech.NewBoxSet(pi, l, u)
		} else {
			set, err = mech.NewL1Set(pi, []float64{0, 0.05, 0.5, 1.5, 2}[rng.IntN(5)])
		}
		if err != nil {
			t.Fatal(err)
		}
		in, c, scratch := make([]bool, n), make([]float64, n), make([]float64, n)
		for range 8 {
			for i := range in {
				in[i] = rng.IntN(3) == 0
			}
			switch rng.IntN(6) {
			case 0:
				for i := range in {
					in[i] = true
				}
			case 1:
				clear(in)
				in[rng.IntN(n)] = true
			}
			for i, a := range in {
				c[i] = 0
				if a {
					c[i] = 1
				}
			}
			if got, want := minMassOf(set, in, scratch), modelMinMass(set, c); got != want {
				t.Fatalf("trial %d (box %v): minMassOf %v (%x), modelMinMass %v (%x) of %v", trial, set.IsBox(), got, math.Float64bits(got), want, math.Float64bits(want), in)
			}
		}
	}
}

// sortKinks and sortSegments put in order what slices.SortFunc does with
// the same comparisons, on lists of every length the quicksort and the
// insertion sort meet, with many ties of ρ and of the loss per unit of mass
// (inputs of equal duals and equal masses).
func TestPricingSortsOrderAsTheLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 13))
	for trial := range 400 {
		n := rng.IntN(90)
		kinks := make([]kink, n)
		segs := make([]segment, n)
		for i := range n {
			kinks[i] = kink{rho: float64(rng.IntN(1 + n/3)), dA: float64(i)}
			if rng.IntN(4) == 0 {
				kinks[i].rho = rng.Float64()
			}
			segs[i] = segment{k: i / 2, first: i%2 == 0, rate: float64(1 + rng.IntN(4)), loss: float64(1 + rng.IntN(3))}
			if trial%3 == 0 {
				segs[i].rate, segs[i].loss = 0.1*float64(1+rng.IntN(7)), 0.3*float64(1+rng.IntN(5))
			}
		}
		wantK := slices.Clone(kinks)
		slices.SortStableFunc(wantK, func(x, y kink) int { return cmp.Compare(x.rho, y.rho) })
		sortKinks(kinks)
		for i := range n {
			if kinks[i].rho != wantK[i].rho {
				t.Fatalf("trial %d: kink %d at ρ = %v, want %v", trial, i, kinks[i].rho, wantK[i].rho)
			}
		}
		wantS := slices.Clone(segs)
		slices.SortFunc(wantS, func(x, y segment) int {
			switch {
			case segmentBefore(&x, &y):
				return -1
			case segmentBefore(&y, &x):
				return 1
			}
			return 0
		})
		sortSegments(segs)
		if !slices.Equal(segs, wantS) {
			t.Fatalf("trial %d: segments %v, want %v", trial, segs, wantS)
		}
	}
}
