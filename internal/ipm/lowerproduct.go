package ipm

import "github.com/pmlopt/pmlopt/internal/vec"

// addLowerProduct adds a bᵀ's lower triangle to s (n × n, row-major): for
// a and b n × l row-major, s[k][q] += a_k · b_q for q ≤ k. The rows are
// taken two of a against four of b (vec.Dots2x4), each entry of the six
// rows loaded once for eight multiply-adds: a sum of n² rank-l terms
// that the Newton systems of the lean routes form at every iteration,
// where one output's few border columns at a time would load two entries
// for each.
func addLowerProduct(s []float64, n int, a, b []float64, l int) {
	if n == 0 || l == 0 {
		return
	}
	row := func(m []float64, r int) []float64 {
		r = min(r, n-1) // past the last row: a copy whose products are dropped
		return m[r*l : (r+1)*l]
	}
	var out [8]float64
	for k := 0; k < n; k += 2 {
		a0, a1 := row(a, k), row(a, k+1)
		for q := 0; q <= k+1 && q < n; q += 4 {
			vec.Dots2x4(a0, a1, row(b, q), row(b, q+1), row(b, q+2), row(b, q+3), &out)
			for r := range 2 {
				for e := range 4 {
					if kr, qe := k+r, q+e; kr < n && qe <= kr {
						s[kr*n+qe] += out[4*r+e]
					}
				}
			}
		}
	}
}

// setLowerProduct sets s's lower triangle to a bᵀ's (s n × n, a and b n ×
// l, row-major): s[k][q] = a_k · b_q for q ≤ k, each sum taken term by
// term from the first, as a plain loop takes it, so that the entries are
// those of that loop to the last bit. Eight sums run side by side, two
// rows of a against four of b: each entry of the six rows is loaded once
// for its eight products, and the sums do not wait on one another. The
// lean routes' deflation systems, whose last digits decide where their
// iterations stall, are formed this way (addLowerProduct's kernel sums in
// another order).
func setLowerProduct(s []float64, n int, a, b []float64, l int) {
	if n == 0 {
		return
	}
	row := func(m []float64, r int) []float64 {
		r = min(r, n-1) // past the last row: a copy whose products are dropped
		return m[r*l : (r+1)*l : (r+1)*l]
	}
	for k := 0; k < n; k += 2 {
		a0, a1 := row(a, k), row(a, k+1)
		for q := 0; q <= k+1 && q < n; q += 4 {
			b0, b1, b2, b3 := row(b, q), row(b, q+1), row(b, q+2), row(b, q+3)
			var s0, s1, s2, s3, s4, s5, s6, s7 float64
			for e := range a0 {
				x0, x1 := a0[e], a1[e]
				y0, y1, y2, y3 := b0[e], b1[e], b2[e], b3[e]
				s0 += x0 * y0
				s1 += x0 * y1
				s2 += x0 * y2
				s3 += x0 * y3
				s4 += x1 * y0
				s5 += x1 * y1
				s6 += x1 * y2
				s7 += x1 * y3
			}
			out := [8]float64{s0, s1, s2, s3, s4, s5, s6, s7}
			for r := range 2 {
				for c := range 4 {
					if kr, qc := k+r, q+c; kr < n && qc <= kr {
						s[kr*n+qc] = out[4*r+c]
					}
				}
			}
		}
	}
}
