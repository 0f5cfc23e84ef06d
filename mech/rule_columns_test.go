package mech

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRuleColumnsAndSummaries: a rule's columns, largest magnitude and
// worst-case order are those of its dense matrix (MaxAbs visiting only
// grid corners, WorstCaseOrder without sorting a row), for grids with
// other output grids, caps, transforms and scales, and for points.
func TestRuleColumnsAndSummaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	grid := func(w, h int, c float64) *Grid { return &Grid{Width: w, Height: h, Cell: c} }
	rules := []*UtilityRule{
		{Metric: Euclidean, Inputs: Sites{Grid: grid(5, 4, 1)}},
		{Metric: Manhattan, Inputs: Sites{Grid: grid(3, 6, 0.5)}, Outputs: &Sites{Grid: grid(2, 2, 3)}, Transform: Square, Scale: 2},
		{Metric: Chebyshev, Inputs: Sites{Grid: grid(7, 1, 1)}, Outputs: &Sites{Grid: grid(1, 5, 2)}, Cap: 2.5},
		{Metric: Euclidean, Inputs: Sites{Grid: grid(1, 1, 1)}},
		{Metric: Haversine, Inputs: Sites{Points: [][2]float64{{59.3, 18.1}, {48.9, 2.35}, {-33.9, 151.2}}}},
		{Metric: Euclidean, Inputs: Sites{Points: [][2]float64{{0, 0}, {3, 4}, {-1, 2}, {3, 4.5}}}, Outputs: &Sites{Grid: grid(3, 3, 1)}},
	}
	for k, r := range rules {
		u := r.Dense()
		n, m := r.Dims()
		assert.Equal(t, [2]int{len(u), len(u[0])}, [2]int{n, m}, k)
		col, dcol := make([]float64, n), make([]float64, n)
		mx := 0.0
		for j := range m {
			r.Column(j, col)
			u.Column(j, dcol)
			assert.Equal(t, dcol, col, "rule %d column %d", k, j)
			for i := range n {
				mx = math.Max(mx, math.Abs(u[i][j]))
			}
		}
		assert.Equal(t, mx, r.MaxAbs(), k)
		o := u.Order()
		for range 20 {
			p := Zeros(n, m)
			for i := range p {
				// One to three outputs a row, at random.
				for range 1 + rng.IntN(3) {
					p[i][rng.IntN(m)] = 1
				}
				Normalise(p[i])
			}
			if rng.IntN(4) == 0 {
				p[rng.IntN(n)] = make([]float64, m) // a row left unused
			}
			assert.Equal(t, o.WorstCaseOrder(p), r.WorstCaseOrder(p), k)
		}
	}
}

// TestMaxAbsWithin: whether the largest |u| of a rule over points is 0 or
// lies in [lo, hi], as the dense matrix says, for windows far from it
// (answered by the triangle inequality's bounds alone) and next to it
// (where every pair is visited), over every metric, caps, transforms and
// scales, and for points that all coincide.
func TestMaxAbsWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	factors := []float64{1e-6, 0.3, 1 - 1e-9, 1, 1 + 1e-9, 3.5, 1e6}
	points := func(k int, spread float64) [][2]float64 {
		ps := make([][2]float64, k)
		for i := range ps {
			ps[i] = [2]float64{spread * (rng.Float64() - 0.5), spread * (rng.Float64() - 0.5)}
		}
		return ps
	}
	checked := 0
	for trial := range 60 {
		r := &UtilityRule{Metric: []Metric{Euclidean, Manhattan, Chebyshev, Haversine}[trial%4], Inputs: Sites{Points: points(2+rng.IntN(6), 50)}}
		if trial%3 == 0 {
			r.Outputs = &Sites{Points: points(1+rng.IntN(6), 50)}
		}
		if trial%5 == 0 {
			r.Cap = 5 + 20*rng.Float64()
		}
		if trial%2 == 0 {
			r.Transform = Square
		}
		if trial%7 == 0 {
			r.Scale = math.Ldexp(1, rng.IntN(60)-30)
		}
		u := r.Dense()
		mx := 0.0
		for _, row := range u {
			for _, v := range row {
				mx = math.Max(mx, math.Abs(v))
			}
		}
		for _, a := range factors {
			for _, b := range factors {
				lo, hi := a*mx, b*mx
				assert.Equal(t, mx == 0 || (mx >= lo && mx <= hi), r.MaxAbsWithin(lo, hi), "trial %d, [%g, %g], max %g", trial, lo, hi, mx)
				checked++
			}
		}
	}
	same := &UtilityRule{Metric: Euclidean, Inputs: Sites{Points: [][2]float64{{1, 2}, {1, 2}}}}
	assert.True(t, same.MaxAbsWithin(1, 2))
	assert.Equal(t, 60*49, checked)
}
