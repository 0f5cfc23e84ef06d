package ipm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/mech"
)

// PurifiedVertex turns r, a point Solve returned for p, into a vertex of
// the ε-PML polytope whose expected utility is at least r's (within a
// relative valueSlack), without an LP: it moves the point inside the face
// the point lies on, never lowering the expected utility, until the face
// is a vertex. It does for problems with many inputs and few outputs (the
// restricted problems of package expected's active set) what Vertex does
// with the face LP, whose simplex grows faster than the face; the result
// is audited the same way, and certified by r's bound.
//
// The face: each pair is at 0, at its cap p_ij = t q_j, or free between
// them (read off r as Vertex reads it), and the equations are the rows
// Σ_j p_ij = 1 and the marginals q_j = Σ_i π_i p_ij. The free pairs are
// the edges of a bipartite graph on the inputs and outputs.
//
//  1. With the marginals q fixed, every cycle of that graph is a direction
//     of the face (alternately +1/π_i and −1/π_i along it, as in the
//     transportation problem): each cycle closed by a free pair is
//     followed, in the direction that does not lower the expected
//     utility, until one of its pairs reaches 0 or its cap and leaves the
//     graph. What is left is a forest.
//  2. On a forest, the free pairs are determined by q, and each tree gives
//     one linear equation on q (its rows and marginals summed with the
//     weights π_i and 1, in which its own pairs cancel). While those
//     equations leave a direction of q free, the point moves along it
//     (the tree's pairs following) until a pair reaches 0 or its cap, or
//     an output's mass reaches 0: each such stop adds an equation.
//  3. When the equations fix q, the vertex is solved for exactly from
//     them (q, then each tree's pairs), so that its rows and marginals
//     hold to rounding and no pair exceeds its cap.
//
// The caps are taken a relative budgetShrink inside ε, as Vertex's face
// LP takes them. Errors wrap ErrNoVertex; the caller falls back on
// CertifiedVertex. Its errors wrap ErrNotConverged as well when the
// vertex is certified to no better than opt.Gap (AcceptedGap when 0).
func PurifiedVertex(p Problem, r *Result, opt Options) (*Result, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if r == nil || !sameDims(r.Mechanism, p.Utility) {
		return nil, fmt.Errorf("%w: no point of the problem's shape to start from", ErrNoVertex)
	}
	p.Prior = normalised(p.Prior)
	var used, capped mech.Pattern
	if r.face != nil {
		used, capped = r.face.used, r.face.capped
	} else {
		used, capped = thresholdFace(p, r.Mechanism, supportEntry, capSlack)
	}
	eps := max(0, p.Epsilon*(1-budgetShrink)-budgetShrink)
	pu := newPurifier(p, r.Mechanism, used, capped, math.Exp(eps))
	if err := pu.cancelCycles(opt); err != nil {
		return nil, err
	}
	P, err := pu.fixMarginals(opt)
	if err != nil {
		return nil, err
	}
	v, err := auditVertex(p, r, P, "purified vertex")
	if err != nil {
		return nil, err
	}
	out := &Result{Mechanism: P, Value: v, Bound: r.Bound, Alpha: r.Alpha, Iterations: r.Iterations}
	if !out.valid() {
		return nil, fmt.Errorf("%w: the purified vertex's value %.17g exceeds the bound %.17g", ErrNoVertex, v, out.Bound)
	}
	accept := opt.Gap
	if accept == 0 {
		accept = AcceptedGap
	}
	if out.Bound-out.Value > accept*max(1, math.Abs(out.Value)) {
		return out, ErrNotConverged
	}
	return out, nil
}

// The states of a pair in the purification.
const (
	pairZero int8 = iota
	pairCapped
	pairFree
)

// boundTol is the relative distance to a bound (0 or the cap t q_j) at
// which a free pair of the purification counts as at the bound, and
// massTol the output mass below which an output counts as unused.
const (
	boundTol = 1e-12
	massTol  = 1e-14
)

// purifier is the state of PurifiedVertex: nodes 0..n−1 are the inputs,
// n..n+m−1 the outputs; adj holds the forest of free pairs.
type purifier struct {
	n, m  int
	pi    []float64
	u     mech.Utility
	t     float64
	q     []float64
	x     [][]float64 // free pairs' values
	state [][]int8
	adj   [][]int
	// scratch of the searches
	prev  []int
	stamp []int
	visit int
}

