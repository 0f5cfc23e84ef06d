package colgen

import (
	"fmt"
	"slices"

	"github.com/pmlopt/pmlopt/mech"
)

// Symmetry is a group of symmetries of a problem, given by generators:
// generator g maps input i to In[g][i] and output j to Out[g][j], and
// leaves the prior (π_{In[g][i]} = π_i) and the zero pattern
// (pat[In[g][i]][Out[g][j]] = pat[i][j]) unchanged. The reflections and
// the transposition of a location grid with a uniform prior and a
// distance-threshold pattern are such a group (eight elements on a square
// grid).
type Symmetry struct {
	In, Out [][]int
}

// maxGroup bounds the number of elements of a Symmetry's group: the
// mechanism of a folded master is assembled over every element.
const maxGroup = 1 << 12

// fold is the reduction of the master by a symmetry group G.
//
// The ε-PML set with the pattern is convex and G-invariant, so it holds a
// mechanism with the least PML that G leaves unchanged (the average over G
// of any mechanism in it), and the search may look among those only. Such
// a mechanism is fixed by its columns at one representative output j_o of
// each orbit o of outputs, and its rows sum to 1 exactly when the rows of
// one representative input of each orbit r of inputs do. Writing x for a
// column of j_o (any vector of its cone: the mechanism uses the average of
// x over the stabiliser of j_o, which lies in the same cone), the row of
// input orbit r receives
//
//	a_r = |o| · (1/|O_r|) Σ_{k ∈ O_r} x_k
//
// per unit weight of x (|o|, |O_r|: the orbits' sizes). The master's rows
// are the input orbits, its columns these a, and its duals y give the
// multipliers α_k = y_r/|O_r| (k ∈ O_r) of the unfolded problem: y·a =
// |o|·α·x, so pricing output j_o is the same fractional knapsack over the
// unfolded inputs as without the fold, and a y that prices every column
// out makes an α that prices out every column of every output (α is
// G-invariant). The proofs are then checked by certify.DualBound on the
// unfolded pattern, and the mechanism assembled over the whole group:
// p_{σ(k), τ(j_o)} += w·x_k/|Stab(j_o)| for every element (σ, τ) of G.
type fold struct {
	n     int       // input orbits: the master's rows
	orb   []int     // orb[i]: the orbit of input i
	inv   []float64 // inv[i] = 1/|O_orb(i)|
	rho   []float64 // rho[r] = π(O_r), the masses of the master's rows
	reps  []int     // the representative (least) output of each output orbit
	size  []int     // size[j]: the size of the orbit of output j
	repOf []int     // repOf[j]: the representative of the orbit of output j
	toRep []int     // toRep[j]: an element of G whose τ maps j to repOf[j]
	in    [][]int   // the elements of G: σ
	out   [][]int   //                    τ
}

// newFold checks sym against the prior and the pattern and returns its
// fold.
func newFold(pi mech.Prior, pat mech.Pattern, sym Symmetry) (*fold, error) {
	n, m := len(pi), len(pat[0])
	if len(sym.In) != len(sym.Out) {
		return nil, fmt.Errorf("colgen: symmetry: %d input and %d output permutations", len(sym.In), len(sym.Out))
	}
	for g := range sym.In {
		if err := permutation(sym.In[g], n); err != nil {
			return nil, fmt.Errorf("colgen: symmetry generator %d on the inputs: %w", g, err)
		}
		if err := permutation(sym.Out[g], m); err != nil {
			return nil, fmt.Errorf("colgen: symmetry generator %d on the outputs: %w", g, err)
		}
		s, t := sym.In[g], sym.Out[g]
		for i := range n {
			if pi[s[i]] != pi[i] {
				return nil, fmt.Errorf("colgen: symmetry generator %d maps input %d to %d, of another prior mass", g, i, s[i])
			}
			for j := range m {
				if pat[s[i]][t[j]] != pat[i][j] {
					return nil, fmt.Errorf("colgen: symmetry generator %d does not keep the pattern at input %d, output %d", g, i, j)
				}
			}
		}
	}
	// The group: the closure of the generators under composition.
	id := func(k int) []int {
		p := make([]int, k)
		for i := range p {
			p[i] = i
		}
		return p
	}
	f := &fold{in: [][]int{id(n)}, out: [][]int{id(m)}}
	seen := map[string]bool{key(f.in[0], f.out[0]): true}
	for e := 0; e < len(f.in); e++ {
		for g := range sym.In {
			s, t := compose(sym.In[g], f.in[e]), compose(sym.Out[g], f.out[e])
			if k := key(s, t); !seen[k] {
				if len(f.in) == maxGroup {
					return nil, fmt.Errorf("colgen: symmetry: the group has more than %d elements", maxGroup)
				}
				seen[k] = true
				f.in, f.out = append(f.in, s), append(f.out, t)
			}
		}
	}
	// Input orbits, numbered by their least input.
	f.orb = make([]int, n)
	for i := range f.orb {
		f.orb[i] = -1
	}
	var count []int
	for i := range n {
		if f.orb[i] >= 0 {
			continue
		}
		r := len(count)
		count = append(count, 0)
		f.rho = append(f.rho, 0)
		for _, s := range f.in {
			if k := s[i]; f.orb[k] < 0 {
				f.orb[k] = r
				count[r]++
				f.rho[r] += pi[k]
			}
		}
	}
	f.n = len(count)
	f.inv = make([]float64, n)
	for i := range n {
		f.inv[i] = 1 / float64(count[f.orb[i]])
	}
	// Output orbits.
	inverse := make([]int, len(f.in))
	for e := range f.in {
		for d := range f.in {
			if isIdentity(compose(f.in[d], f.in[e])) && isIdentity(compose(f.out[d], f.out[e])) {
				inverse[e] = d
				break
			}
		}
	}
	f.repOf, f.toRep, f.size = make([]int, m), make([]int, m), make([]int, m)
	for j := range f.repOf {
		f.repOf[j] = -1
	}
	for j := range m {
		if f.repOf[j] >= 0 {
			continue
		}
		f.reps = append(f.reps, j)
		var members []int
		for e, t := range f.out {
			if k := t[j]; f.repOf[k] < 0 {
				f.repOf[k] = j
				members = append(members, k)
				f.toRep[k] = inverse[e]
			}
		}
		for _, k := range members {
			f.size[k] = len(members)
		}
	}
	return f, nil
}

