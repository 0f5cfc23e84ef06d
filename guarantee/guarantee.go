package guarantee

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// Implication is one guarantee implied by another. When Holds is false the
// source guarantee implies nothing in Implied's measure and Implied carries
// only the Measure; Regime says when the implication holds and cites where
// it comes from.
type Implication struct {
	Implied mech.Budget
	Holds   bool
	Regime  string
}

// HighPrivacyBound returns log 1/(1 − p_min), the end of PML's high-privacy
// regime (Grosse et al. (2024), §II, Saeidian et al. (2024), Thm 4): below it an ε-PML mechanism has no
// zero entry in a used column, at and above it it may. It is +Inf for
// p_min = 1.
func HighPrivacyBound(pmin float64) float64 {
	return -math.Log1p(-pmin)
}

// PMCFromPML returns ε_l*(ε_u) = log( p_min / (1 − e^{ε_u}(1 − p_min)) ), the
// PMC level implied by ε_u-PML (Saeidian et al. (2024), Thm 4.1, Grosse et al. (2024), Prop 1 eq. 7). It
// is tight: the PML-extremal mechanism attains it (Saeidian et al. (2024), Ex. 4, Remark 6).
// It is +Inf outside the high-privacy regime ε_u < log 1/(1−p_min).
//
// The direct form subtracts from 1 and loses −log10 p_min digits (at
// p_min = 1e-12 it gives 1.3e-5 for ε_u = 0). PMCFromPML takes the smaller of
// two upper bounds, each rounded up (see up), so the result is never below
// the exact level:
//
//	−log1p(−x),  x = expm1(ε_u)(1 − p_min)/p_min          (accurate for x away from 1)
//	log p_min − log n,  n = (p_min − ε_u) + ε_u p_min − (e^{ε_u} − 1 − ε_u)(1 − p_min)
//
// where n = 1 − e^{ε_u}(1 − p_min) keeps its leading difference p_min − ε_u
// exact (Sterbenz) near the end of the regime.
func PMCFromPML(epsU, pmin float64) float64 {
	if !(epsU < HighPrivacyBound(pmin)) {
		return math.Inf(1)
	}
	if epsU == 0 {
		return 0
	}
	best := math.Inf(1)
	if x := up(up(up(math.Expm1(epsU))*up(1-pmin)) / pmin); x < 1 {
		best = up(-down(math.Log1p(-x)))
	}
	n := down(down(down(pmin-epsU)+down(epsU*pmin)) - up(expm1MinusXUp(epsU)*up(1-pmin)))
	if n > 0 {
		best = min(best, up(up(mathx.Log(pmin))-down(mathx.Log(n))))
	}
	return max(0, best)
}

// expm1MinusXUp returns an upper bound on e^x − 1 − x for x ≥ 0: its Taylor
// series x²/2 (1 + x/3 + x²/12) plus a bound on the rest for small x, where
// expm1(x) − x would cancel, and expm1(x) rounded up minus x above.
func expm1MinusXUp(x float64) float64 {
	if x < 1e-3 {
		// The rest of the series is below x⁵/120 · e^x ≤ x²/2 · x³/30.
		return up(up(x*x/2) * up(1+x/3+x*x/12+x*x*x/30))
	}
	return up(up(math.Expm1(x)) - x)
}

// PMLFromPMC returns ε_u*(ε_l) = log( (1 − e^{−ε_l}(1 − p_min)) / p_min ), the
// PML level implied by ε_l-PMC (Saeidian et al. (2024), Thm 4.2, Grosse et al. (2024), Prop 2 eq. 12). It
// is finite for every ε_l ≥ 0, at most −log p_min, and +Inf never arises: an
// ε_l = +Inf PMC guarantee gives −log p_min, the PML of any mechanism.
//
// It is computed as log1p(y) with y = −expm1(−ε_l)(1 − p_min)/p_min, equal
// to the formula without its subtraction from 1, rounded up, and capped by
// −log p_min rounded up.
func PMLFromPMC(epsL, pmin float64) float64 {
	if epsL == 0 {
		return 0
	}
	cap := up(-mathx.Log(pmin))
	a := up(up(-math.Expm1(-epsL)) * up(1-pmin))
	return max(0, min(cap, log1pQuoUp(a, pmin)))
}

