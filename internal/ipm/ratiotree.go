package ipm

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pmlopt/pmlopt/mech"
)

// The states of a pair in a face of SolveRatio's polytopes.
const (
	ratioOff   int8 = iota // the output is unused: p_ij = 0
	ratioUpper             // p_ij = t_j
	ratioLower             // p_ij = κ t_j
	ratioFree              // κ t_j ≤ p_ij ≤ t_j
)

// errRatioTree is wrapped by the errors of the purification of
// SolveRatio's points: the face is not a vertex, or its equations have no
// solution within the caps.
var errRatioTree = errors.New("ipm: no vertex of the ratio polytope on the face")

// ratioTreeSlack is the relative distance, in units of t_j, by which a
// solved free pair may pass a cap before the face counts as misread: a
// vertex solved from its equations meets them to rounding.
const ratioTreeSlack = 1e-11

// ratioFace is a point of SolveRatio's polytope (form) on a face: each pair
// of a used output at its upper cap t_j, its lower cap κ t_j, or free
// between them (value x_ij), the pairs of unused outputs at 0. The
// equations are the rows Σ_j p_ij = 1 and, for LIP and ALIP, the marginals
// Σ_i π_i p_ij = μ t_j.
//
// A vertex has no direction left in its face. With t fixed, a cycle of
// free pairs in the bipartite graph on inputs and outputs (alternately
// +1/π_i and −1/π_i along it) keeps every row and marginal, and so, for
// LDP, do two free pairs of one row: at a vertex the free pairs are a
// forest (for LDP at most one per row). On a forest, as in the
// transportation problem (Dantzig 1951; Ahuja, Magnanti & Orlin 1993,
// §11.4), each tree gives one equation on t alone, its rows weighted by
// π_i plus its marginals, in which its free pairs cancel (for LDP: each
// row without a free pair), and the free pairs follow from t by peeling
// the trees' leaves. A vertex is a forest whose equations fix t.
type ratioFace struct {
	n, m  int
	pi    []float64
	u     mech.Utility
	form  capForm
	state [][]int8
	x     [][]float64 // free pairs' values
	t     []float64
}

// purifyRatio moves the point P (rows summing to 1, within the budget of
// form up to the interior point's tolerance) on the face state to a vertex
// of the polytope, never lowering the expected utility beyond rounding,
// and returns that vertex solved from its equations (solve). As
// PurifiedVertex does for ε-PML:
//
//  1. with t fixed, each cycle of free pairs (for LDP each second free
//     pair of a row) is followed in the direction that does not lower the
//     expected utility until a pair reaches a cap;
//  2. while the trees' equations leave a direction of t free, the point
//     moves along it (the free pairs following) until a pair reaches a
//     cap or an output's cap reaches 0.
func purifyRatio(pi []float64, u mech.Utility, form capForm, P mech.Mechanism, state [][]int8) (mech.Mechanism, error) {
	n, m := P.Dims()
	f := &ratioFace{n: n, m: m, pi: pi, u: u, form: form, state: state, x: make([][]float64, n), t: make([]float64, m)}
	for j := range m {
		for i := range n {
			if state[i][j] == ratioOff {
				continue
			}
			if form.marg {
				f.t[j] += pi[i] * P[i][j]
			} else {
				f.t[j] = max(f.t[j], P[i][j])
			}
		}
		if form.marg {
			f.t[j] /= form.mu
		}
	}
	for i := range n {
		f.x[i] = make([]float64, m)
		for j := range m {
			if state[i][j] == ratioFree {
				f.x[i][j] = min(f.t[j], max(form.kappa*f.t[j], P[i][j]))
			}
		}
	}
	f.cancelCycles()
	if err := f.fixCaps(); err != nil {
		return nil, err
	}
	return f.solve()
}

// gain returns π_i u_ij, the expected utility per unit of pair (i, j).
func (f *ratioFace) gain(i, j int) float64 { return f.pi[i] * f.u[i][j] }

