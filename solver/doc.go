// Package solver solves the linear programs of package lp with one of
// several backends behind one interface.
//
// A Solver solves an lp.Model from scratch; a WarmSolver can also Load it
// into a Session, change bounds, costs and coefficients in place and
// re-solve, starting from the previous basis where the backend can.
// Infeasible and unbounded models are a Status, not an error; an error means
// the model is invalid or the engine failed.
//
// # Backends
//
// The backends of this package register themselves by name from an init function;
// Get returns one by name, Names lists them and Auto returns the best one
// built in: "clp" if the module was built with the clp tag, else "revised",
// else "gonum".
//
//	name     build        warm start          X, RowActivity  RowDuals, ColDuals          Certificate
//	clp      -tags clp    yes (Clp basis)     yes             yes                         when Clp's ray verifies
//	revised  always       yes (LU basis)      yes             yes                         yes, unless bounds cross
//	gonum    always       no (ColdSession)    yes             when the basis proves them  never
//
// The clp backend links COIN-OR Clp through cgo (pkg-config clp; on Debian
// the coinor-libclp-dev package). Each of its Sessions owns one Clp model;
// distinct Sessions may be used concurrently, one Session may not. Close a
// Session to free the model at once; an unreachable one is freed by the
// garbage collector.
//
// The gonum backend wraps gonum's dense Simplex
// (gonum.org/v1/gonum/optimize/convex/lp). It converts the model to standard
// form, drops zero columns and linearly dependent rows, and runs its own
// phase I so that degenerate and rank-deficient models are handled. It is a
// reference for small models (a few hundred rows), not a fast engine.
//
// # Conventions
//
// Objective is ColCosts·X + Offset in the model's sense. Duals satisfy
//
//	ColDuals = ColCosts − Aᵀ RowDuals
//
// with the signs of the model's sense: for a minimisation a positive row
// dual means the row sits at its lower bound and a negative one at its upper
// bound (reversed for a maximisation); the same holds for reduced costs and
// column bounds. A Certificate y proves infeasibility by FarkasGap(m, y) > 0.
//
// A lower bound above its upper bound (which a Session may set while
// branching) makes a model Infeasible rather than invalid.
package solver
