package verify

import (
	"math"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
)

// Randomized response on two letters with a uniform prior, p = 3/4 on the
// diagonal: every output has q_j = 1/2, so the PML is log(3/4 / 1/2) =
// log 1.5, the lower side of LIP (and ALIP's ε_l) is log(1/2 / 1/4) =
// log 2, LIP is their max log 2, and LDP is log(3/4 / 1/4) = log 3.
func TestLevelOfRandomizedResponse(t *testing.T) {
	p := Problem{Prior: []float64{0.5, 0.5}, Utility: [][]float64{{1, 0}, {0, 1}},
		Mechanism: [][]float64{{0.75, 0.25}, {0.25, 0.75}}}
	for _, tc := range []struct {
		measure  string
		eps, low float64 // low: ALIP's ε_l
	}{
		{"pml", math.Log(1.5), 0},
		{"lip", math.Log(2), 0},
		{"alip", math.Log(1.5), math.Log(2)},
		{"ldp", math.Log(3), 0},
	} {
		check := func(eps, low float64) Claim {
			c := Certificate{Objective: "expected-utility", Measure: tc.measure, Epsilon: eps,
				Utility: &Utility{ExpectedUtility: 0.75}}
			if tc.measure == "alip" {
				c.ALIPLower = &low
			}
			for _, cl := range Check(p, c) {
				if cl.Name == ClaimLevel {
					return cl
				}
			}
			t.Fatalf("%s: no level claim", tc.measure)
			return Claim{}
		}
		up := func(x float64) float64 { return x + 1e-12 }
		if cl := check(up(tc.eps), up(tc.low)); !cl.OK {
			t.Errorf("%s at its level: %v", tc.measure, cl)
		}
		// Below the level: refused.
		if cl := check(tc.eps-1e-6, up(tc.low)); cl.OK {
			t.Errorf("%s below its level: %v", tc.measure, cl)
		}
		// More than LevelTol above it: not the mechanism's level.
		if cl := check(tc.eps+1e-6, up(tc.low)); cl.OK {
			t.Errorf("%s above its level: %v", tc.measure, cl)
		}
		if tc.measure == "alip" {
			if cl := check(up(tc.eps), tc.low-1e-6); cl.OK {
				t.Errorf("alip below its ε_l: %v", cl)
			}
		}
	}
	// The expected utility Σ π_i u_ij p_ij = 3/4, checked exactly.
	c := Certificate{Objective: "expected-utility", Measure: "pml", Epsilon: math.Log(1.5) + 1e-12, Utility: &Utility{ExpectedUtility: 0.75}}
	if !AllOK(Check(p, c)) {
		t.Errorf("randomized response: %v", Check(p, c))
	}
	c.Utility.ExpectedUtility = 0.75 + 1e-9
	for _, cl := range Check(p, c) {
		if cl.Name == ClaimExpected && cl.OK {
			t.Errorf("expected utility 0.75 + 1e-9 accepted: %v", cl)
		}
	}
}

// The identity utility on two uniform letters: the trivial multipliers
// α_i = π_i max_j u_ij = 1/2 prove the bound 1 for every mechanism. Under a
// budget of 30 nats the optimum lies within e^-30 of 1 for every measure
// (PML reaches 1 itself; LIP, ALIP and LDP need every entry positive, at
// least e^-30 times its column's others), so the bound 1 − 1e-9 is false
// and must be refused.
func TestBoundTrivialMultipliers(t *testing.T) {
	p := Problem{Prior: []float64{0.5, 0.5}, Utility: [][]float64{{1, 0}, {0, 1}},
		Mechanism: [][]float64{{0.75, 0.25}, {0.25, 0.75}}}
	for _, m := range []string{"pml", "lip", "alip", "ldp"} {
		for _, tc := range []struct {
			b  float64
			ok bool
		}{{1, true}, {1 - 1e-9, false}} {
			b := tc.b
			eps := 0.0
			switch m {
			case "pml":
				eps = math.Log(1.5)
			case "lip", "alip":
				eps = math.Log(2)
			case "ldp":
				eps = math.Log(3)
			}
			c := Certificate{Objective: "expected-utility", Measure: m, Epsilon: eps + 1e-12,
				Budget:  &Budget{Epsilon: 30, EpsilonLower: 30, EpsilonUpper: 30},
				Utility: &Utility{ExpectedUtility: 0.75, Bound: &b, Alpha: []float64{0.5, 0.5}}}
			if m == "alip" {
				c.Epsilon = math.Log(1.5) + 1e-12
				low := math.Log(2) + 1e-12
				c.ALIPLower = &low
			}
			var bound Claim
			for _, cl := range Check(p, c) {
				if cl.Name == ClaimBound {
					bound = cl
				}
			}
			if bound.OK != tc.ok {
				t.Errorf("%s, bound %v: %v", m, b, bound)
			}
		}
	}
}

