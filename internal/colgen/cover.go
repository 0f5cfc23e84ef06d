package colgen

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// Cover is the fractional covering of a pattern's inputs by its outputs,
// the bound on the least ε that holds for every prior.
//
// An ε-PML mechanism P with the pattern has p_ij ≤ λ q_j (λ = e^ε, q the
// output marginal) for every pair, so summing over the outputs A_i allowed
// for input i gives 1 ≤ λ q(A_i): λq is a fractional cover of the inputs
// by the outputs' allowed sets, and λ ≥ τ*, the least total weight of such
// a cover (Σ_j x_j subject to Σ_{j∈A_i} x_j ≥ 1, x ≥ 0). That is the
// maximal leakage of the best mechanism with the pattern (Issa, Wagner &
// Kamath (2020), Thm 1: ML = log Σ_j max_i p_ij), which PML bounds from
// above; it ignores the prior. Its LP dual is a fractional packing y of
// the inputs (Σ_{i∈B_j} y_i ≤ 1 on the inputs B_j allowed for each output
// j), and α = y − κπ with κ a hair below Σ y is a multiplier vector that
// certify.DualBound turns into the proof ε* ≥ log κ for the prior π (with
// ν_j = 1/κ the output j's sum is Σ_{B_j} y_i/κ ≤ 1/κ).
//
// On location grids with a distance threshold of about half the side the
// bound is ε* itself (docs/performance.md); where it is, a mechanism at ε*
// routes the prior's mass along the cover (Flow).
type Cover struct {
	// Tau is τ*, the LP's optimum.
	Tau float64
	// X is an optimal cover (one weight per output), Y a packing of the
	// inputs scaled so that no output's allowed inputs hold more than 1
	// (computed in floating point; Proof's bound is checked by
	// certify.DualBound all the same).
	X, Y []float64
	// Pivots is the simplex iterations of the LP.
	Pivots int
	// Mixed reports a folded LP with an orbit of outputs only some of
	// whose outputs were marked to be left out (see SolveCover).
	Mixed bool
}

// maxCoverEntries bounds the non-zeros of the covering LP handed to the
// pure-Go simplex: a 64×64 grid's unfolded pattern has about 8·10⁶, an LP
// the pure-Go engines take minutes and gigabytes over; folded by the grid's
// reflections it has an eighth of the rows and of the columns.
const maxCoverEntries = 4 << 20

// ErrCoverTooLarge is SolveCover's error for a covering LP with more
// non-zeros than the pure-Go simplex is given.
var ErrCoverTooLarge = errors.New("colgen: the covering LP is too large")

