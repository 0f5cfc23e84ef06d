package instance

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/pmlopt/pmlopt/mech"
)

// matrix returns the n×m utility with entries f(x, y).
func matrix(n, m int, f func(x, y int) float64) mech.Utility {
	u := make(mech.Utility, n)
	for x := range u {
		u[x] = make([]float64, m)
		for y := range u[x] {
			u[x][y] = f(x, y)
		}
	}
	return u
}

// neg returns −v with 0 for v = 0 (not −0, which prints as "-0").
func neg(v float64) float64 { return 0 - v }

func checkLetters(name string, n int) error {
	if n < 1 {
		return fmt.Errorf("instance: %s utility: %d letters", name, n)
	}
	return nil
}

// Counting returns the n×n counting-query utility u(x, y) = −(x−y)² − [y<x]
// of Song and Oechtering, "Worst-Case Utility Privacy Mechanism via
// Pointwise Maximal Leakage" (2026), §IV, eq. (11): a quadratic loss with a
// penalty of one for releasing a count below the true one. (The matrix
// printed as eq. (11) has −9 where x − y = 3; the formula gives −10, the
// value under which the order of eq. (12) holds.)
func Counting(n int) (mech.Utility, error) {
	if err := checkLetters("counting", n); err != nil {
		return nil, err
	}
	return matrix(n, n, func(x, y int) float64 {
		d := float64(x - y)
		if y < x {
			return neg(d*d) - 1
		}
		return neg(d * d)
	}), nil
}

// AbsLoss returns the n×n line utility u(x, y) = −|x − y|.
func AbsLoss(n int) (mech.Utility, error) {
	if err := checkLetters("abs", n); err != nil {
		return nil, err
	}
	return matrix(n, n, func(x, y int) float64 { return neg(math.Abs(float64(x - y))) }), nil
}

// SquareLoss returns the n×n line utility u(x, y) = −(x − y)².
func SquareLoss(n int) (mech.Utility, error) {
	if err := checkLetters("square", n); err != nil {
		return nil, err
	}
	return matrix(n, n, func(x, y int) float64 { d := float64(x - y); return neg(d * d) }), nil
}

// Hamming returns the n×n utility 0 on the diagonal and −1 elsewhere: only
// the exact value counts.
func Hamming(n int) (mech.Utility, error) {
	if err := checkLetters("hamming", n); err != nil {
		return nil, err
	}
	return matrix(n, n, func(x, y int) float64 {
		if x == y {
			return 0
		}
		return -1
	}), nil
}

// Grid returns the utility of a w×h grid of cells with Euclidean loss:
// letter k is the cell (k mod w, k div w), and u(x, y) is minus the
// Euclidean distance between the cells of x and y. Many pairs tie: every
// distance that occurs occurs several times in a row.
func Grid(w, h int) (mech.Utility, error) {
	if w < 1 || h < 1 {
		return nil, fmt.Errorf("instance: grid utility: %d×%d cells", w, h)
	}
	n := w * h
	return matrix(n, n, func(x, y int) float64 {
		dx, dy := float64(x%w-y%w), float64(x/w-y/w)
		return neg(math.Sqrt(dx*dx + dy*dy))
	}), nil
}

// GridSides returns the sides w ≥ h of the squarest grid with n cells: h is
// the largest divisor of n not above √n (a prime n gives an n×1 line).
func GridSides(n int) (w, h int) {
	h = 1
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			h = d
		}
	}
	return n / h, h
}

// Bands returns the n×n integer loss u(x, y) = −⌊|x − y| / width⌋: a line
// loss quantised into bands, so each row holds about n/width distinct
// values and many ties.
func Bands(n, width int) (mech.Utility, error) {
	if err := checkLetters("bands", n); err != nil {
		return nil, err
	}
	if width < 1 {
		return nil, fmt.Errorf("instance: bands utility: width %d", width)
	}
	return matrix(n, n, func(x, y int) float64 {
		d := x - y
		if d < 0 {
			d = -d
		}
		return neg(float64(d / width))
	}), nil
}

// Buckets returns the n×m utility of releasing an input x in 0..n−1 as a
// bucket y in 0..m−1 of the unit interval: both are placed at the centres
// of their cells, x at (x+½)/n and y at (y+½)/m, and the loss is the
// distance between the centres times 2nm, u(x, y) = −|(2x+1)m − (2y+1)n|,
// an integer, so that equal distances tie exactly. m < n is a coarser
// release than the input (a histogram), m > n a finer one.
func Buckets(n, m int) (mech.Utility, error) {
	if n < 1 || m < 1 {
		return nil, fmt.Errorf("instance: buckets utility: %d inputs, %d outputs", n, m)
	}
	return matrix(n, m, func(x, y int) float64 {
		return neg(math.Abs(float64((2*x+1)*m - (2*y+1)*n)))
	}), nil
}

// Random returns an n×m utility with independent entries uniform on
// [0, 1): distinct with probability 1, so every row of its order is a
// uniformly random permutation (as under any continuous law, Gaussian
// included).
func Random(rng *rand.Rand, n, m int) (mech.Utility, error) {
	if n < 1 || m < 1 {
		return nil, fmt.Errorf("instance: random utility: %d×%d", n, m)
	}
	if rng == nil {
		return nil, errors.New("instance: random utility needs a random generator, got nil")
	}
	return matrix(n, m, func(int, int) float64 { return rng.Float64() }), nil
}
