package exact

import (
	"math/big"
)

// The basis polynomial. Keep a basis of the master and the shape (S, k)
// of each of its vertex columns: every column is then affine in μ, and
// the sum of the basic slacks, F_B(μ) = c_B B(μ)^{-1} 1, is a rational
// function of μ. Bordering B with the right-hand side and the costs,
//
//	Q(μ) = −det [ B(μ)  1 ; c_B  0 ] = det B(μ) · F_B(μ),
//
// a polynomial of degree at most the number of vertex columns with a
// fractional entry. Just above ε*'s μ* = 1/t* the master's optimal basis
// keeps F_B = F > 0, and F falls to 0 at μ* (the master's value is
// continuous in μ), so μ* is a root of Q: a rational when Q has one
// there, an algebraic number otherwise.

// poly is a polynomial over the rationals, coefficients from degree 0.
type poly []*big.Rat

// basisPoly returns Q for the basis cols.
func basisPoly(pi []*big.Rat, cols []column) poly {
	deg := 0
	for _, c := range cols {
		if c.sh != nil && c.sh.k >= 0 {
			deg++
		}
	}
	// Q is fixed by its values at deg+1 points; take 0, 1, …, deg and
	// solve the Vandermonde system.
	n := len(pi)
	vals := make([]*big.Rat, deg+1)
	vand := make([][]*big.Rat, deg+1)
	for p := 0; p <= deg; p++ {
		mu := big.NewRat(int64(p), 1)
		a := make([][]*big.Rat, n+1)
		for i := range a {
			a[i] = zeros(n + 1)
		}
		for r, c := range cols {
			var v []*big.Rat
			if c.sh == nil {
				v = zeros(n)
				v[c.slack].SetInt64(1)
				a[n][r].SetInt64(1)
			} else {
				v = c.sh.at(pi, mu)
			}
			for i := 0; i < n; i++ {
				a[i][r].Set(v[i])
			}
		}
		for i := 0; i < n; i++ {
			a[i][n].SetInt64(1)
		}
		vals[p] = det(a)
		vals[p].Neg(vals[p])
		vand[p] = make([]*big.Rat, deg+1)
		x := big.NewRat(1, 1)
		for e := 0; e <= deg; e++ {
			vand[p][e] = new(big.Rat).Set(x)
			x.Mul(x, mu)
		}
	}
	coef, _ := solve(vand, vals) // distinct points: never singular
	for len(coef) > 1 && coef[len(coef)-1].Sign() == 0 {
		coef = coef[:len(coef)-1]
	}
	return coef
}

// at returns Q(x) exactly (Horner).
func (q poly) at(x *big.Rat) *big.Rat {
	s := new(big.Rat)
	for e := len(q) - 1; e >= 0; e-- {
		s.Mul(s, x)
		s.Add(s, q[e])
	}
	return s
}

// integer returns the primitive integer polynomial with Q's roots.
func (q poly) integer() []*big.Int {
	l := big.NewInt(1)
	for _, c := range q {
		d := c.Denom()
		gcd := new(big.Int).GCD(nil, nil, l, d)
		l.Mul(l, new(big.Int).Quo(d, gcd))
	}
	out := make([]*big.Int, len(q))
	g := new(big.Int)
	for e, c := range q {
		v := new(big.Int).Mul(c.Num(), new(big.Int).Quo(l, c.Denom()))
		out[e] = v
		g.GCD(nil, nil, g, new(big.Int).Abs(v))
	}
	if g.Sign() > 0 {
		for _, v := range out {
			v.Quo(v, g)
		}
	}
	return out
}

// newton returns a root of q near x0 to a relative step below 2^-need,
// by Newton's method in binary floating point with room above need for
// the cancellation in Q's sum near a root, and false when it does not
// settle (no root near, or a multiple one).
func (q poly) newton(x0 *big.Rat, need uint) (*big.Float, bool) {
	spread := 0
	for _, v := range q {
		if v.Sign() != 0 {
			spread = max(spread, v.Num().BitLen()-v.Denom().BitLen()+1)
		}
	}
	prec := need + 128 + uint(spread)
	c := make([]*big.Float, len(q))
	for e, v := range q {
		c[e] = new(big.Float).SetPrec(prec).SetRat(v)
	}
	x := new(big.Float).SetPrec(prec).SetRat(x0)
	tiny := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(need))
	for it := 0; it < 400; it++ {
		f := new(big.Float).SetPrec(prec)
		d := new(big.Float).SetPrec(prec)
		for e := len(c) - 1; e >= 0; e-- {
			d.Mul(d, x)
			d.Add(d, f)
			f.Mul(f, x)
			f.Add(f, c[e])
		}
		if d.Sign() == 0 {
			return nil, false
		}
		step := new(big.Float).SetPrec(prec).Quo(f, d)
		x.Sub(x, step)
		rel := new(big.Float).SetPrec(prec).Abs(step)
		if x.Sign() != 0 {
			rel.Quo(rel, new(big.Float).SetPrec(prec).Abs(x))
		}
		if rel.Cmp(tiny) <= 0 {
			return x, true
		}
	}
	return nil, false
}