// log1pQuoUp returns an upper bound on log(1 + a/b) for a, b > 0, also where
// a/b overflows (a subnormal b): there log(1 + a/b) = log a − log b +
// log1p(b/a).
func log1pQuoUp(a, b float64) float64 {
	if r := up(a / b); !math.IsInf(r, 1) {
		return up(math.Log1p(r))
	}
	return up(up(up(mathx.Log(a))-down(mathx.Log(b))) + up(math.Log1p(up(b/a))))
}

// FromLDP returns the levels implied by ε-LDP (Saeidian et al. (2024),
// Prop 1, from Jiang et al. (2021), Thm 1):
//
//	ε1 = log(p_min + e^{ε}(1 − p_min)),   ε2 = −log(p_min + e^{−ε}(1 − p_min)),
//
// so that ε-LDP implies ε1-LIP, (ε1, ε2)-ALIP, ε2-PML and, by Saeidian et
// al. (2024), Prop 3 (whose ε' = log(e^ε − p_min(e^ε − 1)) equals ε1), ε1-PMC.
//
// Both are rounded up. ε1 = log1p(expm1(ε)(1 − p_min)); ε2 is the least of
// three equal forms, each accurate where the others cancel or lose e^{−ε}
// next to 1,
//
//	−log1p(expm1(−ε)(1 − p_min)),   ε − log1p(p_min expm1(ε)),
//	−log p_min − log1p(e^{−ε}(1 − p_min)/p_min),
//
// and of what holds exactly: ε1 ≤ ε, ε2 ≤ ε and ε2 ≤ −log p_min.
func FromLDP(eps, pmin float64) (eps1, eps2 float64) {
	if eps == 0 {
		return 0, 0
	}
	e1 := up(math.Log1p(up(up(math.Expm1(eps)) * up(1-pmin))))
	e2 := min(eps, up(-mathx.Log(pmin)))
	if z := down(down(math.Expm1(-eps)) * up(1-pmin)); z > -1 {
		e2 = min(e2, up(-down(math.Log1p(z))))
	}
	if em := down(math.Expm1(eps)); !math.IsInf(em, 0) {
		e2 = min(e2, up(eps-down(math.Log1p(down(pmin*em)))))
	}
	// y ≥ 0; rounding e^{−ε} = 0 down would make it negative, and log1p of
	// a y ≤ −1 NaN. A y that overflows, at a subnormal p_min, is MaxFloat64
	// after down, a bound below it as the form needs.
	lp := mathx.Log(pmin)
	y := max(0, down(down(down(math.Exp(-eps))*down(1-pmin))/pmin))
	e2 = min(e2, up(up(-lp)-down(math.Log1p(y))))
	// The same y as exp(−ε − log p_min)(1 − p_min), for e^{−ε} below the
	// normal range (ε > 708), where the quotient above has lost its digits.
	if t := down(-eps - up(lp)); t < 700 {
		y = max(0, down(down(math.Exp(t))*down(1-pmin)))
		e2 = min(e2, up(up(-lp)-down(math.Log1p(y))))
	}
	return max(0, min(e1, eps)), max(0, e2)
}

// PMLFromLDP returns ε2 of FromLDP, the PML level implied by ε-LDP.
func PMLFromLDP(eps, pmin float64) float64 {
	_, e2 := FromLDP(eps, pmin)
	return e2
}

