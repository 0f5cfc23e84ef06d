package polytope

import (
	"fmt"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// absent marks an entry of a KeyedBasis whose variable or row the source
// model did not have.
const absent solver.BasisStatus = -1

// KeyedBasis is a simplex basis of a PML model keyed by what its columns and
// rows stand for — p_ij, t_j, sum[i], marg[j], up[i,j] — instead of by
// index, so that the basis of one zero pattern (or pruning level) can start
// the model of another on the same prior: neighbouring thresholds of a
// trade-off curve share most of their optimal bases. It takes O(NM) bytes.
type KeyedBasis struct {
	n, m    int
	p, up   []solver.BasisStatus // index i·M + j
	t, marg []solver.BasisStatus
	sum     []solver.BasisStatus
}

// KeyBasis keys b, a basis of m.LP (for example from a
// solver.BasisSession), by the model's variables and rows. Only PML models
// are supported; slack columns of the Infeasibility objective are not kept.
func (m *Model) KeyBasis(b solver.Basis) (*KeyedBasis, error) {
	if m.Budget.Measure != mech.PML {
		return nil, fmt.Errorf("polytope: KeyBasis: a %s model; only pml models are supported", m.Budget.Measure)
	}
	if len(b.Cols) != m.LP.NumCols() || len(b.Rows) != m.LP.NumRows() {
		return nil, fmt.Errorf("polytope: KeyBasis: basis of %d columns and %d rows for a %d×%d LP",
			len(b.Cols), len(b.Rows), m.LP.NumRows(), m.LP.NumCols())
	}
	k := &KeyedBasis{n: m.N, m: m.M,
		p: fill(m.N * m.M), up: fill(m.N * m.M), t: fill(m.M), marg: fill(m.M), sum: fill(m.N)}
	m.pair(k, b, func(key, st *solver.BasisStatus) { *key = *st })
	return k, nil
}

// Basis maps k onto m.LP: what both models have keeps its status, columns
// new to m start non-basic at their lower bound and rows new to m basic
// (their logical variable), which is a basis of the right size when m has
// every variable and row of k's model; otherwise the engine repairs it.
func (m *Model) Basis(k *KeyedBasis) (solver.Basis, error) {
	if k == nil || k.n != m.N || k.m != m.M {
		return solver.Basis{}, fmt.Errorf("polytope: Basis: a keyed basis of another shape")
	}
	b := solver.Basis{Cols: make([]solver.BasisStatus, m.LP.NumCols()), Rows: make([]solver.BasisStatus, m.LP.NumRows())}
	for i := range b.Rows {
		b.Rows[i] = solver.Basic
	}
	m.pair(k, b, func(key, st *solver.BasisStatus) {
		if *key != absent {
			*st = *key
		}
	})
	return b, nil
}

// pair calls f with the entry of k and the status in b of every variable
// and row of m that a KeyedBasis keys: p_ij, t_j, sum[i], up[i,j], marg[j].
func (m *Model) pair(k *KeyedBasis, b solver.Basis, f func(key, st *solver.BasisStatus)) {
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

func fill(n int) []solver.BasisStatus {
	s := make([]solver.BasisStatus, n)
	for i := range s {
		s[i] = absent
	}
	return s
}
