package worstcase

import (
	"fmt"

	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/mech"
)

// Symmetry is a group of symmetries of a problem, given by generators:
// generator g maps input i to In[g][i] and output j to Out[g][j], and
// leaves the prior (π_{In[g][i]} = π_i) and the utility
// (u_{In[g][i], Out[g][j]} = u_ij) unchanged. The worst-case searches on
// values (BestValue, ValueCurve) then fold the column generation's master
// by the group (its rows are the orbits of the inputs): the least ε of a
// pattern the group keeps is reached by a mechanism it keeps, the average
// over the group of any optimal one. Mechanisms are still assembled over
// every pair and audited, and proofs checked by certify.DualBound on the
// whole pattern.
type Symmetry struct {
	In, Out [][]int
}

// GridSymmetry returns the symmetries of a w×h location grid whose cell
// (x, y) is letter y·w + x, as instance.Grid numbers them, acting alike on
// inputs and outputs: the two reflections, and the transposition when the
// grid is square (a group of 8 elements). A Euclidean, Manhattan or
// Chebyshev utility on the grid keeps them, and so does the uniform prior.
func GridSymmetry(w, h int) Symmetry {
	perm := func(f func(x, y int) (int, int)) []int {
		p := make([]int, w*h)
		for y := range h {
			for x := range w {
				a, b := f(x, y)
				p[y*w+x] = b*w + a
			}
		}
		return p
	}
	var gens [][]int
	if w > 1 {
		gens = append(gens, perm(func(x, y int) (int, int) { return w - 1 - x, y }))
	}
	if h > 1 {
		gens = append(gens, perm(func(x, y int) (int, int) { return x, h - 1 - y }))
	}
	if w == h && w > 1 {
		gens = append(gens, perm(func(x, y int) (int, int) { return y, x }))
	}
	return Symmetry{In: gens, Out: gens}
}

// checkSymmetry reports the first place where s is not a symmetry of pi and
// u.
func checkSymmetry(pi mech.Prior, u mech.Utility, s Symmetry) error {
	n, m := len(u), len(u[0])
	if len(s.In) != len(s.Out) {
		return fmt.Errorf("worstcase: symmetry: %d input and %d output permutations", len(s.In), len(s.Out))
	}
	for g := range s.In {
		if !isPermutation(s.In[g], n) || !isPermutation(s.Out[g], m) {
			return fmt.Errorf("worstcase: symmetry generator %d is not a permutation of the %d inputs and %d outputs", g, n, m)
		}
		in, out := s.In[g], s.Out[g]
		for i := range n {
			if pi[in[i]] != pi[i] {
				return fmt.Errorf("worstcase: symmetry generator %d maps input %d to %d, of another prior mass", g, i, in[i])
			}
			ri, row := u[in[i]], u[i]
			for j := range m {
				if ri[out[j]] != row[j] {
					return fmt.Errorf("worstcase: symmetry generator %d changes the utility at input %d, output %d", g, i, j)
				}
			}
		}
	}
	return nil
}

func isPermutation(p []int, k int) bool {
	if len(p) != k {
		return false
	}
	seen := make([]bool, k)
	for _, v := range p {
		if v < 0 || v >= k || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// DetectSymmetry looks for the reflections of a location grid among the
// symmetries of (pi, u), for every way of laying the letters out as a grid
// of at least 2×2 cells numbered row by row, and returns those that hold
// for the first layout where any does (nil if none). A candidate
// reflection is dropped at its first entry that differs, so a utility that
// is no grid's costs about one row per layout.
func DetectSymmetry(pi mech.Prior, u mech.Utility) *Symmetry {
	n := len(u)
	if n < 4 || len(u[0]) != n {
		return nil
	}
	for h := 2; h*h <= n; h++ {
		if n%h != 0 {
			continue
		}
		for _, wh := range [][2]int{{n / h, h}, {h, n / h}} {
			w, hh := wh[0], wh[1]
			all := GridSymmetry(w, hh)
			var kept Symmetry
			for g := range all.In {
				one := Symmetry{In: all.In[g : g+1], Out: all.Out[g : g+1]}
				if checkSymmetry(pi, u, one) == nil {
					kept.In, kept.Out = append(kept.In, one.In[0]), append(kept.Out, one.Out[0])
				}
			}
			if len(kept.In) > 0 {
				return &kept
			}
			if w == hh {
				break
			}
		}
	}
	return nil
}

// symmetryFor returns the symmetry the value searches fold by: opt's when
// given (checked against pi and u), else one DetectSymmetry finds; nil
// when the probes do not go through the column generation, or for an
// empty Symmetry.
func symmetryFor(pi mech.Prior, u mech.Utility, opt Options) (*colgen.Symmetry, error) {
	if opt.Probes != ProbesAuto && opt.Probes != ProbesColumns {
		return nil, nil
	}
	s := opt.Symmetry
	if s == nil {
		s = DetectSymmetry(pi, u)
	} else if err := checkSymmetry(pi, u, *s); err != nil {
		return nil, err
	}
	if s == nil || len(s.In) == 0 {
		return nil, nil
	}
	return &colgen.Symmetry{In: s.In, Out: s.Out}, nil
}