// LDPForPML returns the largest LDP level ε̄ whose guarantee implies ε-PML
// (Song & Oechtering (2026), Prop 1, after Saeidian et al. (2023), Prop 6):
// ε̄ = −log((e^{−ε} − p_min)/(1 − p_min))
// for ε < −log p_min, and +Inf for ε ≥ −log p_min, where every mechanism is
// ε-PML. It returns NaN for a negative or NaN eps and for pmin outside
// (0, 1]. It inverts PMLFromLDP. This is the calibration used for the DP
// baselines of Song & Oechtering (2026), §IV-A.
//
// A larger ε̄ would promise a PML the mechanism may not meet, so ε̄ is
// rounded down.
func LDPForPML(eps, pmin float64) float64 {
	if math.IsNaN(eps) || eps < 0 || !(pmin > 0 && pmin <= 1) {
		return math.NaN()
	}
	if eps >= -mathx.Log(pmin) {
		return math.Inf(1)
	}
	if eps == 0 {
		return 0
	}
	// ε̄ = −log1p(w), w = expm1(−ε)/(1 − p_min), and the equal
	// ε − log1p(−p_min e^ε) + log1p(−p_min), which keeps e^{−ε} where
	// expm1(−ε) rounds to −1; both rounded down.
	best := 0.0
	if w := up(up(math.Expm1(-eps)) / up(1-pmin)); w > -1 {
		best = down(-up(math.Log1p(w)))
	}
	var x float64
	if ex := math.Exp(eps); !math.IsInf(ex, 1) {
		x = down(pmin * down(ex))
	} else {
		// e^ε overflows (ε > 709.78, so p_min < e^{−ε} is subnormal):
		// p_min e^ε = exp(ε + log p_min).
		x = down(math.Exp(down(eps + down(mathx.Log(pmin)))))
	}
	if x < 1 {
		best = max(best, down(down(eps-up(math.Log1p(-x)))+down(math.Log1p(-pmin))))
	}
	return best
}

