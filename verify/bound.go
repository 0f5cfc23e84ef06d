package verify

import (
	"math"
	"math/big"
	"slices"
)

// bound: every mechanism within the budget has an expected utility of at
// most B, proven by the multipliers α of the rows Σ_j p_ij = 1.
//
// For a mechanism P, Σ π_i u_ij p_ij = Σ_i α_i + Σ_j Σ_i w_ij p_ij with
// w_ij = π_i u_ij − α_i. For PML, LIP and ALIP, column j is q_j z with
// Σ_i π_i z_i = 1 and z_i in the budget's box ([0, e^ε] for PML,
// [e^{−ε_l}, e^{ε_u}] for ALIP, ε_l = ε_u = ε for LIP), so it adds at most
// q_j K_j, K_j = max_z Σ_i z_i w_ij, and Σ_j q_j = Σ_i π_i = S. By weak
// duality K_j ≤ μ + Σ_i (hi·max(0, d_i) + lo·min(0, d_i)), d_i = w_ij − μ π_i,
// for any μ; the checker takes μ = w_kj/π_k for a k it picks in floating
// point (any k is a proof) and multiplies through by π_k to stay dyadic:
// it checks S·V_j ≤ π_k (B − Σ_i α_i) with V_j = π_k K_j's bound. For LDP,
// column j is m_j y with y a distribution whose entries lie within a factor
// e^ε, Σ_j m_j = N, and the largest Σ_i y_i w_ij is at a vertex y ∝ 1 +
// (λ−1)·1_T, T the k best inputs: it checks N (W_j + (λ−1) top_k) ≤
// (B − Σ_i α_i)(N + (λ−1) k) for every k. The box's ends and λ are rounded
// outward (a larger set only raises every maximum).
func (k *checker) bound() {
	u := k.c.Utility
	if u.Alpha == nil {
		k.claim(ClaimBound, false, "the bound %v comes without multipliers: it is not certified", *u.Bound)
		return
	}
	b := *k.c.Budget
	B := k.a.num(*u.Bound)
	kappa := k.a.zero() // B − Σ α
	kappa.Set(B)
	for _, v := range u.Alpha {
		k.a.sub(kappa, kappa, k.a.num(v))
	}
	w := make([]*big.Float, k.n)
	wf := make([]float64, k.n)
	for i := range w {
		w[i] = k.a.zero()
	}
	t := k.a.zero()
	column := func(j int) {
		for i := range k.n {
			k.a.mulf(w[i], k.p.Prior[i], k.p.Utility[i][j])
			k.a.sub(w[i], w[i], t.SetFloat64(u.Alpha[i]))
			wf[i] = f64(w[i])
		}
	}
	var ok bool
	switch k.c.Measure {
	case "ldp":
		_, lam := expBounds(b.Epsilon)
		ok = k.ldpBound(column, w, lam, kappa)
	default:
		var lo, hi *big.Float
		switch k.c.Measure {
		case "pml":
			lo = k.a.zero()
			_, hi = expBounds(b.Epsilon)
		case "lip":
			lo, _ = expBounds(-b.Epsilon)
			_, hi = expBounds(b.Epsilon)
		case "alip":
			lo, _ = expBounds(-b.EpsilonLower)
			_, hi = expBounds(b.EpsilonUpper)
		}
		ok = k.boxBound(column, w, wf, lo, hi, kappa)
	}
	if ok {
		k.claim(ClaimBound, true, "every mechanism within the budget has expected utility at most %v", *u.Bound)
	}
}

