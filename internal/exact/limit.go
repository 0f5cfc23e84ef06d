package exact

import "math/big"

// The multipliers at a candidate μ* = r. Above r, the optimal basis B of
// the master has duals y(μ) = c_B B(μ)^{-1} with y·u ≤ 0 on every vertex
// u at μ and Σ_i y_i = F_B(μ) > 0. As μ ↓ r these conditions pass to the
// limit of any positive multiples of y(μ) (the vertices move continuously
// while the slices stay non-empty), giving α with α·u ≤ 0 at r and
// Σ_i α_i ≥ 0: the multipliers CheckLower needs. Where B(r) is regular
// the limit is y(r); where it is singular y(μ) may grow without bound, so
// the limit is taken of y(μ)·(μ − r)^e |det B(μ)|, which is a polynomial
// vector N(μ)/(μ − r)^k with N = c_B adj B(μ), evaluated at r.

// limitDuals returns that limit for the basis cols at r, and false when
// it is zero (no direction) or B(μ) is singular for every μ.
func limitDuals(pi []*big.Rat, cols []column, r *big.Rat) ([]*big.Rat, bool) {
	num, den, ok := dualPolys(pi, cols)
	if !ok {
		return nil, false
	}
	// k: the least order of a zero at r among the numerators.
	k := -1
	for _, p := range num {
		if p.zero() {
			continue
		}
		if _, o := p.deflate(r); k < 0 || o < k {
			k = o
		}
	}
	if k < 0 {
		return nil, false
	}
	dq, _ := den.deflate(r)
	sign := dq.at(r).Sign() // the sign of det B(μ) just above r
	alpha := make([]*big.Rat, len(num))
	for i, p := range num {
		for range k {
			p, _ = p.divLinear(r)
		}
		alpha[i] = p.at(r)
		if sign < 0 {
			alpha[i].Neg(alpha[i])
		}
	}
	return alpha, true
}

// dualPolys returns N(μ) = c_B adj B(μ) and det B(μ) as polynomials, from
// their values at deg+1 integers where B is regular (deg: the columns of
// cols that move with μ; every minor has at most that degree).
func dualPolys(pi []*big.Rat, cols []column) ([]poly, poly, bool) {
	n := len(pi)
	deg := 0
	for _, c := range cols {
		if c.sh != nil && c.sh.k >= 0 {
			deg++
		}
	}
	var xs []*big.Rat
	var ys [][]*big.Rat // N at xs
	var ds []*big.Rat   // det at xs
	for p := 0; len(xs) <= deg && p <= 2*deg+n+4; p++ {
		mu := big.NewRat(int64(p), 1)
		b := basisMatrix(pi, cols, mu)
		d := det(copyMat(b))
		if d.Sign() == 0 {
			continue
		}
		// Solve B^T y = c_B.
		bt := make([][]*big.Rat, n)
		c := zeros(n)
		for r := range bt {
			bt[r] = zeros(n)
			for i := 0; i < n; i++ {
				bt[r][i].Set(b[i][r])
			}
			if cols[r].sh == nil {
				c[r].SetInt64(1)
			}
		}
		y, ok := solve(bt, c)
		if !ok {
			continue
		}
		for i := range y {
			y[i].Mul(y[i], d)
		}
		xs, ys, ds = append(xs, mu), append(ys, y), append(ds, d)
	}
	if len(xs) <= deg {
		return nil, nil, false
	}
	num := make([]poly, n)
	for i := range num {
		v := make([]*big.Rat, len(xs))
		for p := range xs {
			v[p] = ys[p][i]
		}
		num[i] = interpolate(xs, v)
	}
	return num, interpolate(xs, ds), true
}

// basisMatrix returns B(μ), column r being cols[r] at μ.
func basisMatrix(pi []*big.Rat, cols []column, mu *big.Rat) [][]*big.Rat {
	n := len(pi)
	b := make([][]*big.Rat, n)
	for i := range b {
		b[i] = zeros(n)
	}
	for r, col := range cols {
		if col.sh == nil {
			b[col.slack][r].SetInt64(1)
			continue
		}
		for i, v := range col.sh.at(pi, mu) {
			b[i][r].Set(v)
		}
	}
	return b
}

func copyMat(a [][]*big.Rat) [][]*big.Rat {
	out := make([][]*big.Rat, len(a))
	for i, row := range a {
		out[i] = make([]*big.Rat, len(row))
		for j, x := range row {
			out[i][j] = new(big.Rat).Set(x)
		}
	}
	return out
}

// interpolate returns the polynomial of degree < len(xs) through the
// points (xs[p], vs[p]), xs distinct.
func interpolate(xs, vs []*big.Rat) poly {
	k := len(xs)
	vand := make([][]*big.Rat, k)
	b := make([]*big.Rat, k)
	for p, x := range xs {
		vand[p] = make([]*big.Rat, k)
		pow := big.NewRat(1, 1)
		for e := 0; e < k; e++ {
			vand[p][e] = new(big.Rat).Set(pow)
			pow.Mul(pow, x)
		}
		b[p] = new(big.Rat).Set(vs[p])
	}
	c, _ := solve(vand, b) // distinct points: never singular
	return poly(c).trim()
}

// divLinear returns Q/(μ − r) and the remainder Q(r) (synthetic division).
func (q poly) divLinear(r *big.Rat) (poly, *big.Rat) {
	if len(q) < 2 {
		return poly{new(big.Rat)}, new(big.Rat).Set(q[0])
	}
	out := make(poly, len(q)-1)
	acc := new(big.Rat)
	for e := len(q) - 1; e >= 1; e-- {
		acc.Mul(acc, r)
		acc.Add(acc, q[e])
		out[e-1] = new(big.Rat).Set(acc)
	}
	acc.Mul(acc, r)
	acc.Add(acc, q[0])
	return out, acc
}

// deflate returns Q/(μ − r)^o with o the order of r as a root of Q (Q
// not zero).
func (q poly) deflate(r *big.Rat) (poly, int) {
	o := 0
	for !q.zero() {
		d, rem := q.divLinear(r)
		if rem.Sign() != 0 {
			break
		}
		q, o = d, o+1
	}
	return q, o
}