// A letter of subnormal mass 5e-324 (the spacing 2^-1074 itself) whose
// row (0.6, 0.4) meets utilities −100 and −1: the exact expected utility
// is −60.4 spacings, but pmlopt's float sum (mech.Utility.ExpectedUtility:
// π_i p_ij rounded to the spacing, then times u_ij) is −100 of them, and
// it is accepted; 70 spacings further, beyond Σ(1 + |u|) = 103 in all, it
// is refused.
func TestExpectedUtilitySubnormal(t *testing.T) {
	pi := mech.Prior{0.5, 0.5, 5e-324}
	u := mech.Utility{{0, -1}, {-1, 0}, {-100, -1}}
	m := mech.Mechanism{{1, 0}, {0, 1}, {0.6, 0.4}}
	p := Problem{Prior: pi, Utility: u, Mechanism: m}
	sum, spacing := u.ExpectedUtility(pi, m), SubnormalSpacing
	if sum != -100*spacing {
		t.Fatalf("the float sum is %g, want -100 spacings", sum)
	}
	claim := func(v float64) Claim {
		c := Certificate{Objective: "expected-utility", Measure: "pml", Epsilon: 1, Utility: &Utility{ExpectedUtility: v}}
		for _, cl := range Check(p, c) {
			if cl.Name == ClaimExpected {
				return cl
			}
		}
		t.Fatal("no expected-utility claim")
		return Claim{}
	}
	if cl := claim(sum); !cl.OK {
		t.Errorf("the float sum refused: %v", cl)
	}
	if cl := claim(sum - 70*spacing); cl.OK {
		t.Errorf("70 spacings further accepted: %v", cl)
	}
}

// A LIP answer at 40 nats (pmlopt's own, on 3 letters): every weight
// π_i u_ij − α_i of its multipliers is negative, so Σ_i α_i + 2.6e-14 bounds
// every mechanism, and a bound 1e-6 lower is false. On output 1 the ratios
// (π_i u_i1 − α_i)/π_i of inputs 0 and 2 are both −2 in floats but not
// exactly; the float order's choice of k then leaves e^40 times a
// difference of 1e-17 in V: the other inputs' V must be tried.
func TestBoundTiedRatiosAtLargeBudget(t *testing.T) {
	p := Problem{Prior: []float64{0.4985498830019551, 0.26700875818719183, 0.23444135881085307},
		Utility: [][]float64{{0, 0, 2, -1.7787132656808597}, {-1, -3, 1, 2}, {-0.37086786077251754, -1, 0.8340155215103184, 1}},
		Mechanism: [][]float64{{0, 0, 1, 2.1303408324232187e-18}, {0, 0, 2.1180468704393777e-18, 1},
			{0, 0, 2.119274663346761e-18, 1}}}
	bound := func(b float64) Claim {
		c := Certificate{Objective: "expected-utility", Measure: "lip", Epsilon: 40, Budget: &Budget{Epsilon: 40},
			Utility: &Utility{ExpectedUtility: 1.7655586411891468, Bound: &b,
				Alpha: []float64{0.9970997660039103, 0.5340175163743838, 0.2344413588108531}}}
		for _, cl := range Check(p, c) {
			if cl.Name == ClaimBound {
				return cl
			}
		}
		t.Fatal("no bound claim")
		return Claim{}
	}
	if cl := bound(1.7655586411891728); !cl.OK {
		t.Errorf("the solver's bound refused: %v", cl)
	}
	if cl := bound(1.7655586411891728 - 1e-6); cl.OK {
		t.Errorf("a bound below the optimum accepted: %v", cl)
	}
}
