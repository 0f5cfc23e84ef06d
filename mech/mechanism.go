package mech

import "math"

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

// Zeros returns an N×M matrix of zeros backed by one allocation.
func Zeros(n, m int) Mechanism {
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

// Clone returns a deep copy of p.
func (p Mechanism) Clone() Mechanism {
	n, m := p.Dims()
	c := Zeros(n, m)
	for i := range p {
		copy(c[i], p[i])
	}
	return c
}

// Marginal returns the output distribution q_j = Σ_i π_i p_ij.
func (p Mechanism) Marginal(pi Prior) []float64 {
	_, m := p.Dims()
	q := make([]float64, m)
	for i, row := range p {
		for j, v := range row {
			q[j] += pi[i] * v
		}
	}
	return q
}

// Posterior returns the N×M matrix P(x_i | y_j) = π_i p_ij / q_j. Columns of
// unused outputs (q_j = 0) are all zero.
func (p Mechanism) Posterior(pi Prior) [][]float64 {
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
// them.
func (p Mechanism) InformationDensity(pi Prior) [][]float64 {
	n, m := p.Dims()
	q := p.Marginal(pi)
	d := Zeros(n, m)
	for i, row := range p {
		for j, v := range row {
			if v == 0 || q[j] == 0 {
				d[i][j] = math.Inf(-1)
			} else {
				d[i][j] = math.Log(v / q[j])
			}
		}
	}
	return d
}

// CheckPrior reports whether pi has one entry per row of p.
func (p Mechanism) CheckPrior(pi Prior) error {
	if n, _ := p.Dims(); n != len(pi) {
		return errorf("mechanism", -1, -1, "has %d rows but the prior has %d letters", n, len(pi))
	}
	return nil
}