func newPurifier(p Problem, x mech.Mechanism, used, capped mech.Pattern, t float64) *purifier {
	n, m := p.Utility.Dims()
	pu := &purifier{n: n, m: m, pi: p.Prior, u: p.Utility, t: t, q: make([]float64, m),
		x: make([][]float64, n), state: make([][]int8, n), adj: make([][]int, n+m),
		prev: make([]int, n+m), stamp: make([]int, n+m)}
	for i, row := range x {
		for j, v := range row {
			pu.q[j] += p.Prior[i] * v
		}
	}
	for i := range n {
		pu.x[i] = make([]float64, m)
		pu.state[i] = make([]int8, m)
		for j := range m {
			switch {
			case !(pu.q[j] > massTol) || !used[i][j]:
			case capped[i][j]:
				pu.state[i][j] = pairCapped
			default:
				pu.state[i][j] = pairFree
				pu.x[i][j] = min(x[i][j], t*pu.q[j])
			}
		}
	}
	for j := range m {
		if !(pu.q[j] > massTol) {
			pu.q[j] = 0
		}
	}
	return pu
}

func (pu *purifier) link(a, b int) {
	pu.adj[a] = append(pu.adj[a], b)
	pu.adj[b] = append(pu.adj[b], a)
}

func (pu *purifier) unlink(a, b int) {
	drop := func(s []int, v int) []int {
		for k, w := range s {
			if w == v {
				s[k] = s[len(s)-1]
				return s[:len(s)-1]
			}
		}
		return s
	}
	pu.adj[a] = drop(pu.adj[a], b)
	pu.adj[b] = drop(pu.adj[b], a)
}

// path returns the nodes of the forest's path from a to b (a first), or
// nil when they lie in different trees.
func (pu *purifier) path(a, b int) []int {
	pu.visit++
	pu.stamp[a], pu.prev[a] = pu.visit, -1
	queue := []int{a}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		if v == b {
			var out []int
			for w := b; w >= 0; w = pu.prev[w] {
				out = append(out, w)
			}
			for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
				out[l], out[r] = out[r], out[l]
			}
			return out
		}
		for _, w := range pu.adj[v] {
			if pu.stamp[w] != pu.visit {
				pu.stamp[w], pu.prev[w] = pu.visit, v
				queue = append(queue, w)
			}
		}
	}
	return nil
}

// pairOf returns the input and output of the edge between nodes a and b.
func (pu *purifier) pairOf(a, b int) (int, int) {
	if a < pu.n {
		return a, b - pu.n
	}
	return b, a - pu.n
}

// settle sets the free pair (i, j) to the bound it has reached.
func (pu *purifier) settle(i, j int, capped bool) {
	if capped {
		pu.state[i][j] = pairCapped
	} else {
		pu.state[i][j] = pairZero
	}
	pu.x[i][j] = 0
}

// cancelCycles is step 1 of PurifiedVertex.
func (pu *purifier) cancelCycles(opt Options) error {
	n := pu.n
	uf := make([]int, n+pu.m)
	for k := range uf {
		uf[k] = k
	}
	find := func(a int) int {
		for uf[a] != a {
			uf[a] = uf[uf[a]]
			a = uf[a]
		}
		return a
	}
	ctx := opt.ctx()
	type edge struct {
		i, j int
		f    float64
	}
	var cyc []edge
	for i := range n {
		if i%64 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for j := range pu.m {
			if pu.state[i][j] != pairFree {
				continue
			}
			a, b := i, n+j
			if ra, rb := find(a), find(b); ra != rb {
				uf[ra] = rb
				pu.link(a, b)
				continue
			}
			nodes := pu.path(a, b)
			if nodes == nil {
				pu.link(a, b)
				continue
			}
			// The cycle: (i, j) with +1, then the path's pairs alternately
			// −1, +1, … (in units of π_i p_ij).
			cyc = append(cyc[:0], edge{i, j, 1})
			sign := -1.0
			for k := 1; k < len(nodes); k++ {
				ii, jj := pu.pairOf(nodes[k-1], nodes[k])
				cyc = append(cyc, edge{ii, jj, sign})
				sign = -sign
			}
			gain := 0.0
			for _, e := range cyc {
				gain += e.f * pu.u[e.i][e.j]
			}
			dir := 1.0
			if gain < 0 {
				dir = -1
			}
			theta, leave, toCap := math.Inf(1), 0, false
			for k, e := range cyc {
				d := dir * e.f / pu.pi[e.i]
				room, up := pu.x[e.i][e.j]/-d, false
				if d > 0 {
					room, up = (pu.t*pu.q[e.j]-pu.x[e.i][e.j])/d, true
				}
				if room = max(room, 0); room < theta {
					theta, leave, toCap = room, k, up
				}
			}
			for _, e := range cyc {
				pu.x[e.i][e.j] += theta * dir * e.f / pu.pi[e.i]
			}
			l := cyc[leave]
			pu.settle(l.i, l.j, toCap)
			if leave != 0 {
				pu.unlink(l.i, n+l.j)
				pu.link(a, b)
			}
		}
	}
	return nil
}