// Implied returns every guarantee implied by from for a prior with smallest
// probability pmin, in the order PML, PMC, ALIP, LIP, LDP (the source measure
// itself is left out). The arrows are those of docs/theory.md §3:
//
//   - ε_u-PML, ε_u < log 1/(1−p_min) (the high-privacy regime): ε_l*-PMC,
//     (ε_l*, ε_u)-ALIP, max(ε_l*, ε_u)-LIP, (ε_l* + ε_u)-LDP with
//     ε_l* = PMCFromPML(ε_u) (Saeidian et al. (2024), Thm 4 and Cor 3.1;
//     Grosse et al. (2024), Cors 1-3).
//     Outside the regime PML allows zeros and implies none of them.
//   - ε_l-PMC: ε_u*-PML, (ε_l, ε_u*)-ALIP, max(ε_l, ε_u*)-LIP,
//     (ε_l + ε_u*)-LDP with ε_u* = PMLFromPMC(ε_l) (Saeidian et al. (2024),
//     Thm 4, Cor 3.2).
//   - (ε_l, ε_u)-ALIP: ε_u-PML, ε_l-PMC, max(ε_l, ε_u)-LIP (by definition) and
//     (ε_l + ε_u)-LDP (Zarrabian et al. (2023), Prop 1, quoted by Saeidian et
//     al. (2024), §II-D); the PML and PMC
//     levels are tightened by PMLFromPMC and PMCFromPML when those are
//     smaller, and the ALIP, LIP and LDP levels are those of the tightened
//     pair.
//   - ε-LIP: (ε, ε)-ALIP and everything ALIP implies, in particular 2ε-LDP
//     (Jiang et al. (2021), Prop 1).
//   - ε-LDP: ε2-PML, ε1-PMC, (ε1, ε2)-ALIP, ε1-LIP with ε1, ε2 of FromLDP
//     (Saeidian et al. (2024), Prop 1 and Prop 3).
//
// It returns an error for an unknown measure, a negative or NaN level, or
// pmin outside (0, 1].
func Implied(from mech.Budget, pmin float64) ([]Implication, error) {
	if math.IsNaN(pmin) || pmin <= 0 || pmin > 1 {
		return nil, fmt.Errorf("guarantee: p_min = %g, want a number in (0, 1]", pmin)
	}
	check := func(name string, v float64) error {
		if math.IsNaN(v) || v < 0 {
			return fmt.Errorf("guarantee: %s = %g, want a number ≥ 0", name, v)
		}
		return nil
	}
	switch from.Measure {
	case mech.PML, mech.PMC, mech.LIP, mech.LDP:
		if err := check("epsilon", from.Epsilon); err != nil {
			return nil, err
		}
	case mech.ALIP:
		if err := check("epsilon_lower", from.EpsilonLower); err != nil {
			return nil, err
		}
		if err := check("epsilon_upper", from.EpsilonUpper); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("guarantee: unknown measure %q (want pml, pmc, alip, lip or ldp)", from.Measure)
	}

	var out []Implication
	add := func(g mech.Budget, regime string) {
		if g.Measure != from.Measure {
			out = append(out, Implication{Implied: g, Holds: true, Regime: regime})
		}
	}
	none := func(measure mech.Measure, regime string) {
		out = append(out, Implication{Implied: mech.Budget{Measure: measure}, Holds: false, Regime: regime})
	}
	// fromALIP adds the consequences of an (l, u)-ALIP guarantee: its
	// PML and PMC levels, each tightened by the other's bound, and then
	// the ALIP, LIP and LDP levels of those (a mechanism within PMC ε_l
	// and PML ε_u is (ε_l, ε_u)-ALIP by definition, and the LIP and LDP
	// bounds follow from any ALIP pair).
	fromALIP := func(l, u float64, regime string) {
		pml := min(u, PMLFromPMC(l, pmin))
		pmc := min(l, PMCFromPML(u, pmin))
		add(mech.Budget{Measure: mech.PML, Epsilon: pml}, regime)
		add(mech.Budget{Measure: mech.PMC, Epsilon: pmc}, regime)
		add(mech.Budget{Measure: mech.ALIP, EpsilonLower: pmc, EpsilonUpper: pml}, regime)
		add(mech.Budget{Measure: mech.LIP, Epsilon: max(pmc, pml)}, regime)
		add(mech.Budget{Measure: mech.LDP, Epsilon: addUp(pmc, pml)}, regime)
	}

	switch from.Measure {
	case mech.PML:
		eu := from.Epsilon
		if hp := HighPrivacyBound(pmin); !(eu < hp) || math.IsInf(PMCFromPML(eu, pmin), 1) {
			regime := fmt.Sprintf("none: ε = %.10g is not below log 1/(1−p_min) = %.10g (with rounding), outside the high-privacy regime an ε-PML mechanism may have zeros (Saeidian et al. (2024), Remark 5)", eu, hp)
			for _, m := range []mech.Measure{mech.PMC, mech.ALIP, mech.LIP, mech.LDP} {
				none(m, regime)
			}
			return out, nil
		}
		fromALIP(PMCFromPML(eu, pmin), eu, "high-privacy regime ε < log 1/(1−p_min) (Saeidian et al. (2024), Thm 4.1, Cor 3.1; Grosse et al. (2024), Cors 1-3)")
	case mech.PMC:
		el := from.Epsilon
		fromALIP(el, PMLFromPMC(el, pmin), "every ε ≥ 0 (Saeidian et al. (2024), Thm 4.2, Cor 3.2; Grosse et al. (2024), Prop 2)")
	case mech.ALIP:
		fromALIP(from.EpsilonLower, from.EpsilonUpper, "every (ε_l, ε_u) (ALIP definition; Zarrabian et al. (2023), Prop 1)")
	case mech.LIP:
		fromALIP(from.Epsilon, from.Epsilon, "every ε (LIP = ALIP with ε_l = ε_u; ε-LIP implies 2ε-LDP, Jiang et al. (2021), Prop 1)")
	case mech.LDP:
		e1, e2 := FromLDP(from.Epsilon, pmin)
		regime := "every ε (Saeidian et al. (2024), Prop 1 and Prop 3)"
		add(mech.Budget{Measure: mech.PML, Epsilon: e2}, regime)
		add(mech.Budget{Measure: mech.PMC, Epsilon: e1}, regime)
		add(mech.Budget{Measure: mech.ALIP, EpsilonLower: e1, EpsilonUpper: e2}, regime)
		add(mech.Budget{Measure: mech.LIP, Epsilon: max(e1, e2)}, regime)
	}
	return out, nil
}