// boxBound checks the PML, LIP and ALIP columns (see bound). Over a
// prior set, output j's column is bounded with its prior a = Priors[j],
// which lies above a prior of the set, so that a mechanism within the
// budget over the set has p_ij ≤ e^ε Σ_k a_k p_kj (LIP and ALIP: the lower
// cap shrinks, see below); without Priors a is the problem's prior, which
// lies in the set. The check is written for any a: with c the one prior
// given for every output (else π̂), C = Σ_i c_i and h_i = C·w_ij − κ·c_i,
// Σ_j Σ_i w_ij p_ij = κ + (1/C) Σ_j Σ_i h_i p_ij since Σ_j p_ij = 1, and
// the column's Σ_i h_i p_ij = (a·p) Σ_i h_i z_i with z_i = p_ij/(a·p) in
// [lo, hi] and a·z = 1 is at most (a·p)(μ + Σ_i (hi·max(0, h_i − μ a_i) +
// lo·min(0, h_i − μ a_i))) for any μ. With μ = h_k/a_k and d_i = a_k h_i −
// h_k a_i it checks V_j = h_k + Σ_i (hi·max(0, d_i) + lo·min(0, d_i)) ≤ 0.
// For a = c = π̂ this is S·V_j ≤ π̂_k κ of the nominal bound.
func (k *checker) boxBound(column func(int), w []*big.Float, wf []float64, lo, hi, kappa *big.Float) bool {
	priors, ok := k.columnPriors(ClaimBound, k.c.Utility.Priors)
	if !ok {
		return false
	}
	if len(k.c.Utility.PriorsLower) > 0 {
		return k.twoPriorBound(column, w, priors, lo, hi, kappa)
	}
	hiF := f64(hi)
	loSet := lo
	order := make([]int, k.n)
	h := make([]*big.Float, k.n)
	hf := make([]float64, k.n)
	for i := range h {
		h[i] = k.a.zero()
	}
	v, d, t, mass := k.a.zero(), k.a.zero(), k.a.zero(), k.a.zero()
	one := k.a.num(1)
	// The normalising vector c (Σ_j Σ_i c_i p_ij = Σ_i c_i = C for every
	// mechanism): the one prior given for every output, else the estimate.
	c, C := k.prior, k.mass
	if ps := k.c.Utility.Priors; len(ps) == 1 {
		c, C = make([]*big.Float, k.n), k.a.zero()
		for i, x := range ps[0] {
			c[i] = k.a.num(x)
			k.a.add(C, C, c[i])
		}
	}
	for j := range k.m {
		column(j)
		a := priors[j]
		// LIP and ALIP over a set: a lies above a prior π' of the set
		// with Σ_k (a_k − π'_k) = δ = Σ_k a_k − S, so that p_ij ≥
		// e^{−ε_l} π'·p ≥ e^{−ε_l} (a·p)(1 − hi·δ) (z_k ≤ hi): the lower
		// end of the box is lo·max(0, 1 − hi·δ); δ = 0 at the estimate.
		lo = loSet
		if lo.Sign() != 0 && len(k.c.Utility.Priors) > 0 {
			delta := k.a.zero()
			for _, x := range a {
				k.a.add(delta, delta, k.a.num(x))
			}
			k.a.sub(delta, delta, k.mass)
			if delta.Sign() != 0 {
				f := k.a.sub(k.a.zero(), k.a.num(1), k.a.mul(k.a.zero(), hi, delta))
				if f.Sign() < 0 {
					f.SetFloat64(0)
				}
				lo = k.a.mul(k.a.zero(), loSet, f)
			}
		}
		loF := f64(lo)
		for i := range k.n {
			k.a.mul(h[i], C, w[i])
			k.a.sub(h[i], h[i], k.a.mul(t, kappa, c[i]))
			hf[i] = f64(h[i])
		}
		// With a worst case to keep (PML only: lo = 0), the inputs below
		// it have z_i = 0 on this output and drop out.
		allowed := func(i int) bool { return !k.floor() || k.allowed(i, j) }
		// The float greedy's breakpoint: lower caps first, the rest to the
		// best ratios h_i/a_i up to the upper caps. Inputs with a_i = 0
		// and h_i > 0 would make the column unbounded; the check below
		// then fails whatever k is.
		ByRatio(order, hf, a)
		massF := 0.0
		mass.SetFloat64(0)
		for i := range k.n {
			if allowed(i) {
				massF += a[i]
				k.a.add(mass, mass, k.a.num(a[i]))
			}
		}
		left := 1 - loF*massF
		kk := -1
		for _, i := range order {
			if !allowed(i) || !(a[i] > 0) {
				continue
			}
			kk = i
			left -= (hiF - loF) * a[i]
			if left <= 0 {
				break
			}
		}
		// Σ_{i allowed} a_i z_i = 1 with z_i ≤ hi is impossible when
		// hi · a(allowed) < 1: every mechanism within the budget leaves
		// the output unused (its mass is 0), and it adds nothing.
		if k.a.mul(t, hi, mass).Cmp(one) < 0 {
			continue
		}
		if kk < 0 {
			k.claim(ClaimBound, false, "output %d: its prior has no positive entry on the allowed inputs", j)
			return false
		}
		// V = h_k + Σ_i (hi·max(0, d_i) + lo·min(0, d_i)), d_i = a_k h_i − h_k a_i.
		at := func(kk int) {
			ak := k.a.num(a[kk])
			v.Set(h[kk])
			for i := range k.n {
				if !allowed(i) {
					continue
				}
				k.a.mul(d, ak, h[i])
				k.a.sub(d, d, k.a.mul(t, h[kk], k.a.num(a[i])))
				switch d.Sign() {
				case 1:
					k.a.add(v, v, k.a.mul(t, hi, d))
				case -1:
					if lo.Sign() != 0 {
						k.a.add(v, v, k.a.mul(t, lo, d))
					}
				}
			}
		}
		at(kk)
		// Any k with a_k > 0 gives a valid V. The float greedy's k can
		// miss the exact one where ratios tie to rounding, and at a large
		// budget hi times the d_i it gets wrong outweighs the rest: the
		// other inputs are tried, nearest ratios first, before the column
		// is refused (with the greedy's V).
		if v.Sign() > 0 {
			greedy := f64(v)
			pos := slices.Index(order, kk)
			for step := 1; v.Sign() > 0 && (pos-step >= 0 || pos+step < k.n); step++ {
				for _, q := range []int{pos - step, pos + step} {
					if q < 0 || q >= k.n || v.Sign() <= 0 {
						continue
					}
					if i := order[q]; allowed(i) && a[i] > 0 {
						at(i)
					}
				}
			}
			if v.Sign() > 0 {
				k.claim(ClaimBound, false, "output %d: V_%d = %.6g > 0: the multipliers do not bound this output's column by the bound %v", j, j, greedy, *k.c.Utility.Bound)
				return false
			}
		}
	}
	return true
}

