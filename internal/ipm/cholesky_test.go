package ipm

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/internal/par"
	"github.com/pmlopt/pmlopt/internal/vec"
)

// mulVec returns a x for the n×n row-major a.
func mulVec(a []float64, n int, x []float64) []float64 {
	out := make([]float64, n)
	for i := range n {
		for k := range n {
			out[i] += a[i*n+k] * x[k]
		}
	}
	return out
}

// backwardError returns ‖a x − b‖∞ / (‖a‖∞ ‖x‖∞ + ‖b‖∞): about 1e-16 for
// a backward-stable solve, whatever the condition of a.
func backwardError(a []float64, n int, x, b []float64) float64 {
	ax := mulVec(a, n, x)
	var res, na, nx, nb float64
	for i := range n {
		res = math.Max(res, math.Abs(ax[i]-b[i]))
		row := 0.0
		for k := range n {
			row += math.Abs(a[i*n+k])
		}
		na = math.Max(na, row)
		nx = math.Max(nx, math.Abs(x[i]))
		nb = math.Max(nb, math.Abs(b[i]))
	}
	return res / (na*nx + nb)
}

// gramPlusIdentity returns B Bᵀ + I (row-major) for an n×n B of standard
// normal entries: symmetric positive definite, well conditioned.
func gramPlusIdentity(r *rand.Rand, n int) []float64 {
	bm := make([]float64, n*n)
	for k := range bm {
		bm[k] = r.NormFloat64()
	}
	a := make([]float64, n*n)
	for i := range n {
		for l := range n {
			a[i*n+l] = vec.Dot(bm[i*n:i*n+n], bm[l*n:l*n+n])
		}
		a[i*n+i]++
	}
	return a
}

// TestCholeskySolvesWellConditioned checks the factorisation on B Bᵀ + I
// against a known solution: no pivot skipped, the solution recovered.
func TestCholeskySolvesWellConditioned(t *testing.T) {
	const n = 30
	r := rand.New(rand.NewPCG(1, 2))
	a := gramPlusIdentity(r, n)
	want := make([]float64, n)
	for i := range want {
		want[i] = r.NormFloat64()
	}
	x := mulVec(a, n, want)
	var c cholesky
	if s := c.factorize(a, n); s != 0 {
		t.Fatalf("skipped %d pivots of a well-conditioned matrix", s)
	}
	c.solve(x)
	for i := range x {
		if math.Abs(x[i]-want[i]) > 1e-10*(1+math.Abs(want[i])) {
			t.Fatalf("x[%d] = %.17g, want %.17g", i, x[i], want[i])
		}
	}
}

// TestCholeskySkipsNoisePivots builds the matrix of the interior point's
// last iterations on a binomial prior: letters 0..k−1 all sent to one
// output share its rank-one update g·11ᵀ (g = 1e18) while their own
// diagonal is 1e-6, so their rows agree to 24 digits; the rest is well
// conditioned. The factorisation must skip the noise pivots and still
// return a solution whose backward error is at the level of rounding
// (a partial-pivoting LU divides by those pivots instead).
func TestCholeskySkipsNoisePivots(t *testing.T) {
	const n, k, g = 12, 5, 1e18
	r := rand.New(rand.NewPCG(3, 4))
	a := make([]float64, n*n)
	for i := range n {
		a[i*n+i] = 1 + r.Float64()
		if i < k {
			a[i*n+i] = 1e-6
			for l := range k {
				a[i*n+l] += g
			}
		}
	}
	for i := k; i < n; i++ { // a weak coupling of the well-conditioned part
		for l := k; l < n; l++ {
			if i != l {
				a[i*n+l] = 0.1 / float64(n)
			}
		}
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = r.NormFloat64()
	}
	for i := range k { // a right-hand side in the range of the update
		b[i] = g
	}
	x := append([]float64(nil), b...)
	var c cholesky
	if s := c.factorize(a, n); s != k-1 {
		t.Fatalf("skipped %d pivots, want %d (the copies of the first row)", s, k-1)
	}
	c.solve(x)
	if e := backwardError(a, n, x, b); e > 1e-15 {
		t.Fatalf("backward error %.3g", e)
	}
	for i := k; i < n; i++ { // the well-conditioned rows are solved exactly
		row := 0.0
		for l := range n {
			row += a[i*n+l] * x[l]
		}
		if math.Abs(row-b[i]) > 1e-12*(1+math.Abs(b[i])) {
			t.Fatalf("row %d: %.17g, want %.17g", i, row, b[i])
		}
	}
}

// TestCholeskySplitSameFactor: the factor with each block's rows shared
// out among three goroutines (every split taken) is the one-pass factor,
// bit for bit, on a matrix of several blocks with a noise pivot; and it
// solves the system.
func TestCholeskySplitSameFactor(t *testing.T) {
	const n = 3*cholBlock + 17
	r := rand.New(rand.NewPCG(7, 8))
	a := gramPlusIdentity(r, n)
	copy(a[(n-1)*n:], a[(n-2)*n:(n-1)*n]) // row n−1 a copy of row n−2 …
	for i := range n {
		a[i*n+n-1] = a[i*n+n-2] // … and its column: a noise pivot
	}
	var one, many cholesky
	s1 := one.factorize(a, n)
	s3 := many.factorizeSplit(a, n, func(n, cost int, f func(lo, hi int)) { par.Split(3, 1, n, cost, f) })
	if s1 != 1 || s3 != s1 {
		t.Fatalf("skipped %d pivots in one pass and %d split, want 1", s1, s3)
	}
	if !slices.Equal(one.l, many.l) || !slices.Equal(one.diag, many.diag) {
		t.Fatal("the split factor differs from the one-pass factor")
	}
	want := make([]float64, n)
	for i := range n - 1 {
		want[i] = r.NormFloat64()
	}
	x := mulVec(a, n, want)
	many.solve(x)
	for i := range x {
		if math.Abs(x[i]-want[i]) > 1e-8*(1+math.Abs(want[i])) {
			t.Fatalf("x[%d] = %.17g, want %.17g", i, x[i], want[i])
		}
	}
}
