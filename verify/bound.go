package verify

import (
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

// boxBound checks the PML, LIP and ALIP columns (see bound).
func (k *checker) boxBound(column func(int), w []*big.Float, wf []float64, lo, hi, kappa *big.Float) bool {
	pi := k.p.Prior
	loF, hiF := f64(lo), f64(hi)
	massF := f64(k.mass)
	order := make([]int, k.n)
	v, d, t, lhs, rhs := k.a.zero(), k.a.zero(), k.a.zero(), k.a.zero(), k.a.zero()
	one := k.a.num(1)
	for j := range k.m {
		column(j)
		// The float greedy's breakpoint: lower caps first, the rest to the
		// best ratios w_i/π_i up to the upper caps.
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			ra, rb := wf[a]/pi[a], wf[b]/pi[b]
			switch {
			case ra > rb:
				return -1
			case ra < rb:
				return 1
			}
			return 0
		})
		// With a worst case to keep (PML only: lo = 0), the inputs below
		// it have z_i = 0 on this output and drop out.
		allowed := func(i int) bool { return !k.floor() || k.allowed(i, j) }
		left := 1 - loF*massF
		kk := -1
		for _, i := range order {
			if !allowed(i) {
				continue
			}
			kk = i
			left -= (hiF - loF) * pi[i]
			if left <= 0 {
				break
			}
		}
		if kk < 0 {
			continue // no mechanism keeping the worst case uses the output
		}
		if k.floor() {
			// Σ_{i allowed} π_i z_i = 1 with z_i ≤ e^ε ≤ hi is impossible
			// when hi · π(allowed) < 1: every mechanism leaves the output
			// unused (q_j = 0), and it adds nothing.
			mass := k.a.zero()
			for i := range k.n {
				if allowed(i) {
					k.a.add(mass, mass, k.prior[i])
				}
			}
			if k.a.mul(t, hi, mass).Cmp(one) < 0 {
				continue
			}
		}
		// V = w_k + Σ_i (hi·max(0, d_i) + lo·min(0, d_i)), d_i = π_k w_i − w_k π_i.
		pk := k.prior[kk]
		v.Set(w[kk])
		for i := range k.n {
			if !allowed(i) {
				continue
			}
			k.a.mul(d, pk, w[i])
			k.a.sub(d, d, k.a.mul(t, w[kk], k.prior[i]))
			switch d.Sign() {
			case 1:
				k.a.add(v, v, k.a.mul(t, hi, d))
			case -1:
				if lo.Sign() != 0 {
					k.a.add(v, v, k.a.mul(t, lo, d))
				}
			}
		}
		k.a.mul(lhs, k.mass, v)
		k.a.mul(rhs, pk, kappa)
		if lhs.Cmp(rhs) > 0 {
			// S·K_j's bound, for the message.
			kj := new(big.Float).SetPrec(64).Quo(lhs, pk)
			k.claim(ClaimBound, false, "output %d: Σ_i α_i + S·K_%d ≥ %.17g > the bound %v", j, j, f64(kj)+f64(new(big.Float).Sub(k.a.num(*k.c.Utility.Bound), kappa)), *k.c.Utility.Bound)
			return false
		}
	}
	return true
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
