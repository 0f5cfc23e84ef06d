package sample

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// A draw reads its randomness from src; script hands out fixed words and
// counts them.
type script struct {
	words []uint64
	used  int
}

func (s *script) Uint64() uint64 {
	w := s.words[s.used]
	s.used++
	return w
}

// chi2 is Pearson's statistic of counts against the expected counts n·row,
// over the cells whose expectation is at least 5 (the rest are pooled into
// one cell when their total reaches 5), with its degrees of freedom.
func chi2(counts []int, row []float64, n float64) (stat float64, df int) {
	poolExp, poolObs := 0.0, 0.0
	cells := 0
	for j, p := range row {
		e := n * p
		if e < 5 {
			poolExp += e
			poolObs += float64(counts[j])
			continue
		}
		d := float64(counts[j]) - e
		stat += d * d / e
		cells++
	}
	if poolExp >= 5 {
		d := poolObs - poolExp
		stat += d * d / poolExp
		cells++
	}
	return stat, cells - 1
}

// One million draws per row fit the row by Pearson's χ² test at level
// 1e-3 (a fixed seed makes the test deterministic); zero entries are never
// drawn, and an entry of 1e-12 is not drawn either. The same counts fail
// the test against a row that moves 0.5 % of the mass, so the test can
// tell a wrong sampler.
func TestChiSquared(t *testing.T) {
	zipf := make([]float64, 50)
	for j := range zipf {
		zipf[j] = 1 / float64(j+1)
	}
	sum := floats.Sum(zipf)
	floats.Scale(1/sum, zipf)
	p := mech.Mechanism{
		{0.5, 0.25, 0.125, 0.125, 0},
		{1e-4, 0.3, 0, 0.6999, 0},
		{1e-12, 1 - 1e-12, 0, 0, 0},
		{1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7},
		zipf,
		{0.2, 0, 0.3, 0, 0.1, 0, 0.4, 0},
	}
	const draws = 1_000_000
	for i, row := range p {
		pi := make(mech.Mechanism, 1)
		pi[0] = row
		s, err := NewSeededSampler(pi, uint64(40+i))
		require.NoError(t, err)
		counts := make([]int, len(row))
		for range draws {
			counts[s.Sample(0)]++
		}
		for j, pj := range row {
			if pj == 0 || pj*draws < 1e-3 {
				assert.Zero(t, counts[j], "row %d output %d has probability %g", i, j, pj)
			}
		}
		stat, df := chi2(counts, row, draws)
		if df == 0 { // one output holds all but 1e-12 of the mass
			assert.Equal(t, draws, counts[floats.MaxIdx(row)], "row %d", i)
			continue
		}
		crit := distuv.ChiSquared{K: float64(df)}.Quantile(1 - 1e-3)
		assert.Less(t, stat, crit, "row %d: χ² = %g with %d degrees of freedom", i, stat, df)

		// Power: the counts are evidence against a slightly wrong row.
		wrong := append([]float64(nil), row...)
		big, next := floats.MaxIdx(wrong), -1
		for j := range wrong {
			if j != big && wrong[j]*draws >= 5 && (next < 0 || wrong[j] > wrong[next]) {
				next = j
			}
		}
		if next < 0 {
			continue
		}
		wrong[big] -= 0.005
		wrong[next] += 0.005
		stat, df = chi2(counts, wrong, draws)
		assert.Greater(t, stat, distuv.ChiSquared{K: float64(df)}.Quantile(1-1e-3), "row %d perturbed", i)
	}
}