// components labels the forest's trees: comp[v] for every node (the trees
// numbered in the order of their lowest-numbered node, which is the order
// of their equations and so of nullSpace's pivots), order the nodes tree
// by tree in breadth-first order from each tree's root, and parent[v] the
// node before v (−1 at a root).
//
// The root's equation is the one treeSolve does not impose: it holds only
// up to the rounding of the tree's other equations, so the root is the
// node that takes that rounding best. An input's row carries it divided
// by π_i (the tree's equation weighs the rows by π_i), an output's
// marginal relative to q_j; so the root is the tree's node of largest
// mass, π_i or q_j (on a grid an output, whose mass is tens to hundreds
// of times an input's). With an input of mass 6e-6 as root, rounding of
// 1e-16 leaves a row summing to 1 − 5e-11, and the caps exceed ε by as
// much once the row is normalised.
func (pu *purifier) components() (comp, order, parent []int, count int) {
	total := pu.n + pu.m
	comp, parent = make([]int, total), make([]int, total)
	for v := range comp {
		comp[v] = -1
	}
	weight := func(v int) float64 { // the scale the root's rounding is divided by
		if v < pu.n {
			return pu.pi[v]
		}
		return pu.q[v-pu.n]
	}
	seen := make([]bool, total)
	var members []int
	order = make([]int, 0, total)
	for low := range total {
		if comp[low] >= 0 {
			continue
		}
		// The tree of its lowest node (trees are numbered in that order,
		// the order of their equations), and its heaviest node.
		members = append(members[:0], low)
		comp[low] = count
		root := low
		for k := 0; k < len(members); k++ {
			v := members[k]
			if weight(v) > weight(root) {
				root = v
			}
			for _, w := range pu.adj[v] {
				if comp[w] < 0 {
					comp[w] = count
					members = append(members, w)
				}
			}
		}
		// Breadth-first from the root.
		seen[root], parent[root] = true, -1
		start := len(order)
		order = append(order, root)
		for k := start; k < len(order); k++ {
			v := order[k]
			for _, w := range pu.adj[v] {
				if !seen[w] {
					seen[w], parent[w] = true, v
					order = append(order, w)
				}
			}
		}
		count++
	}
	return comp, order, parent, count
}

// equations returns one row per tree of the forest: the coefficients of
// q (over every output) and the right-hand side of the tree's rows and
// marginals summed (weights π_i and 1), and mag, the sums of the terms'
// magnitudes behind each coefficient (the scale of its rounding: an
// output's 1 − t Σ π_i can cancel to rounding).
func (pu *purifier) equations(comp []int, count int) (c, mag [][]float64, rhs []float64) {
	c, mag = make([][]float64, count), make([][]float64, count)
	for k := range c {
		c[k], mag[k] = make([]float64, pu.m), make([]float64, pu.m)
	}
	rhs = make([]float64, count)
	capMass := pu.capMass()
	for i := range pu.n {
		k := comp[i]
		rhs[k] += pu.pi[i]
		for j, s := range pu.state[i] {
			if s == pairCapped {
				c[k][j] += pu.t * pu.pi[i]
				mag[k][j] += pu.t * pu.pi[i]
			}
		}
	}
	for j := range pu.m {
		k := comp[pu.n+j]
		c[k][j] += 1 - pu.t*capMass[j]
		mag[k][j] += 1 + pu.t*capMass[j]
	}
	return c, mag, rhs
}

// capMass returns Σ_{i capped in j} π_i for every output j.
func (pu *purifier) capMass() []float64 {
	out := make([]float64, pu.m)
	for i, row := range pu.state {
		for j, s := range row {
			if s == pairCapped {
				out[j] += pu.pi[i]
			}
		}
	}
	return out
}

