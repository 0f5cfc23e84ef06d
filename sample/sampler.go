package sample

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/pmlopt/pmlopt/mech"
)

// pcgStream is the second PCG word; the caller's seed is the first.
const pcgStream = 0x9e3779b97f4a7c15

// Sampler draws outputs y ~ P(·|x_i) of a mechanism. It is not safe for
// concurrent use: draws advance one shared generator.
type Sampler struct {
	m     int
	prob  [][]float64 // prob[i][k]: keep column k of row i with this probability
	alias [][]int32   // alias[i][k]: the column drawn otherwise
	rng   *rand.Rand
}

// NewSampler validates p (see mech.NewMechanism) and builds one alias table
// per row, in O(NM) time. Outputs with probability zero are never drawn.
func NewSampler(p mech.Mechanism, seed uint64) (*Sampler, error) {
	if _, err := mech.NewMechanism(p); err != nil {
		return nil, err
	}
	n, m := p.Dims()
	s := &Sampler{
		m:     m,
		prob:  make([][]float64, n),
		alias: make([][]int32, n),
		rng:   rand.New(rand.NewPCG(seed, pcgStream)),
	}
	work := newVose(m)
	for i, row := range p {
		s.prob[i], s.alias[i] = work.table(row)
	}
	return s, nil
}

// Dims returns the number of inputs N and outputs M of the mechanism.
func (s *Sampler) Dims() (n, m int) { return len(s.prob), s.m }

// Sample draws an output index for input index i. Like slice indexing, it
// panics if i is outside 0..N−1; SampleAll validates its inputs instead.
func (s *Sampler) Sample(i int) int {
	k := s.rng.IntN(s.m)
	if s.rng.Float64() < s.prob[i][k] {
		return k
	}
	return int(s.alias[i][k])
}

// SampleAll draws one output for every input index, in order. If any index
// is outside 0..N−1 it returns an error naming its position and draws
// nothing, so the generator's state is unchanged.
func (s *Sampler) SampleAll(inputs []int) ([]int, error) {
	if s == nil || s.rng == nil {
		return nil, errors.New("sample: SampleAll needs a Sampler made by NewSampler")
	}
	n := len(s.prob)
	for k, i := range inputs {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("sample: input %d at position %d is outside 0..%d", i, k, n-1)
		}
	}
	out := make([]int, len(inputs))
	for k, i := range inputs {
		out[k] = s.Sample(i)
	}
	return out, nil
}

// vose holds the work lists of Vose's alias method, reused across rows.
type vose struct {
	scaled       []float64
	small, large []int32
}

func newVose(m int) *vose {
	return &vose{scaled: make([]float64, m), small: make([]int32, 0, m), large: make([]int32, 0, m)}
}

// table builds the alias table of one distribution (non-negative, summing to
// 1 within mech.SumTol). Zero entries are paired first, while columns with
// mass above the average certainly remain, so they end with keep
// probability 0 and a positive alias; leftovers from rounding keep their
// own column only if it has positive mass.
func (v *vose) table(row []float64) ([]float64, []int32) {
	m := len(row)
	prob := make([]float64, m)
	alias := make([]int32, m)
	sum := 0.0
	best := 0
	for k, x := range row {
		sum += x
		if x > row[best] {
			best = k
		}
	}
	v.small, v.large = v.small[:0], v.large[:0]
	var zeros []int32
	for k, x := range row {
		v.scaled[k] = x * float64(m) / sum
		switch {
		case x == 0:
			zeros = append(zeros, int32(k))
		case v.scaled[k] < 1:
			v.small = append(v.small, int32(k))
		default:
			v.large = append(v.large, int32(k))
		}
	}
	// Zeros go last on the stack of small columns, so they are popped first.
	v.small = append(v.small, zeros...)
	for len(v.small) > 0 && len(v.large) > 0 {
		l := v.small[len(v.small)-1]
		v.small = v.small[:len(v.small)-1]
		g := v.large[len(v.large)-1]
		prob[l], alias[l] = v.scaled[l], g
		v.scaled[g] -= 1 - v.scaled[l]
		if v.scaled[g] < 1 {
			v.large = v.large[:len(v.large)-1]
			v.small = append(v.small, g)
		}
	}
	// What is left has scaled mass 1 up to rounding.
	for _, lists := range [][]int32{v.large, v.small} {
		for _, k := range lists {
			if row[k] > 0 {
				prob[k], alias[k] = 1, k
			} else {
				prob[k], alias[k] = 0, int32(best)
			}
		}
	}
	return prob, alias
}
