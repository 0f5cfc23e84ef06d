package verify

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// boxMinByVertices is min over the box {l ≤ π ≤ u, Σπ = S} of Σ π_k c_k by
// enumerating its vertices: every letter but one at a bound, the last
// taking the rest when that lies within its own bounds.
func boxMinByVertices(l, u, c []float64, S float64, hi bool) float64 {
	n := len(c)
	best := math.Inf(1)
	if hi {
		best = math.Inf(-1)
	}
	for f := range n {
		for mask := 0; mask < 1<<n; mask++ {
			sum, val := 0.0, 0.0
			for k := range n {
				if k == f {
					continue
				}
				x := l[k]
				if mask>>k&1 == 1 {
					x = u[k]
				}
				sum += x
				val += x * c[k]
			}
			rest := S - sum
			if rest < l[f]-1e-12 || rest > u[f]+1e-12 {
				continue
			}
			val += rest * c[f]
			if hi {
				best = math.Max(best, val)
			} else {
				best = math.Min(best, val)
			}
		}
	}
	return best
}

// ballMinBySearch is min over the ball ∩ {π ≥ 0, Σπ = S} of Σ π_k c_k by
// moving mass t from letter a to letter b over a grid of t, the moves
// that reach the ball's vertices with one receiver (any optimum can be
// moved to one, as the greedy does), and up to two donors.
func ballMinBySearch(pi, c []float64, r float64, hi bool) float64 {
	n := len(c)
	sign := 1.0
	if hi {
		sign = -1
	}
	best := math.Inf(1)
	base := 0.0
	for k := range n {
		base += pi[k] * c[k]
	}
	best = sign * base
	for b := range n {
		for a1 := range n {
			for a2 := range n {
				if a1 == b || a2 == b {
					continue
				}
				// take all of a1 first (up to r/2), then from a2
				m := r / 2
				t1 := math.Min(m, pi[a1])
				t2 := 0.0
				if a2 != a1 {
					t2 = math.Min(m-t1, pi[a2])
				}
				v := base + t1*(c[b]-c[a1]) + t2*(c[b]-c[a2])
				best = math.Min(best, sign*v)
			}
		}
	}
	return sign * best
}

func setChecker(p Problem) *checker {
	k := &checker{p: p, c: Certificate{Measure: "pml"}}
	k.n, k.m = len(p.Prior), len(p.Mechanism[0])
	k.readPrior()
	return k
}

// The exact greedy masses agree with vertex enumeration on boxes and with
// a search over moves on balls of three letters.
func TestMassOverSet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 37))
	for trial := range 200 {
		n := 3 + r.IntN(2)
		pi := make([]float64, n)
		s := 0.0
		for k := range pi {
			pi[k] = 0.05 + r.Float64()
			s += pi[k]
		}
		for k := range pi {
			pi[k] /= s
		}
		c := make([]float64, n)
		for k := range c {
			c[k] = r.Float64()
		}
		l, u := make([]float64, n), make([]float64, n)
		for k := range n {
			l[k], u[k] = pi[k]*r.Float64(), math.Min(1, pi[k]*(1+2*r.Float64()))
		}
		S := 0.0
		for _, v := range pi {
			S += v
		}
		k := setChecker(Problem{Prior: pi, Mechanism: [][]float64{c}, PriorSet: &PriorSet{Lower: l, Upper: u}})
		for _, hi := range []bool{false, true} {
			got := f64(k.massOver(c, hi))
			want := boxMinByVertices(l, u, c, S, hi)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("trial %d box hi=%v: greedy %.17g, vertices %.17g", trial, hi, got, want)
			}
		}
		if n != 3 {
			continue
		}
		rad := 2 * r.Float64()
		k = setChecker(Problem{Prior: pi, Mechanism: [][]float64{c}, PriorSet: &PriorSet{L1Radius: &rad}})
		for _, hi := range []bool{false, true} {
			got := f64(k.massOver(c, hi))
			want := ballMinBySearch(pi, c, rad, hi)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("trial %d ball r=%g hi=%v: greedy %.17g, search %.17g", trial, rad, hi, got, want)
			}
		}
	}
}

