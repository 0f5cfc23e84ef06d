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
// pattern, or multipliers α for certify.DualBound (worstcase's search takes
// both).
//
// It runs Solve's iterations on the expected-utility problem over every
// pair with a negative utility on the pairs pat forbids (penalty) and 0
// on the others, at budget eps: its optimum is 0 exactly when such a
// mechanism exists, the problem is always feasible (every pair is a
// variable; where pat allows less than sparseShare of the pairs, only its
// own pairs and an outlet output open to every input at the same price,
// outlet, so that the Newton system's updates cost Σ_j |S_j|² instead of N²M), and the row
// multipliers of an optimum below 0 are a proof for DualBound (the pairs
// pat allows carry no utility, so each output's column condition is
// DualBound's). It stops as soon as either side settles the question (a
// mechanism of PML at most eps, or a proof of at least eps), and otherwise
// when the iterations stop improving; the caller then settles it with an
// LP. Both the mechanism and the bound are checked on their own, so
// nothing rests on the iterations' tolerances.
func Probe(pi mech.Prior, pat mech.Pattern, eps float64) (*ProbeResult, error) {
	return ProbeWorkers(context.Background(), pi, pat, eps, 1)
}

// ProbeWorkers is Probe with the rank-2 updates of each iteration's Newton
// system (O(N²M), or Σ_j |S_j|² on the pattern's pairs) and its Cholesky
// factorisation, most of an iteration's work, spread over up to
// workers goroutines; the result is the same for any workers. It ends
// with ctx's error once ctx is done: an iteration at a thousand letters
// takes about a second, and a probe up to 200 of them.
func ProbeWorkers(ctx context.Context, pi mech.Prior, pat mech.Pattern, eps float64, workers int) (*ProbeResult, error) {
	return probe(ctx, pi, pat, eps, workers, 0, formAuto)
}

// probeForm is the problem a probe iterates on: every pair (penalty), or
// the pattern's pairs and one more output (outlet), or whichever
// sparsePattern picks.
type probeForm int

const (
	formAuto probeForm = iota
	formWhole
	formOutlet
)

// probe is ProbeWorkers with split's threshold minWork (0: parallelWork)
// and the problem's form, which tests choose.
func probe(ctx context.Context, pi mech.Prior, pat mech.Pattern, eps float64, workers, minWork int, form probeForm) (*ProbeResult, error) {
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
	var w *workspace
	var cols []int // the outputs of the outlet form's columns; nil: every output
	if form == formOutlet || form == formAuto && sparsePattern(pat) {
		var u mech.Utility
		var st structure
		u, st, cols = outlet(np, pat, eps)
		w = newWorkspace(np, u, st, pmlForm(eps))
	} else {
		u := penalty(np, pat)
		w = newWorkspace(np, u, allPairs(u.Dims()), pmlForm(eps))
	}
	w.workers, w.minWork = workers, minWork
	res := &ProbeResult{Evidence: certify.Evidence{PML: math.Inf(1)}}
	w.iterate(ctx, 200, 1e-4, func(it int) (improved, done bool) {
		res.Iterations = it
		improved = res.observe(w, pi, pat, cols, eps)
		return improved, res.Lower >= eps || (res.Mechanism != nil && res.PML <= eps)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
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
		w := penaltyWeight(pi[i])
		for j, a := range row {
			if !a {
				u[i][j] = w
			}
		}
	}
	return u
}

// sparseShare is the share of a pattern's pairs below which Probe keeps
// only the allowed pairs (outlet): their updates then cost Σ_j |S_j|²
// scattered against N²M in whole rows, which run several times faster per
// pair.
const sparseShare = 0.25

// sparsePattern reports whether pat allows few enough pairs for outlet.
func sparsePattern(pat mech.Pattern) bool {
	n, m := len(pat), len(pat[0])
	allowed := 0
	for _, row := range pat {
		for _, a := range row {
			if a {
				allowed++
			}
		}
	}
	return float64(allowed) < sparseShare*float64(n*m)
}

// outlet is Probe's problem at budget eps over fewer pairs than every
// pair: one more output, the last column, open to every input at the
// penalty's price (−1/π_i a unit of mass, as penalty prices a forbidden
// pair), so that sending every row there is a mechanism of PML 0, the
// problem is feasible at every budget, and its optimum is 0 exactly when a
// mechanism with the pattern exists. Output j keeps only the pairs pat
// allows when their mass π(B_j) is at least outletRoom times e^{−ε}; with
// less, the caps p_ij ≤ t_j leave the marginal row Σ π_i p_ij = e^{−ε} t_j
// no interior (at π(B_j) = e^{−ε} every allowed pair must sit at its cap),
// so such an output keeps every input, its forbidden pairs at the
// penalty's price, as in penalty. An output whose mass is below e^{−ε} by
// more than rounding no mechanism at ε can use (Song & Oechtering (2026),
// Lemmas 2-3): it has no column (an empty column's marginal row could
// never be met). cols[c] is the output of column c. A proof of this
// problem is checked on pat by certify.DualBound all the same.
func outlet(pi mech.Prior, pat mech.Pattern, eps float64) (mech.Utility, structure, []int) {
	n, m := len(pat), len(pat[0])
	mass := make([]float64, m)
	for i, row := range pat {
		for j, a := range row {
			if a {
				mass[j] += pi[i]
			}
		}
	}
	room := math.Exp(eps)
	var cols []int
	var st structure
	st.n = n
	for j := range m {
		r := room * mass[j]
		if !(mass[j] > 0) || r < 1-outletDrop {
			continue
		}
		cols = append(cols, j)
		st.colStart = append(st.colStart, len(st.row))
		for i, row := range pat {
			if r < outletRoom || row[j] {
				st.row = append(st.row, i)
			}
		}
	}
	st.colStart = append(st.colStart, len(st.row))
	for i := range n {
		st.row = append(st.row, i)
	}
	st.colStart = append(st.colStart, len(st.row))
	st.m = len(cols) + 1
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, st.m)
		w := penaltyWeight(pi[i])
		for c, j := range cols {
			if !pat[i][j] {
				u[i][c] = w
			}
		}
		u[i][len(cols)] = w
	}
	return u, st, cols
}

// outletRoom and outletDrop are outlet's limits on e^ε π(B_j): below
// outletRoom an output keeps every input, below 1 − outletDrop (past the
// rounding of the masses' sum) it is left out.
const (
	outletRoom = 1.05
	outletDrop = 1e-9
)

// penaltyWeight is the price of a unit of input i's mass where the
// pattern forbids it: −1/π_i, or −1 where that is not finite.
func penaltyWeight(pi float64) float64 {
	if pi > 0 && !math.IsInf(1/pi, 0) {
		return -1 / pi
	}
	return -1
}

// observe reads a mechanism with the pattern and a proof off the current
// point, keeps whichever improves on res, and reports whether one did.
func (res *ProbeResult) observe(w *workspace, pi mech.Prior, pat mech.Pattern, cols []int, eps float64) bool {
	better := false
	// Below the least ε the forbidden pairs carry real mass: the rows are
	// renormalised before DropNoise judges the outputs by their ratios.
	p := w.point(pat, cols)
	clean.ClearTiny(p, clean.InteriorEntryNoise)
	ok := true
	for _, row := range p {
		ok = ok && mech.Normalise(row) > 0
	}
	if ok && clean.DropNoise(pi, p, mech.Budget{Measure: mech.PML, Epsilon: eps}, clean.InteriorColumnNoise) == nil {
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
