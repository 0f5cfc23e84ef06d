// Package randinst draws seeded random instances — priors, mechanisms,
// utility orders and utilities — for pmlopt's property tests, benchmarks and
// scaling study, so that they all sample the same distributions.
package randinst

import (
	"math"
	"math/rand/v2"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// Prior returns a prior with entries proportional to floor + U(0, 1); a
// positive floor keeps p_min away from 0.
func Prior(rng *rand.Rand, n int, floor float64) mech.Prior {
	pi := make(mech.Prior, n)
	for i := range pi {
		pi[i] = floor + rng.Float64()
	}
	return normalise(pi)
}

// RobustCase returns a prior (Prior with floor 0.2) and an n×m zero
// pattern in which every input keeps an output and no output is open to
// every input, so that a mechanism with the pattern exists and its least
// ε, at one prior or over a set, is positive.
func RobustCase(rng *rand.Rand, n, m int) (mech.Prior, mech.Pattern) {
	pi := Prior(rng, n, 0.2)
	pat := make(mech.Pattern, n)
	for i := range pat {
		pat[i] = make([]bool, m)
		pat[i][rng.IntN(m)] = true
		for j := range m {
			if rng.Float64() < 0.4 {
				pat[i][j] = true
			}
		}
	}
	for j := range m {
		all := true
		for i := range n {
			all = all && pat[i][j]
		}
		if all {
			pat[rng.IntN(n)][j] = false
		}
	}
	for i := range pat {
		open := false
		for _, a := range pat[i] {
			open = open || a
		}
		if !open {
			pat[i][(i+1)%m] = true
		}
	}
	return pi, pat
}

// Dirichlet returns a prior drawn from the flat Dirichlet(1, …, 1)
// distribution (normalised exponentials), the uniform law on the simplex:
// instance.Dirichlet with a = 1, and an empty prior for n = 0. A draw that
// instance.Dirichlet refuses (a mass below 2^−1022, probability below
// 1e-300) is drawn again.
func Dirichlet(rng *rand.Rand, n int) mech.Prior {
	if n < 1 {
		return mech.Prior{}
	}
	for {
		if pi, err := instance.Dirichlet(rng, n, 1); err == nil {
			return pi
		}
	}
}

func normalise(v []float64) []float64 {
	mech.Normalise(v)
	return v
}

// Mechanism returns an n×m mechanism whose entries are independently zero
// with probability zeros and otherwise exponential, rows normalised; a row
// left all zero gets a single 1.
func Mechanism(rng *rand.Rand, n, m int, zeros float64) mech.Mechanism {
	p := mech.Zeros(n, m)
	for i := range p {
		s := 0.0
		for j := range p[i] {
			if rng.Float64() < zeros {
				continue
			}
			p[i][j] = rng.ExpFloat64()
			s += p[i][j]
		}
		if s == 0 {
			p[i][rng.IntN(m)] = 1
			continue
		}
		normalise(p[i])
	}
	return p
}

// StrictOrder returns an n×m utility order whose rows are independent
// uniform permutations of 1..m.
func StrictOrder(rng *rand.Rand, n, m int) mech.Order {
	o := make(mech.Order, n)
	for i := range o {
		o[i] = rng.Perm(m)
		for j := range o[i] {
			o[i][j]++
		}
	}
	return o
}

// Utility returns an n×m utility matrix with entries uniform on
// {0, 1, …, levels−1}, or uniform on [0, 1) when levels is 0 (distinct
// values with probability 1, so the order is strict).
func Utility(rng *rand.Rand, n, m, levels int) mech.Utility {
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, m)
		for j := range u[i] {
			if levels > 0 {
				u[i][j] = float64(rng.IntN(levels))
			} else {
				u[i][j] = rng.Float64()
			}
		}
	}
	return u
}

