package ipm

import (
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
)

// ProbeResult is what Probe learnt about one budget and pattern.
type ProbeResult struct {
	// Mechanism respects the pattern (nil if no iterate gave one) and PML
	// is its audited PML (+Inf when Mechanism is nil): the least ε is at
	// most PML.
	Mechanism mech.Mechanism
	PML       float64
	// Lower is proven by polytope.DualBound(pi, pat, Alpha): the least ε
	// is at least Lower. 0 with a nil Alpha when nothing was proven.
	Lower float64
	Alpha []float64
	// Iterations is the number of interior-point iterations.
	Iterations int
}

// Probe asks whether an eps-PML mechanism with the zero pattern pat exists,
// and returns the evidence either way: an audited mechanism with the
// pattern, or multipliers α for polytope.DualBound (bisect's search takes
// both).
//
// It runs Solve's iterations on the expected-utility problem over every
// pair with utility −1 on the pairs pat forbids and 0 on the others, at
// budget eps: its optimum is 0 exactly when such a mechanism exists, the
// problem is always feasible (every pair is a variable), and the row
// multipliers of an optimum below 0 are a proof for DualBound (the pairs
// pat allows carry no utility, so each output's column condition is
// DualBound's). It stops as soon as either side settles the question (a
// mechanism of PML at most eps, or a proof of at least eps), and otherwise
// when the iterations stop improving; the caller then settles it with an
// LP. Both the mechanism and the bound are checked on their own, so
// nothing rests on the iterations' tolerances.
func Probe(pi mech.Prior, pat mech.Pattern, eps float64) (*ProbeResult, error) {
	if _, err := mech.NewPrior(pi); err != nil {
		return nil, err
	}
	if err := pat.Check(len(pi)); err != nil {
		return nil, err
	}
	penalty := make(mech.Utility, len(pi))
	for i, row := range pat {
		penalty[i] = make([]float64, len(row))
		for j, a := range row {
			if !a {
				penalty[i][j] = -1
			}
		}
	}
	if math.IsNaN(eps) || math.IsInf(eps, 0) || eps < 0 {
		return nil, fmt.Errorf("ipm: budget %g is not a finite number ≥ 0", eps)
	}
	p := Problem{Prior: normalised(pi), Utility: penalty, Epsilon: eps}
	w := newWorkspace(p, p.pairs(), math.Exp(-eps))
	res := &ProbeResult{PML: math.Inf(1)}
	w.iterate(200, 1e-4, func(it int) (improved, done bool) {
		res.Iterations = it
		improved = res.observe(w, pi, pat, eps)
		return improved, res.Lower >= eps || (res.Mechanism != nil && res.PML <= eps)
	})
	return res, nil
}

// observe reads a mechanism with the pattern and a proof off the current
// point, keeps whichever improves on res, and reports whether one did.
func (res *ProbeResult) observe(w *workspace, pi mech.Prior, pat mech.Pattern, eps float64) bool {
	better := false
	// Below the least ε the forbidden pairs carry real mass: the rows are
	// renormalised before DropNoise judges the outputs by their ratios.
	p := w.point(pat)
	clearTiny(p)
	ok := true
	for _, row := range p {
		ok = ok && mech.Normalise(row) > 0
	}
	if ok {
		polytope.DropNoise(pi, p, mech.Budget{Measure: mech.PML, Epsilon: eps}, noiseColumn)
		if a := leakage.PML(pi, p); rowsSumToOne(p) && (res.Mechanism == nil || a < res.PML) {
			res.Mechanism, res.PML, better = p, a, true
		}
	}
	// The maximisation's row multipliers are −a (scaled); DualBound wants
	// those of the pattern's feasibility problem, which are a.
	alpha := make([]float64, len(w.a))
	for i, a := range w.a {
		alpha[i] = a * w.scale
	}
	if lb, ok := polytope.DualBound(pi, pat, alpha); ok && lb > res.Lower {
		res.Lower, res.Alpha, better = lb, alpha, true
	}
	return better
}

// rowsSumToOne reports that every row of p sums to 1 within 1e-12.
func rowsSumToOne(p mech.Mechanism) bool {
	for _, row := range p {
		s := 0.0
		for _, v := range row {
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			return false
		}
	}
	return true
}