// SolveCover solves the fractional covering LP of pat (see Cover), folded
// by the group sym generates when sym is not nil: the pattern alone must
// keep it (the cover does not depend on a prior), and the LP then has one
// row per orbit of inputs and one column per orbit of outputs, whose
// weights the whole orbit shares (the average of an optimal cover over the
// group is one). Every row of pat must allow some output.
//
// The outputs marked in drop (nil: none) are left out: the cover is then
// of that sub-pattern. A caller leaves out the outputs no mechanism at
// the ε of interest can use (those whose allowed inputs hold less prior
// mass than e^{−ε}), which a mechanism routed along the cover (Flow) could
// not carry at that ε. Folded, the LP keeps or leaves out whole orbits of
// outputs: with whole, an orbit goes only when every output of it is
// marked (a cover of a pattern between pat and the sub-pattern, whose
// packing is the proof that holds for the sub-pattern's mechanisms);
// without, when any is (a cover of a sub-pattern of it, along which every
// flow keeps clear of the marked outputs). Cover.Mixed reports an orbit
// with marked and unmarked outputs, where the two differ.
func SolveCover(pat mech.Pattern, sym *Symmetry, drop []bool, whole bool) (*Cover, error) {
	n := len(pat)
	if n == 0 {
		return nil, errors.New("colgen: SolveCover: an empty pattern")
	}
	if err := pat.Check(n); err != nil {
		// Check wants rows; the prior is not involved.
		return nil, err
	}
	m := len(pat[0])
	// A flat prior: the group must keep the pattern only.
	flat := make(mech.Prior, n)
	for i := range flat {
		flat[i] = 1 / float64(n)
	}
	var f *fold
	if sym != nil {
		var err error
		if f, err = newFold(flat, pat, *sym); err != nil {
			return nil, err
		}
	}
	// Rows: representatives of the input orbits (every input unfolded);
	// columns: representatives of the output orbits.
	var rowRep, colRep []int
	mixed := false
	colOf := make([]int, m) // colOf[j]: the LP column of j's orbit
	weight := []float64{}   // the orbit sizes: the objective
	if drop != nil && len(drop) != m {
		return nil, fmt.Errorf("colgen: SolveCover: %d outputs to leave out for %d outputs", len(drop), m)
	}
	out := func(j int) bool { return drop != nil && drop[j] }
	if f == nil {
		for i := range n {
			rowRep = append(rowRep, i)
		}
		for j := range m {
			colOf[j] = -1
			if !out(j) {
				colOf[j] = len(colRep)
				colRep = append(colRep, j)
				weight = append(weight, 1)
			}
		}
	} else {
		seen := make([]bool, f.n)
		for i := range n {
			if r := f.orb[i]; !seen[r] {
				seen[r] = true
				rowRep = append(rowRep, i)
			}
		}
		marked := make(map[int]int) // representative: its orbit's outputs marked
		for j := range m {
			if out(j) {
				marked[f.repOf[j]]++
			}
		}
		gone := make(map[int]bool) // representatives of orbits left out
		for j, k := range marked {
			if k < f.size[j] {
				mixed = true
			}
			gone[j] = !whole || k == f.size[j]
		}
		idx := make(map[int]int, len(f.reps))
		for _, j := range f.reps {
			if !gone[j] {
				idx[j] = len(colRep)
				colRep = append(colRep, j)
				weight = append(weight, float64(f.size[j]))
			}
		}
		for j := range m {
			colOf[j] = -1
			if k, ok := idx[f.repOf[j]]; ok {
				colOf[j] = k
			}
		}
	}
	// Count the entries first: a model of millions of non-zeros is
	// refused before it is built.
	count := make([]map[int]float64, len(rowRep))
	entries := 0
	for r, i := range rowRep {
		c := map[int]float64{}
		for j, a := range pat[i] {
			if a && colOf[j] >= 0 {
				c[colOf[j]]++
			}
		}
		count[r] = c
		entries += len(c)
		if entries > maxCoverEntries {
			return nil, fmt.Errorf("%w: more than %d non-zeros (%d inputs, %d outputs; a symmetry of the pattern folds it)", ErrCoverTooLarge, maxCoverEntries, n, m)
		}
	}
	md := &lp.Model{}
	for k := range colRep {
		md.AddCol(weight[k], 0, lp.Inf, "")
	}
	for r := range rowRep {
		es := make([]lp.Nonzero, 0, len(count[r]))
		for k := range colRep {
			if v, ok := count[r][k]; ok {
				es = append(es, lp.Entry(k, v))
			}
		}
		if len(es) == 0 {
			return nil, fmt.Errorf("colgen: SolveCover: input %d is allowed no output (or none kept)", rowRep[r])
		}
		md.AddRow(1, lp.Inf, "", es...)
	}
	sol, err := solver.Auto().Solve(md)
	if err != nil {
		return nil, fmt.Errorf("colgen: the covering LP: %w", err)
	}
	if sol.Status != solver.Optimal {
		return nil, fmt.Errorf("colgen: the covering LP: %v", sol.Status)
	}
	c := &Cover{Tau: sol.Objective, X: make([]float64, m), Y: make([]float64, n), Pivots: sol.Iterations, Mixed: mixed}
	for j := range m {
		if colOf[j] >= 0 {
			c.X[j] = max(0, sol.X[colOf[j]])
		}
	}
	// The packing: the row duals, spread over each orbit, then scaled so
	// that no output's inputs hold more than 1.
	for i := range n {
		r := i
		if f != nil {
			r = f.orb[i]
		}
		y := math.Abs(sol.RowDuals[r])
		if f != nil {
			y *= f.inv[i]
		}
		c.Y[i] = y
	}
	worst := 0.0
	for j := range m {
		if colOf[j] < 0 {
			continue
		}
		s := 0.0
		for i := range n {
			if pat[i][j] {
				s += c.Y[i]
			}
		}
		worst = max(worst, s)
	}
	if worst > 0 {
		for i := range c.Y {
			c.Y[i] /= worst
		}
	}
	return c, nil
}

// coverMargin is how far below Σ y the κ of a cover's proof lies: the
// proof needs Σ α = Σ y − κ safely positive (certify.DualBound asks for
// 4N units of roundoff of Σ|α|), and gives up log(1/(1 − coverMargin)) of
// the bound.
const coverMargin = 1e-11