// cancelCycles is step 1 of purifyRatio.
func (f *ratioFace) cancelCycles() {
	kap := f.form.kappa
	// move shifts the pairs e by a·d (d per pair) for the longest a ≥ 0
	// that keeps them between their caps, and fixes the blocking pair at
	// its cap; it returns that pair's index in e.
	move := func(e [][2]int, d []float64) int {
		g := 0.0
		for k, p := range e {
			g += d[k] * f.gain(p[0], p[1])
		}
		if g < 0 {
			for k := range d {
				d[k] = -d[k]
			}
		}
		a, block := math.Inf(1), -1
		for k, p := range e {
			i, j := p[0], p[1]
			var room float64
			switch {
			case d[k] > 0:
				room = (f.t[j] - f.x[i][j]) / d[k]
			case d[k] < 0:
				room = (f.x[i][j] - kap*f.t[j]) / -d[k]
			default:
				continue
			}
			if room < a {
				a, block = max(0, room), k
			}
		}
		for k, p := range e {
			f.x[p[0]][p[1]] += a * d[k]
		}
		i, j := e[block][0], e[block][1]
		if d[block] > 0 {
			f.state[i][j], f.x[i][j] = ratioUpper, 0
		} else {
			f.state[i][j], f.x[i][j] = ratioLower, 0
		}
		return block
	}
	if !f.form.marg {
		for i := range f.n {
			var free []int
			for j := range f.m {
				if f.state[i][j] == ratioFree {
					free = append(free, j)
				}
			}
			for len(free) > 1 {
				a, b := free[0], free[1]
				k := move([][2]int{{i, a}, {i, b}}, []float64{1, -1})
				free = append(free[:k], free[k+1:]...)
			}
		}
		return
	}
	// The forest grows one free pair at a time; a pair that closes a
	// cycle is cancelled with it, and whichever pair blocks leaves.
	adj := make([][]int, f.n+f.m)
	remove := func(a, b int) {
		for k, v := range adj[a] {
			if v == b {
				adj[a] = append(adj[a][:k], adj[a][k+1:]...)
				break
			}
		}
	}
	prev := make([]int, f.n+f.m)
	for i := range f.n {
		for j := range f.m {
			if f.state[i][j] != ratioFree {
				continue
			}
			path := f.path(adj, prev, i, n2(f, j))
			if path == nil {
				adj[i] = append(adj[i], n2(f, j))
				adj[n2(f, j)] = append(adj[n2(f, j)], i)
				continue
			}
			// The cycle: the new pair (i, j) with +1/π_i, then the path
			// from i to output j, alternately −1/π_r and +1/π_r.
			e := [][2]int{{i, j}}
			d := []float64{1 / f.pi[i]}
			sign := -1.0
			for k := 0; k+1 < len(path); k++ {
				a, b := path[k], path[k+1]
				r, o := min(a, b), max(a, b)-f.n
				e = append(e, [2]int{r, o})
				d = append(d, sign/f.pi[r])
				sign = -sign
			}
			k := move(e, d)
			if k == 0 {
				continue
			}
			r, o := e[k][0], e[k][1]
			remove(r, o+f.n)
			remove(o+f.n, r)
			adj[i] = append(adj[i], n2(f, j))
			adj[n2(f, j)] = append(adj[n2(f, j)], i)
		}
	}
}

// n2 is output j's node.
func n2(f *ratioFace, j int) int { return f.n + j }

// path returns the nodes of the forest adj from a to b (a first), or nil
// when they are in different trees; prev is scratch.
func (f *ratioFace) path(adj [][]int, prev []int, a, b int) []int {
	if len(adj[a]) == 0 || len(adj[b]) == 0 {
		return nil
	}
	for k := range prev {
		prev[k] = -2
	}
	prev[a] = -1
	queue := []int{a}
	for len(queue) > 0 && prev[b] == -2 {
		v := queue[0]
		queue = queue[1:]
		for _, o := range adj[v] {
			if prev[o] == -2 {
				prev[o] = v
				queue = append(queue, o)
			}
		}
	}
	if prev[b] == -2 {
		return nil
	}
	var out []int
	for v := b; v != -1; v = prev[v] {
		out = append(out, v)
	}
	for l, r := 0, len(out)-1; l < r; l, r = l+1, r-1 {
		out[l], out[r] = out[r], out[l]
	}
	return out
}

// system is the trees' equations A t = b on the used outputs' caps (tcol
// maps an output to its column, −1 when unused), with c_j = μ − Σ_{U_j}
// π_i − κ Σ_{L_j} π_i, the forest's adjacency, and, for LDP, the free pair
// of each row (−1 for none).
type ratioSystem struct {
	A    *mat.Dense
	b    *mat.VecDense
	tcol []int
	mu   int
	c    []float64
	adj  [][]int
}