// rationalRoot returns the rational root of q within err of x, if any, by
// the continued fraction of x. A root a/b in lowest terms of the primitive
// integer polynomial z has b dividing its leading coefficient and a its
// constant one (the rational root theorem), and when |x − a/b| < 1/(2b²),
// a/b is a convergent of x (Legendre). So with err < 1/(2·lead²) the
// search below is conclusive; it evaluates q only at the convergents the
// theorem allows, and stops once the denominators pass lead.
func (q poly) rationalRoot(x *big.Float, err *big.Rat) (*big.Rat, bool) {
	z := q.integer()
	lead := new(big.Int).Abs(z[len(z)-1])
	c0 := new(big.Int).Abs(z[0])
	xr, _ := x.Rat(nil)
	rem := new(big.Rat).Set(xr)
	// Convergents h/k by the recurrence h_n = a_n h_{n−1} + h_{n−2}.
	h0, h1 := big.NewInt(0), big.NewInt(1)
	k0, k1 := big.NewInt(1), big.NewInt(0)
	m := new(big.Int)
	for {
		a := new(big.Int).Div(rem.Num(), rem.Denom()) // floor (Div rounds to −∞ for a positive divisor)
		h0, h1 = h1, new(big.Int).Add(new(big.Int).Mul(a, h1), h0)
		k0, k1 = k1, new(big.Int).Add(new(big.Int).Mul(a, k1), k0)
		if k1.Cmp(lead) > 0 {
			return nil, false
		}
		allowed := m.Rem(lead, k1).Sign() == 0 &&
			(c0.Sign() == 0 || h1.Sign() == 0 || m.Rem(c0, new(big.Int).Abs(h1)).Sign() == 0)
		if allowed {
			c := new(big.Rat).SetFrac(h1, k1)
			d := new(big.Rat).Sub(c, xr)
			if d.Abs(d).Cmp(err) <= 0 && q.at(c).Sign() == 0 {
				return c, true
			}
		}
		frac := new(big.Rat).Sub(rem, new(big.Rat).SetInt(a))
		if frac.Sign() == 0 {
			return nil, false
		}
		rem.Inv(frac)
	}
}

// deriv returns Q'.
func (q poly) deriv() poly {
	if len(q) < 2 {
		return poly{new(big.Rat)}
	}
	d := make(poly, len(q)-1)
	for e := 1; e < len(q); e++ {
		d[e-1] = new(big.Rat).Mul(q[e], big.NewRat(int64(e), 1))
	}
	return d
}

// trim drops zero leading coefficients (keeping one).
func (q poly) trim() poly {
	for len(q) > 1 && q[len(q)-1].Sign() == 0 {
		q = q[:len(q)-1]
	}
	return q
}

func (q poly) zero() bool { return len(q) == 1 && q[0].Sign() == 0 }

// divmod returns the quotient and remainder of q by d (d not zero).
func (q poly) divmod(d poly) (poly, poly) {
	r := make(poly, len(q))
	for i, c := range q {
		r[i] = new(big.Rat).Set(c)
	}
	if len(q) < len(d) {
		return poly{new(big.Rat)}, r
	}
	quo := make(poly, len(q)-len(d)+1)
	for i := range quo {
		quo[i] = new(big.Rat)
	}
	lead := d[len(d)-1]
	for e := len(q) - len(d); e >= 0; e-- {
		c := new(big.Rat).Quo(r[e+len(d)-1], lead)
		quo[e] = c
		for k, dk := range d {
			r[e+k].Sub(r[e+k], new(big.Rat).Mul(c, dk))
		}
	}
	return quo.trim(), poly(r[:len(d)-1]).orZero()
}

func (q poly) orZero() poly {
	if len(q) == 0 {
		return poly{new(big.Rat)}
	}
	return q.trim()
}

// squarefree returns Q / gcd(Q, Q'): the same roots, each simple, so that
// Newton's method converges fast on a root that Q has twice.
func (q poly) squarefree() poly {
	q = q.trim()
	if len(q) < 3 {
		return q
	}
	a, b := q, q.deriv().trim()
	for !b.zero() {
		_, r := a.divmod(b)
		a, b = b, r
	}
	if len(a) < 2 { // gcd a constant
		return q
	}
	quo, _ := q.divmod(a)
	return quo
}
