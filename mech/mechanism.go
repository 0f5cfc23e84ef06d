package mech

import (
	"math"

	"github.com/pmlopt/pmlopt/internal/mathx"
)

// Mechanism is a privacy mechanism P_{Y|X}: an N×M row-stochastic matrix with
// P[i][j] = P(y_j | x_i).
type Mechanism [][]float64

// NewMechanism validates p as a mechanism: rectangular, finite, non-negative,
// each row summing to 1 within SumTol. The returned Mechanism shares p's
// storage.
func NewMechanism(p [][]float64) (Mechanism, error) {
	if _, _, err := checkMatrix("mechanism", p); err != nil {
		return nil, err
	}
	for i, row := range p {
		sum := 0.0
		for j, v := range row {
			if v < 0 {
				return nil, errorf("mechanism", i, j, "is negative (%g)", v)
			}
			sum += v
		}
		if math.Abs(sum-1) > SumTol {
			return nil, errorf("mechanism", i, -1, "sums to %.17g, not 1 (tolerance %g)", sum, SumTol)
		}
	}
	return Mechanism(p), nil
}

// Zeros returns an N×M matrix of zeros backed by one allocation, or nil if
// n or m is negative or n·m overflows an int.
func Zeros(n, m int) Mechanism {
	if n < 0 || m < 0 || (m > 0 && n > math.MaxInt/m) {
		return nil
	}
	data := make([]float64, n*m)
	p := make(Mechanism, n)
	for i := range p {
		p[i] = data[i*m : (i+1)*m : (i+1)*m]
	}
	return p
}

// Dims returns the number of inputs N and outputs M.
func (p Mechanism) Dims() (n, m int) {
	if len(p) == 0 {
		return 0, 0
	}
	return len(p), len(p[0])
}

// Clone returns a deep copy of p, rows of any length included.
func (p Mechanism) Clone() Mechanism {
	if p == nil {
		return nil
	}
	total := 0
	for _, row := range p {
		total += len(row)
	}
	data := make([]float64, total)
	c := make(Mechanism, len(p))
	for i, row := range p {
		c[i] = data[:len(row):len(row)]
		copy(c[i], row)
		data = data[len(row):]
	}
	return c
}

// Marginal returns the output distribution q_j = Σ_i π_i p_ij, or nil if
// the shapes do not agree (CheckPrior).
func (p Mechanism) Marginal(pi Prior) []float64 {
	if p.CheckPrior(pi) != nil {
		return nil
	}
	_, m := p.Dims()
	q := make([]float64, m)
	for i, row := range p {
		for j, v := range row {
			q[j] += pi[i] * v
		}
	}
	return q
}

// ColumnMax returns the largest entry of each of the first row's columns,
// at least 0 (NaN where a column holds one); a row of another length is
// read up to the shorter of the two. It reads p row by row: on a large
// mechanism a pass down each column in turn touches a new cache line per
// entry.
func (p Mechanism) ColumnMax() []float64 {
	_, m := p.Dims()
	mx := make([]float64, m)
	for _, row := range p {
		for j, v := range row[:min(len(row), m)] {
			mx[j] = max(mx[j], v)
		}
	}
	return mx
}

// Posterior returns the N×M matrix P(x_i | y_j) = π_i p_ij / q_j. Columns of
// unused outputs (q_j = 0) are all zero. It is nil if the shapes do not
// agree (CheckPrior).
func (p Mechanism) Posterior(pi Prior) [][]float64 {
	if p.CheckPrior(pi) != nil {
		return nil
	}
	n, m := p.Dims()
	q := p.Marginal(pi)
	post := Zeros(n, m)
	for i, row := range p {
		for j, v := range row {
			if q[j] > 0 {
				post[i][j] = pi[i] * v / q[j]
			}
		}
	}
	return post
}

// InformationDensity returns the N×M matrix i(x_i; y_j) = log(p_ij / q_j).
// It is -Inf where p_ij = 0, which includes every entry of an unused output
// (q_j = 0); such outputs are outside the support S_Y and the measures ignore
// them. It is nil if the shapes do not agree (CheckPrior).
func (p Mechanism) InformationDensity(pi Prior) [][]float64 {
	if p.CheckPrior(pi) != nil {
		return nil
	}
	n, m := p.Dims()
	q := p.Marginal(pi)
	d := Zeros(n, m)
	for i, row := range p {
		for j, v := range row {
			if v == 0 || q[j] == 0 {
				d[i][j] = math.Inf(-1)
			} else {
				d[i][j] = mathx.LogRatio(v, q[j])
			}
		}
	}
	return d
}

// CheckPrior checks the shapes every computation with p and pi indexes by:
// pi has one entry per row of p, and p has rows, all of one positive
// width. It does not check the values (NewPrior, NewMechanism do).
func (p Mechanism) CheckPrior(pi Prior) error {
	n, m := p.Dims()
	switch {
	case n != len(pi):
		return errorf("mechanism", -1, -1, "has %d rows but the prior has %d letters", n, len(pi))
	case n == 0:
		return errorf("mechanism", -1, -1, "has no rows")
	case m == 0:
		return errorf("mechanism", 0, -1, "is empty")
	}
	for i, row := range p {
		if len(row) != m {
			return errorf("mechanism", i, -1, "has %d entries, row 1 has %d", len(row), m)
		}
	}
	return nil
}