// A vector above the set: accepted when some prior of the set lies below
// it, refused (saying why) otherwise.
func TestAboveSet(t *testing.T) {
	pi := []float64{0.5, 0.25, 0.25}
	box := &PriorSet{Lower: []float64{0.4, 0.2, 0.1}, Upper: []float64{0.6, 0.3, 0.3}}
	rad := 0.2
	ball := &PriorSet{L1Radius: &rad}
	for _, tc := range []struct {
		set  *PriorSet
		v    []float64
		ok   bool
		want string
	}{
		{box, pi, true, ""},
		{box, []float64{0.4, 0.3, 0.3}, true, ""},   // a vertex of the box
		{box, []float64{0.45, 0.25, 0.3}, true, ""}, // above (0.45, 0.25, 0.3)
		{box, []float64{0.9, 0.9, 0.9}, true, ""},   // above every prior
		{box, []float64{0.35, 0.3, 0.35}, false, "below the box's lower bound"},
		{box, []float64{0.4, 0.2, 0.3}, false, "no prior of the box"}, // sums to 0.9
		{ball, pi, true, ""},
		{ball, []float64{0.4, 0.35, 0.25}, true, ""}, // distance 0.2
		{ball, []float64{0.39, 0.36, 0.25}, false, "exceeds half the radius"},
		{ball, []float64{0.5, 0.25, 0.2}, false, "below Σ_k π̂_k"},
		{ball, []float64{0.5, -0.1, 0.7}, false, "negative"},
	} {
		k := setChecker(Problem{Prior: pi, Mechanism: [][]float64{{1}, {1}, {1}}, PriorSet: tc.set})
		ok, why := k.aboveSet(tc.v)
		if ok != tc.ok || !strings.Contains(why, tc.want) {
			t.Errorf("%s, %v: got %v %q, want %v %q", tc.set, tc.v, ok, why, tc.ok, tc.want)
		}
	}
}

// Over a set, the level claim takes the least mass: randomized response
// with p = 3/4 over the box π_1 ∈ [0.4, 0.6] has least column mass
// 0.6·1/4 + 0.4·3/4 = 0.45, so its PML over the box is log(0.75/0.45) =
// log 5/3; the certificate without the set (or with another) is refused.
func TestLevelOverBox(t *testing.T) {
	box := &PriorSet{Lower: []float64{0.4, 0.4}, Upper: []float64{0.6, 0.6}}
	p := Problem{Prior: []float64{0.5, 0.5}, Utility: [][]float64{{1, 0}, {0, 1}},
		Mechanism: [][]float64{{0.75, 0.25}, {0.25, 0.75}}, PriorSet: box}
	cert := func(eps float64, set *PriorSet) Certificate {
		return Certificate{Objective: "expected-utility", Measure: "pml", Epsilon: eps, PriorSet: set,
			Utility: &Utility{ExpectedUtility: 0.75}}
	}
	if cs := Check(p, cert(math.Log(5.0/3)+1e-12, box)); !AllOK(cs) {
		t.Fatalf("log 5/3 over the box: %v", cs)
	}
	for _, tc := range []struct {
		name  string
		c     Certificate
		claim string
	}{
		{"the level at the estimate", cert(math.Log(1.5)+1e-12, box), ClaimLevel},
		{"no set in the certificate", cert(math.Log(5.0/3)+1e-12, nil), ClaimSet},
		{"another set", cert(math.Log(5.0/3)+1e-12, &PriorSet{Lower: []float64{0.3, 0.4}, Upper: []float64{0.6, 0.7}}), ClaimSet},
	} {
		failed := false
		for _, cl := range Check(p, tc.c) {
			failed = failed || (!cl.OK && cl.Name == tc.claim)
		}
		if !failed {
			t.Errorf("%s: the %s claim holds", tc.name, tc.claim)
		}
	}
	// Over the simplex the PML over the set is the LDP level log 3.
	p.PriorSet = &PriorSet{Lower: []float64{0, 0}, Upper: []float64{1, 1}}
	if cs := Check(p, cert(math.Log(3)+1e-12, p.PriorSet)); !AllOK(cs) {
		t.Fatalf("log 3 over the simplex: %v", cs)
	}
}