// Proof returns the multipliers α = y − κπ of the cover's packing for the
// prior pi, which certify.DualBound turns into a proof of ε* ≥ log κ (κ =
// Σ y (1 − coverMargin)), and the bound it proves (ok false if none).
func (c *Cover) Proof(pi mech.Prior, pat mech.Pattern) (lb float64, alpha []float64, ok bool) {
	s := 0.0
	for _, y := range c.Y {
		s += y
	}
	kappa := s * (1 - coverMargin)
	alpha = make([]float64, len(pi))
	for i := range alpha {
		alpha[i] = c.Y[i] - kappa*pi[i]
	}
	lb, ok = certify.DualBound(pi, pat, alpha)
	if !ok {
		return 0, nil, false
	}
	return lb, alpha, true
}

// flowNet is a flow network for Flow: the source, the inputs, the outputs
// used and the sink, with edge e and its reverse e^1 side by side.
type flowNet struct {
	head, next, to []int32
	cap            []float64
	level, it      []int32
	eps            float64 // capacities at most this are spent
}

func newFlowNet(nodes int) *flowNet {
	f := &flowNet{head: make([]int32, nodes), level: make([]int32, nodes), it: make([]int32, nodes)}
	for v := range f.head {
		f.head[v] = -1
	}
	return f
}

func (f *flowNet) add(a, b int, c float64) int {
	e := len(f.to)
	f.to = append(f.to, int32(b), int32(a))
	f.cap = append(f.cap, c, 0)
	f.next = append(f.next, f.head[a], f.head[b])
	f.head[a], f.head[b] = int32(e), int32(e+1)
	return e
}

func (f *flowNet) bfs(s, t int) bool {
	for v := range f.level {
		f.level[v] = -1
	}
	q := []int32{int32(s)}
	f.level[s] = 0
	for k := 0; k < len(q); k++ {
		v := q[k]
		for e := f.head[v]; e >= 0; e = f.next[e] {
			if w := f.to[e]; f.cap[e] > f.eps && f.level[w] < 0 {
				f.level[w] = f.level[v] + 1
				q = append(q, w)
			}
		}
	}
	return f.level[t] >= 0
}

func (f *flowNet) dfs(v, t int, push float64) float64 {
	if v == t {
		return push
	}
	for ; f.it[v] >= 0; f.it[v] = f.next[f.it[v]] {
		e := f.it[v]
		w := int(f.to[e])
		if f.cap[e] > f.eps && f.level[w] == f.level[v]+1 {
			if r := f.dfs(w, t, min(push, f.cap[e])); r > 0 {
				f.cap[e] -= r
				f.cap[e^1] += r
				return r
			}
		}
	}
	return 0
}

// maxFlow is Dinic's algorithm (Dinic 1970).
func (f *flowNet) maxFlow(s, t int) float64 {
	total := 0.0
	for f.bfs(s, t) {
		copy(f.it, f.head)
		for {
			r := f.dfs(s, t, math.Inf(1))
			if r == 0 {
				break
			}
			total += r
		}
	}
	return total
}

// Flow looks for a mechanism with the pattern whose output marginal is q
// and whose PML is at most log lambda: p_ij ≤ λ q_j with Σ_i π_i p_ij =
// q_j is a transportation problem, a flow of the prior's mass from the
// inputs to the outputs q uses (capacity q_j), at most λπ_i q_j along
// each allowed pair. It returns the mechanism (rows normalised; nil when
// the flow leaves some input short by more than rounding) and, in a set
// of its own, the inputs the source still reaches in the final residual
// network (the source side of a minimum cut: where the flow falls short,
// these inputs I violate Σ_j q_j min(1, λ π(I ∩ B_j)) ≥ π(I), which every
// marginal of a mechanism at λ satisfies). The mechanism is not audited
// here.
func Flow(pi mech.Prior, pat mech.Pattern, q []float64, lambda float64) (mech.Mechanism, [][]int) {
	return FlowSets(pi, pat, q, lambda, 0)
}

