package expected

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/mech"
)

// Tolerances and sizes of the active set over outputs (activeSet).
const (
	// activeCells is the number of letters N·M from which Maximize
	// answers through the active set: below it the interior point on the
	// whole problem is about as fast.
	activeCells = 512 * 512
	// priceTol, times max(1, |value|), is the reduced gain above which a
	// left-out output counts as violated: what the outputs left out can
	// add to the certified bound is then below it.
	priceTol = 1e-11
	// activeRounds bounds the rounds of restricted solves and pricing.
	activeRounds = 60
	// firstOutputs is the size of the first active set, and growMin the
	// fewest violated outputs a round adds (at most as many as the set
	// holds, so that the set at most doubles).
	firstOutputs = 16
	growMin      = 16
	// unusedMass, times the largest output marginal of a restricted
	// optimum, is the marginal at or below which dropUnused counts an
	// output as unused (an interior point leaves every output some mass).
	unusedMass = 1e-6
	// lowRankRatio: a restricted problem whose outputs are at most this
	// fraction of its inputs solves its Newton systems through the
	// low-rank form (ipm.Options.LowRank).
	lowRankRatio = 0.25
)

// denseInputs is the most inputs at which a restricted problem the
// low-rank interior point leaves uncertified is solved again by the dense
// one, whose N×N factor costs N³/3 an iteration: a few seconds at 4 096
// inputs, minutes at 10 000. Above it the round prices the outputs from
// the uncertified point. (A variable for the tests.)
var denseInputs = 4096

// largeMaxIter caps the iterations of a restricted interior point above
// denseInputs, where no dense solve follows one that stops short: the
// iterations end as they converge, and under LIP some rounds of a grid of
// ten thousand cells take more than package ipm's default cap of 200.
const largeMaxIter = 1000

// restrictedGap is the gap the restricted interior points aim at; 0 is
// package ipm's default. Tests set one no point reaches, so that every
// round is uncertified.
var restrictedGap float64

// errActiveSet means that the active set did not certify an optimum:
// Maximize then solves the whole problem as before.
var errActiveSet = errors.New("expected: the active set over outputs did not certify the optimum")

// activeSet answers the expected-utility problem of b (any measure) by an
// active set over outputs, for problems whose optimum uses few of their
// outputs (a location grid at a moderate budget uses tens of its
// thousands of cells). Column generation in the sense of Dantzig & Wolfe
// (1960), one output being a whole column block:
//
//  1. The active set S starts with the outputs start: the firstOutputs
//     of largest Σ_i π_i u_ij (seedOutputs, the best constant mechanisms),
//     or, for inputs that are sites of a rule, those the optimum with the
//     inputs merged into blocks uses (coarseSeed).
//  2. The problem restricted to the outputs of S (an N × |S| utility) is
//     solved by package ipm (Solve for ε-PML, SolveRatio for the
//     others), with the low-rank Newton systems when |S| ≤ lowRankRatio·N.
//     Its row multipliers α are feasible for the restricted dual.
//  3. Pricing: each output j left out gets its reduced gain K_j(α), the
//     largest value Σ_i y_i (u_ij − α_i/π_i) of a normalised column the
//     budget allows (certify.UpperBound's knapsack, certify.RatioUpperBound's
//     for LIP, ALIP, LDP), in parallel over the outputs. An output whose
//     K_j exceeds the best of S's by more than priceTol would raise the
//     whole problem's bound: the most violated ones (up to |S|, at least
//     growMin) join S, and step 2 runs again. For LIP and ALIP the
//     outputs the restricted optimum leaves unused first leave S when
//     they are more than half of it (dropUnused).
//  4. When none is violated, the restricted optimum (for ε-PML the
//     vertex of ipm.PurifiedVertex, or of ipm.CertifiedVertex's face LP
//     where the purification fails), padded with zero columns, is a
//     mechanism of the whole problem, audited on it; its bound is what
//     certify.UpperBound (or RatioUpperBound) proves over ALL outputs from
//     the restricted multipliers. Zero columns keep a vertex a vertex.
//
// Every pricing pass costs O(N M log N), spread over the processors; a
// restricted solve O(N |S|²) per iteration.
//
// The utility is read a column at a time (mech.Columns): given by a rule,
// it is never held whole, only the N × |S| columns of the restricted
// problem.
func activeSet(ctx context.Context, pi mech.Prior, u mech.Columns, b mech.Budget, start []int, opt Options) (Result, error) {
	norm := normalised(pi)
	last, err := priceRounds(ctx, pi, norm, u, b, start, priceTol, opt)
	if err != nil {
		return Result{}, err
	}
	v, err := vertexOf(ctx, pi, last.sub, b, last.r, opt)
	if err != nil {
		return Result{}, err
	}
	return padded(pi, u, last.sub, b, last.set, v, last.r.Alpha)
}