// The set claim names a large box by its ranges, not its bounds one by
// one, and a certificate over another box by the first letter at which
// the two differ.
func TestSetClaimMessages(t *testing.T) {
	n := 12
	pi, lo, up := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		pi[i] = 1 / float64(n)
		lo[i], up[i] = pi[i]/2, 2*pi[i]
	}
	lo[0], up[n-1] = 0.01, 0.5
	set := &PriorSet{Lower: lo, Upper: up}
	if got, want := set.String(), "the box on 12 letters, lower bounds 0.01 to 0.041666666666666664, upper bounds 0.16666666666666666 to 0.5"; got != want {
		t.Errorf("String: %q, want %q", got, want)
	}
	m := make([][]float64, n)
	u := make([][]float64, n)
	for i := range m {
		m[i], u[i] = []float64{1}, []float64{0}
	}
	other := &PriorSet{Lower: append([]float64(nil), lo...), Upper: up}
	other.Lower[3] = 0.02
	p := Problem{Prior: pi, Utility: u, Mechanism: m, PriorSet: set}
	c := Certificate{Objective: "expected-utility", Measure: "pml", Epsilon: 1e-12, Utility: &Utility{}, PriorSet: other}
	for _, cl := range Check(p, c) {
		if cl.Name == ClaimSet {
			if want := "letter 3: the problem's box is [0.041666666666666664, 0.16666666666666666], the certificate's [0.02, 0.16666666666666666]"; cl.OK || !strings.Contains(cl.Detail, want) {
				t.Errorf("set claim %+v, want %q", cl, want)
			}
			return
		}
	}
	t.Error("no set claim")
}

// aboveSet's sums in float64 partials decide as its big.Float sums do, on
// random vectors at the set's edge: a box's Σ min(u, v) and a ball's Σ v
// equal to S to the last bit, a ball's deficit at r/2 to the last bit,
// each moved by 0 to 2 ulps either way.
func TestAboveSetByPartialsAgreesWithBigFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	decided := 0
	for trial := range 4000 {
		n := 2 + r.IntN(12)
		pi := make([]float64, n)
		for i := range pi {
			pi[i] = r.Float64() / float64(n) * math.Pow(10, -float64(r.IntN(12)))
		}
		v := make([]float64, n)
		var set *PriorSet
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			for i := range pi {
				lo[i], up[i] = pi[i]*0.8, pi[i]*1.25
				v[i] = pi[i] * (0.9 + 0.2*r.Float64())
			}
			set = &PriorSet{Lower: lo, Upper: up}
		} else {
			rad := 0.5 * r.Float64() * pi[0]
			for i := range pi {
				v[i] = pi[i]
			}
			// Move rad/2 of mass from letter 0 to letter 1: deficit r/2.
			v[0] -= rad / 2
			v[1] += rad / 2
			set = &PriorSet{L1Radius: &rad}
		}
		for range r.IntN(3) {
			i := r.IntN(n)
			if r.IntN(2) == 0 {
				v[i] = math.Nextafter(v[i], 0)
			} else {
				v[i] = math.Nextafter(v[i], 1)
			}
		}
		k := setChecker(Problem{Prior: pi, Mechanism: make([][]float64, n), PriorSet: set})
		want, _ := k.aboveSetExact(v)
		if got := k.aboveSetByPartials(v); got != want {
			t.Fatalf("trial %d, %v over %v: partials say %v, big.Float %v", trial, v, set, got, want)
		}
		if want {
			decided++
		}
	}
	if decided < 500 || decided > 3500 {
		t.Errorf("%d of 4000 vectors above the set: the edge is not where the test puts it", decided)
	}
}
