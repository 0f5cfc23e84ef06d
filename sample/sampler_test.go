package sample

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// The empirical frequencies of 200 000 draws per row lie within 4σ of the
// row, σ = sqrt(n p (1−p)); with a fixed seed the test is deterministic.
func TestFrequencies(t *testing.T) {
	p := mech.Mechanism{
		{0.5, 0.25, 0.125, 0.125, 0},
		{0.01, 0.02, 0.03, 0.04, 0.9},
		{0.2, 0.2, 0.2, 0.2, 0.2},
		{0, 0, 1, 0, 0},
		{1.0 / 3, 0, 1.0 / 3, 0, 1.0 / 3},
	}
	s, err := NewSampler(p, 42)
	require.NoError(t, err)
	const draws = 200000
	for i, row := range p {
		count := make([]int, len(row))
		for range draws {
			count[s.Sample(i)]++
		}
		for j, pj := range row {
			if pj == 0 {
				assert.Zero(t, count[j], "row %d output %d has probability 0", i, j)
				continue
			}
			sigma := math.Sqrt(draws * pj * (1 - pj))
			assert.InDelta(t, draws*pj, float64(count[j]), 4*sigma+1e-9, "row %d output %d", i, j)
		}
	}
}

// Alias tables of random rows reproduce the row exactly: the probability
// of output j is (prob_j + Σ_{k: alias_k = j} (1 − prob_k)) / M.
func TestAliasTablesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		m := 1 + rng.IntN(9)
		row := make([]float64, m)
		sum := 0.0
		for j := range row {
			if rng.IntN(3) > 0 {
				row[j] = rng.Float64()
				sum += row[j]
			}
		}
		if sum == 0 {
			row[rng.IntN(m)], sum = 1, 1
		}
		for j := range row {
			row[j] /= sum
		}
		prob, alias := newVose(m).table(row)
		got := make([]float64, m)
		for k := range prob {
			got[k] += prob[k] / float64(m)
			got[alias[k]] += (1 - prob[k]) / float64(m)
		}
		require.InDeltaSlice(t, row, got, 1e-12, "row %v", row)
		for k := range prob {
			if row[k] == 0 {
				require.Zero(t, prob[k], "row %v", row)
			}
			if prob[k] < 1 {
				require.Positive(t, row[alias[k]], "row %v", row)
			}
		}
	}
}

// Rows with a single 1: every slot points at that output.
func TestPointMassRows(t *testing.T) {
	p := mech.Mechanism{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}
	s, err := NewSampler(p, 7)
	require.NoError(t, err)
	out, err := s.SampleAll([]int{0, 1, 2, 2, 1, 0, 0, 0})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 0, 1, 1, 0, 2, 2, 2}, out)
	for i := range p {
		prob, alias := newVose(3).table(p[i])
		for k := range prob {
			j := k
			if prob[k] < 1 {
				j = int(alias[k])
			}
			assert.Equal(t, 1.0, p[i][j])
		}
	}

	s, err = NewSampler(mech.Mechanism{{1}}, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, s.Sample(0))
}

func TestReproducible(t *testing.T) {
	p := mech.Mechanism{{0.3, 0.7}, {0.6, 0.4}}
	in := make([]int, 1000)
	for k := range in {
		in[k] = k % 2
	}
	a, _ := NewSampler(p, 99)
	b, _ := NewSampler(p, 99)
	c, _ := NewSampler(p, 100)
	oa, err := a.SampleAll(in)
	require.NoError(t, err)
	ob, err := b.SampleAll(in)
	require.NoError(t, err)
	oc, err := c.SampleAll(in)
	require.NoError(t, err)
	assert.Equal(t, oa, ob)
	assert.NotEqual(t, oa, oc)
}

func TestSamplerErrors(t *testing.T) {
	for _, p := range []mech.Mechanism{
		nil,
		{{0.5, 0.6}},
		{{-0.1, 1.1}},
		{{0.5, 0.5}, {1}},
		{{math.NaN(), 1}},
	} {
		_, err := NewSampler(p, 1)
		require.Error(t, err, "%v", p)
	}
	s, err := NewSampler(mech.Mechanism{{0.5, 0.5}, {0.2, 0.8}}, 1)
	require.NoError(t, err)
	n, m := s.Dims()
	assert.Equal(t, [2]int{2, 2}, [2]int{n, m})

	// A bad index is refused before anything is drawn.
	_, err = s.SampleAll([]int{0, 1, 2})
	require.ErrorContains(t, err, "input 2 at position 2 is outside 0..1")
	_, err = s.SampleAll([]int{-1})
	require.Error(t, err)
	fresh, _ := NewSampler(mech.Mechanism{{0.5, 0.5}, {0.2, 0.8}}, 1)
	want, _ := fresh.SampleAll([]int{0, 1, 0, 1, 0, 1})
	got, _ := s.SampleAll([]int{0, 1, 0, 1, 0, 1})
	assert.Equal(t, want, got)
}

// One draw costs O(1) whatever M: compare M = 10 and M = 10 000.
func BenchmarkSample(b *testing.B) {
	for _, m := range []int{10, 10000} {
		row := make([]float64, m)
		for j := range row {
			row[j] = float64(j+1) * 2 / float64(m*(m+1))
		}
		s, err := NewSampler(mech.Mechanism{row}, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(map[int]string{10: "M=10", 10000: "M=10000"}[m], func(b *testing.B) {
			for b.Loop() {
				s.Sample(0)
			}
		})
	}
}