// twoPriorBound checks the LIP and ALIP columns over a prior set with, for
// each output j, a prior a for the upper caps (Priors[j]), a prior b for
// the lower ones (PriorsLower[j]) and the totals [R, T] of the caps'
// multipliers (CapWeights[j]). A mechanism within the budget over the set
// has on output j a column z = p_·j with z_i ≤ hi·(a·z), a lying above a
// prior of the set, and z_i ≥ lo·(π'·z) for the prior π' of the set below
// b, where π'·z ≥ b·z − δ·max_k z_k ≥ b·z − δ·hi·(a·z), δ = Σ_k b_k − S.
// With h_i = C·w_ij − κ·c_i as in boxBound (c = π̂, C = S), and any
// ρ, τ ≥ 0 with Σρ = R and Στ = T,
//
//	h·z = Σ_k (h_k − ρ_k + τ_k + hi·a_k·R − lo·(b_k − δ·hi·a_k)·T) z_k
//	      + Σ_i ρ_i (z_i − hi·a·z) + Σ_i τ_i (lo·(b·z − δ·hi·a·z) − z_i),
//
// whose last two sums are at most 0: h·z ≤ 0 when ρ_k − τ_k ≥ g_k = h_k +
// hi·a_k·R − lo·(b_k − δ·hi·a_k)·T for every k. The least Σρ with Στ = T
// (τ first where g_k < 0, where it costs nothing) is Σ_k max(0, g_k) +
// max(0, T − Σ_k max(0, −g_k)), and the check is that it is at most R.
// This is LP duality for the column's cone; R and T are the column's
// multipliers of the two caps in the solver's relaxation.
func (k *checker) twoPriorBound(column func(int), w []*big.Float, priors [][]float64, lo, hi, kappa *big.Float) bool {
	u := k.c.Utility
	if k.floor() {
		k.claim(ClaimBound, false, "priors_lower: not for a bound that keeps a worst case")
		return false
	}
	lower, ok := k.columnPriors(ClaimBound, u.PriorsLower)
	if !ok {
		return false
	}
	c, C := k.prior, k.mass
	t, g, pos, neg, delta := k.a.zero(), k.a.zero(), k.a.zero(), k.a.zero(), k.a.zero()
	h := k.a.zero()
	fc := k.floatConsts(lo, hi, kappa)
	for j := range k.m {
		a, b := priors[j], lower[j]
		if k.twoPriorFloat(j, a, b, u.CapWeights[j][0], u.CapWeights[j][1], fc) {
			continue
		}
		column(j)
		R, T := k.a.num(u.CapWeights[j][0]), k.a.num(u.CapWeights[j][1])
		delta.SetFloat64(0)
		for _, x := range b {
			k.a.add(delta, delta, k.a.num(x))
		}
		k.a.sub(delta, delta, k.mass)
		if delta.Sign() < 0 {
			delta.SetFloat64(0)
		}
		// loT = lo·T, shift = lo·δ·hi·T: g_k = h_k + a_k·(hi·R + shift) − b_k·loT.
		loT := k.a.mul(k.a.zero(), lo, T)
		shift := k.a.mul(k.a.zero(), k.a.mul(k.a.zero(), loT, delta), hi)
		up := k.a.add(k.a.zero(), k.a.mul(k.a.zero(), hi, R), shift)
		pos.SetFloat64(0)
		neg.SetFloat64(0)
		for i := range k.n {
			k.a.mul(h, C, w[i])
			k.a.sub(h, h, k.a.mul(t, kappa, c[i]))
			k.a.add(g, h, k.a.mul(t, up, k.a.num(a[i])))
			k.a.sub(g, g, k.a.mul(t, loT, k.a.num(b[i])))
			if g.Sign() > 0 {
				k.a.add(pos, pos, g)
			} else {
				k.a.sub(neg, neg, g)
			}
		}
		if k.a.sub(t, T, neg).Sign() > 0 {
			k.a.add(pos, pos, t)
		}
		if pos.Cmp(R) > 0 {
			k.claim(ClaimBound, false, "output %d: the caps' multipliers (%v, %v) need %.6g > %v: they do not bound this output's column by the bound %v", j, u.CapWeights[j][0], u.CapWeights[j][1], f64(pos), u.CapWeights[j][0], *u.Bound)
			return false
		}
	}
	return true
}