// RoundedUtility returns an n×m utility matrix with entries round(top·U)
// for U uniform on [0, 1): the integers 0, 1, …, top, the two ends half as
// likely as the others.
func RoundedUtility(rng *rand.Rand, n, m, top int) mech.Utility {
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, m)
		for j := range u[i] {
			u[i][j] = math.Round(float64(top) * rng.Float64())
		}
	}
	return u
}

// SetAround draws a prior set around pi: with box, the box whose bounds on
// letter k are π_k(1 + U)/2 and min(1, π_k(1 + U')) (U, U' uniform on
// [0, 1), drawn letter by letter); otherwise the L1 ball of radius
// 0.1 + 0.2U.
func SetAround(rng *rand.Rand, pi mech.Prior, box bool) (*mech.PriorSet, error) {
	if !box {
		return mech.NewL1Set(pi, 0.1+0.2*rng.Float64())
	}
	n := len(pi)
	lo, up := make([]float64, n), make([]float64, n)
	for k := range n {
		lo[k], up[k] = pi[k]*(0.5+0.5*rng.Float64()), min(1, pi[k]*(1+rng.Float64()))
	}
	return mech.NewBoxSet(pi, lo, up)
}

// FactorBox is the box of priors around pi whose mass on each letter lies
// between lo and hi times pi's (capped at 1), the sets of the robust tests
// and of the bench's robust study.
func FactorBox(pi mech.Prior, lo, hi float64) (*mech.PriorSet, error) {
	l, u := make([]float64, len(pi)), make([]float64, len(pi))
	for k, v := range pi {
		l[k], u[k] = lo*v, min(1, hi*v)
	}
	return mech.NewBoxSet(pi, l, u)
}

// StudyBox returns the instance of the named family of package instance
// with n letters drawn with the bench's seed (2026), and the box of the
// robust study around its prior (FactorBox 0.8 to 1.25).
func StudyBox(family string, n int) (instance.Instance, *mech.PriorSet, error) {
	return FamilyBox(family, n, 2026, 0.8, 1.25)
}

// FamilyBox returns the instance of the named family of package instance
// with n letters drawn with seed, and the box FactorBox(lo, hi) around
// its prior.
func FamilyBox(family string, n int, seed uint64, lo, hi float64) (instance.Instance, *mech.PriorSet, error) {
	f, err := instance.Lookup(family)
	if err != nil {
		return instance.Instance{}, nil, err
	}
	in, err := f.New(n, seed)
	if err != nil {
		return instance.Instance{}, nil, err
	}
	set, err := FactorBox(in.Prior, lo, hi)
	return in, set, err
}

// CountingBinomialBall returns the counting query on n letters with the
// binomial(n − 1, p) prior and the L1 ball of radius r around that prior.
func CountingBinomialBall(n int, p, r float64) (mech.Prior, mech.Utility, *mech.PriorSet, error) {
	pi, err := instance.Binomial(n-1, p)
	if err != nil {
		return nil, nil, nil, err
	}
	u, err := instance.Counting(n)
	if err != nil {
		return nil, nil, nil, err
	}
	ball, err := mech.NewL1Set(pi, r)
	return pi, u, ball, err
}

// SetPrior draws a prior of the set: a random mixture of three of its
// extreme priors (the cheapest or the dearest at random, for costs drawn
// by cost, rng.Float64 when nil), which the set holds since it is convex.
// The audits of the robust tests check mechanisms at such priors.
func SetPrior(rng *rand.Rand, set *mech.PriorSet, cost func() float64) mech.Prior {
	if cost == nil {
		cost = rng.Float64
	}
	n := set.N()
	out := make(mech.Prior, n)
	w := 0.0
	for range 3 {
		c := make([]float64, n)
		for i := range c {
			c[i] = cost()
		}
		x := rng.Float64()
		w += x
		for i, v := range set.Extreme(c, rng.IntN(2) == 0) {
			out[i] += x * v
		}
	}
	for i := range out {
		out[i] /= w
	}
	return out
}

