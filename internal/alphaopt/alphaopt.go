package alphaopt

import (
	"context"
	"math"
	"sort"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// UsedColumns returns the columns of rows with some positive entry.
func UsedColumns(rows mech.Mechanism) []int {
	var cols []int
	for j := range rows[0] {
		for _, row := range rows {
			if row[j] > 0 {
				cols = append(cols, j)
				break
			}
		}
	}
	return cols
}

// LogColumnMax returns log max_i p_ij for each column j in cols.
func LogColumnMax(rows mech.Mechanism, cols []int) []float64 {
	lm := make([]float64, len(cols))
	for c, j := range cols {
		mx := 0.0
		for _, row := range rows {
			mx = max(mx, row[j])
		}
		lm[c] = mathx.Log(mx)
	}
	return lm
}

// Max returns a certified bracket on max over k of sup G_k, the
// maximisation of Gilani et al. (2022), eq. 6 (one k for β = 1, where the
// weights do not depend on k), without the factor α/((α−1)β): rows are
// the rows of the mechanism on the support of the prior, cols its used
// columns (UsedColumns), 1 < β ≤ α < ∞, and tol the gap at which a row's
// maximisation stops. When ctx is done it returns the bracket reached so
// far, still certified.
//
// For β > 1 with every a_ic > 0 (see columngeneration.go):
//  1. the row of largest bound log Σ_c e^{lc_c} (a ≤ 1 after the column
//     scaling, so s_c ≤ 1) is maximised from the uniform prior;
//  2. every row is bounded at that row's optimum w by matrix products
//     (rowBounds), and again after each of two Newton steps of its own
//     with the Hessian of the first row at w (rowSteps): the first on the
//     support of w, the second also on the inputs the rows' bounds name
//     most often. Rows differ only in their weights e_c, so the steps move
//     each towards its own optimum, where the bound is much tighter than
//     at w; this settles most rows;
//  3. the rows left, by decreasing bound, are maximised from their last
//     point, each stopping as soon as its bound falls to the best value
//     found. They share one preconditioner of their Newton systems
//     (conjugategradient.go): a row's steps cost matrix-vector products instead
//     of a Hessian and its factorisation.
//
// When some a_ic underflows to 0 (a large α), the rows are visited in the
// same order by the multiplicative updates of multiplicative.go (maxByUpdates).
func Max(ctx context.Context, rows mech.Mechanism, cols []int, alpha, beta, tol float64) (lower, upper float64) {
	base := newConcaveProblem(rows, cols, alpha, beta)
	n := len(rows)
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(n)
	}
	if beta == 1 {
		return concaveSup(ctx, base.forRow(rows, cols, 0), w, tol)
	}
	for _, row := range base.a {
		for _, v := range row {
			if v == 0 {
				return maxByUpdates(ctx, base, rows, cols, tol)
			}
		}
	}
	cps := make([]*concaveProblem, n)
	crude := make([]float64, n)
	first := 0
	for k := range rows {
		cps[k] = base.forRow(rows, cols, k)
		crude[k] = cps[k].lc0 + mathx.LogSumExp(cps[k].lc)
		if crude[k] > crude[first] {
			first = k
		}
	}
	// 1. The most promising row.
	lo, up := cps[first].supCG(ctx, w, tol)
	lower, upper = cps[first].lc0+lo, cps[first].lc0+up
	if ctx.Err() != nil {
		for _, c := range crude {
			upper = max(upper, c)
		}
		return lower, upper
	}
	// 2. Every row's bound at that row's optimum and after its own steps.
	bound := make([]float64, n)
	los, ups := rowBounds(ctx, base, cps, w, nil, nil)
	for k, cp := range cps {
		bound[k] = min(crude[k], cp.lc0+ups[k])
		lower = max(lower, cp.lc0+los[k])
	}
	bound[first] = math.Inf(-1)
	var open []int
	for k := range cps {
		if bound[k] > lower {
			open = append(open, k)
		}
	}
	points := make([][]float64, len(open))
	for x := range points {
		points[x] = append([]float64(nil), w...)
	}
	var keep []int
	for i, v := range w {
		if v > 0 {
			keep = append(keep, i)
		}
	}
	votes := make([]int, n)
	for round := 0; round < 2 && len(open) > 0 && ctx.Err() == nil; round++ {
		if round == 1 {
			// The inputs the rows' optima need beyond keep, most named
			// first, as many as keep holds.
			var extra []int
			in := make([]bool, n)
			for _, i := range keep {
				in[i] = true
			}
			for i, v := range votes {
				if v > 0 && !in[i] {
					extra = append(extra, i)
				}
			}
			sort.Slice(extra, func(a, b int) bool { return votes[extra[a]] > votes[extra[b]] })
			keep = append(keep, extra[:min(len(extra), len(keep)+cgAdd)]...)
			sort.Ints(keep)
		}
		rowSteps(cps[first], cps, open, w, keep, points)
		sub := make([]*concaveProblem, len(open))
		for x, k := range open {
			sub[x] = cps[k]
		}
		var vs []int
		if round == 0 {
			vs = votes
		}
		los, ups = rowBounds(ctx, base, sub, nil, points, vs)
		for x, k := range open {
			bound[k] = min(bound[k], cps[k].lc0+ups[x])
			if l := cps[k].lc0 + los[x]; l > lower {
				lower = l
				copy(w, points[x])
			}
		}
		kept, kp := open[:0], points[:0]
		for x, k := range open {
			if bound[k] > lower {
				kept, kp = append(kept, k), append(kp, points[x])
			}
		}
		open, points = kept, kp
	}
	// The open rows, moved together by multiplicative updates: each round
	// costs two matrix products for all of them and settles the rows whose
	// bound falls to the best value.
	next := make([][]float64, len(open))
	for x := range next {
		next[x] = make([]float64, n)
	}
	gamma, prev := make([]float64, len(open)), make([]float64, len(open))
	for x := range gamma {
		gamma[x], prev[x] = mmGamma, math.Inf(-1)
	}
	// A round's cost grows with the open rows, the Newton solves' does
	// not: stop once rowMMWindow rounds settle under 1/rowMMFew of them.
	hist := []int{len(open)}
	for round := 0; round < rowMM && len(open) > 0 && ctx.Err() == nil; round++ {
		if h := len(hist); h > rowMMWindow && (hist[h-1-rowMMWindow]-hist[h-1])*rowMMFew < hist[h-1-rowMMWindow] {
			break
		}
		sub := make([]*concaveProblem, len(open))
		for x, k := range open {
			sub[x] = cps[k]
		}
		los, ups = rowUpdates(ctx, base, sub, points, next[:len(open)], gamma)
		for x, k := range open {
			if los[x] < prev[x] {
				gamma[x] = max(1, gamma[x]*mmShrink)
			}
			prev[x] = los[x]
			bound[k] = min(bound[k], cps[k].lc0+ups[x])
			if l := cps[k].lc0 + los[x]; l > lower {
				lower = l
				copy(w, points[x])
			}
		}
		var kept []int
		var kp, kn [][]float64
		var kg, kprev []float64
		for x, k := range open {
			if bound[k] > lower {
				kept, kp, kn = append(kept, k), append(kp, next[x]), append(kn, points[x])
				kg, kprev = append(kg, gamma[x]), append(kprev, prev[x])
			}
		}
		open, points, next, gamma, prev = kept, kp, kn, kg, kprev
		hist = append(hist, len(open))
	}
	start := make(map[int][]float64, len(open))
	hc := &hessCache{}
	for x, k := range open {
		start[k] = points[x]
		cps[k].hc = hc
	}
	// 3. The rows the bounds leave open, the highest first.
	sort.Slice(open, func(a, b int) bool { return bound[open[a]] > bound[open[b]] })
	for _, k := range open {
		if bound[k] <= lower || ctx.Err() != nil {
			upper = max(upper, bound[k])
			continue
		}
		x := start[k]
		cps[k].prune = lower - cps[k].lc0
		lo, up := cps[k].supCG(ctx, x, tol)
		if cps[k].lc0+lo > lower {
			lower = cps[k].lc0 + lo
			copy(w, x)
		}
		upper = max(upper, min(bound[k], cps[k].lc0+up))
	}
	for k := range cps {
		if k != first && bound[k] <= lower {
			upper = max(upper, bound[k])
		}
	}
	return lower, upper
}