// FlowSets is Flow, with more violated sets after the minimum cut: for
// each input the flow leaves short that no set before it holds, the
// inputs it reaches in the residual network without the source (at most
// sets of them). Such a set I takes less than π(I) from the source, and
// gives every output it reaches all that output carries (the sink's edge
// is saturated, and no input outside I feeds it: the reverse edge would
// reach that input) and every other output the most its pairs allow, so
// that the left side of the inequality is at most the flow through I.
// The smaller sets are tighter rows where the crowded inputs lie apart.
func FlowSets(pi mech.Prior, pat mech.Pattern, q []float64, lambda float64, sets int) (mech.Mechanism, [][]int) {
	n, m := len(pi), len(q)
	var outs []int
	for j, v := range q {
		if v > 0 {
			outs = append(outs, j)
		}
	}
	s := len(outs)
	src, snk := n+s, n+s+1
	f := newFlowNet(n + s + 2)
	f.eps = 1e-15 * min(1, lambda) / float64(n+s)
	for i := range n {
		f.add(src, i, pi[i])
	}
	for k, j := range outs {
		f.add(n+k, snk, q[j])
	}
	type pair struct{ e, j int }
	var pairs []pair
	for i := range n {
		row := pat[i]
		for k, j := range outs {
			if row[j] {
				pairs = append(pairs, pair{f.add(i, n+k, lambda*pi[i]*q[j]), j})
			}
		}
	}
	f.maxFlow(src, snk)
	var cut []int
	f.bfs(src, snk)
	for i := range n {
		if f.level[i] >= 0 {
			cut = append(cut, i)
		}
	}
	cuts := [][]int{cut}
	if len(cut) > 0 && sets > 0 {
		cuts = append(cuts, f.shortSets(n, src, cut, sets)...)
	}
	// The flow along (i, j) is the capacity its reverse edge holds.
	p := mech.Zeros(n, m)
	for _, pr := range pairs {
		if v := f.cap[pr.e^1]; v > 0 {
			i := int(f.to[pr.e^1])
			p[i][pr.j] += v / pi[i]
		}
	}
	for i := range p {
		s := 0.0
		for _, v := range p[i] {
			s += v
		}
		if !(s > 1-1e-9) || mech.Normalise(p[i]) <= 0 {
			return nil, cuts
		}
	}
	return p, cuts
}

// shortSets returns, for each input of the source side cut (in order)
// whose source edge src → i keeps residual capacity and that no set
// before holds, the inputs (of 0..n−1) it reaches in the residual network
// without passing the source, when that is not the whole cut; at most
// most of them.
func (f *flowNet) shortSets(n, src int, cut []int, most int) [][]int {
	// The residual capacity of src → i is its edge's (added first, in
	// the order of the inputs).
	seen := make([]bool, n)
	mark := make([]int32, len(f.head))
	var out [][]int
	var q []int32
	stamp := int32(0)
	for _, u := range cut {
		if len(out) == most {
			break
		}
		if seen[u] || !(f.cap[2*u] > f.eps) {
			continue
		}
		stamp++
		q = append(q[:0], int32(u))
		mark[u] = stamp
		for k := 0; k < len(q); k++ {
			v := q[k]
			for e := f.head[v]; e >= 0; e = f.next[e] {
				if w := f.to[e]; int(w) != src && f.cap[e] > f.eps && mark[w] != stamp {
					mark[w] = stamp
					q = append(q, w)
				}
			}
		}
		var set []int
		for _, v := range q {
			if int(v) < n {
				set = append(set, int(v))
				seen[v] = true
			}
		}
		if len(set) < len(cut) {
			slices.Sort(set)
			out = append(out, set)
		}
	}
	return out
}

// genAdd bounds the rows and the columns one round of SolveCoverGen adds:
// the most violated first, so that the restricted LPs stay small.
const genAdd = 256

// genRounds bounds the rounds of SolveCoverGen.
const genRounds = 200

// genNoise is the weight, relative to the largest, below which
// SolveCoverGen's cover leaves an output out.
const genNoise = 1e-12

// genTol is how far a cover may fall short of a row, or a packing exceed
// an output, before SolveCoverGen adds it: below the restricted LP's own
// tolerance the final cover is rescaled and the packing normalised.
const genTol = 1e-9

