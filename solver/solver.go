package solver

import (
	"github.com/pmlopt/pmlopt/lp"
)

// Status is the outcome of a solve: lp.Status, the one type the engines
// return and every backend reports.
type Status = lp.Status

// The outcomes of a solve.
const (
	Optimal    = lp.Optimal    // an optimal basic solution was found
	Infeasible = lp.Infeasible // the constraints have no solution
	Unbounded  = lp.Unbounded  // the objective is unbounded on the feasible set
	Limit      = lp.Limit      // an iteration or time limit stopped the solve
)

// Solution is what a backend returns. X, RowActivity and the duals are set
// when Status is Optimal; Certificate may be set when Status is Infeasible
// and the engine provides a Farkas ray (one entry per row), else it is nil.
type Solution struct {
	Status      Status
	Objective   float64   // ColCosts·X + Offset
	X           []float64 // primal values, one per column
	RowActivity []float64 // A X, one per row
	RowDuals    []float64 // one per row; sign convention of the backend's doc
	ColDuals    []float64 // reduced costs, one per column
	Certificate []float64 // infeasibility ray on the rows, or nil

	// Ray is the engine's own infeasibility ray on the rows when Status is
	// Infeasible and the engine gives one, whether or not it verifies as
	// a Farkas certificate (engines return rays accurate only to their
	// tolerances). Callers that check a proof themselves (package
	// polytope's DualBound) can use what Certificate had to refuse.
	Ray        []float64
	Iterations int
}

// Solver solves a Model from scratch.
type Solver interface {
	// Name identifies the backend: "gonum", "clp", ...
	Name() string
	// Solve validates and solves m. An error means the model was invalid or
	// the engine failed; infeasible and unbounded models are not errors but
	// a Status.
	Solve(m *lp.Model) (*Solution, error)
}

// Session is a model loaded into a backend that can be changed in place and
// re-solved, starting from the previous basis where the backend can.
type Session interface {
	SetColBounds(col int, lower, upper float64)
	SetRowBounds(row int, lower, upper float64)
	// SetCoef changes an entry of A that is present in the loaded model.
	SetCoef(row, col int, val float64)
	SetColCost(col int, cost float64)
	Solve() (*Solution, error)
	// Close frees the engine's memory. The session may not be used after.
	Close()
}

// WarmSolver is a Solver that can also load a model into a Session.
type WarmSolver interface {
	Solver
	Load(m *lp.Model) (Session, error)
}

// StoppableSession is a Session whose Solve can be ended from outside: the
// engine polls stop during its iterations and, when it returns true, ends
// the Solve with an error (a caller's context is done, say).
type StoppableSession interface {
	Session
	SetStop(stop func() bool)
}

// LimitedSession is a Session whose Solves can be bounded in simplex
// iterations: a Solve that reaches the limit returns Status Limit. The
// limit never exceeds the engine's own, which n ≤ 0 restores.
type LimitedSession interface {
	Session
	SetIterationLimit(n int)
}

// BasisSession is a Session whose basis can be read and replaced, so that a
// related model (another zero pattern, say) can start from it. An
// inconsistent basis (a wrong number of basic variables, a singular basis
// matrix) is repaired by the engine, not refused.
type BasisSession interface {
	Session
	// Basis returns the basis of the last Solve; ok is false before the
	// first.
	Basis() (b lp.Basis, ok bool)
	// SetBasis makes b the starting basis of the next Solve. It fails if
	// the lengths of b do not match the model.
	SetBasis(b lp.Basis) error
}
