package colgen_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// lpPrice is the best α·v over the output's slice of a box, {0 ≤ v ≤ 1 on
// rows, 0 elsewhere, min_{π∈Π} π·v ≥ μ}, as a plain LP with the inner
// minimum dualised (−Inf where no column reaches μ): μ ≤ ν(1 − Σl) + Σ l_k v_k − Σ (u_k − l_k) b_k with b_k ≥
// ν − v_k, b ≥ 0 (ν free).
func lpPrice(t *testing.T, set *mech.PriorSet, alpha []float64, rows []int, mu float64) float64 {
	t.Helper()
	n := set.N()
	m := &lp.Model{Maximize: true}
	in := make([]bool, n)
	for _, k := range rows {
		in[k] = true
	}
	v, b := make([]int, n), make([]int, n)
	for k := range n {
		up := 0.0
		if in[k] {
			up = 1
		}
		v[k] = m.AddCol(alpha[k], 0, up, "")
		b[k] = m.AddCol(0, 0, lp.Inf, "")
	}
	nu := m.AddCol(0, -lp.Inf, lp.Inf, "")
	sl := 0.0
	for _, l := range set.Lower {
		sl += l
	}
	mass := []lp.Nonzero{lp.Entry(nu, 1-sl)}
	for k := range n {
		mass = append(mass, lp.Entry(v[k], set.Lower[k]), lp.Entry(b[k], -(set.Upper[k]-set.Lower[k])))
		m.AddRow(0, lp.Inf, "", lp.Entry(b[k], 1), lp.Entry(nu, -1), lp.Entry(v[k], 1)) // b_k − ν + v_k ≥ 0
	}
	m.AddRow(mu, lp.Inf, "", mass...)
	sol, err := solver.Gonum().Solve(m)
	if err == nil && sol.Status == solver.Infeasible {
		return math.Inf(-1) // no column reaches μ
	}
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("LP: %v %v", err, sol)
	}
	return sol.Objective
}

// priceCase draws a prior of 5 to 12 letters, an output's allowed
// inputs (letter 0 and about 70% of the others) and multipliers.
func priceCase(r *rand.Rand) (mech.Prior, []int, []float64) {
	n := 5 + r.IntN(8)
	pi := make(mech.Prior, n)
	for i := range pi {
		pi[i] = 0.05 + r.Float64()
	}
	mech.Normalise(pi)
	var rows []int
	for k := range n {
		if k == 0 || r.Float64() < 0.7 {
			rows = append(rows, k)
		}
	}
	alpha := make([]float64, n)
	for k := range alpha {
		alpha[k] = r.NormFloat64() * pi[k]
	}
	return pi, rows, alpha
}

// checkPriced checks a priced column: entries in [0, 1] on the allowed
// inputs only, least mass over the set at least μ, α·v its value.
func checkPriced(t *testing.T, trial int, set *mech.PriorSet, alpha []float64, rows []int, mu float64, v []float64, val float64) {
	t.Helper()
	dot := 0.0
	for k, x := range v {
		dot += alpha[k] * x
		if x < 0 || x > 1 || (x > 0 && !slices.Contains(rows, k)) {
			t.Fatalf("trial %d: entry %d is %g", trial, k, x)
		}
	}
	if mass := set.MinMass(v); mass < mu*(1-1e-9) {
		t.Fatalf("trial %d: least mass %g below μ = %g", trial, mass, mu)
	}
	if math.Abs(dot-val) > 1e-9 {
		t.Fatalf("trial %d: α·v %.12g, value %.12g", trial, dot, val)
	}
}

// PriceColumn's column keeps the set's constraint, is worth what it says,
// and its value is the LP's optimum over the slice; where the LP's optimum
// is at most 0 it prices nothing in.
func TestPriceColumnIsTheBestColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	priced, none := 0, 0
	for trial := range 60 {
		pi, rows, alpha := priceCase(r)
		set := boxAround(pi, 0.5+0.4*r.Float64(), 1.1+r.Float64())
		mu := 0.02 + 0.3*r.Float64()
		want := lpPrice(t, set, alpha, rows, mu)
		v, val, ok := colgen.PriceColumn(set, alpha, rows, mu)
		if !ok {
			none++
			if want > 1e-7 {
				t.Fatalf("trial %d: nothing priced in, the LP's optimum is %g", trial, want)
			}
			continue
		}
		priced++
		checkPriced(t, trial, set, alpha, rows, mu, v, val)
		if math.Abs(val-want) > 1e-7*max(1, want) {
			t.Fatalf("trial %d: value %.12g, the LP's optimum %.12g", trial, val, want)
		}
	}
	if priced < 10 || none < 5 {
		t.Fatalf("priced %d, none %d: the trials do not cover both", priced, none)
	}
}

// Over an L1 ball PriceColumn's column keeps the set's constraint, is
// worth what it says, and is worth at least any of a sample of columns
// that keep the constraint (random vectors on the rows, scaled to reach
// μ, where they stay within 1).
func TestPriceColumnOverABall(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 13))
	priced, compared := 0, 0
	for trial := range 60 {
		pi, rows, alpha := priceCase(r)
		set, err := mech.NewL1Set(pi, 0.4*r.Float64())
		if err != nil {
			t.Fatal(err)
		}
		mu := 0.02 + 0.2*r.Float64()
		v, val, ok := colgen.PriceColumn(set, alpha, rows, mu)
		if ok {
			priced++
			checkPriced(t, trial, set, alpha, rows, mu, v, val)
		}
		for range 200 {
			w := make([]float64, len(pi))
			for _, k := range rows {
				w[k] = r.Float64()
			}
			mass := set.MinMass(w)
			if !(mass > 0) {
				continue
			}
			top := 0.0
			for k := range w {
				w[k] *= mu / mass
				top = max(top, w[k])
			}
			if top > 1 {
				continue
			}
			dot := 0.0
			for k, x := range w {
				dot += alpha[k] * x
			}
			compared++
			if best := max(val, 0); dot > best+1e-7 {
				t.Fatalf("trial %d: a sampled column is worth %.12g, PriceColumn's %.12g (priced %v)", trial, dot, val, ok)
			}
		}
	}
	if priced < 10 || compared < 1000 {
		t.Fatalf("priced %d, compared %d: the trials cover too little", priced, compared)
	}
}