// restricted is a restricted problem of the active set and its solve.
type restricted struct {
	set []int        // the outputs, in increasing order
	sub mech.Utility // u restricted to them
	r   *ipm.Result  // the interior point's answer
}

// priceRounds runs steps 2 and 3 of activeSet from the outputs start
// (increasing) until pricing finds no output whose reduced gain exceeds
// the set's best by more than tol·max(1, |value|), and returns that last
// restricted problem. norm is pi normalised.
func priceRounds(ctx context.Context, pi, norm mech.Prior, u mech.Columns, b mech.Budget, start []int, tol float64, opt Options) (restricted, error) {
	n, m := u.Dims()
	in := make([]bool, m)
	set := slices.Clone(start)
	for _, j := range set {
		in[j] = true
	}
	dropped := make([]bool, m)
	for round := range activeRounds {
		if err := ctx.Err(); err != nil {
			return restricted{}, err
		}
		sub := restrict(u, set)
		lowRank := len(set) <= int(lowRankRatio*float64(n))
		r, err := solveRestricted(ctx, pi, sub, b, lowRank, opt.Workers)
		switch {
		case err == nil || !lowRank || ctx.Err() != nil:
		case n <= denseInputs:
			opt.notify("active set, round %d: the low-rank interior point failed (%v): the dense one on %d outputs", round+1, err, len(set))
			r, err = solveRestricted(ctx, pi, sub, b, false, opt.Workers)
		case r != nil && errors.Is(err, ipm.ErrNotConverged):
			// Its multipliers price the outputs all the same; a
			// last round whose point is not certified is refused by
			// padded.
			opt.notify("active set, round %d: the low-rank interior point stopped short of the gap on %d outputs: priced from its point", round+1, len(set))
			err = nil
		}
		if err != nil {
			return restricted{}, err
		}
		opt.notify("active set, round %d: %d of %d outputs, %d interior-point iterations (%d dense factors, %d solves rescued), restricted optimum in [%.12g, %.12g]",
			round+1, len(set), m, r.Iterations, r.DenseFactors, r.Rescued, r.Value, r.Bound)
		gains := priceOutputs(norm, u, b, r.Alpha)
		ref := math.Inf(-1)
		for _, j := range set {
			ref = max(ref, gains[j])
		}
		if b.Measure == mech.PML {
			ref = max(ref, 0)
		}
		slack := tol * max(1, math.Abs(r.Value))
		var violated []int
		for j := range m {
			if !in[j] && gains[j] > ref+slack {
				violated = append(violated, j)
			}
		}
		if len(violated) == 0 {
			return restricted{set: set, sub: sub, r: r}, nil
		}
		slices.SortFunc(violated, func(a, c int) int {
			switch {
			case gains[a] > gains[c]:
				return -1
			case gains[a] < gains[c]:
				return 1
			}
			return a - c
		})
		grow := max(growMin, len(set))
		if dropsUnused(b) {
			set = dropUnused(norm, r.Mechanism, set, in, dropped)
		}
		for _, j := range violated[:min(grow, len(violated))] {
			in[j] = true
			set = append(set, j)
		}
		slices.Sort(set)
	}
	return restricted{}, errActiveSet
}

// dropUnused returns set without the outputs the restricted optimum p
// leaves unused (marginal at most unusedMass of the largest), when they
// are more than half of it, each output at most once over the run (marked
// in dropped, and no longer in): a round's interior point costs
// O(N |S|²) an iteration, and under LIP and ALIP it takes 50 to 175
// iterations a round on grids of thousands of cells, so a set that only
// grows spends most of the late rounds on outputs no optimum uses. (Under
// ε-PML and LDP, whose rounds take fewer iterations, the extra rounds cost
// more than the smaller sets save.) An output dropped and priced in again
// stays; the final pricing over every output certifies the result
// whatever was dropped.
func dropUnused(pi mech.Prior, p mech.Mechanism, set []int, in, dropped []bool) []int {
	used := usedColumns(pi, p)
	count := 0
	for _, ok := range used {
		if ok {
			count++
		}
	}
	if 2*count >= len(set) {
		return set
	}
	out := set[:0:0]
	for c, j := range set {
		if used[c] || dropped[j] {
			out = append(out, j)
			continue
		}
		dropped[j], in[j] = true, false
	}
	return out
}

// usedColumns reports which columns of the restricted optimum p have a
// marginal above unusedMass times the largest: an interior point leaves
// every output some mass.
func usedColumns(pi mech.Prior, p mech.Mechanism) []bool {
	q := p.Marginal(pi)
	least := unusedMass * slices.Max(q)
	used := make([]bool, len(q))
	for c, v := range q {
		used[c] = v > least
	}
	return used
}