// SolveCoverGen solves the covering LP of pat without the outputs marked
// in drop (see SolveCover), unfolded, by generating its rows and columns
// (a restricted LP over some inputs and some outputs, extended by the
// inputs its cover leaves short and the outputs its packing prices below
// their weight, until there are none): an optimal cover of a location
// grid's pattern uses few outputs and its packing few inputs, so the
// restricted LPs stay small where the whole LP has millions of non-zeros.
// It is the cover for a drop that no symmetry of the pattern keeps (a
// prior that breaks the grid's reflections). start are covers of pat to
// start from, as a folded SolveCover gives: the outputs their covers use
// (those not dropped) are the first columns, and the inputs their
// packings weigh the first rows.
//
// The cover returned covers every input (it is rescaled by its shortest
// row), and the packing is normalised as SolveCover's.
func SolveCoverGen(pat mech.Pattern, drop []bool, start ...*Cover) (*Cover, error) {
	n := len(pat)
	if n == 0 {
		return nil, errors.New("colgen: SolveCoverGen: an empty pattern")
	}
	if err := pat.Check(n); err != nil {
		return nil, err
	}
	m := len(pat[0])
	if drop != nil && len(drop) != m {
		return nil, fmt.Errorf("colgen: SolveCoverGen: %d outputs to leave out for %d outputs", len(drop), m)
	}
	for _, cv := range start {
		if len(cv.X) != m || len(cv.Y) != n {
			return nil, fmt.Errorf("colgen: SolveCoverGen: a start cover of %d outputs and %d inputs for %d and %d", len(cv.X), len(cv.Y), m, n)
		}
	}
	kept := make([]bool, m)
	for j := range kept {
		kept[j] = drop == nil || !drop[j]
	}
	if i := stranded(pat, kept); i >= 0 {
		return nil, fmt.Errorf("colgen: SolveCoverGen: input %d is allowed no output (or none kept)", i)
	}
	g := newGenLP(pat, kept)
	x := make([]float64, m)     // the current cover (zero off cols)
	cover := make([]float64, n) // Σ_{j ∈ A_i} x_j
	short := func() []int {
		for i := range n {
			cover[i] = g.rowCover(i, x)
		}
		var out []int
		for i := range n {
			if !g.inR[i] && cover[i] < 1-genTol {
				out = append(out, i)
			}
		}
		slices.SortFunc(out, func(a, b int) int { return cmp.Compare(cover[a], cover[b]) })
		return out[:min(len(out), genAdd)]
	}
	g.seed(start)
	if len(g.rows) == 0 {
		g.addRows(short())
	}
	y := make([]float64, n) // the current packing (zero off rows)
	pivots := 0
	for round := 0; ; round++ {
		if round == genRounds {
			return nil, fmt.Errorf("colgen: SolveCoverGen: no optimal cover after %d rounds (%d inputs, %d outputs kept)", genRounds, len(g.rows), len(g.cols))
		}
		md := g.model(func(int) float64 { return 1 })
		sol, err := solveRestricted(md, "a restricted covering LP")
		if err != nil {
			return nil, err
		}
		pivots += sol.Iterations
		g.setCover(x, sol.X)
		for r, i := range g.rows {
			y[i] = math.Abs(sol.RowDuals[r])
		}
		added := g.addRows(short())
		// Columns priced below their weight by the packing.
		load := make([]float64, m)
		g.addLoads(load, g.rows, y, nil, false)
		if !g.addOverloaded(load) && !added {
			break
		}
	}
	// Weights at the LP's rounding noise go: a flow along the cover would
	// route a few ulps of mass through them, and an output of so small a
	// marginal audits far above the ratio. Rows off the restricted LP are
	// covered to within genTol: rescale so that every input is covered.
	g.clearNoise(x)
	least := math.Inf(1)
	for i := range n {
		least = min(least, g.rowCover(i, x))
	}
	if !(least > 0) {
		return nil, errors.New("colgen: SolveCoverGen: the cover leaves an input uncovered")
	}
	c := g.cover(x, least, y, pivots)
	load := make([]float64, m)
	g.addLoads(load, inputs(n), y, nil, true)
	normalisePacking(c.Y, load)
	return c, nil
}

