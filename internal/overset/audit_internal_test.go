package overset

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// pmlAt is the PML of p at the prior pi, pair by pair from its definition
// (log p_ij / Σ_k π_k p_kj over the positive entries).
func pmlAt(pi []float64, p mech.Mechanism) float64 {
	worst := 0.0
	for j := range p[0] {
		mass := 0.0
		for k := range p {
			mass += pi[k] * p[k][j]
		}
		for i := range p {
			if p[i][j] > 0 {
				worst = math.Max(worst, math.Log(p[i][j]/mass))
			}
		}
	}
	return worst
}

func auditSet(r *rand.Rand, pi mech.Prior, box bool) *mech.PriorSet {
	n := len(pi)
	if box {
		lo, up := make([]float64, n), make([]float64, n)
		for k := range n {
			lo[k], up[k] = pi[k]*(0.3+0.6*r.Float64()), math.Min(1, pi[k]*(1.1+r.Float64()))
		}
		s, _ := mech.NewBoxSet(pi, lo, up)
		return s
	}
	least := 1.0
	for _, v := range pi {
		least = math.Min(least, v)
	}
	s, _ := mech.NewL1Set(pi, 2*least*r.Float64())
	return s
}

// The audit over a set that the robust route trusts (leakage.PMLOver,
// withinOver, and the levels colgen's robust master reports) is the
// largest PML over the set's vertices, counted here from PML's
// definition: on random mechanisms, boxes and balls it agrees with that
// maximum, and a budget that the estimate keeps but one vertex breaks is
// reported as broken. An audit at the estimate alone, or at too few
// priors of the set, fails this test.
func TestRobustAuditAgreesWithSetVertices(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 41))
	broken := 0
	for trial := range 300 {
		n, m := 3+r.IntN(4), 2+r.IntN(4)
		pi := make(mech.Prior, n)
		for i := range pi {
			pi[i] = 0.1 + r.Float64()
		}
		mech.Normalise(pi)
		set := auditSet(r, pi, trial%2 == 0)
		p := make(mech.Mechanism, n)
		for i := range p {
			p[i] = make([]float64, m)
			s := 0.0
			for j := range p[i] {
				if r.IntN(4) > 0 || j == i%m {
					p[i][j] = 0.05 + r.Float64()
					s += p[i][j]
				}
			}
			for j := range p[i] {
				p[i][j] /= s
			}
		}
		want := randinst.PMLOverVertices(set, p)
		got := leakage.PMLOver(set, p)
		if math.Abs(got-want) > 1e-12*(1+want) {
			t.Fatalf("trial %d (box %v): PML over the set %.15g, over its vertices %.15g", trial, set.IsBox(), got, want)
		}
		at := pmlAt(pi, p)
		if want-at < 1e-6 {
			continue // no vertex leaks much more than the estimate
		}
		mid := mech.Budget{Measure: mech.PML, Epsilon: (at + want) / 2}
		if withinOver(set, p, mid) {
			t.Fatalf("trial %d: PML %.9g at the estimate, %.9g at a vertex: the audit over the set passes ε = %.9g", trial, at, want, mid.Epsilon)
		}
		if l, _ := levelOver(set, p, mid); l <= mid.Epsilon {
			t.Fatalf("trial %d: level over the set %.9g within ε = %.9g that a vertex breaks", trial, l, mid.Epsilon)
		}
		if !withinOver(set, p, mech.Budget{Measure: mech.PML, Epsilon: want}) {
			t.Fatalf("trial %d: the audit over the set fails ε = %.12g, the vertices' largest PML", trial, want)
		}
		broken++
	}
	if broken < 100 {
		t.Fatalf("only %d of 300 trials had a vertex breaking the estimate's budget", broken)
	}
}

// What the robust route's probes and searches by column generation
// return, audited here over every vertex of the set: a probe's mechanism
// keeps the probed ε at every vertex, a search's upper end is the largest
// PML over the vertices of its mechanism, and its lower end is not above
// it.
func TestRobustProbesKeepBudgetAtEveryVertex(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(37, 43))
	checked := 0
	for trial := range 24 {
		n := 3 + r.IntN(4)
		pi, u := randinst.Estimate(r, n, n, 0.1, r.Float64)
		set := auditSet(r, pi, trial%2 == 0)
		p := &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), PriorSet: set}
		pat := u.Order().Pattern(2 + r.IntN(n-1))
		res, ok, err := leastByColumns(ctx, p, pat, Options{})
		if err != nil || !ok {
			continue
		}
		if !pat.Holds(res.Mechanism) {
			t.Fatalf("trial %d: the search's mechanism breaks the pattern", trial)
		}
		over := randinst.PMLOverVertices(set, res.Mechanism)
		if math.Abs(over-res.Upper) > 1e-12*(1+over) {
			t.Fatalf("trial %d (box %v): upper end %.15g, the mechanism's PML over the vertices %.15g", trial, set.IsBox(), res.Upper, over)
		}
		if res.Lower > over+certify.AuditTol {
			t.Fatalf("trial %d: lower end %.15g above the mechanism's PML over the vertices %.15g", trial, res.Lower, over)
		}
		for _, e := range []float64{res.Upper + 0.05, res.Upper + 1e-3, (res.Lower + res.Upper) / 2, res.Lower - 0.05} {
			if e < 0 {
				continue
			}
			q, _, ok := probeByColumns(ctx, p, pat, e, nil)
			if !ok || q == nil {
				continue
			}
			if !pat.Holds(q) {
				t.Fatalf("trial %d: the probe's mechanism at ε = %.9g breaks the pattern", trial, e)
			}
			if worst := randinst.PMLOverVertices(set, q); worst > e+certify.AuditTol {
				t.Fatalf("trial %d (box %v): the probe at ε = %.12g returned a mechanism with PML %.12g at a vertex", trial, set.IsBox(), e, worst)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d probes returned a mechanism", checked)
	}
}
