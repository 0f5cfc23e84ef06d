package lp

// Status is the outcome of solving a model, in the same words whatever
// solved it: the engines (internal/revised) return it and package solver's
// backends report it, so that an outcome has one name and one spelling.
type Status int

// The outcomes of a solve.
const (
	Optimal    Status = iota // an optimal basic solution was found
	Infeasible               // the constraints have no solution
	Unbounded                // the objective is unbounded on the feasible set
	Limit                    // an iteration or time limit stopped the solve
)

func (s Status) String() string {
	switch s {
	case Optimal:
		return "optimal"
	case Infeasible:
		return "infeasible"
	case Unbounded:
		return "unbounded"
	case Limit:
		return "limit"
	}
	return "unknown"
}