// SolveCuts solves the covering LP of pat at the ratio lambda with the
// prior's cuts: the cover of Cover bounds ε* for every prior, and where a
// prior is far from uniform (clustered check-ins) a mechanism at that
// bound may not exist, as the mass of a crowded set of inputs can not
// reach the outputs the cover uses. A mechanism with output marginal q
// and PML at most log λ exists exactly when the prior's mass flows to q
// along the pattern at most λπ_i q_j per pair (Flow), that is, by the
// max-flow min-cut theorem, when every set I of inputs has
//
//	Σ_j q_j min(1, λ π(I ∩ B_j)) ≥ π(I),
//
// B_j the inputs allowed for output j. With z = λq this is the row
// Σ_j z_j min(1/λ, π(I ∩ B_j))/π(I) ≥ 1; for a single input it is the
// cover's row (capped where λπ_i > 1), and an output with λπ(B_j) < 1 can
// carry no mass at λ. The LP minimises Σ_j z_j over the outputs usable at
// λ, subject to every input's row and to the rows of the sets in cuts
// (the cuts where a flow fell short, Flow's second result): λ is below ε*
// when its optimum exceeds λ. The packing (Y) is the dual weights spread
// over each set in proportion to the prior, Y_i = Σ_{I∋i} w_I π_i/π(I),
// so that Cover.Proof's multipliers α = Y − κπ are the cuts' potentials;
// certify.DualBound checks them on the whole pattern, which decides what
// they prove.
//
// The rows of single inputs and the columns are generated as in
// SolveCoverGen, from the covers in start; the cuts' rows are always in.
func SolveCuts(pi mech.Prior, pat mech.Pattern, lambda float64, cuts [][]int, start ...*Cover) (*Cover, error) {
	n := len(pat)
	if n == 0 || len(pi) != n {
		return nil, fmt.Errorf("colgen: SolveCuts: a pattern of %d rows for %d letters", n, len(pi))
	}
	if err := pat.Check(n); err != nil {
		return nil, err
	}
	if !(lambda >= 1) || math.IsInf(lambda, 1) {
		return nil, fmt.Errorf("colgen: SolveCuts: ratio %v", lambda)
	}
	m := len(pat[0])
	for _, cv := range start {
		if len(cv.X) != m || len(cv.Y) != n {
			return nil, fmt.Errorf("colgen: SolveCuts: a start cover of %d outputs and %d inputs for %d and %d", len(cv.X), len(cv.Y), m, n)
		}
	}
	mass := make([]float64, m) // π(B_j)
	for i := range n {
		for j, a := range pat[i] {
			if a {
				mass[j] += pi[i]
			}
		}
	}
	// An output usable only at a ratio within cutKeep of λ is kept: a
	// ratio reached by a proof can lie a few ulps below the one at which
	// the output becomes usable, when ε* is that output's bound; a flow
	// routes a hair above λ, and its mechanism is audited.
	kept := make([]bool, m)
	for j := range m {
		kept[j] = lambda*mass[j] >= 1-cutKeep
	}
	// single[i]: the coefficient of input i's row, min(1, 1/(λπ_i)).
	single := make([]float64, n)
	for i := range n {
		single[i] = min(1, 1/(lambda*pi[i]))
	}
	if i := stranded(pat, kept); i >= 0 {
		return nil, fmt.Errorf("%w: input %d has no output usable at ratio %v", ErrNoCover, i, lambda)
	}
	// The cuts' rows: a[r][j] = min(1/λ, π(I ∩ B_j))/π(I).
	cutRow := make([][]float64, len(cuts))
	cutMass := make([]float64, len(cuts))
	for r, set := range cuts {
		row := make([]float64, m)
		s := 0.0
		for _, i := range set {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("colgen: SolveCuts: cut %d names input %d of %d", r, i, n)
			}
			s += pi[i]
			for j, a := range pat[i] {
				if a {
					row[j] += pi[i]
				}
			}
		}
		if !(s > 0) {
			return nil, fmt.Errorf("colgen: SolveCuts: cut %d is empty", r)
		}
		for j := range row {
			row[j] = min(1/lambda, row[j]) / s
		}
		cutRow[r], cutMass[r] = row, s
	}
	g := newGenLP(pat, kept)
	x := make([]float64, m)
	cover := make([]float64, n)
	coverOf := func(i int) float64 { return single[i] * g.rowCover(i, x) }
	short := func() []int {
		var out []int
		for i := range n {
			cover[i] = coverOf(i)
			if !g.inR[i] && cover[i] < 1-genTol {
				out = append(out, i)
			}
		}
		slices.SortFunc(out, func(a, b int) int { return cmp.Compare(cover[a], cover[b]) })
		return out[:min(len(out), genAdd)]
	}
	g.seed(start)
	for _, row := range cutRow {
		// A cut's row needs a column too: its widest usable output.
		best := -1
		for j, v := range row {
			if v > 0 && kept[j] && (best < 0 || v > row[best]) {
				best = j
			}
		}
		if best < 0 {
			return nil, fmt.Errorf("%w: a cut reaches no output usable at ratio %v", ErrNoCover, lambda)
		}
		g.addCol(best)
	}
	if len(g.rows) == 0 {
		g.addRows(short())
	}
	y := make([]float64, n)
	w := make([]float64, len(cuts))
	pivots := 0
	for round := 0; ; round++ {
		if round == genRounds {
			return nil, fmt.Errorf("colgen: SolveCuts: no optimal cover after %d rounds (%d inputs, %d outputs kept)", genRounds, len(g.rows), len(g.cols))
		}
		// Input i's row divided by its coefficient: Σ z_j ≥ 1/single[i].
		md := g.model(func(i int) float64 { return 1 / single[i] })
		scale := make([]float64, len(cutRow))
		for r, row := range cutRow {
			// Scaled to a largest entry of 1, without the entries
			// below cutNoise of it (a stronger row: its cover covers
			// the cut all the same, and the proof is checked anyway),
			// which the simplex's pivoting does not take well.
			top := 0.0
			for _, j := range g.cols {
				top = max(top, row[j])
			}
			scale[r] = 1 / top
			var es []lp.Nonzero
			for k, j := range g.cols {
				if row[j] > cutNoise*top {
					es = append(es, lp.Entry(k, row[j]/top))
				}
			}
			md.AddRow(1/top, lp.Inf, "", es...)
		}
		sol, err := solveRestricted(md, "a restricted covering LP with cuts")
		if err != nil {
			return nil, err
		}
		if len(sol.RowDuals) != len(g.rows)+len(cutRow) || len(sol.X) != len(g.cols) {
			return nil, errors.New("colgen: a restricted covering LP with cuts: the backend gave no duals")
		}
		pivots += sol.Iterations
		g.setCover(x, sol.X)
		for r, i := range g.rows {
			y[i] = math.Abs(sol.RowDuals[r]) / single[i]
		}
		for r := range cutRow {
			w[r] = math.Abs(sol.RowDuals[len(g.rows)+r]) * scale[r]
		}
		added := g.addRows(short())
		load := make([]float64, m)
		g.addLoads(load, g.rows, y, single, false)
		for r, row := range cutRow {
			if w[r] > 0 {
				for j, v := range row {
					load[j] += w[r] * v
				}
			}
		}
		if !g.addOverloaded(load) && !added {
			break
		}
	}
	g.clearNoise(x)
	// Rescale so that every row, cut or input, is covered.
	least := math.Inf(1)
	for i := range n {
		least = min(least, coverOf(i))
	}
	for _, row := range cutRow {
		s := 0.0
		for _, j := range g.cols {
			s += x[j] * row[j]
		}
		least = min(least, s)
	}
	if !(least > 0) {
		return nil, errors.New("colgen: SolveCuts: the cover leaves an input uncovered")
	}
	c := g.cover(x, least, make([]float64, n), pivots)
	for _, i := range g.rows {
		c.Y[i] = y[i]
	}
	for r, set := range cuts {
		if w[r] > 0 {
			for _, i := range set {
				c.Y[i] += w[r] * pi[i] / cutMass[r]
			}
		}
	}
	// The packing's loads as the LP's dual rows weigh them (capped), at
	// most 1 up to the LP's rounding: normalise by the largest.
	load := make([]float64, m)
	g.addLoads(load, inputs(n), y, single, true)
	for r, row := range cutRow {
		if w[r] > 0 {
			for j, v := range row {
				if kept[j] {
					load[j] += w[r] * v
				}
			}
		}
	}
	normalisePacking(c.Y, load)
	return c, nil
}