// below(q) is true exactly when the uniform real 0.u1u2u3… whose 64-bit
// words the source hands out is below q: checked against q's words
// computed with math/big, on sources that repeat a random number of q's
// words before they differ, for q from 1e-323 to 1.
func TestBelowIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	two64 := new(big.Float).SetMantExp(big.NewFloat(1), 64)
	for trial := 0; trial < 20000; trial++ {
		q := math.Ldexp(float64(1+rng.Uint64N(1<<53-1)), -53-rng.IntN(1022))
		if trial%5 == 0 {
			q = math.Ldexp(float64(1+rng.Uint64N(1<<20)), -1074+rng.IntN(40)) // subnormal
		}
		// q's binary digits, 64 at a time, until they end.
		var digits []uint64
		rest := new(big.Float).SetPrec(2000).SetFloat64(q)
		for rest.Sign() > 0 {
			rest.Mul(rest, two64)
			w, _ := rest.Uint64()
			digits = append(digits, w)
			rest.Sub(rest, new(big.Float).SetUint64(w))
		}
		same := rng.IntN(len(digits) + 2)
		words := make([]uint64, 0, len(digits)+2)
		for k := 0; k < same && k < len(digits); k++ {
			words = append(words, digits[k])
		}
		for len(words) < len(digits)+2 {
			words = append(words, rng.Uint64()>>(rng.IntN(2)*63)) // often 0 or 1
		}
		// The reference: the first word that differs from q's digits
		// (zeros after they end) decides; none does while q has digits
		// left, and equal digits to the end mean U ≥ q.
		want := false
		for k := range words {
			d := uint64(0)
			if k < len(digits) {
				d = digits[k]
			}
			if words[k] != d {
				want = words[k] < d
				break
			}
			if k == len(digits)-1 {
				break
			}
		}
		src := &script{words: words}
		require.Equal(t, want, below(src, q), "q = %g, words %x, digits %x", q, words, digits)
		assert.LessOrEqual(t, src.used, len(digits), "q = %g", q)
	}
	// Zero is never above U, and q just below 1 loses only to U ≥ q.
	assert.False(t, below(&script{words: []uint64{0, 0}}, 0))
	assert.True(t, below(&script{words: []uint64{math.MaxUint64 - 1<<11}}, 1-0x1p-53))
	assert.False(t, below(&script{words: []uint64{math.MaxUint64 - 1<<11 + 1}}, 1-0x1p-53))
	assert.False(t, below(&script{words: []uint64{math.MaxUint64 - 1<<11 + 2}}, 1-0x1p-53))
}

// column maps a word w to ⌊wM/2^64⌋ and draws again when w falls in the
// 2^64 mod M words that would make some columns likelier than others.
func TestColumnRejects(t *testing.T) {
	s := &Sampler{m: 3}
	src := &script{words: []uint64{0, 1 << 63}} // 0·3 mod 2^64 = 0 < 2^64 mod 3 = 1
	s.src = src
	assert.Equal(t, 1, s.column())
	assert.Equal(t, 2, src.used)
	src = &script{words: []uint64{math.MaxUint64, 1}}
	s.src = src
	assert.Equal(t, 2, s.column())
	assert.Equal(t, 1, src.used)
	s.m = 8 // a power of two: no word is rejected
	src = &script{words: []uint64{0, 7 << 61}}
	s.src = src
	assert.Equal(t, 0, s.column())
	assert.Equal(t, 7, s.column())
	assert.Equal(t, 2, src.used)
}

// Two samplers made by NewSampler draw different streams, which differ
// from the seeded streams of seeds 0 and 1: no zero value means a fixed
// seed. Equal streams of 1 000 fair-coin draws would have probability
// 2^-1000.
func TestUnseededStreamsDiffer(t *testing.T) {
	p := mech.Mechanism{{0.5, 0.5}, {0.5, 0.5}}
	in := make([]int, 1000)
	for k := range in {
		in[k] = k % 2
	}
	draw := func(s *Sampler, err error) []int {
		require.NoError(t, err)
		out, err := s.SampleAll(in)
		require.NoError(t, err)
		return out
	}
	a := draw(NewSampler(p))
	b := draw(NewSampler(p))
	assert.NotEqual(t, a, b)
	for _, seed := range []uint64{0, 1} {
		assert.NotEqual(t, draw(NewSeededSampler(p, seed)), a, "seed %d", seed)
	}
	// Each stream is random on its own: about half the draws are 1.
	ones := 0
	for _, y := range a {
		ones += y
	}
	assert.InDelta(t, 500, ones, 100, "4σ = 63; 100 is 6σ")
}