// twoPriorFloat is twoPriorBound's check of output j in floating point,
// with a bound on what rounding can have changed: it reports true only
// where the column passes whatever the rounding, and false where the
// exact check must decide (a column that fails, or one too close to its
// cap's multiplier R for the floats to tell).
//
// Each computed quantity x̂ of an expression x of depth d (conversions of
// the exact C, κ, lo and hi to float64 counted as one operation each)
// lies within γ_d |x|_abs of x, |x|_abs the expression with every term's
// magnitude (Higham, "Accuracy and Stability of Numerical Algorithms",
// 2002, §3.1 and Lemma 3.3), for operations whose results are normal
// numbers; where a product or conversion underflows the exact path
// decides. The count Σ_k max(0, g_k) + max(0, T − Σ_k max(0, −g_k))
// moves by at most the sum of the g_k's errors through each of its two
// sums; the last comparison is exact. The error bounds are doubled for
// the rounding of their own computation.
func (k *checker) twoPriorFloat(j int, a, b []float64, R, T float64, fc floatConsts) bool {
	n := k.n
	gam := func(d int) float64 { return float64(d) * 0x1p-53 / (1 - float64(d)*0x1p-53) }
	// The bound holds for operations whose results are normal numbers (or
	// exact zeros): a product that underflows, or a conversion that does,
	// loses more than a relative 2⁻⁵³ and passes the loss on to every
	// later product. Where one would, the exact path decides.
	ok := fc.ok
	mul := func(x, y float64) float64 {
		p := x * y
		if x != 0 && y != 0 && !(math.Abs(p) >= 0x1p-1021) {
			ok = false
		}
		return p
	}
	C, kf, lof, hif := fc.mass, fc.kappa, fc.lo, fc.hi
	// δ = max(0, Σ_k b_k − S) within eD.
	sb, mb := 0.0, 0.0
	for _, x := range b {
		sb += x
		mb += math.Abs(x)
	}
	delta := max(0, sb-C)
	eD := gam(n+4) * (mb + math.Abs(C))
	// up = hi·R + lo·T·δ·hi within eUp.
	loT := mul(lof, T)
	hR, ldh := mul(hif, R), mul(mul(loT, delta), hif)
	up := hR + ldh
	eUp := gam(8)*(math.Abs(hR)+math.Abs(ldh)) + math.Abs(loT*hif)*eD*(1+gam(8))
	pos, neg, errG, mag := 0.0, 0.0, 0.0, 0.0
	for i := range n {
		pw := mul(k.p.Prior[i], k.p.Utility[i][j])
		al := k.c.Utility.Alpha[i]
		w := pw - al
		kc := mul(kf, k.p.Prior[i])
		ua, lb := mul(up, a[i]), mul(loT, b[i])
		g := mul(C, w) - kc + ua - lb
		gm := math.Abs(C)*(math.Abs(pw)+math.Abs(al)) + math.Abs(kc) + math.Abs(ua) + math.Abs(lb)
		errG += gam(12)*gm + math.Abs(a[i])*eUp
		mag += math.Abs(g)
		if g > 0 {
			pos += g
		} else {
			neg -= g
		}
	}
	P := pos + max(0, T-neg)
	e := 2 * (2*errG + gam(n+4)*(mag+math.Abs(T)) + float64(24*n+64)*0x1p-1074)
	if !ok || math.IsNaN(P) || math.IsInf(P, 0) || math.IsNaN(e) || math.IsInf(e, 0) {
		return false
	}
	// P + e ≤ R, exactly.
	var sum, bp, be, br big.Float
	sum.SetPrec(exactPrec).Add(bp.SetFloat64(P), be.SetFloat64(e))
	return sum.Acc() == big.Exact && sum.Cmp(br.SetFloat64(R)) <= 0
}