func isIdentity(p []int) bool {
	for i, v := range p {
		if v != i {
			return false
		}
	}
	return true
}

// compose returns a∘b: i ↦ a[b[i]].
func compose(a, b []int) []int {
	c := make([]int, len(b))
	for i, v := range b {
		c[i] = a[v]
	}
	return c
}

func key(s, t []int) string {
	b := make([]byte, 0, 4*(len(s)+len(t)))
	for _, v := range s {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	for _, v := range t {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return string(b)
}

// permutation checks that p is a permutation of 0..k−1.
func permutation(p []int, k int) error {
	if len(p) != k {
		return fmt.Errorf("%d entries, want %d", len(p), k)
	}
	seen := make([]bool, k)
	for i, v := range p {
		if v < 0 || v >= k || seen[v] {
			return fmt.Errorf("entry %d (%d) is out of range or repeated", i, v)
		}
		seen[v] = true
	}
	return nil
}

// reduce writes the folded column a of the unfolded column (rows, vals)
// of output j (a representative) to (rr, rv), by ascending orbit; acc
// (f.n zeros) and mark (f.n false) are scratch, left as they came.
func (f *fold) reduce(j int, rows []int, vals []float64, acc []float64, mark []bool, rr []int, rv []float64) ([]int, []float64) {
	rr, rv = rr[:0], rv[:0]
	for e, i := range rows {
		r := f.orb[i]
		if !mark[r] {
			mark[r] = true
			rr = append(rr, r)
		}
		acc[r] += vals[e] * f.inv[i]
	}
	slices.Sort(rr)
	o := float64(f.size[j])
	for _, r := range rr {
		rv = append(rv, o*acc[r])
		acc[r], mark[r] = 0, false
	}
	return rr, rv
}

// unfold returns the multipliers α of the unfolded inputs from the folded
// duals y: α_i = y_orb(i)/|O_orb(i)|.
func (f *fold) unfold(y []float64) []float64 {
	a := make([]float64, len(f.orb))
	for i, r := range f.orb {
		a[i] = y[r] * f.inv[i]
	}
	return a
}

// toRepresentative maps a column of output j, as the order its inputs are
// filled in, to the same column of the representative of j's orbit.
func (f *fold) toRepresentative(j int, order []int) (int, []int) {
	e := f.toRep[j]
	s := f.in[e]
	mapped := make([]int, len(order))
	for t, i := range order {
		mapped[t] = s[i]
	}
	return f.repOf[j], mapped
}

// assemble returns the n×m mechanism Σ over the weighted columns (of
// representative outputs, unfolded entries) and the whole group, rows
// normalised; nil when a row has no mass.
func (f *fold) assemble(n, m int, ws []weighted) mech.Mechanism {
	p := mech.Mechanism(make([][]float64, n))
	for i := range p {
		p[i] = make([]float64, m)
	}
	g := float64(len(f.in))
	for _, c := range ws {
		// |Stab(j)| = |G|/|o|.
		w := c.w * float64(f.size[c.j]) / g
		for e, s := range f.in {
			jj := f.out[e][c.j]
			for t, i := range c.rows {
				p[s[i]][jj] += w * c.vals[t]
			}
		}
	}
	for i := range p {
		if mech.Normalise(p[i]) <= 0 {
			return nil
		}
	}
	return p
}