// Estimate draws an estimate of n letters (masses floor to floor + 1,
// normalised) and then an n×m utility, an entry at a time from entry.
func Estimate(r *rand.Rand, n, m int, floor float64, entry func() float64) (mech.Prior, mech.Utility) {
	pi := make(mech.Prior, n)
	for i := range pi {
		pi[i] = floor + r.Float64()
	}
	mech.Normalise(pi)
	u := make(mech.Utility, n)
	for i := range u {
		u[i] = make([]float64, m)
		for j := range u[i] {
			u[i][j] = entry()
		}
	}
	return pi, u
}

// SetVertices lists the vertices of a prior set, the independent check of
// the greedy extremes in tests: of a box {l ≤ π ≤ u, Σ π = 1}, every
// letter but one at a bound, the one left taking the rest when that lies
// within its own bounds; of an L1 ball around π̂ whose every mass is at
// least r/2 (the simplex's walls then do not cut it), π̂ + (r/2)(e_b − e_a)
// for a ≠ b. A linear function's least and largest values over the set,
// such as the mass Σ_k π_k p_kj of an output, are reached at one of them.
func SetVertices(set *mech.PriorSet) [][]float64 {
	n := set.N()
	var out [][]float64
	if !set.IsBox() {
		for a := range n {
			for b := range n {
				if a == b {
					continue
				}
				v := append([]float64(nil), set.Center...)
				v[a] -= set.Radius / 2
				v[b] += set.Radius / 2
				out = append(out, v)
			}
		}
		return out
	}
	for free := range n {
		for mask := 0; mask < 1<<(n-1); mask++ {
			v := make([]float64, n)
			rest, bit := 1.0, 0
			for k := range n {
				if k == free {
					continue
				}
				v[k] = set.Lower[k]
				if mask>>bit&1 == 1 {
					v[k] = set.Upper[k]
				}
				bit++
				rest -= v[k]
			}
			if rest < set.Lower[free]-1e-15 || rest > set.Upper[free]+1e-15 {
				continue
			}
			v[free] = rest
			out = append(out, v)
		}
	}
	return out
}

// PMLOverVertices is the largest PML of m over the set's vertices
// (SetVertices), from PML's definition, max_j log(max_i m_ij / Σ_k π_k
// m_kj): the independent check of leakage.PMLOver in tests. A used output
// that a vertex gives a mass below 1e-15 times its largest entry (a
// vertex's rest rounds where the exact one is 0) makes it +Inf.
func PMLOverVertices(set *mech.PriorSet, m mech.Mechanism) float64 {
	vertices := SetVertices(set)
	worst := 0.0
	for j := range m[0] {
		top, least := 0.0, math.Inf(1)
		for _, v := range vertices {
			mass := 0.0
			for i := range m {
				mass += v[i] * m[i][j]
				top = max(top, m[i][j])
			}
			least = min(least, mass)
		}
		switch {
		case top == 0:
		case least < 1e-15*top:
			return math.Inf(1)
		default:
			worst = max(worst, math.Log(top/least))
		}
	}
	return worst
}

// ConfidenceGrid returns a w×w location grid (Euclidean loss) whose prior
// is estimated from points check-ins drawn around two centres
// (instance.GridClusterCounts, seeded by seed), smoothed by 0.5 a cell as
// new --prior-from --smoothing 0.5 smooths it, and the 95%
// Clopper–Pearson box of those counts (Bonferroni over the cells).
func ConfidenceGrid(w, points int, seed uint64) (mech.Prior, mech.Utility, *mech.PriorSet, error) {
	counts, err := instance.GridClusterCounts(rand.New(rand.NewPCG(seed, uint64(w))), w, w, points)
	if err != nil {
		return nil, nil, nil, err
	}
	est, err := instance.FromCounts(counts, 0.5)
	if err != nil {
		return nil, nil, nil, err
	}
	set, err := instance.ConfidenceSet(counts, est, 0.95, instance.MethodClopperPearson)
	if err != nil {
		return nil, nil, nil, err
	}
	u, err := instance.Grid(w, w)
	return est, u, set, err
}