func (f *ratioFace) system() (*ratioSystem, error) {
	n, m, kap := f.n, f.m, f.form.kappa
	s := &ratioSystem{tcol: make([]int, m), c: make([]float64, m), adj: make([][]int, n+m)}
	for j := range m {
		s.tcol[j] = -1
		for i := range n {
			if f.state[i][j] != ratioOff {
				s.tcol[j] = s.mu
				s.mu++
				break
			}
		}
	}
	if s.mu == 0 {
		return nil, fmt.Errorf("%w: no output used", errRatioTree)
	}
	for i := range n {
		for j := range m {
			if f.state[i][j] != ratioFree {
				continue
			}
			if !f.form.marg && len(s.adj[i]) > 0 {
				return nil, fmt.Errorf("%w: row %d has two free pairs", errRatioTree, i+1)
			}
			s.adj[i] = append(s.adj[i], n+j)
			s.adj[n+j] = append(s.adj[n+j], i)
		}
	}
	// One equation per tree (for LDP per row without a free pair).
	eq := make([]int, n+m)
	for v := range eq {
		eq[v] = -1
	}
	k := 0
	for v := range n + m {
		if eq[v] >= 0 || (v >= n && s.tcol[v-n] < 0) {
			continue
		}
		if !f.form.marg {
			if v < n && len(s.adj[v]) == 0 {
				eq[v] = k
				k++
			}
			continue
		}
		eq[v] = k
		queue := []int{v}
		for len(queue) > 0 {
			a := queue[0]
			queue = queue[1:]
			for _, o := range s.adj[a] {
				if eq[o] < 0 {
					eq[o] = k
					queue = append(queue, o)
				}
			}
		}
		k++
	}
	s.A, s.b = mat.NewDense(max(k, 1), s.mu, nil), mat.NewVecDense(max(k, 1), nil)
	for i := range n {
		e := eq[i]
		if e < 0 {
			continue
		}
		w := 1.0
		if f.form.marg {
			w = f.pi[i]
		}
		s.b.SetVec(e, s.b.AtVec(e)+w)
		for j := range m {
			switch f.state[i][j] {
			case ratioUpper:
				s.A.Set(e, s.tcol[j], s.A.At(e, s.tcol[j])+w)
			case ratioLower:
				s.A.Set(e, s.tcol[j], s.A.At(e, s.tcol[j])+w*kap)
			}
		}
	}
	if f.form.marg {
		for j := range m {
			if s.tcol[j] < 0 {
				continue
			}
			s.c[j] = f.form.mu
			for i := range n {
				switch f.state[i][j] {
				case ratioUpper:
					s.c[j] -= f.pi[i]
				case ratioLower:
					s.c[j] -= kap * f.pi[i]
				}
			}
			e := eq[n+j]
			s.A.Set(e, s.tcol[j], s.A.At(e, s.tcol[j])+s.c[j])
		}
	}
	return s, nil
}

// peel returns the free pairs that the caps t (of every output) make up:
// row i's free pairs sum to 1 − Σ_{U_i} t_j − κ Σ_{L_i} t_j (row1 times 1,
// 0 for a direction), output j's π-weighted free pairs to c_j t_j; leaves
// first. It also returns the largest amount left unmade at a tree's last
// node, which is the trees' equations' residual.
func (f *ratioFace) peel(s *ratioSystem, t []float64, row1 float64) ([][]float64, float64) {
	n, m, kap := f.n, f.m, f.form.kappa
	x := make([][]float64, n)
	need := make([]float64, n+m)
	for i := range n {
		x[i] = make([]float64, m)
		need[i] = row1
		for j := range m {
			switch f.state[i][j] {
			case ratioUpper:
				need[i] -= t[j]
			case ratioLower:
				need[i] -= kap * t[j]
			}
		}
	}
	if !f.form.marg {
		left := 0.0
		for i := range n {
			if len(s.adj[i]) == 1 {
				x[i][s.adj[i][0]-n] = need[i]
			} else {
				left = max(left, math.Abs(need[i]))
			}
		}
		return x, left
	}
	for j := range m {
		need[n+j] = s.c[j] * t[j]
	}
	deg := make([]int, n+m)
	var queue []int
	for v := range n + m {
		deg[v] = len(s.adj[v])
		if deg[v] == 1 {
			queue = append(queue, v)
		}
	}
	done := make([]bool, n+m) // a node whose pairs are all made up
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		if deg[v] != 1 {
			continue
		}
		other := -1
		for _, o := range s.adj[v] {
			if !done[o] {
				other = o
				break
			}
		}
		i, j := min(v, other), max(v, other)-n
		if v < n {
			x[i][j] = need[i]
		} else {
			x[i][j] = need[n+j] / f.pi[i]
		}
		need[i] -= x[i][j]
		need[n+j] -= f.pi[i] * x[i][j]
		done[v] = true
		deg[v]--
		deg[other]--
		if deg[other] == 1 {
			queue = append(queue, other)
		}
	}
	left := 0.0
	for v := range n + m {
		if v >= n && s.tcol[v-n] < 0 {
			continue
		}
		if !done[v] {
			scale := 1.0
			if v < n {
				scale = f.pi[v]
			}
			left = max(left, math.Abs(need[v]*scale))
		}
	}
	return x, left
}

