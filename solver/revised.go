package solver

import (
	"fmt"

	"github.com/pmlopt/pmlopt/internal/revised"
	"github.com/pmlopt/pmlopt/lp"
)

func init() { mustRegister("revised", Revised) }

// Revised returns the pure-Go backend on the bounded revised simplex of
// package internal/revised: sparse LU of the basis with product-form updates,
// a composite phase 1 and warm re-solves from the last basis. It is always
// built in and is the default when Clp is not.
//
// Duals follow the convention of the other backends: RowDuals[i] is the rate
// of change of the objective per unit increase of the active bound of row i,
// ColDuals the reduced costs. An Infeasible solution carries a Farkas
// certificate (see FarkasGap) unless some lower bound exceeds its upper
// bound. Tolerances: primal and dual feasibility 1e-9, pivots 1e-9.
func Revised() Solver { return revisedSolver{} }

type revisedSolver struct{}

func (revisedSolver) Name() string { return "revised" }

func (revisedSolver) Solve(m *lp.Model) (*Solution, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	r, err := revised.Solve(m, nil)
	if err != nil {
		return nil, fmt.Errorf("solver: revised: %w", err)
	}
	return revisedSolution(r), nil
}

func (revisedSolver) Load(m *lp.Model) (Session, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	s, err := revised.New(m, nil)
	if err != nil {
		return nil, fmt.Errorf("solver: revised: %w", err)
	}
	return &revisedSession{s: s}, nil
}

func revisedSolution(r *revised.Result) *Solution {
	sol := &Solution{
		Objective:   r.Objective,
		X:           r.X,
		RowActivity: r.RowActivity,
		RowDuals:    r.RowDuals,
		ColDuals:    r.ColDuals,
		Certificate: r.Certificate,
		Iterations:  r.Iterations,
		Status:      r.Status,
	}
	return sol
}

// revisedSession keeps the engine with its basis between solves. A change
// the engine refuses is reported by the next Solve, as for ColdSession.
type revisedSession struct {
	s      *revised.Simplex
	err    error
	closed bool
}

func (r *revisedSession) keep(err error) {
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("solver: revised: %w", err)
	}
}

func (r *revisedSession) SetColBounds(col int, lower, upper float64) {
	r.keep(r.s.SetColBounds(col, lower, upper))
}

func (r *revisedSession) SetRowBounds(row int, lower, upper float64) {
	r.keep(r.s.SetRowBounds(row, lower, upper))
}

func (r *revisedSession) SetCoef(row, col int, val float64) { r.keep(r.s.SetCoef(row, col, val)) }

func (r *revisedSession) SetColCost(col int, cost float64) { r.keep(r.s.SetColCost(col, cost)) }

func (r *revisedSession) Solve() (*Solution, error) {
	if r.closed {
		return nil, fmt.Errorf("solver: Solve on a closed session")
	}
	if err := r.err; err != nil {
		r.err = nil
		return nil, err
	}
	res, err := r.s.Solve()
	if err != nil {
		return nil, fmt.Errorf("solver: revised: %w", err)
	}
	return revisedSolution(res), nil
}

func (r *revisedSession) Close() { r.closed = true }

func (r *revisedSession) SetStop(stop func() bool) { r.s.SetStop(stop) }

func (r *revisedSession) SetIterationLimit(n int) { r.s.SetMaxIter(n) }
