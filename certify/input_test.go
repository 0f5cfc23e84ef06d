package certify_test

import (
	"math"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// TestProofsOfMismatchedInputs: the proof checkers are library entry
// points; inputs of mismatched shapes or a prior with a zero mass prove
// nothing (+Inf, not ok) instead of panicking.
func TestProofsOfMismatchedInputs(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	u := mech.Utility{{1, 0}, {0, 1}}
	pat := mech.Pattern{{true, false}, {false, true}}
	alpha := []float64{0.3, 0.3}
	lip := mech.Budget{Measure: mech.LIP, Epsilon: 1}
	cases := []struct {
		name  string
		pi    mech.Prior
		u     mech.Utility
		pat   mech.Pattern
		alpha []float64
	}{
		{"short alpha", pi, u, pat, alpha[:1]},
		{"long alpha", pi, u, pat, []float64{0.3, 0.3, 0.3}},
		{"short pattern", pi, u, pat[:1], alpha},
		{"ragged pattern", pi, u, mech.Pattern{{true, false}, {true}}, alpha},
		{"wide pattern", pi, u, mech.Pattern{{true, false, true}, {true, true, true}}, alpha},
		{"short utility", pi, u[:1], pat, alpha},
		{"ragged utility", pi, mech.Utility{{1, 0}, {0}}, pat, alpha},
		{"zero mass", mech.Prior{1, 0}, u, pat, alpha},
		{"empty prior", mech.Prior{}, mech.Utility{}, nil, []float64{}},
	}
	for _, c := range cases {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", c.name, r)
				}
			}()
			if b := certify.UpperBound(c.pi, c.u, c.pat, 1, c.alpha); !math.IsInf(b, 1) {
				t.Errorf("%s: UpperBound %g, want +Inf", c.name, b)
			}
			if b := certify.RatioUpperBound(c.pi, c.u, lip, c.alpha); !math.IsInf(b, 1) && !strings.Contains(c.name, "pattern") {
				t.Errorf("%s: RatioUpperBound %g, want +Inf", c.name, b) // it takes no pattern
			}
			if strings.Contains(c.name, "utility") {
				return // DualBound takes no utility
			}
			if e, ok := certify.DualBound(c.pi, c.pat, c.alpha); ok {
				t.Errorf("%s: DualBound proved %g", c.name, e)
			}
		}()
	}
	// A NaN budget proves nothing either.
	if b := certify.UpperBound(pi, u, nil, math.NaN(), alpha); !math.IsInf(b, 1) {
		t.Errorf("UpperBound at ε = NaN: %g, want +Inf", b)
	}
	if b := certify.RatioUpperBound(pi, u, mech.Budget{Measure: mech.LDP, Epsilon: math.NaN()}, alpha); !math.IsInf(b, 1) {
		t.Errorf("RatioUpperBound at ε = NaN: %g, want +Inf", b)
	}
}

// TestRatioUpperBoundOtherMeasure: RatioUpperBound bounds the LIP, ALIP and
// LDP polytopes only. Given a PML budget no bound must come out: the LIP box
// at ε = 0 (the mechanisms with identical rows) bounds nothing there, since
// the identity mechanism, 2-PML on a uniform binary prior, exceeds its value.
func TestRatioUpperBoundOtherMeasure(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	u := mech.Utility{{1, 0}, {0, 1}}
	id := mech.Mechanism{{1, 0}, {0, 1}}
	b := mech.Budget{Measure: mech.PML, Epsilon: 2}
	if a := leakage.PML(pi, id); a > b.Epsilon {
		t.Fatalf("the identity has PML %g", a)
	}
	v := u.ExpectedUtility(pi, id)
	for _, alpha := range [][]float64{{0, 0}, {0.25, 0.25}, {0.5, 0.5}} {
		if bd := certify.RatioUpperBound(pi, u, b, alpha); bd < v {
			t.Errorf("α = %v: bound %g below the value %g of a 2-PML mechanism", alpha, bd, v)
		}
	}
}

// TestAuditRefusesNaN: a mechanism with a NaN entry measures NaN under
// every measure, and a NaN budget admits nothing; comparisons with NaN are
// false, so "above the budget" must be tested as "not within it".
func TestAuditRefusesNaN(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	budgets := []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1},
		{Measure: mech.LDP, Epsilon: 1}, {Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 1}}
	for _, b := range budgets {
		if _, err := certify.Audit(pi, mech.Mechanism{{math.NaN(), 1}, {0.5, 0.5}}, b); err == nil {
			t.Errorf("%v: a mechanism with a NaN entry passed the audit", b)
		}
		if _, err := certify.Audit(pi, mech.Mechanism{{0.5, 0.5}, {0.5, 0.5}}, b); err != nil {
			t.Errorf("%v: the constant mechanism failed the audit: %v", b, err)
		}
	}
	if _, err := certify.Audit(pi, mech.Mechanism{{0.5, 0.5}, {0.5, 0.5}}, mech.Budget{Measure: mech.PML, Epsilon: math.NaN()}); err == nil {
		t.Error("a NaN budget admitted a mechanism")
	}
}

// TestAuditRefusesMisshapenMechanisms: Audit and Within measure a
// mechanism of one row per letter; another shape is an error (not ok),
// not an index panic in package leakage.
func TestAuditRefusesMisshapenMechanisms(t *testing.T) {
	pi := mech.Prior{0.5, 0.5}
	for name, m := range map[string]mech.Mechanism{
		"3 rows": {{1, 0}, {0, 1}, {1, 0}},
		"1 row":  {{1, 0}},
		"ragged": {{1, 0}, {1}},
		"empty":  {},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			if _, err := certify.Audit(pi, m, mech.Budget{Measure: mech.PML, Epsilon: 1}); err == nil {
				t.Errorf("%s: passed the audit", name)
			}
			if a, ok := certify.Within(pi, m, 1); ok {
				t.Errorf("%s: within at PML %g", name, a)
			}
		}()
	}
}