// fixCaps is step 2 of purifyRatio.
func (f *ratioFace) fixCaps() error {
	kap := f.form.kappa
	for range f.m + 2*f.n + 1 {
		s, err := f.system()
		if err != nil {
			return err
		}
		var svd mat.SVD
		if !svd.Factorize(s.A, mat.SVDFullV) {
			return fmt.Errorf("%w: no SVD of the caps' equations", errRatioTree)
		}
		sv := svd.Values(nil)
		var V mat.Dense
		svd.VTo(&V)
		null := -1
		for c := range s.mu {
			if c >= len(sv) || sv[c] <= 1e-12*sv[0] {
				null = c
				break
			}
		}
		if null < 0 {
			return nil
		}
		dt := make([]float64, f.m)
		for j := range f.m {
			if s.tcol[j] >= 0 {
				dt[j] = V.At(s.tcol[j], null)
			}
		}
		dx, _ := f.peel(s, dt, 0)
		g := 0.0
		for i := range f.n {
			for j := range f.m {
				switch f.state[i][j] {
				case ratioUpper:
					g += f.gain(i, j) * dt[j]
				case ratioLower:
					g += f.gain(i, j) * kap * dt[j]
				case ratioFree:
					g += f.gain(i, j) * dx[i][j]
				}
			}
		}
		if g < 0 {
			for j := range dt {
				dt[j] = -dt[j]
			}
			for i := range dx {
				for j := range dx[i] {
					dx[i][j] = -dx[i][j]
				}
			}
		}
		// The longest step that keeps every cap ≥ 0 and every free pair
		// between its caps.
		a, bi, bj := math.Inf(1), -1, -1
		for j := range f.m {
			if s.tcol[j] >= 0 && dt[j] < 0 {
				if r := f.t[j] / -dt[j]; r < a {
					a, bi, bj = max(0, r), -1, j
				}
			}
		}
		for i := range f.n {
			for j := range f.m {
				if f.state[i][j] != ratioFree {
					continue
				}
				if d := dx[i][j] - dt[j]; d > 0 {
					if r := (f.t[j] - f.x[i][j]) / d; r < a {
						a, bi, bj = max(0, r), i, j
					}
				}
				if d := dx[i][j] - kap*dt[j]; d < 0 {
					if r := (f.x[i][j] - kap*f.t[j]) / -d; r < a {
						a, bi, bj = max(0, r), i, j
					}
				}
			}
		}
		if bj < 0 {
			return fmt.Errorf("%w: the face is unbounded", errRatioTree)
		}
		for j := range f.m {
			f.t[j] += a * dt[j]
		}
		for i := range f.n {
			for j := range f.m {
				if f.state[i][j] == ratioFree {
					f.x[i][j] += a * dx[i][j]
				}
			}
		}
		switch {
		case bi < 0:
			f.t[bj] = 0
			for i := range f.n {
				f.state[i][bj], f.x[i][bj] = ratioOff, 0
			}
		case f.x[bi][bj]-kap*f.t[bj] <= f.t[bj]-f.x[bi][bj]:
			f.state[bi][bj], f.x[bi][bj] = ratioLower, 0
		default:
			f.state[bi][bj], f.x[bi][bj] = ratioUpper, 0
		}
	}
	return fmt.Errorf("%w: the caps' directions did not run out", errRatioTree)
}