// dropsUnused reports whether the active set's rounds under b drop the
// outputs their optimum leaves unused (dropUnused): under LIP and ALIP.
func dropsUnused(b mech.Budget) bool { return b.Measure == mech.LIP || b.Measure == mech.ALIP }

// normalised returns pi divided by its sum, as package ipm sees it.
func normalised(pi mech.Prior) mech.Prior {
	out := slices.Clone(pi)
	mech.Normalise(out)
	return out
}

// seedOutputs returns the k outputs of largest Σ_i π_i u_ij (the best
// constant mechanisms), in increasing order.
func seedOutputs(pi mech.Prior, u mech.Columns, k int) []int {
	n, m := u.Dims()
	val := make([]float64, m)
	col := make([]float64, n)
	for j := range m {
		u.Column(j, col)
		for i := range n {
			val[j] += pi[i] * col[i]
		}
	}
	idx := make([]int, m)
	for j := range idx {
		idx[j] = j
	}
	slices.SortFunc(idx, func(a, c int) int {
		switch {
		case val[a] > val[c]:
			return -1
		case val[a] < val[c]:
			return 1
		}
		return a - c
	})
	out := slices.Clone(idx[:min(k, m)])
	slices.Sort(out)
	return out
}

// restrict returns the columns set of u.
func restrict(u mech.Columns, set []int) mech.Utility {
	n, _ := u.Dims()
	out := make(mech.Utility, n)
	for i := range out {
		out[i] = make([]float64, len(set))
	}
	col := make([]float64, n)
	for c, j := range set {
		u.Column(j, col)
		for i, v := range col {
			out[i][c] = v
		}
	}
	return out
}

// solveRestricted solves the problem with utility sub: its interior
// point for ε-PML (vertexOf takes the vertex once the set is final), the
// certified point of SolveRatio for the others, with their multipliers.
func solveRestricted(ctx context.Context, pi mech.Prior, sub mech.Utility, b mech.Budget, lowRank bool, workers int) (*ipm.Result, error) {
	opt := ipm.Options{Context: ctx, LowRank: lowRank, Workers: workers, Gap: restrictedGap}
	if len(pi) > denseInputs {
		opt.MaxIter = largeMaxIter
	}
	if b.Measure == mech.PML {
		r, err := ipm.Solve(ipm.Problem{Prior: pi, Utility: sub, Epsilon: b.Epsilon}, opt)
		if r == nil || (err != nil && !errors.Is(err, ipm.ErrNotConverged)) {
			return nil, errOr(ctx, err)
		}
		return r, nil
	}
	r, err := ipm.SolveRatio(ipm.RatioProblem{Prior: pi, Utility: sub, Budget: b}, opt)
	if err != nil {
		if errors.Is(err, ipm.ErrNotConverged) && ctx.Err() == nil {
			return r, err
		}
		return nil, errOr(ctx, err)
	}
	return r, nil
}

// vertexOf returns the optimal vertex of the restricted ε-PML problem
// from its interior point r: ipm.PurifiedVertex, whose cost grows with
// the face like the restricted problem's size, or else
// ipm.CertifiedVertex's face LP; other measures' r as it is.
func vertexOf(ctx context.Context, pi mech.Prior, sub mech.Utility, b mech.Budget, r *ipm.Result, opt Options) (*ipm.Result, error) {
	if b.Measure != mech.PML {
		return r, nil
	}
	p := ipm.Problem{Prior: pi, Utility: sub, Epsilon: b.Epsilon}
	v, err := ipm.PurifiedVertex(p, r, ipm.Options{Context: ctx})
	if err == nil {
		return v, nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	opt.notify("active set: no purified vertex (%v): the face LP", err)
	v, err = ipm.CertifiedVertex(p, r, ipm.Options{Context: ctx})
	if err != nil {
		return nil, errOr(ctx, err)
	}
	return v, nil
}

// errOr returns ctx's error when it ended, else errActiveSet wrapping err.
func errOr(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return errors.Join(errActiveSet, err)
}

// padded turns the restricted optimum r over the outputs set into an
// audited mechanism of the whole problem with the bound its multipliers
// prove over every output (r's own, or the interior point's point, the
// lower).
//
// sub is u restricted to set, on which the value is computed: the
// zero columns add nothing to it, so it is the padded mechanism's value to
// the last bit.
func padded(pi mech.Prior, u mech.Columns, sub mech.Utility, b mech.Budget, set []int, r *ipm.Result, point []float64) (Result, error) {
	n, m := u.Dims()
	P := mech.Zeros(n, m)
	for i := range n {
		for c, j := range set {
			P[i][j] = r.Mechanism[i][c]
		}
	}
	a, err := certify.Audit(pi, P, b)
	if err != nil {
		return Result{}, errors.Join(errActiveSet, err)
	}
	// Any multipliers prove a bound for any prior: those of the
	// restricted problem at the normalised prior prove one for the prior
	// as given, which the certificate is checked against.
	bound, best := math.Inf(1), []float64(nil)
	for _, alpha := range [][]float64{r.Alpha, point} {
		b2 := certify.RatioUpperBoundColumns(pi, u, b, alpha)
		if b.Measure == mech.PML {
			b2 = certify.UpperBoundColumns(pi, u, b.Epsilon, alpha)
		}
		if b2 < bound {
			bound, best = b2, alpha
		}
	}
	v := sub.ExpectedUtility(pi, r.Mechanism)
	scale := max(1, math.Abs(v))
	if !(bound >= v-bracketSlack*scale) || bound-v > ipm.AcceptedGap*scale {
		return Result{}, errActiveSet
	}
	return Result{Mechanism: P, Epsilon: a.Level, ALIPLower: a.ALIPLower, Value: v, Bound: max(bound, v), Alpha: best, Solver: "ipm"}, nil
}

// priceOutputs returns every output's reduced gain K_j(α) under b (see
// activeSet), computed by up to GOMAXPROCS goroutines over the outputs.
func priceOutputs(pi mech.Prior, u mech.Columns, b mech.Budget, alpha []float64) []float64 {
	n, m := u.Dims()
	gains := make([]float64, m)
	workers := max(1, min(runtime.GOMAXPROCS(0), m))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g, col := make([]float64, n), make([]float64, n)
			order := make([]int, n)
			for j := w; j < m; j += workers {
				u.Column(j, col)
				gains[j] = columnGain(pi, col, b, alpha, g, order)
			}
		}()
	}
	wg.Wait()
	return gains
}

