package colgen

import (
	"math"
)

// slicePrice solves the pricing problem of one output over a list of
// priors π^1..π^K,
//
//	max c·x  subject to  0 ≤ x ≤ 1,  π^k·x ≥ μ  (k = 1..K),
//
// by a bounded primal simplex on K rows (the list is short: the cutting
// planes of RobustMaster add a prior only when the greedy worst prior of
// the set breaks a column). A[k] holds π^k on the output's allowed inputs.
// It starts from x = 1, which is feasible when every π^k sums to at least
// μ (ok is false otherwise: no column of the output exists at this μ).
// It returns a vertex x and c·x.
func slicePrice(c []float64, A [][]float64, mu float64) (x []float64, val float64, ok bool) {
	n, K := len(c), len(A)
	// Variables 0..n−1 are x (bounds [0, 1]), n..n+K−1 the surpluses s_k
	// = π^k·x − μ (bounds [0, ∞)). The column of x_i in row k is A[k][i],
	// that of s_k is −e_k.
	val0 := make([]float64, n+K)
	for i := range n {
		val0[i] = 1
	}
	for k := range K {
		s := -mu
		for i := range n {
			s += A[k][i]
		}
		if s < -1e-15*math.Max(1, mu) {
			return nil, 0, false
		}
		val0[n+k] = math.Max(0, s)
	}
	upper := func(v int) float64 {
		if v < n {
			return 1
		}
		return math.Inf(1)
	}
	cost := func(v int) float64 {
		if v < n {
			return c[v]
		}
		return 0
	}
	col := func(v int, k int) float64 {
		if v < n {
			return A[k][v]
		}
		if v-n == k {
			return -1
		}
		return 0
	}
	head := make([]int, K) // basic variable of each row position
	basic := make([]int, n+K)
	for v := range basic {
		basic[v] = -1
	}
	for k := range K {
		head[k], basic[n+k] = n+k, k
	}
	binv := make([]float64, K*K)
	bmat := make([]float64, K*K)
	w := make([]float64, K)
	g := make([]float64, K)
	const tol = 1e-12
	degenerate := 0
	for iter := 0; iter < 50*(n+K)+100; iter++ {
		// B⁻¹ afresh: K is small.
		for p := range K {
			for k := range K {
				bmat[k*K+p] = col(head[p], k)
			}
		}
		if !invertSmall(bmat, binv, K) {
			return nil, 0, false
		}
		// w = c_B B⁻¹.
		for k := range K {
			s := 0.0
			for p := range K {
				s += cost(head[p]) * binv[p*K+k]
			}
			w[k] = s
		}
		bland := degenerate > 20
		q, qd := -1, 0.0
		for v := range n + K {
			if basic[v] >= 0 {
				continue
			}
			d := cost(v)
			for k := range K {
				d -= w[k] * col(v, k)
			}
			atUpper := val0[v] >= upper(v)
			if (!atUpper && d > tol) || (atUpper && d < -tol) {
				if bland {
					q, qd = v, d
					break
				}
				if math.Abs(d) > math.Abs(qd) {
					q, qd = v, d
				}
			}
		}
		if q < 0 {
			break
		}
		sgn := 1.0 // x_q rises
		if qd < 0 {
			sgn = -1
		}
		// g = B⁻¹ a_q; the basic values move by −sgn·g·δ.
		for p := range K {
			s := 0.0
			for k := range K {
				s += binv[p*K+k] * col(q, k)
			}
			g[p] = s
		}
		step, leave, toUpper := upper(q), -1, false // its own range
		for p := range K {
			dv := -sgn * g[p]
			b := head[p]
			switch {
			case dv < -1e-13:
				if t := (val0[b] - 0) / -dv; t < step || (t == step && leave >= 0 && b < head[leave]) {
					step, leave, toUpper = math.Max(t, 0), p, false
				}
			case dv > 1e-13 && !math.IsInf(upper(b), 1):
				if t := (upper(b) - val0[b]) / dv; t < step || (t == step && leave >= 0 && b < head[leave]) {
					step, leave, toUpper = math.Max(t, 0), p, true
				}
			}
		}
		if math.IsInf(step, 1) {
			return nil, 0, false // unbounded: not for x in a box
		}
		if step <= 1e-15 {
			degenerate++
		} else {
			degenerate = 0
		}
		for p := range K {
			val0[head[p]] -= sgn * g[p] * step
		}
		val0[q] += sgn * step
		if leave < 0 {
			continue // a bound flip
		}
		b := head[leave]
		if toUpper {
			val0[b] = upper(b)
		} else {
			val0[b] = 0
		}
		basic[b], head[leave], basic[q] = -1, q, leave
	}
	x = make([]float64, n)
	for i := range n {
		x[i] = math.Min(1, math.Max(0, val0[i]))
		val += c[i] * x[i]
	}
	return x, val, true
}

// invertSmall inverts the k×k matrix a (row-major) into inv by
// Gauss-Jordan elimination with partial pivoting; false when singular.
func invertSmall(a, inv []float64, k int) bool {
	m := make([]float64, len(a))
	copy(m, a)
	for i := range inv {
		inv[i] = 0
	}
	for i := range k {
		inv[i*k+i] = 1
	}
	for c := range k {
		r, big := -1, 1e-14
		for p := c; p < k; p++ {
			if v := math.Abs(m[p*k+c]); v > big {
				r, big = p, v
			}
		}
		if r < 0 {
			return false
		}
		if r != c {
			for t := range k {
				m[r*k+t], m[c*k+t] = m[c*k+t], m[r*k+t]
				inv[r*k+t], inv[c*k+t] = inv[c*k+t], inv[r*k+t]
			}
		}
		d := 1 / m[c*k+c]
		for t := range k {
			m[c*k+t] *= d
			inv[c*k+t] *= d
		}
		for p := range k {
			if p == c {
				continue
			}
			f := m[p*k+c]
			if f == 0 {
				continue
			}
			for t := range k {
				m[p*k+t] -= f * m[c*k+t]
				inv[p*k+t] -= f * inv[c*k+t]
			}
		}
	}
	return true
}
