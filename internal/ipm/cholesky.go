package ipm

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/vec"
)

// cholesky factorises the reduced Newton matrix of the interior-point
// iterations, which is symmetric positive definite in exact arithmetic
// (the Schur complement, onto the row multipliers, of the barrier's
// positive definite normal matrix), as L Lᵀ, with the modification of
// Wright (S. J. Wright, "Modified Cholesky factorizations in interior-point
// algorithms for linear programming", SIAM J. Optim. 9(4), 1999): a pivot
// that rounding has brought down to the noise of its own diagonal entry is
// not taken, and the unknown of its row is set to 0.
//
// Near the optimum the matrix is singular by design where the dual
// optimum is not unique: letters sent whole to one output (their pairs at
// the cap p_ij = t_j) share that output's rank-2 update, which grows like
// the inverse of the gap while their own diagonal shrinks like the gap, so
// their rows tend to copies of one another. Once the diagonal falls below
// the update's rounding (about 2^−53 of it) the remaining pivots are
// noise: partial-pivoting LU then divides by them and returns directions
// of size 1e40 that stop the iterations short of the gap. The skipped
// pivots are exactly those rows: their equations are, to working
// precision, combinations of the rows already factorised, and leaving
// their multipliers where they are gives a direction as accurate as the
// others' (the theorem of the paper above).
//
// The matrix is held row-major, as built by factor; only its lower
// triangle is read.
type cholesky struct {
	n    int
	l    []float64 // row-major; the lower triangle holds L
	diag []float64 // 1/L_ii, 0 for a skipped pivot
}

// pivotNoise is the size, relative to its diagonal entry, below which a
// pivot counts as rounding noise: the pivot is that entry minus a sum of
// squares as large as the entry itself, computed with an error of a few
// units of 2^−53 of it for each of up to thousands of terms.
const pivotNoise = 1e-13

// factorize computes L for the n×n matrix a (row-major) and reports how
// many pivots it skipped.
func (c *cholesky) factorize(a []float64, n int) int {
	return c.factorizeSplit(a, n, func(n, _ int, f func(lo, hi int)) { f(0, n) })
}

// cholBlock is how many rows factorizeSplit takes at a time: their
// entries left of the block depend only on the rows above it, and are
// shared out; the block's own entries follow in order.
const cholBlock = 64

// factorizeSplit is factorize with the rows of each block of cholBlock
// rows shared out by split (workspace.split) for their entries left of the
// block. Every entry is the same dot product, in the same order, as in
// one pass, so L does not depend on the split.
func (c *cholesky) factorizeSplit(a []float64, n int, split func(n, cost int, f func(lo, hi int))) int {
	if c.n != n {
		// Every entry read is written first (the lower triangle and the
		// diagonal): the arrays of a larger earlier matrix serve. A
		// system that grows (the lean routes' directions, a few more
		// each iteration) gets room for twice the entries, not a new
		// array at every size.
		c.n = n
		if cap(c.l) < n*n {
			c.l = make([]float64, n*n, max(n*n, 2*cap(c.l)))
		}
		if cap(c.diag) < n {
			c.diag = make([]float64, n, max(n, 2*cap(c.diag)))
		}
		c.l, c.diag = c.l[:n*n], c.diag[:n]
	}
	entry := func(li, ai []float64, k int) {
		li[k] = (ai[k] - vec.Dot(li[:k], c.l[k*n:k*n+k])) * c.diag[k]
	}
	skipped := 0
	for r0 := 0; r0 < n; r0 += cholBlock {
		r1 := min(r0+cholBlock, n)
		split(r1-r0, r0*r0/2, func(lo, hi int) {
			for i := r0 + lo; i < r0+hi; i++ {
				li, ai := c.l[i*n:i*n+n], a[i*n:i*n+n]
				for k := range r0 {
					entry(li, ai, k)
				}
			}
		})
		for i := r0; i < r1; i++ {
			li, ai := c.l[i*n:i*n+n], a[i*n:i*n+n]
			for k := r0; k < i; k++ {
				entry(li, ai, k)
			}
			s := ai[i] - vec.Dot(li[:i], li[:i])
			if !(s > pivotNoise*ai[i]) || math.IsInf(s, 0) {
				c.diag[i] = 0
				li[i] = 0
				skipped++
				continue
			}
			li[i] = math.Sqrt(s)
			c.diag[i] = 1 / li[i]
		}
	}
	return skipped
}

// solve overwrites b with the solution x of L Lᵀ x = b, with x_i = 0 for
// every skipped pivot i.
func (c *cholesky) solve(b []float64) {
	n := c.n
	// L y = b, row by row.
	for i := range n {
		b[i] = (b[i] - vec.Dot(c.l[i*n:i*n+i], b[:i])) * c.diag[i]
	}
	// Lᵀ x = y, column by column of Lᵀ (row by row of L, from the last).
	for i := n - 1; i >= 0; i-- {
		b[i] *= c.diag[i]
		vec.AddScaled(b[:i], -b[i], c.l[i*n:i*n+i])
	}
}