// maxByUpdates is Max by the multiplicative updates of multiplicative.go
// for each row: the rows are visited by decreasing bound, first
// log Σ_c e^{lc_c}, then the Hölder bound at the best point found so far.
// A row whose bound does not exceed the best value found is settled by
// that bound without its own optimisation; an optimisation starts from
// that point and stops as soon as its bound falls to the best value.
func maxByUpdates(ctx context.Context, base *concaveProblem, rows mech.Mechanism, cols []int, tol float64) (lower, upper float64) {
	n := len(rows)
	w := make([]float64, n)
	for i := range w {
		w[i] = 1 / float64(n)
	}
	type cand struct {
		k  int
		ub float64
		cp *concaveProblem
	}
	cands := make([]cand, n)
	for k := range rows {
		cp := base.forRow(rows, cols, k)
		cands[k] = cand{k: k, ub: cp.lc0 + mathx.LogSumExp(cp.lc), cp: cp}
	}
	sort.Slice(cands, func(a, b int) bool { return cands[a].ub > cands[b].ub })
	lower, upper = math.Inf(-1), math.Inf(-1)
	g, h := make([]float64, n), make([]float64, len(cols))
	for _, c := range cands {
		if ctx.Err() != nil || c.ub <= lower {
			upper = max(upper, c.ub)
			continue
		}
		if !math.IsInf(lower, -1) {
			f := c.cp.gradient(w, g, h)
			lo, up := c.cp.holder(f, g)
			lower = max(lower, c.cp.lc0+lo)
			if c.cp.lc0+up <= lower {
				upper = max(upper, c.cp.lc0+up)
				continue
			}
		}
		start := make([]float64, n)
		for i := range start {
			start[i] = (1-1e-9)*w[i] + 1e-9/float64(n) // every input alive for the update
		}
		c.cp.prune = lower - c.cp.lc0
		lo, up := concaveSup(ctx, c.cp, start, tol)
		if lo > lower {
			lower = lo
			copy(w, start)
		}
		upper = max(upper, up)
	}
	return lower, upper
}
