package closedform

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/mech"
)

// ExtremalLimit returns log 1/(1−p_min), the largest PML level of the high
// privacy regime, in which Extremal is defined. It is +Inf for a one-letter
// prior.
func ExtremalLimit(pi mech.Prior) float64 {
	return -math.Log1p(-pi.Min())
}

// Extremal returns the PML-extremal mechanism of Grosse et al. (2024), Cor 4
// and Saeidian et al. (2024), Example 4 on N = M letters,
//
//	p_ii = 1 − e^ε (1 − π_i),   p_ij = e^ε π_j  (i ≠ j),
//
// for 0 ≤ eps ≤ ExtremalLimit(pi) = log 1/(1−p_min); other eps are an
// error. Its output marginal equals π, its PML is eps (0 for a one-letter
// prior, whose only mechanism is [[1]]) and its PMC is
// ε_l*(eps) = log p_min / (1 − e^eps (1 − p_min)), which is +Inf at the
// upper limit, where the diagonal entry of the least likely letter is 0.
func Extremal(pi mech.Prior, eps float64) (mech.Mechanism, error) {
	if _, err := mech.NewPrior(pi); err != nil {
		return nil, err
	}
	limit := ExtremalLimit(pi)
	if math.IsNaN(eps) || eps < 0 || eps > limit {
		return nil, fmt.Errorf("closedform: extremal mechanism needs 0 ≤ ε ≤ log 1/(1−p_min) = %.17g, got ε = %g", limit, eps)
	}
	n := len(pi)
	e := math.Exp(eps)
	p := mech.Zeros(n, n)
	for i := range p {
		for j := range p[i] {
			if i == j {
				// 1 − e^ε(1 − π_i) = e^ε π_i − expm1(ε) without the
				// subtraction from 1, which loses −log10 π_i digits for a
				// small π_i; at the limit rounding may leave −1e-16 here.
				p[i][j] = max(0, e*pi[i]-math.Expm1(eps))
			} else {
				p[i][j] = e * pi[j]
			}
		}
	}
	return p, nil
}

// RandomizedResponse returns k-ary randomized response with LDP parameter
// epsBar: e^ε̄/(k−1+e^ε̄) on the diagonal and 1/(k−1+e^ε̄) elsewhere. It is
// computed as 1/(1+(k−1)e^{−ε̄}) so that large ε̄ do not overflow;
// epsBar = +Inf gives the identity. k < 1 and negative or NaN epsBar are
// errors.
func RandomizedResponse(k int, epsBar float64) (mech.Mechanism, error) {
	if k < 1 {
		return nil, fmt.Errorf("closedform: randomized response needs k ≥ 1 letters, got %d", k)
	}
	if math.IsNaN(epsBar) || epsBar < 0 {
		return nil, fmt.Errorf("closedform: randomized response needs ε̄ ≥ 0, got %g", epsBar)
	}
	t := math.Exp(-epsBar)
	z := 1 + float64(k-1)*t
	diag, off := 1/z, t/z
	p := mech.Zeros(k, k)
	for i := range p {
		for j := range p[i] {
			if i == j {
				p[i][j] = diag
			} else {
				p[i][j] = off
			}
		}
	}
	return p, nil
}

// RandomizedResponsePMC returns the pointwise maximal cost of k-ary
// randomized response with parameter epsBar under the prior pi (k = len(pi)),
// log(1 + max_j π_j (e^ε̄ − 1)) (Saeidian et al. (2024), Ex 3): the PMC of output j is
// log q_j / p_off with q_j = π_j p_diag + (1−π_j) p_off.
func RandomizedResponsePMC(pi mech.Prior, epsBar float64) float64 {
	return math.Log1p(pi.Max() * math.Expm1(epsBar))
}

// Sensitivity returns Δ = max_j (max_i u_ij − min_i u_ij), the largest
// change of the utility of one output between two inputs. The exponential
// mechanism with parameter ε̄ and delta ≥ Sensitivity(u) is ε̄-LDP. For the
// counting query of Song & Oechtering (2026), §IV-A, Δ = 37 (2Δ = 74).
func Sensitivity(u mech.Utility) float64 {
	_, m := u.Dims()
	d := 0.0
	for j := 0; j < m; j++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range u {
			lo = min(lo, u[i][j])
			hi = max(hi, u[i][j])
		}
		d = max(d, hi-lo)
	}
	return d
}

// Exponential returns the exponential mechanism with LDP parameter epsBar,
//
//	p_ij ∝ exp(ε̄ u'_ij / (2Δ)),
//
// where delta is Δ, the sensitivity of the utility: the mechanism is
// ε̄-LDP whenever delta ≥ Sensitivity(u) (each ratio p_ij/p_kj is at most
// e^{ε̄/2} from the numerators and e^{ε̄/2} from the normalisers). Song & Oechtering
// (2026), §IV-A, use Δ = 37, the exponent's denominator 74. Each row is computed
// after subtracting its maximum, so no exponent overflows. epsBar = +Inf
// gives the limit: each row uniform over its maximal utilities.
//
// u must be a valid utility, epsBar ≥ 0 and delta positive and finite.
func Exponential(u mech.Utility, epsBar, delta float64) (mech.Mechanism, error) {
	n, m, err := checkUtility(u)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(epsBar) || epsBar < 0 {
		return nil, fmt.Errorf("closedform: exponential mechanism needs ε̄ ≥ 0, got %g", epsBar)
	}
	if !(delta > 0) || math.IsInf(delta, 1) {
		return nil, fmt.Errorf("closedform: exponential mechanism needs a positive finite sensitivity Δ, got %g", delta)
	}
	p := mech.Zeros(n, m)
	for i, row := range u {
		mx := math.Inf(-1)
		for _, v := range row {
			mx = max(mx, v)
		}
		sum := 0.0
		for j, v := range row {
			var w float64
			switch {
			case v == mx:
				w = 1
			case math.IsInf(epsBar, 1):
				w = 0
			default:
				w = math.Exp(epsBar * (v - mx) / (2 * delta))
			}
			p[i][j] = w
			sum += w
		}
		for j := range p[i] {
			p[i][j] /= sum
		}
	}
	return p, nil
}

func checkUtility(u mech.Utility) (n, m int, err error) {
	if _, err := mech.NewUtility(u); err != nil {
		return 0, 0, err
	}
	n, m = u.Dims()
	return n, m, nil
}

// LDPForPML returns the LDP parameter ε̄ that guarantees eps-PML under every
// prior whose smallest probability is pmin (Song & Oechtering (2026),
// Prop 1, after Saeidian et al. (2023), Prop 6):
//
//	ε̄(ε) = −log((e^{−ε} − p_min)/(1 − p_min))   for 0 ≤ ε < −log p_min,
//
// and +Inf for ε ≥ −log p_min, where every mechanism is ε-PML. ε̄(0) = 0, and
// ε̄ grows to +Inf as ε approaches −log p_min. Randomized response calibrated
// this way has PML exactly eps. It returns NaN for a negative or NaN eps and
// for pmin outside (0, 1].
func LDPForPML(eps, pmin float64) float64 { return guarantee.LDPForPML(eps, pmin) }
