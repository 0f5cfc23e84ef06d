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
