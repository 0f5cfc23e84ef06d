package ipm

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// ProbeResult is what Probe learnt about one budget and pattern.
type ProbeResult struct {
	// Evidence holds the best mechanism with the pattern an iterate gave
	// (nil if none) and the best multipliers' proof.
	certify.Evidence
	// Iterations is the number of interior-point iterations.
	Iterations int
}

// Probe asks whether an eps-PML mechanism with the zero pattern pat exists,
// and returns the evidence either way: an audited mechanism with the
// pattern, or multipliers α for certify.DualBound (bisect's search takes
// both).
//
// It runs Solve's iterations on the expected-utility problem over every
// pair with a negative utility on the pairs pat forbids (penalty) and 0
// on the others, at budget eps: its optimum is 0 exactly when such a
// mechanism exists, the problem is always feasible (every pair is a
// variable), and the row
// multipliers of an optimum below 0 are a proof for DualBound (the pairs
// pat allows carry no utility, so each output's column condition is
// DualBound's). It stops as soon as either side settles the question (a
// mechanism of PML at most eps, or a proof of at least eps), and otherwise
// when the iterations stop improving; the caller then settles it with an
// LP. Both the mechanism and the bound are checked on their own, so
// nothing rests on the iterations' tolerances.
func Probe(pi mech.Prior, pat mech.Pattern, eps float64) (*ProbeResult, error) {
	return ProbeWorkers(pi, pat, eps, 1)
}

// ProbeWorkers is Probe with the rank-2 updates of each iteration's Newton
// system, O(N²M) and most of an iteration's work, spread over up to
// workers goroutines; the result is the same for any workers.
func ProbeWorkers(pi mech.Prior, pat mech.Pattern, eps float64, workers int) (*ProbeResult, error) {
	return probe(pi, pat, eps, workers, 0)
}

// probe is ProbeWorkers with split's threshold minWork (0: parallelWork),
// which tests lower.
func probe(pi mech.Prior, pat mech.Pattern, eps float64, workers, minWork int) (*ProbeResult, error) {
	if _, err := mech.NewPrior(pi); err != nil {
		return nil, err
	}
	if err := pat.Check(len(pi)); err != nil {
		return nil, err
	}
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps < 0 {
		return nil, fmt.Errorf("ipm: budget %g is not a finite number ≥ 0", eps)
	}
	np := normalised(pi)
	p := Problem{Prior: np, Utility: penalty(np, pat), Epsilon: eps}
	w := newWorkspace(p.Prior, p.Utility, allPairs(p.Utility.Dims()), pmlForm(eps))
	w.workers, w.minWork = workers, minWork
	res := &ProbeResult{Evidence: certify.Evidence{PML: math.Inf(1)}}
	w.iterate(context.Background(), 200, 1e-4, func(it int) (improved, done bool) {
		res.Iterations = it
		improved = res.observe(w, pi, pat, eps)
		return improved, res.Lower >= eps || (res.Mechanism != nil && res.PML <= eps)
	})
	return res, nil
}

// penalty is Probe's utility: −1/π_i on the pairs pat forbids (−1 where
// 1/π_i is not finite), 0 on the others, so that the objective
// Σ π_i u_ij p_ij counts every letter's forbidden mass alike. Whether a
// mechanism exists can hinge on letters of mass 1e-100 (a binomial prior
// on a few hundred letters); weighted by π_i, their forbidden mass sits
// below the rounding of the objective and the iterations stop far from
// either answer. Letters below about 5.6e-309, whose 1/π_i overflows,
// keep the weight π_i.
func penalty(pi mech.Prior, pat mech.Pattern) mech.Utility {
	u := make(mech.Utility, len(pi))
	for i, row := range pat {
		u[i] = make([]float64, len(row))
		w := -1.0
		if pi[i] > 0 && !math.IsInf(1/pi[i], 0) {
			w = -1 / pi[i]
		}
		for j, a := range row {
			if !a {
				u[i][j] = w
			}
		}
	}
	return u
}

// observe reads a mechanism with the pattern and a proof off the current
// point, keeps whichever improves on res, and reports whether one did.
func (res *ProbeResult) observe(w *workspace, pi mech.Prior, pat mech.Pattern, eps float64) bool {
	better := false
	// Below the least ε the forbidden pairs carry real mass: the rows are
	// renormalised before DropNoise judges the outputs by their ratios.
	p := w.point(pat)
	clean.ClearTiny(p, certify.InteriorEntryNoise)
	ok := true
	for _, row := range p {
		ok = ok && mech.Normalise(row) > 0
	}
	if ok && clean.DropNoise(pi, p, mech.Budget{Measure: mech.PML, Epsilon: eps}, certify.InteriorColumnNoise) == nil {
		if a := leakage.PML(pi, p); certify.RowsSumToOne(p) && (res.Mechanism == nil || a < res.PML) {
			res.Mechanism, res.PML, better = p, a, true
		}
	}
	// The maximisation's row multipliers are −a (scaled); DualBound wants
	// those of the pattern's feasibility problem, which are a.
	alpha := make([]float64, len(w.a))
	for i, a := range w.a {
		alpha[i] = a * w.scale
	}
	if lb, ok := certify.DualBound(pi, pat, alpha); ok && lb > res.Lower {
		res.Lower, res.Alpha, better = lb, alpha, true
	}
	return better
}