// stranded returns the first input of pat that may use no kept output,
// or −1.
func stranded(pat mech.Pattern, kept []bool) int {
	for i, row := range pat {
		ok := false
		for j, a := range row {
			if a && kept[j] {
				ok = true
				break
			}
		}
		if !ok {
			return i
		}
	}
	return -1
}

// genLP is the restricted LP of SolveCoverGen and SolveCuts: the
// outputs (columns) and inputs (rows) generated so far, in the order
// they came in.
type genLP struct {
	pat  mech.Pattern
	kept []bool // the outputs a column may be
	// size[j]: the inputs output j may serve (the column's weight in a
	// cover of an uncovered input is chosen by it).
	size       []int
	inC, inR   []bool
	cols, rows []int
}

func newGenLP(pat mech.Pattern, kept []bool) *genLP {
	m := len(kept)
	g := &genLP{pat: pat, kept: kept, size: make([]int, m), inC: make([]bool, m), inR: make([]bool, len(pat))}
	for i := range pat {
		for j, a := range pat[i] {
			if a {
				g.size[j]++
			}
		}
	}
	return g
}

func (g *genLP) addCol(j int) {
	if !g.inC[j] {
		g.inC[j] = true
		g.cols = append(g.cols, j)
	}
}

func (g *genLP) addRow(i int) {
	if g.inR[i] {
		return
	}
	g.inR[i] = true
	g.rows = append(g.rows, i)
	// A row of the restricted LP needs a column: the widest output it
	// may use, when none is in yet.
	best := -1
	for j, a := range g.pat[i] {
		if a && g.kept[j] {
			if g.inC[j] {
				return
			}
			if best < 0 || g.size[j] > g.size[best] {
				best = j
			}
		}
	}
	g.addCol(best)
}

// addRows adds the rows of the inputs is and reports whether there were
// any.
func (g *genLP) addRows(is []int) bool {
	for _, i := range is {
		g.addRow(i)
	}
	return len(is) > 0
}

// model is the restricted LP: a column of cost 1 for each output in, and
// for each input in the row Σ_j z_j ≥ rhs(i) over the outputs it may use.
func (g *genLP) model(rhs func(i int) float64) *lp.Model {
	md := &lp.Model{}
	for range g.cols {
		md.AddCol(1, 0, lp.Inf, "")
	}
	for _, i := range g.rows {
		var es []lp.Nonzero
		for k, j := range g.cols {
			if g.pat[i][j] {
				es = append(es, lp.Entry(k, 1))
			}
		}
		md.AddRow(rhs(i), lp.Inf, "", es...)
	}
	return md
}

