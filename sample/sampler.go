package sample

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/pmlopt/pmlopt/mech"
)

// Sampler draws outputs y ~ P(·|x_i) of a mechanism. It is not safe for
// concurrent use: draws advance one shared generator.
type Sampler struct {
	m     int
	prob  [][]float64 // prob[i][k]: keep column k of row i with this probability
	alias [][]int32   // alias[i][k]: the column drawn otherwise
	src   rand.Source
}

// NewSampler validates p (see mech.NewMechanism) and builds one alias table
// per row, in O(NM) time. Outputs with probability zero are never drawn.
//
// Its draws come from a ChaCha8 stream keyed with 32 bytes of the operating
// system's cryptographic random source, so no one can replay them: two
// samplers never share a stream, and the outputs of a release say nothing
// about the outputs the same data would have had in another run. Use it for
// every release of real data.
func NewSampler(p mech.Mechanism) (*Sampler, error) {
	var key [32]byte
	// crypto/rand.Read does not return short reads: where the system's
	// source fails it ends the program rather than return weak bytes.
	if _, err := crand.Read(key[:]); err != nil {
		return nil, fmt.Errorf("sample: reading the system's random source: %w", err)
	}
	return newSampler(p, rand.NewChaCha8(key))
}

// NewSeededSampler is NewSampler with a ChaCha8 stream keyed by seed alone:
// the same seed draws the same outputs on every platform. Anyone who knows
// the seed can replay the draws, and so undo the mechanism (rerun it on
// copies of the data with every secret, and see which copy gives the
// release): it is for tests and simulations, never for releases of real
// data.
func NewSeededSampler(p mech.Mechanism, seed uint64) (*Sampler, error) {
	return newSampler(p, rand.NewChaCha8(seedKey(seed)))
}

// seedKey spreads a 64-bit seed into a ChaCha8 key; the first 24 bytes
// name this use, so that the key of seed s is no key another program is
// likely to derive from s.
func seedKey(seed uint64) [32]byte {
	var key [32]byte
	copy(key[:], "pmlopt sample, seeded: ")
	binary.LittleEndian.PutUint64(key[24:], seed)
	return key
}

func newSampler(p mech.Mechanism, src rand.Source) (*Sampler, error) {
	if _, err := mech.NewMechanism(p); err != nil {
		return nil, err
	}
	n, m := p.Dims()
	s := &Sampler{
		m:     m,
		prob:  make([][]float64, n),
		alias: make([][]int32, n),
		src:   src,
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
//
// A draw picks a column k uniformly (an unbiased bounded integer, by
// rejection) and keeps it with probability prob[i][k] exactly: the
// comparison of a uniform real with prob[i][k] reads as many 64-bit words
// of the real as it needs to decide (almost always one), so that even an
// entry of 1e−300 is drawn with its own probability, not with a multiple
// of 2^−53.
func (s *Sampler) Sample(i int) int {
	k := s.column()
	switch q := s.prob[i][k]; {
	case q >= 1:
		return k
	case q <= 0:
		return int(s.alias[i][k])
	case below(s.src, q):
		return k
	}
	return int(s.alias[i][k])
}

// column returns a uniform integer in 0..M−1: Lemire's multiply-shift,
// with the rejection that makes it exactly uniform.
func (s *Sampler) column() int {
	m := uint64(s.m)
	hi, lo := bits.Mul64(s.src.Uint64(), m)
	if lo < m {
		for thresh := -m % m; lo < thresh; {
			hi, lo = bits.Mul64(s.src.Uint64(), m)
		}
	}
	return int(hi)
}

// below reports whether U < q for a uniform real U in [0, 1) whose binary
// digits are read from src 64 at a time, for q in (0, 1): it is true with
// probability q exactly. Each word either differs from q's next 64 digits,
// which decides, or equals them, and the comparison moves on to the rest of
// q (exact: scaling by 2^64 and taking a fractional part lose no bits).
// q's digits end after at most 1 074 + 53 places, where a U equal so far
// is not below q.
func below(src rand.Source, q float64) bool {
	for q > 0 {
		x := q * 0x1p64 // q < 1, so x < 2^64
		w := uint64(x)  // q's next 64 binary digits
		if u := src.Uint64(); u != w {
			return u < w
		}
		q = x - float64(w)
	}
	return false
}

// SampleAll draws one output for every input index, in order. If any index
// is outside 0..N−1 it returns an error naming its position and draws
// nothing, so the generator's state is unchanged.
func (s *Sampler) SampleAll(inputs []int) ([]int, error) {
	if s == nil || s.src == nil {
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
// 1 within mech.SumTol): output j is drawn with probability
// (prob_j + Σ_{k: alias_k = j} (1 − prob_k)) / M, which is row_j / Σ row up
// to the rounding of the construction. An entry below 1/M keeps a slot of
// its own and is never an alias, so its probability is prob_j / M with
// prob_j = row_j·M/Σ row rounded a few times: relative error of a few
// units in the last place, however small the entry. A larger entry's
// probability is off by a few units of 2^−52 at most.
//
// Zero entries are paired first, while columns with mass above the average
// certainly remain, so they end with keep probability 0 and a positive
// alias; leftovers from rounding keep their own column only if it has
// positive mass.
func (v *vose) table(row []float64) ([]float64, []int32) {
	m := len(row)
	prob := make([]float64, m)
	alias := make([]int32, m)
	// Neumaier's compensated sum: the total is then correct to about one
	// unit in the last place whatever M, and so is every entry's share.
	sum, carry := 0.0, 0.0
	best := 0
	for k, x := range row {
		t := sum + x
		if math.Abs(sum) >= x {
			carry += (sum - t) + x
		} else {
			carry += (x - t) + sum
		}
		sum = t
		if x > row[best] {
			best = k
		}
	}
	sum += carry
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
		// Rounding may take a column's remainder a hair below 0; it
		// keeps nothing of its own slot then.
		v.scaled[g] = max(0, v.scaled[g]-(1-v.scaled[l]))
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
