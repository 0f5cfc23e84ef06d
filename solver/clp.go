//go:build clp

package solver

/*
#cgo pkg-config: clp
#include <stdbool.h>
#include <stdlib.h>
#include "Clp_C_Interface.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"unsafe"

	"github.com/pmlopt/pmlopt/lp"
)

func init() { mustRegister("clp", Clp) }

// Clp returns the backend on COIN-OR Clp through its C interface. It is built
// only with the clp build tag and needs the Clp library (Debian:
// coinor-libclp-dev). The value implements WarmSolver: a Session keeps one Clp
// model, changes it in place and re-solves from the previous basis.
//
// RowDuals and ColDuals are Clp's row prices and reduced costs, in the
// package's convention ColDuals = ColCosts − AᵀRowDuals. When Clp proves
// infeasibility with the dual simplex, Certificate is its infeasibility ray,
// signed so that FarkasGap(m, Certificate) > 0; it is nil when Clp gives no
// ray or the ray does not verify.
//
// Each Session owns its own Clp model and shares nothing with others, so
// distinct Sessions may be used from different goroutines at the same time;
// one Session must not be used concurrently. Close a Session when done with
// it; a Session that becomes unreachable is freed by the garbage collector.
func Clp() Solver { return clpSolver{} }

type clpSolver struct{}

func (clpSolver) Name() string { return "clp" }

func (c clpSolver) Solve(m *lp.Model) (*Solution, error) {
	s, err := c.Load(m)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Solve()
}

// clpInf converts ±Inf to Clp's infinity.
func clpInf(v float64) C.double {
	switch {
	case v >= 1e30:
		return C.double(math.MaxFloat64)
	case v <= -1e30:
		return C.double(-math.MaxFloat64)
	}
	return C.double(v)
}

func clpArray(v []float64) []C.double {
	out := make([]C.double, len(v))
	for i, x := range v {
		out[i] = clpInf(x)
	}
	return out
}

func ptr[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func (clpSolver) Load(m *lp.Model) (Session, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	s := &clpSession{m: cloneModel(m)}
	n, r := m.NumCols(), m.NumRows()
	s.idx = make(map[[2]int]int, m.NumNonzeros())
	for k, e := range s.m.ConstMatrix {
		s.idx[[2]int{e.Row, e.Col}] = k
	}
	// Column-major copy of A.
	nz := append([]lp.Nonzero(nil), m.ConstMatrix...)
	sort.Slice(nz, func(a, b int) bool {
		if nz[a].Col != nz[b].Col {
			return nz[a].Col < nz[b].Col
		}
		return nz[a].Row < nz[b].Row
	})
	start := make([]C.CoinBigIndex, n+1)
	index := make([]C.int, len(nz))
	value := make([]C.double, len(nz))
	for k, e := range nz {
		start[e.Col+1]++
		index[k] = C.int(e.Row)
		value[k] = C.double(e.Val)
	}
	for j := 0; j < n; j++ {
		start[j+1] += start[j]
	}
	s.model = C.Clp_newModel()
	if s.model == nil {
		return nil, fmt.Errorf("solver: clp: cannot allocate a model")
	}
	model := s.model
	s.cleanup = runtime.AddCleanup(s, func(p unsafe.Pointer) { C.Clp_deleteModel(p) }, model)
	C.Clp_setLogLevel(model, 0)
	// Clp's default tolerances (1e-7) are too loose for a bisection to 1e-9
	// on ε: use the same 1e-9 as the revised backend.
	C.Clp_setPrimalTolerance(model, feasTol)
	C.Clp_setDualTolerance(model, feasTol)
	// No automatic scaling: it would undo the exact row scaling callers use
	// to tighten the tolerance (package worstcase multiplies rows by 2^10).
	C.Clp_scaling(model, 0)
	collb, colub, obj := clpArray(m.ColLower), clpArray(m.ColUpper), s.clpCosts()
	rowlb, rowub := clpArray(m.RowLower), clpArray(m.RowUpper)
	C.Clp_loadProblem(model, C.int(n), C.int(r), ptr(start), ptr(index), ptr(value),
		ptr(collb), ptr(colub), ptr(obj), ptr(rowlb), ptr(rowub))
	return s, nil
}

// feasTol is the primal and dual feasibility tolerance given to Clp.
const feasTol = 1e-9

// clpErrors is Clp_status when the simplex stopped on numerical errors.
const clpErrors = 4

// clpCosts returns the costs Clp minimises: the model's, negated when it
// maximises. Clp's own maximisation gives infeasibility rays that are not
// Farkas rays, so the session always minimises.
func (s *clpSession) clpCosts() []C.double {
	c := clpArray(s.m.ColCosts)
	if s.m.Maximize {
		for j := range c {
			c[j] = -c[j]
		}
	}
	return c
}

// clpSession is one Clp model. The Go copy m mirrors the loaded model; bound
// and cost changes are made to it and pushed to Clp in one call per array at
// the next Solve.
type clpSession struct {
	model   unsafe.Pointer
	cleanup runtime.Cleanup
	m       *lp.Model
	idx     map[[2]int]int // position of each entry in m.ConstMatrix
	err     error

	colsDirty, rowsDirty, costDirty, coefDirty bool
	solved                                     bool
}

func (s *clpSession) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("solver: clp: "+format, args...)
	}
}

func (s *clpSession) SetColBounds(col int, lower, upper float64) {
	if s.model == nil {
		s.fail("SetColBounds on a closed session")
		return
	}
	if col < 0 || col >= s.m.NumCols() {
		s.fail("SetColBounds: column %d out of range [0, %d)", col, s.m.NumCols())
		return
	}
	s.m.ColLower[col], s.m.ColUpper[col] = lower, upper
	s.colsDirty = true
}

func (s *clpSession) SetRowBounds(row int, lower, upper float64) {
	if s.model == nil {
		s.fail("SetRowBounds on a closed session")
		return
	}
	if row < 0 || row >= s.m.NumRows() {
		s.fail("SetRowBounds: row %d out of range [0, %d)", row, s.m.NumRows())
		return
	}
	s.m.RowLower[row], s.m.RowUpper[row] = lower, upper
	s.rowsDirty = true
}

func (s *clpSession) SetColCost(col int, cost float64) {
	if s.model == nil {
		s.fail("SetColCost on a closed session")
		return
	}
	if col < 0 || col >= s.m.NumCols() {
		s.fail("SetColCost: column %d out of range [0, %d)", col, s.m.NumCols())
		return
	}
	s.m.ColCosts[col] = cost
	s.costDirty = true
}

// SetCoef changes A in place with Clp_modifyCoefficient, keeping the entry
// even when val is 0 so that the sparsity pattern, and the basis, survive.
// An entry absent from the loaded model is added.
func (s *clpSession) SetCoef(row, col int, val float64) {
	if s.model == nil {
		s.fail("SetCoef on a closed session")
		return
	}
	if row < 0 || row >= s.m.NumRows() || col < 0 || col >= s.m.NumCols() {
		s.fail("SetCoef: (%d, %d) outside the %d×%d matrix", row, col, s.m.NumRows(), s.m.NumCols())
		return
	}
	if math.IsNaN(val) || math.IsInf(val, 0) {
		s.fail("SetCoef: coefficient at (%d, %d) is %v", row, col, val)
		return
	}
	key := [2]int{row, col}
	if k, ok := s.idx[key]; ok {
		s.m.ConstMatrix[k].Val = val
	} else {
		s.idx[key] = len(s.m.ConstMatrix)
		s.m.ConstMatrix = append(s.m.ConstMatrix, lp.Nonzero{Row: row, Col: col, Val: val})
	}
	C.Clp_modifyCoefficient(s.model, C.int(row), C.int(col), C.double(val), C.bool(true))
	s.coefDirty = true
}

// Clp's status codes (ClpSimplex.hpp).
const (
	clpFree, clpBasic, clpAtUpper, clpAtLower, clpSuperBasic, clpFixed = 0, 1, 2, 3, 4, 5
)

func (s *clpSession) Basis() (lp.Basis, bool) {
	if s.model == nil || !s.solved || C.Clp_statusExists(s.model) == 0 {
		return lp.Basis{}, false
	}
	n, r := s.m.NumCols(), s.m.NumRows()
	st := unsafe.Slice((*byte)(unsafe.Pointer(C.Clp_statusArray(s.model))), n+r)
	conv := func(c byte) lp.BasisStatus {
		switch c & 7 {
		case clpBasic:
			return lp.Basic
		case clpAtUpper:
			return lp.AtUpper
		case clpAtLower, clpFixed:
			return lp.AtLower
		}
		return lp.Free
	}
	b := lp.Basis{Cols: make([]lp.BasisStatus, n), Rows: make([]lp.BasisStatus, r)}
	for j := range b.Cols {
		b.Cols[j] = conv(st[j])
	}
	for i := range b.Rows {
		b.Rows[i] = conv(st[n+i])
	}
	return b, true
}

func (s *clpSession) SetBasis(b lp.Basis) error {
	if s.model == nil {
		return fmt.Errorf("solver: clp: SetBasis on a closed session")
	}
	n, r := s.m.NumCols(), s.m.NumRows()
	if len(b.Cols) != n || len(b.Rows) != r {
		return fmt.Errorf("solver: clp: SetBasis: basis of %d columns and %d rows for a %d×%d model", len(b.Cols), len(b.Rows), r, n)
	}
	conv := func(v lp.BasisStatus) C.uchar {
		switch v {
		case lp.Basic:
			return clpBasic
		case lp.AtUpper:
			return clpAtUpper
		case lp.Free:
			return clpSuperBasic
		}
		return clpAtLower
	}
	st := make([]C.uchar, n+r)
	for j, v := range b.Cols {
		st[j] = conv(v)
	}
	for i, v := range b.Rows {
		st[n+i] = conv(v)
	}
	C.Clp_copyinStatus(s.model, ptr(st))
	return nil
}

func (s *clpSession) Close() {
	if s.model == nil {
		return
	}
	s.cleanup.Stop()
	C.Clp_deleteModel(s.model)
	s.model = nil
}

func (s *clpSession) Solve() (*Solution, error) {
	if s.model == nil {
		return nil, fmt.Errorf("solver: clp: Solve on a closed session")
	}
	if err := s.err; err != nil {
		s.err = nil
		return nil, err
	}
	if err := checkModel(s.m); err != nil {
		return nil, err
	}
	if !boundsConsistent(s.m) {
		return &Solution{Status: Infeasible}, nil
	}
	model := s.model
	if s.colsDirty {
		lo, up := clpArray(s.m.ColLower), clpArray(s.m.ColUpper)
		C.Clp_chgColumnLower(model, ptr(lo))
		C.Clp_chgColumnUpper(model, ptr(up))
	}
	if s.rowsDirty {
		lo, up := clpArray(s.m.RowLower), clpArray(s.m.RowUpper)
		C.Clp_chgRowLower(model, ptr(lo))
		C.Clp_chgRowUpper(model, ptr(up))
	}
	if s.costDirty {
		c := s.clpCosts()
		C.Clp_chgObjCoefficients(model, ptr(c))
	}
	// After a change of costs alone the basis stays primal feasible: primal
	// simplex. Otherwise it stays dual feasible at best: dual simplex, which
	// is also what proves infeasibility with a ray.
	primal := s.solved && s.costDirty && !s.colsDirty && !s.rowsDirty && !s.coefDirty
	s.colsDirty, s.rowsDirty, s.costDirty, s.coefDirty = false, false, false, false
	run := func(primal bool) {
		if primal {
			C.Clp_primal(model, 0)
		} else {
			C.Clp_dual(model, 0)
		}
	}
	run(primal)
	first := 0 // the iterations of a run that stopped on errors
	if C.Clp_status(model) == clpErrors {
		// One algorithm stopped on numerical errors: the other, from the
		// basis reached. The dual simplex does so on ε-PML feasibility
		// LPs within 1e-9 of their ε*, where the primal one decides.
		first = int(C.Clp_numberIterations(model))
		run(!primal)
	}
	s.solved = true
	sol, err := s.solution()
	if sol != nil {
		sol.Iterations += first
	}
	return sol, err
}

func (s *clpSession) solution() (*Solution, error) {
	model := s.model
	n, r := s.m.NumCols(), s.m.NumRows()
	sol := &Solution{Iterations: int(C.Clp_numberIterations(model))}
	switch st := C.Clp_status(model); st {
	case 0:
		sol.Status = Optimal
	case 1:
		sol.Status = Infeasible
	case 2:
		sol.Status = Unbounded
	case 3:
		sol.Status = Limit
	default:
		return nil, fmt.Errorf("solver: clp: stopped on errors (status %d)", int(st))
	}
	switch sol.Status {
	case Optimal:
		sol.X = goFloats(C.Clp_getColSolution(model), n)
		sol.RowActivity = goFloats(C.Clp_getRowActivity(model), r)
		sol.RowDuals = goFloats(C.Clp_getRowPrice(model), r)
		sol.ColDuals = goFloats(C.Clp_getReducedCost(model), n)
		sign := 1.0
		if s.m.Maximize {
			sign = -1
		}
		for i := range sol.RowDuals {
			sol.RowDuals[i] = sign*sol.RowDuals[i] + 0 // no −0
		}
		for j := range sol.ColDuals {
			sol.ColDuals[j] = sign*sol.ColDuals[j] + 0
		}
		sol.Objective = objective(s.m, sol.X)
	case Infeasible:
		ray := C.Clp_infeasibilityRay(model)
		if ray != nil {
			y := goFloats(ray, r)
			C.Clp_freeRay(model, ray)
			sol.Ray = slices.Clone(y)
			switch {
			case FarkasGap(s.m, y) > 0:
				sol.Certificate = y
			default:
				for i := range y {
					y[i] = -y[i]
				}
				if FarkasGap(s.m, y) > 0 {
					sol.Certificate = y
				}
			}
		}
	}
	return sol, nil
}

// goFloats copies n doubles from p; p may be nil only when n is 0.
func goFloats(p *C.double, n int) []float64 {
	out := make([]float64, n)
	if n == 0 || p == nil {
		return out
	}
	src := unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
	copy(out, src)
	return out
}
