// Package patternbasis carries a simplex basis of a PML model of package
// polytope to the model of another zero pattern on the same prior: a basis
// keyed by what its columns and rows stand for instead of by index.
// Neighbouring thresholds of a trade-off curve share most of their optimal
// bases, so the search of package worstcase starts each pattern's first solve
// from its neighbour's last basis.
package patternbasis

import (
	"fmt"

	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
)

// absent marks an entry of a Keyed basis whose variable or row the source
// model did not have.
const absent lp.BasisStatus = -1

// Keyed is a simplex basis of a PML model keyed by what its columns and
// rows stand for — p_ij, t_j, sum[i], marg[j], up[i,j] — instead of by
// index, so that the basis of one zero pattern (or pruning level) can start
// the model of another on the same prior. It takes O(NM) bytes.
type Keyed struct {
	n, m    int
	p, up   []lp.BasisStatus // index i·M + j
	t, marg []lp.BasisStatus
	sum     []lp.BasisStatus
}

// Key keys b, a basis of m.LP (for example from a solver.BasisSession), by
// the model's variables and rows. Only PML models are supported; slack
// columns of the Infeasibility objective are not kept.
func Key(m *polytope.Model, b lp.Basis) (*Keyed, error) {
	if m.Budget.Measure != mech.PML {
		return nil, fmt.Errorf("patternbasis: Key: a %s model; only pml models are supported", m.Budget.Measure)
	}
	if len(b.Cols) != m.LP.NumCols() || len(b.Rows) != m.LP.NumRows() {
		return nil, fmt.Errorf("patternbasis: Key: basis of %d columns and %d rows for a %d×%d LP",
			len(b.Cols), len(b.Rows), m.LP.NumRows(), m.LP.NumCols())
	}
	k := &Keyed{n: m.N, m: m.M,
		p: fill(m.N * m.M), up: fill(m.N * m.M), t: fill(m.M), marg: fill(m.M), sum: fill(m.N)}
	pair(m, k, b, func(key, st *lp.BasisStatus) { *key = *st })
	return k, nil
}

// Onto maps k onto m.LP: what both models have keeps its status, columns
// new to m start non-basic at their lower bound and rows new to m basic
// (their logical variable), which is a basis of the right size when m has
// every variable and row of k's model; otherwise the engine repairs it.
func (k *Keyed) Onto(m *polytope.Model) (lp.Basis, error) {
	if k == nil || k.n != m.N || k.m != m.M {
		return lp.Basis{}, fmt.Errorf("patternbasis: Onto: a keyed basis of another shape")
	}
	b := lp.Basis{Cols: make([]lp.BasisStatus, m.LP.NumCols()), Rows: make([]lp.BasisStatus, m.LP.NumRows())}
	for i := range b.Rows {
		b.Rows[i] = lp.Basic
	}
	pair(m, k, b, func(key, st *lp.BasisStatus) {
		if *key != absent {
			*st = *key
		}
	})
	return b, nil
}

// pair calls f with the entry of k and the status in b of every variable
// and row of m that a Keyed basis keys: p_ij, t_j, sum[i], up[i,j], marg[j].
func pair(m *polytope.Model, k *Keyed, b lp.Basis, f func(key, st *lp.BasisStatus)) {
	for i := range m.N {
		f(&k.sum[i], &b.Rows[i])
		for j := range m.M {
			if c := m.P[i][j]; c >= 0 {
				f(&k.p[i*m.M+j], &b.Cols[c])
			}
			if r := m.Up[i][j]; r >= 0 {
				f(&k.up[i*m.M+j], &b.Rows[r])
			}
		}
	}
	for j := range m.M {
		if c := m.Aux[j]; c >= 0 {
			f(&k.t[j], &b.Cols[c])
		}
		if r := m.Marg[j]; r >= 0 {
			f(&k.marg[j], &b.Rows[r])
		}
	}
}

func fill(n int) []lp.BasisStatus {
	s := make([]lp.BasisStatus, n)
	for i := range s {
		s[i] = absent
	}
	return s
}
