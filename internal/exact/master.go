package exact

import (
	"context"
	"math/big"
	"slices"

	"github.com/pmlopt/pmlopt/mech"
)

// The exact feasibility question at μ = 1/t: is there a mechanism on the
// pattern with p_ij ≤ t q_j? As in package internal/colgen, the columns
// of output j allowed by it are the cone over the box slice
// {u ∈ [0,1]^{A_j} : π·u = μ}, whose vertices are u = 1_S + θ e_k
// with θ = (μ − π(S))/π_k ∈ (0, 1] (or 1_S when π(S) = μ), so a
// mechanism exists exactly when the master LP
//
//	min Σ_i s_i  subject to  Σ_c w_c u_c + s = 1,  w, s ≥ 0
//
// has optimum 0. Here it is solved in big.Rat by a primal simplex with an
// explicit N×N basis inverse and Bland's rule, columns priced in by the
// exact fractional knapsack; every number is exact, so there is no
// tolerance anywhere.

// shape is a vertex of output j's slice as a function of μ:
// u(μ) = 1_S + ((μ − π(S))/π_k) e_k, or 1_S when k < 0.
type shape struct {
	j    int
	s    []int
	k    int
	mass *big.Rat // π(S)
}

// at returns the column u(μ) as a dense vector.
func (sh shape) at(pi []*big.Rat, mu *big.Rat) []*big.Rat {
	u := zeros(len(pi))
	for _, i := range sh.s {
		u[i].SetInt64(1)
	}
	if sh.k >= 0 {
		u[sh.k].Sub(mu, sh.mass)
		u[sh.k].Quo(u[sh.k], pi[sh.k])
	}
	return u
}

// column is a column of the master: a slack (sh == nil, the unit vector
// of row slack, cost 1) or a vertex.
type column struct {
	sh    *shape
	slack int
	vec   []*big.Rat
}

// master is the state of the exact simplex at one μ.
type master struct {
	pi    []*big.Rat
	sets  [][]int // A_j
	mu    *big.Rat
	pool  []column
	basis []int        // pool index per row position
	binv  [][]*big.Rat // B^{-1}
	x     []*big.Rat   // basic values
	pivot int
}

// answer is the master's optimum at μ.
type answer struct {
	mu       *big.Rat
	feasible bool         // optimum 0
	basis    []column     // the optimal basis, in row-position order
	x        []*big.Rat   // its values
	y        []*big.Rat   // the row duals c_B B^{-1}
	mech     [][]*big.Rat // the mechanism, when feasible
	pivots   int
}

// allowedSets returns A_j for every output.
func allowedSets(pat mech.Pattern) [][]int {
	m := len(pat[0])
	sets := make([][]int, m)
	for i, row := range pat {
		for j, ok := range row {
			if ok {
				sets[j] = append(sets[j], i)
			}
		}
	}
	return sets
}

// solveAt answers the question at μ > 0.
func solveAt(ctx context.Context, pi []*big.Rat, sets [][]int, mu *big.Rat) (*answer, error) {
	n := len(pi)
	g := &master{pi: pi, sets: sets, mu: mu}
	g.basis = make([]int, n)
	g.binv = make([][]*big.Rat, n)
	g.x = make([]*big.Rat, n)
	for i := 0; i < n; i++ {
		e := zeros(n)
		e[i].SetInt64(1)
		g.pool = append(g.pool, column{slack: i, vec: e})
		g.basis[i] = i
		g.binv[i] = zeros(n)
		g.binv[i][i].SetInt64(1)
		g.x[i] = big.NewRat(1, 1)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		y := g.duals()
		q := g.entering(y)
		if q < 0 {
			q = g.price(y)
		}
		if q < 0 {
			return g.answer(y), nil
		}
		g.step(q)
	}
}

// cost is c of pool column c: 1 for a slack, 0 for a vertex.
func (g *master) cost(c int) int64 {
	if g.pool[c].sh == nil {
		return 1
	}
	return 0
}

// duals returns y = c_B B^{-1}.
func (g *master) duals() []*big.Rat {
	n := len(g.pi)
	y := zeros(n)
	for r, c := range g.basis {
		if g.cost(c) == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			y[i].Add(y[i], g.binv[r][i])
		}
	}
	return y
}

// reduced returns c_q − y·a_q.
func (g *master) reduced(q int, y []*big.Rat) *big.Rat {
	d := big.NewRat(g.cost(q), 1)
	return d.Sub(d, dot(y, g.pool[q].vec))
}