// Alias tables of random rows, with entries from 1 down to 1e-300 and
// zeros, reproduce the row: output j's probability
// (prob_j + Σ_{k: alias_k = j} (1 − prob_k)) / M, computed in exact rational
// arithmetic, is row_j / Σ row within 4 units in the last place of the
// entry for entries below 1/M and within 8·2^-52 for the others; zeros
// get probability 0 exactly.
func TestAliasTablesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	one := big.NewRat(1, 1)
	for trial := 0; trial < 300; trial++ {
		m := 1 + rng.IntN(60)
		row := make([]float64, m)
		for j := range row {
			switch rng.IntN(4) {
			case 0:
			case 1:
				row[j] = math.Ldexp(rng.Float64(), -rng.IntN(1000))
			default:
				row[j] = rng.Float64()
			}
		}
		row[rng.IntN(m)] = 1
		sum := floats.Sum(row)
		floats.Scale(1/sum, row)
		prob, alias := newVose(m).table(row)
		mass := make([]*big.Rat, m)
		for j := range mass {
			mass[j] = new(big.Rat)
		}
		total := new(big.Rat)
		for k := range prob {
			require.True(t, prob[k] >= 0 && prob[k] <= 1, "row %v", row)
			q := new(big.Rat).SetFloat64(prob[k])
			mass[k].Add(mass[k], q)
			mass[alias[k]].Add(mass[alias[k]], new(big.Rat).Sub(one, q))
			total.Add(total, new(big.Rat).SetFloat64(row[k]))
		}
		for j, x := range row {
			got := new(big.Rat).Quo(mass[j], big.NewRat(int64(m), 1))
			want := new(big.Rat).Quo(new(big.Rat).SetFloat64(x), total)
			d, _ := new(big.Rat).Sub(got, want).Float64()
			switch {
			case x == 0:
				require.Zero(t, got.Sign(), "row %v output %d", row, j)
			case x < 1/float64(m):
				require.LessOrEqual(t, math.Abs(d), 4*0x1p-52*x, "row %v output %d", row, j)
			default:
				require.LessOrEqual(t, math.Abs(d), 8*0x1p-52, "row %v output %d", row, j)
			}
		}
	}
}

// Rows with a single 1: every slot points at that output.
func TestPointMassRows(t *testing.T) {
	p := mech.Mechanism{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}
	s, err := NewSeededSampler(p, 7)
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

	s, err = NewSeededSampler(mech.Mechanism{{1}}, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, s.Sample(0))
}

func TestReproducible(t *testing.T) {
	p := mech.Mechanism{{0.3, 0.7}, {0.6, 0.4}}
	in := make([]int, 1000)
	for k := range in {
		in[k] = k % 2
	}
	a, _ := NewSeededSampler(p, 99)
	b, _ := NewSeededSampler(p, 99)
	c, _ := NewSeededSampler(p, 100)
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
		_, err := NewSeededSampler(p, 1)
		require.Error(t, err, "%v", p)
	}
	s, err := NewSeededSampler(mech.Mechanism{{0.5, 0.5}, {0.2, 0.8}}, 1)
	require.NoError(t, err)
	n, m := s.Dims()
	assert.Equal(t, [2]int{2, 2}, [2]int{n, m})

	// A bad index is refused before anything is drawn.
	_, err = s.SampleAll([]int{0, 1, 2})
	require.ErrorContains(t, err, "input 2 at position 2 is outside 0..1")
	_, err = s.SampleAll([]int{-1})
	require.Error(t, err)
	fresh, _ := NewSeededSampler(mech.Mechanism{{0.5, 0.5}, {0.2, 0.8}}, 1)
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
		s, err := NewSeededSampler(mech.Mechanism{row}, 1)
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