// solve returns the vertex of the face, solved from its equations: t by
// least squares on the trees' equations with one refinement step, which
// must then hold to rounding, and the free pairs by peeling.
func (f *ratioFace) solve() (mech.Mechanism, error) {
	s, err := f.system()
	if err != nil {
		return nil, err
	}
	if r, _ := s.A.Dims(); r < s.mu {
		return nil, fmt.Errorf("%w: %d equations for %d outputs", errRatioTree, r, s.mu)
	}
	var x, dx, res mat.VecDense
	if err := x.SolveVec(s.A, s.b); err != nil {
		return nil, fmt.Errorf("%w: the caps' equations are singular (%v)", errRatioTree, err)
	}
	res.MulVec(s.A, &x)
	res.SubVec(s.b, &res)
	if err := dx.SolveVec(s.A, &res); err == nil {
		x.AddVec(&x, &dx)
	}
	res.MulVec(s.A, &x)
	res.SubVec(s.b, &res)
	if r := mat.Norm(&res, math.Inf(1)); !(r <= 1e-13) {
		return nil, fmt.Errorf("%w: the caps' equations are inconsistent (residual %.3g)", errRatioTree, r)
	}
	n, m, kap := f.n, f.m, f.form.kappa
	t := make([]float64, m)
	top := 0.0
	for j := range m {
		if s.tcol[j] >= 0 {
			t[j] = x.AtVec(s.tcol[j])
			top = max(top, t[j])
		}
	}
	// A cap at 0 to rounding is an output the vertex leaves unused (a
	// degenerate vertex): its pairs, between κ·0 and 0, go, and the rest
	// is solved again.
	dropped := false
	for j := range m {
		if s.tcol[j] >= 0 && math.Abs(t[j]) <= ratioTreeSlack*top {
			for i := range n {
				f.state[i][j] = ratioOff
			}
			dropped = true
		}
	}
	if dropped {
		return f.solve()
	}
	for j := range m {
		if s.tcol[j] >= 0 && !(t[j] > 0) {
			return nil, fmt.Errorf("%w: output %d's cap %g is not positive", errRatioTree, j+1, t[j])
		}
	}
	free, left := f.peel(s, t, 1)
	if !(left <= 1e-13) {
		return nil, fmt.Errorf("%w: the trees' equations leave %.3g", errRatioTree, left)
	}
	P := mech.Zeros(n, m)
	for i := range n {
		for j := range m {
			switch f.state[i][j] {
			case ratioUpper:
				P[i][j] = t[j]
			case ratioLower:
				P[i][j] = kap * t[j]
			case ratioFree:
				lo, hi := kap*t[j], t[j]
				v := free[i][j]
				if slack := ratioTreeSlack * t[j]; v < lo-slack || v > hi+slack {
					return nil, fmt.Errorf("%w: pair (%d, %d) solves to %g, outside [%g, %g]", errRatioTree, i+1, j+1, v, lo, hi)
				}
				P[i][j] = min(hi, max(lo, v))
			}
		}
	}
	return P, nil
}

// solveRatioTree is the vertex on the face state, solved from its
// equations (ratioFace.solve); an error when state is not a vertex.
func solveRatioTree(pi []float64, form capForm, state [][]int8) (mech.Mechanism, error) {
	n := len(state)
	if n == 0 {
		return nil, fmt.Errorf("%w: no rows", errRatioTree)
	}
	f := &ratioFace{n: n, m: len(state[0]), pi: pi, form: form, state: state}
	return f.solve()
}

// ratioState reads the state of each pair off a point P with caps t: an
// output whose cap is at most tol·max t is unused, a pair within tol·t_j
// of a cap is at it, and the others are free.
func ratioState(P mech.Mechanism, t []float64, kappa, tol float64) [][]int8 {
	n, m := P.Dims()
	top := 0.0
	for _, v := range t {
		top = max(top, v)
	}
	state := make([][]int8, n)
	for i := range n {
		state[i] = make([]int8, m)
		for j := range m {
			switch {
			case !(t[j] > tol*top):
				state[i][j] = ratioOff
			case P[i][j] >= t[j]*(1-tol):
				state[i][j] = ratioUpper
			case P[i][j] <= t[j]*(kappa+tol):
				state[i][j] = ratioLower
			default:
				state[i][j] = ratioFree
			}
		}
	}
	return state
}