// entering returns the first pool column (Bland's rule) with a negative
// reduced cost, or −1.
func (g *master) entering(y []*big.Rat) int {
	for q := range g.pool {
		if slices.Contains(g.basis, q) {
			continue
		}
		if g.reduced(q, y).Sign() < 0 {
			return q
		}
	}
	return -1
}

// price adds, for every output, the vertex of its slice that maximises
// y·u (the greedy fill by decreasing y_i/π_i, ties by index) when y·u > 0,
// and returns the first added, or −1 when none prices in: then y·u ≤ 0
// on every vertex of every output.
func (g *master) price(y []*big.Rat) int {
	first := -1
	for j, set := range g.sets {
		sh, ok := fill(g.pi, y, set, g.mu)
		if !ok {
			continue
		}
		sh.j = j
		u := sh.at(g.pi, g.mu)
		if dot(y, u).Sign() <= 0 {
			continue
		}
		g.pool = append(g.pool, column{sh: &sh, vec: u})
		if first < 0 {
			first = len(g.pool) - 1
		}
	}
	return first
}

// fill returns the vertex of {u ∈ [0,1]^set : π·u = μ} that maximises
// y·u, and false when π(set) < μ (the slice is empty: the output can not
// be used at μ).
func fill(pi, y []*big.Rat, set []int, mu *big.Rat) (shape, bool) {
	order := slices.Clone(set)
	slices.SortStableFunc(order, func(a, b int) int {
		// y_a/π_a > y_b/π_b first.
		l := new(big.Rat).Mul(y[a], pi[b])
		r := new(big.Rat).Mul(y[b], pi[a])
		return r.Cmp(l)
	})
	mass := new(big.Rat)
	sh := shape{k: -1}
	for idx, i := range order {
		next := new(big.Rat).Add(mass, pi[i])
		switch next.Cmp(mu) {
		case -1:
			sh.s = append(sh.s, i)
			mass = next
		case 0:
			sh.s = append(sh.s, i)
			sh.mass = next
			// Full at μ: the next input of the fill is the one that
			// would take θ > 0 just above μ.
			if idx+1 < len(order) {
				sh.k = order[idx+1]
			}
			return sh, true
		default:
			sh.k, sh.mass = i, mass
			return sh, true
		}
	}
	return sh, false
}

// step brings column q into the basis: the ratio test with Bland's rule
// (ties to the least pool index), then the update of B^{-1} and x.
func (g *master) step(q int) {
	n := len(g.pi)
	d := matVec(g.binv, g.pool[q].vec)
	r := -1
	var best *big.Rat
	for i := 0; i < n; i++ {
		if d[i].Sign() <= 0 {
			continue
		}
		ratio := new(big.Rat).Quo(g.x[i], d[i])
		if c := cmpOrNil(ratio, best); r < 0 || c < 0 || (c == 0 && g.basis[i] < g.basis[r]) {
			r, best = i, ratio
		}
	}
	// The phase-1 objective is bounded below, so some d_i > 0.
	piv := d[r]
	for k := 0; k < n; k++ {
		g.binv[r][k].Quo(g.binv[r][k], piv)
	}
	g.x[r] = new(big.Rat).Set(best)
	for i := 0; i < n; i++ {
		if i == r || d[i].Sign() == 0 {
			continue
		}
		f := d[i]
		for k := 0; k < n; k++ {
			g.binv[i][k].Sub(g.binv[i][k], new(big.Rat).Mul(f, g.binv[r][k]))
		}
		g.x[i].Sub(g.x[i], new(big.Rat).Mul(f, best))
	}
	g.basis[r] = q
	g.pivot++
}

// answer collects the optimum.
func (g *master) answer(y []*big.Rat) *answer {
	n := len(g.pi)
	a := &answer{mu: g.mu, y: y, x: g.x, pivots: g.pivot, feasible: true}
	for r, c := range g.basis {
		a.basis = append(a.basis, g.pool[c])
		if g.cost(c) == 1 && g.x[r].Sign() != 0 {
			a.feasible = false
		}
	}
	if a.feasible {
		a.mech = make([][]*big.Rat, n)
		for i := range a.mech {
			a.mech[i] = zeros(len(g.sets))
		}
		for r, col := range a.basis {
			if col.sh == nil {
				continue
			}
			for i, u := range col.vec {
				if u.Sign() != 0 {
					a.mech[i][col.sh.j].Add(a.mech[i][col.sh.j], new(big.Rat).Mul(g.x[r], u))
				}
			}
		}
	}
	return a
}

func cmpOrNil(a, b *big.Rat) int {
	if b == nil {
		return -1
	}
	return a.Cmp(b)
}
