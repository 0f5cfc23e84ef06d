package solver

import "github.com/pmlopt/pmlopt/lp"

// CloneModelForTest exposes cloneModel to the external tests.
func CloneModelForTest(m *lp.Model) *lp.Model { return cloneModel(m) }
