package exact

import "math/big"

// zeros returns n new zero rationals.
func zeros(n int) []*big.Rat {
	v := make([]*big.Rat, n)
	for i := range v {
		v[i] = new(big.Rat)
	}
	return v
}

// dot returns x·y exactly.
func dot(x, y []*big.Rat) *big.Rat {
	s, t := new(big.Rat), new(big.Rat)
	for i := range x {
		if x[i].Sign() == 0 || y[i].Sign() == 0 {
			continue
		}
		s.Add(s, t.Mul(x[i], y[i]))
	}
	return s
}

// matVec returns A x.
func matVec(a [][]*big.Rat, x []*big.Rat) []*big.Rat {
	out := make([]*big.Rat, len(a))
	for i, row := range a {
		out[i] = dot(row, x)
	}
	return out
}

// pivotRow returns the first row r ≥ c with a non-zero entry in column
// c, or −1: in exact arithmetic any non-zero pivot serves.
func pivotRow(a [][]*big.Rat, c int) int {
	for r := c; r < len(a); r++ {
		if a[r][c].Sign() != 0 {
			return r
		}
	}
	return -1
}

// det returns the determinant of the square matrix a (a is consumed), by
// Gaussian elimination on the first non-zero pivot: exact, so any non-zero
// pivot serves.
func det(a [][]*big.Rat) *big.Rat {
	n := len(a)
	d := big.NewRat(1, 1)
	for c := 0; c < n; c++ {
		p := pivotRow(a, c)
		if p < 0 {
			return new(big.Rat)
		}
		if p != c {
			a[p], a[c] = a[c], a[p]
			d.Neg(d)
		}
		d.Mul(d, a[c][c])
		for r := c + 1; r < n; r++ {
			if a[r][c].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Quo(a[r][c], a[c][c])
			for k := c; k < n; k++ {
				a[r][k].Sub(a[r][k], new(big.Rat).Mul(f, a[c][k]))
			}
		}
	}
	return d
}

// solve returns x with A x = b, or false when A is singular (a and b are
// consumed).
func solve(a [][]*big.Rat, b []*big.Rat) ([]*big.Rat, bool) {
	n := len(a)
	for c := 0; c < n; c++ {
		p := pivotRow(a, c)
		if p < 0 {
			return nil, false
		}
		a[p], a[c] = a[c], a[p]
		b[p], b[c] = b[c], b[p]
		for r := 0; r < n; r++ {
			if r == c || a[r][c].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Quo(a[r][c], a[c][c])
			for k := c; k < n; k++ {
				a[r][k].Sub(a[r][k], new(big.Rat).Mul(f, a[c][k]))
			}
			b[r].Sub(b[r], new(big.Rat).Mul(f, b[c]))
		}
	}
	x := make([]*big.Rat, n)
	for i := range x {
		x[i] = new(big.Rat).Quo(b[i], a[i][i])
	}
	return x, true
}