// nullSpace returns a basis of the directions dq of the outputs in live
// (zero elsewhere) that every row of c leaves at 0, as columns of length
// m, and the rows that cut it down (an independent set).
func nullSpace(c, mag [][]float64, live []bool) (z [][]float64, pivots []int) {
	m := len(live)
	for j := range m {
		if live[j] {
			col := make([]float64, m)
			col[j] = 1
			z = append(z, col)
		}
	}
	v := make([]float64, 0, len(z))
	for k, row := range c {
		if len(z) == 0 {
			break
		}
		scale := 0.0
		for j, a := range mag[k] {
			if live[j] {
				scale += a
			}
		}
		if scale == 0 {
			continue
		}
		v = v[:0]
		best, at := 0.0, -1
		for b, col := range z {
			s := 0.0
			for j, a := range row {
				if a != 0 {
					s += a * col[j]
				}
			}
			v = append(v, s)
			if math.Abs(s) > best {
				best, at = math.Abs(s), b
			}
		}
		if best <= 1e-10*scale {
			continue
		}
		pivots = append(pivots, k)
		pc := z[at]
		for b, col := range z {
			if b == at || v[b] == 0 {
				continue
			}
			f := v[b] / v[at]
			mx := 0.0
			for j := range col {
				col[j] -= f * pc[j]
				mx = max(mx, math.Abs(col[j]))
			}
			if mx > 0 {
				for j := range col {
					col[j] /= mx
				}
			}
		}
		z[at] = z[len(z)-1]
		z = z[:len(z)-1]
	}
	return z, pivots
}

// treeSolve sets, for every free pair of the forest, the value (or
// direction) that meets each input's equation Σ_free p_ij = a_i and each
// output's Σ_free π_i p_ij = b_j, leaves to roots; each root's own
// equation holds when the tree's equation on q does (solveVertex checks
// those).
func (pu *purifier) treeSolve(order, parent []int, a, b []float64, set func(i, j int, v float64)) {
	n := pu.n
	acc := make([]float64, n+pu.m)
	for k := len(order) - 1; k >= 0; k-- {
		v := order[k]
		var want float64
		if v < n {
			want = a[v]
		} else {
			want = b[v-n]
		}
		w := parent[v]
		if w < 0 {
			continue
		}
		i, j := pu.pairOf(v, w)
		var d float64
		if v < n {
			d = want - acc[v] // the edge's own term at an input
			acc[w] += pu.pi[i] * d
		} else {
			d = (want - acc[v]) / pu.pi[i]
			acc[w] += d
		}
		set(i, j, d)
	}
}

// rhs returns the right-hand sides a (inputs) and b (outputs) of
// treeSolve for the outputs' masses (or their direction) dq: values when
// values is set (a_i = 1 − t Σ_capped q_j), directions otherwise.
func (pu *purifier) rhs(dq, capMass []float64, values bool) (a, b []float64) {
	a, b = make([]float64, pu.n), make([]float64, pu.m)
	for i, row := range pu.state {
		s := 0.0
		for j, st := range row {
			if st == pairCapped {
				s += dq[j]
			}
		}
		a[i] = -pu.t * s
		if values {
			a[i]++
		}
	}
	for j := range pu.m {
		b[j] = (1 - pu.t*capMass[j]) * dq[j]
	}
	return a, b
}

// fixMarginals runs steps 2 and 3 of PurifiedVertex and returns the
// vertex.
func (pu *purifier) fixMarginals(opt Options) (mech.Mechanism, error) {
	ctx := opt.ctx()
	n, m := pu.n, pu.m
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, m)
	}
	for step := 0; ; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if step > n+m {
			return nil, fmt.Errorf("%w: the purification did not reach a vertex", ErrNoVertex)
		}
		comp, order, parent, count := pu.components()
		c, mag, rhs := pu.equations(comp, count)
		live := make([]bool, m)
		for j, q := range pu.q {
			live[j] = q > 0
		}
		z, pivots := nullSpace(c, mag, live)
		capMass := pu.capMass()
		if len(z) == 0 {
			return pu.solveVertex(c, mag, rhs, pivots, live, order, parent, capMass)
		}
		dq := z[0]
		a, b := pu.rhs(dq, capMass, false)
		for i := range d {
			clear(d[i])
		}
		pu.treeSolve(order, parent, a, b, func(i, j int, v float64) { d[i][j] = v })
		gain := 0.0
		for i, row := range pu.state {
			for j, st := range row {
				switch st {
				case pairFree:
					gain += pu.pi[i] * pu.u[i][j] * d[i][j]
				case pairCapped:
					gain += pu.pi[i] * pu.u[i][j] * pu.t * dq[j]
				}
			}
		}
		dir := 1.0
		if gain < 0 {
			dir = -1
		}
		theta := math.Inf(1)
		for j := range m {
			if live[j] && dir*dq[j] < 0 {
				theta = min(theta, pu.q[j]/(-dir*dq[j]))
			}
		}
		for i, row := range pu.state {
			for j, st := range row {
				if st != pairFree {
					continue
				}
				dd := dir * d[i][j]
				if dd < 0 {
					theta = min(theta, pu.x[i][j]/-dd)
				}
				if slope := dd - pu.t*dir*dq[j]; slope > 0 {
					theta = min(theta, (pu.t*pu.q[j]-pu.x[i][j])/slope)
				}
			}
		}
		if math.IsInf(theta, 1) || math.IsNaN(theta) {
			return nil, fmt.Errorf("%w: an unbounded direction in the purification", ErrNoVertex)
		}
		theta = max(theta, 0)
		for j := range m {
			if live[j] {
				pu.q[j] += theta * dir * dq[j]
			}
		}
		moved := false
		for i, row := range pu.state {
			for j, st := range row {
				if st != pairFree {
					continue
				}
				pu.x[i][j] += theta * dir * d[i][j]
				cp := pu.t * pu.q[j]
				switch {
				case pu.x[i][j] <= boundTol*cp:
					pu.settle(i, j, false)
				case pu.x[i][j] >= cp*(1-boundTol):
					pu.settle(i, j, true)
				default:
					continue
				}
				pu.unlink(i, n+j)
				moved = true
			}
		}
		for j := range m {
			if live[j] && pu.q[j] <= massTol {
				pu.q[j] = 0
				for i := range n {
					if pu.state[i][j] == pairFree {
						pu.unlink(i, n+j)
					}
					pu.settle(i, j, false)
				}
				moved = true
			}
		}
		if !moved {
			return nil, fmt.Errorf("%w: a step of the purification reached no bound", ErrNoVertex)
		}
	}
}

