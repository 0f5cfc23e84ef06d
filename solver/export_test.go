package solver

import "github.com/pmlopt/pmlopt/lp"

// CloneModelForTest exposes cloneModel to the external tests.
func CloneModelForTest(m *lp.Model) *lp.Model { return cloneModel(m) }

// RegisterForTest exposes register to the external tests.
func RegisterForTest(name string, f func() Solver) error { return register(name, f) }