// solveRestricted solves md, named what in its errors, to optimality.
func solveRestricted(md *lp.Model, what string) (*solver.Solution, error) {
	sol, err := solver.Auto().Solve(md)
	if err != nil {
		return nil, fmt.Errorf("colgen: %s: %w", what, err)
	}
	if sol.Status != solver.Optimal {
		return nil, fmt.Errorf("colgen: %s: %v", what, sol.Status)
	}
	return sol, nil
}

// addLoads adds to load, input by input in the order of is, the packing's
// weight y[i] (times coef[i] where coef is not nil) on each output input i
// may use (each kept one, when onlyKept).
func (g *genLP) addLoads(load []float64, is []int, y, coef []float64, onlyKept bool) {
	for _, i := range is {
		if !(y[i] > 0) {
			continue
		}
		for j, a := range g.pat[i] {
			if !a || onlyKept && !g.kept[j] {
				continue
			}
			if coef == nil {
				load[j] += y[i]
			} else {
				load[j] += y[i] * coef[i]
			}
		}
	}
}

// inputs returns the inputs 0, …, n−1.
func inputs(n int) []int {
	is := make([]int, n)
	for i := range is {
		is[i] = i
	}
	return is
}

// rowCover is Σ_j x_j over the columns input i may use.
func (g *genLP) rowCover(i int, x []float64) float64 {
	s := 0.0
	for _, j := range g.cols {
		if g.pat[i][j] {
			s += x[j]
		}
	}
	return s
}

// seed makes the first columns and rows: the kept outputs the start's
// covers use and the inputs their packings weigh.
func (g *genLP) seed(start []*Cover) {
	for _, cv := range start {
		for j, v := range cv.X {
			if v > 0 && g.kept[j] {
				g.addCol(j)
			}
		}
	}
	for _, cv := range start {
		for i, v := range cv.Y {
			if v > 0 {
				g.addRow(i)
			}
		}
	}
}

// setCover sets x on the columns to the restricted LP's solution xs
// (clipped at 0: the backend may return a weight a few ulps below).
func (g *genLP) setCover(x, xs []float64) {
	for k, j := range g.cols {
		x[j] = max(0, xs[k])
	}
}

// addOverloaded adds the columns of the kept outputs that the packing
// prices below their weight (load above 1), the genAdd heaviest, and
// reports whether it added any.
func (g *genLP) addOverloaded(load []float64) bool {
	var over []int
	for j := range load {
		if g.kept[j] && !g.inC[j] && load[j] > 1+genTol {
			over = append(over, j)
		}
	}
	slices.SortFunc(over, func(a, b int) int { return cmp.Compare(load[b], load[a]) })
	for _, j := range over[:min(len(over), genAdd)] {
		g.addCol(j)
	}
	return len(over) > 0
}

// clearNoise zeroes the columns' weights at the LP's rounding noise
// (genNoise of the largest).
func (g *genLP) clearNoise(x []float64) {
	top := 0.0
	for _, j := range g.cols {
		top = max(top, x[j])
	}
	for _, j := range g.cols {
		if x[j] <= genNoise*top {
			x[j] = 0
		}
	}
}

// cover is the Cover of weights x on the columns, rescaled by the
// shortest row's cover least when that is below 1, with packing y.
func (g *genLP) cover(x []float64, least float64, y []float64, pivots int) *Cover {
	c := &Cover{X: make([]float64, len(x)), Y: y, Pivots: pivots}
	for _, j := range g.cols {
		c.X[j] = x[j] / min(1, least)
		c.Tau += c.X[j]
	}
	return c
}

// normalisePacking divides the packing y by the largest of the loads it puts on
// the outputs, when that is positive.
func normalisePacking(y, load []float64) {
	worst := 0.0
	for _, v := range load {
		worst = max(worst, v)
	}
	if worst > 0 {
		for i := range y {
			y[i] /= worst
		}
	}
}

// cutKeep is how far below 1 the product λπ(B_j) of an output SolveCuts
// keeps may lie.
const cutKeep = 1e-9

// cutNoise is the relative size below which SolveCuts leaves a cut's
// entry out of the restricted LP.
const cutNoise = 1e-9

// ErrNoCover is SolveCuts' error when an input, or a cut, has no output
// that can carry mass at the ratio: the ratio is below ε* (the pruning
// bound proves it).
var ErrNoCover = errors.New("colgen: no cover at this ratio")