// floatConsts are the exact numbers twoPriorFloat reads, converted to
// float64 once for every output: S, κ and the ends lo and hi; ok is
// false where a conversion underflowed or overflowed (twoPriorFloat then
// leaves every column to the exact path).
type floatConsts struct {
	mass, kappa, lo, hi float64
	ok                  bool
}

func (k *checker) floatConsts(lo, hi, kappa *big.Float) floatConsts {
	fc := floatConsts{ok: true}
	conv := func(x *big.Float) float64 {
		f, _ := x.Float64()
		if x.Sign() != 0 && !(math.Abs(f) >= 0x1p-1021 && math.Abs(f) <= math.MaxFloat64) {
			fc.ok = false
		}
		return f
	}
	fc.mass, fc.kappa, fc.lo, fc.hi = conv(k.mass), conv(kappa), conv(lo), conv(hi)
	return fc
}

// ByRatio sets order to the indices of g and a sorted by the ratio
// g_i/a_i, largest first, an index with a_i = 0 counting as +∞ or −∞ by
// the sign of g_i: the order in which the greedy of the fractional
// knapsack max Σ_i g_i z_i over {lo ≤ z ≤ hi, a·z = 1} raises the z_i
// from lo to hi. The bound's check and the solvers' own bounds
// (internal/ipm's over a prior set) take their breakpoints from it.
func ByRatio(order []int, g, a []float64) {
	ByRatioWith(order, make([]float64, len(order)), g, a)
}

// ByRatioWith is ByRatio with the caller's room for the ratios (len(order)
// of them), for callers that sort many columns.
func ByRatioWith(order []int, ratio, g, a []float64) {
	for i := range order {
		order[i] = i
	}
	// Each ratio once, not at every comparison.
	ratio = ratio[:len(order)]
	for i := range order {
		if a[i] == 0 {
			ratio[i] = math.Copysign(math.Inf(1), g[i])
		} else {
			ratio[i] = g[i] / a[i]
		}
	}
	slices.SortFunc(order, func(x, y int) int {
		rx, ry := ratio[x], ratio[y]
		switch {
		case rx > ry:
			return -1
		case rx < ry:
			return 1
		}
		return 0
	})
}

// ldpBound checks the LDP columns (see bound).
func (k *checker) ldpBound(column func(int), w []*big.Float, lam, kappa *big.Float) bool {
	n := k.n
	N := k.a.num(float64(n))
	lm1 := k.a.sub(k.a.zero(), lam, k.a.num(1))
	order := make([]int, n)
	total, top, lhs, rhs, t := k.a.zero(), k.a.zero(), k.a.zero(), k.a.zero(), k.a.zero()
	for j := range k.m {
		column(j)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return w[b].Cmp(w[a]) })
		total.SetFloat64(0)
		for i := range n {
			k.a.add(total, total, w[i])
		}
		top.SetFloat64(0)
		for c := 0; c <= n; c++ {
			if c > 0 {
				k.a.add(top, top, w[order[c-1]])
			}
			// N (W + (λ−1) top_c) ≤ κ (N + (λ−1) c)
			k.a.mul(lhs, lm1, top)
			k.a.add(lhs, lhs, total)
			k.a.mul(lhs, lhs, N)
			k.a.mul(rhs, lm1, t.SetFloat64(float64(c)))
			k.a.add(rhs, rhs, N)
			k.a.mul(rhs, rhs, kappa)
			if lhs.Cmp(rhs) > 0 {
				k.claim(ClaimBound, false, "output %d, the %d best inputs: Σ_i α_i + N·K_%d exceeds the bound %v", j, c, j, *k.c.Utility.Bound)
				return false
			}
		}
	}
	return true
}