// columnGain returns K_j(α) for the output whose utility column is col; g
// and order are scratch of length N.
func columnGain(pi mech.Prior, col []float64, b mech.Budget, alpha []float64, g []float64, order []int) float64 {
	n := len(pi)
	for i := range n {
		if b.Measure == mech.LDP {
			g[i] = pi[i]*col[i] - alpha[i]
		} else {
			g[i] = col[i] - alpha[i]/pi[i]
		}
	}
	switch b.Measure {
	case mech.LDP:
		for i := range order {
			order[i] = i
		}
		certify.SortByGain(order, g)
		best, _ := certify.LDPTopK(g, order, math.Exp(b.Epsilon))
		return best
	case mech.PML:
		return greedyMass(pi, g, math.Exp(b.Epsilon), 1, order)
	}
	lo, up := math.Exp(-b.EpsilonLower), math.Exp(b.EpsilonUpper)
	if b.Measure == mech.LIP {
		lo, up = math.Exp(-b.Epsilon), math.Exp(b.Epsilon)
	}
	left, k := 1.0, 0.0
	for i := range n {
		k += lo * pi[i] * g[i]
		left -= lo * pi[i]
	}
	return k + greedyMass(pi, g, up-lo, left, order)
}

// greedyMass returns the largest Σ_i y_i g_i over 0 ≤ y_i ≤ c π_i with
// Σ_i y_i ≤ left (a fractional knapsack: the largest g_i first), with idx
// (length N) as scratch. Only the entries the greedy fills need their
// order: a three-way partition about a pivot (Hoare's selection, expected
// O(N)) takes a whole upper part whose caps fit, or else descends into
// it, where a sort would cost O(N log N) per output in every round of
// pricing.
func greedyMass(pi, g []float64, c, left float64, idx []int) float64 {
	for i := range idx {
		idx[i] = i
	}
	lo, hi, k := 0, len(idx), 0.0
	for lo < hi && left > 0 {
		v := median3(g[idx[lo]], g[idx[lo+(hi-lo)/2]], g[idx[hi-1]])
		// [lo, gt) above v, [gt, lt) equal to it, [lt, hi) below.
		gt, i, lt := lo, lo, hi
		for i < lt {
			switch x := g[idx[i]]; {
			case x > v:
				idx[gt], idx[i] = idx[i], idx[gt]
				gt++
				i++
			case x < v:
				lt--
				idx[lt], idx[i] = idx[i], idx[lt]
			default:
				i++
			}
		}
		caps := 0.0
		for _, t := range idx[lo:gt] {
			caps += c * pi[t]
		}
		if caps > left {
			hi = gt
			continue
		}
		for _, t := range idx[lo:gt] {
			k += c * pi[t] * g[t]
		}
		left -= caps
		caps = 0
		for _, t := range idx[gt:lt] {
			caps += c * pi[t]
		}
		y := min(caps, left)
		k += y * v
		left -= y
		lo = lt
	}
	return k
}

// median3 returns the median of a, b and c.
func median3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}