// solveVertex is step 3 of PurifiedVertex: q from the independent tree
// equations pivots (checked against all of them), then the free pairs.
func (pu *purifier) solveVertex(c, mag [][]float64, rhs []float64, pivots []int, live []bool, order, parent []int, capMass []float64) (mech.Mechanism, error) {
	n, m := pu.n, pu.m
	var cols []int
	for j, l := range live {
		if l {
			cols = append(cols, j)
		}
	}
	if len(pivots) != len(cols) {
		return nil, fmt.Errorf("%w: %d tree equations for %d output masses", ErrNoVertex, len(pivots), len(cols))
	}
	q := make([]float64, m)
	if k := len(cols); k > 0 {
		a := mat.NewDense(k, k, nil)
		bv := mat.NewVecDense(k, nil)
		for r, row := range pivots {
			for cc, j := range cols {
				a.Set(r, cc, c[row][j])
			}
			bv.SetVec(r, rhs[row])
		}
		var sol mat.VecDense
		if err := sol.SolveVec(a, bv); err != nil {
			return nil, fmt.Errorf("%w: the tree equations: %v", ErrNoVertex, err)
		}
		for cc, j := range cols {
			q[j] = sol.AtVec(cc)
		}
	}
	for k, row := range c {
		s, size := 0.0, math.Abs(rhs[k])
		for j, v := range row {
			s += v * q[j]
			size += mag[k][j] * math.Abs(q[j])
		}
		if math.Abs(s-rhs[k]) > 1e-9*max(size, 1e-300) {
			return nil, fmt.Errorf("%w: the tree equations disagree (residual %g)", ErrNoVertex, s-rhs[k])
		}
	}
	for j := range m {
		if q[j] < 0 {
			if q[j] < -massTol {
				return nil, fmt.Errorf("%w: output %d's mass %g is negative", ErrNoVertex, j, q[j])
			}
			q[j] = 0
		}
	}
	P := mech.Zeros(n, m)
	a, b := pu.rhs(q, capMass, true)
	// The tree solve subtracts entries of at most 1 along paths of up to
	// n+m pairs, so its rounding reaches a few units in the last place per
	// step: an entry within treeRounding of a bound is at it, whatever the
	// cap's size. A support that is not a vertex's misses by far more.
	treeRounding := 4 * float64(n+m) * certify.UnitRoundoff
	var bad error
	pu.treeSolve(order, parent, a, b, func(i, j int, v float64) {
		cp := pu.t * q[j]
		slack := max(boundTol*cp, treeRounding)
		if v < -slack || v > cp+slack {
			bad = fmt.Errorf("%w: pair (%d, %d) at %g outside [0, %g]", ErrNoVertex, i, j, v, cp)
		}
		P[i][j] = min(max(v, 0), cp)
	})
	if bad != nil {
		return nil, bad
	}
	for i, row := range pu.state {
		for j, st := range row {
			if st == pairCapped {
				P[i][j] = pu.t * q[j]
			}
		}
	}
	return P, nil
}
