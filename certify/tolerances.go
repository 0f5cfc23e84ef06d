package certify

// The tolerances of the trust kernel. Proofs (DualBound, UpperBound) carry
// their own rounding margins in units of unitRoundoff and need no other.
const (
	// unitRoundoff is 2^−53, the relative rounding error of one float64
	// operation.
	unitRoundoff = 0x1p-53

	// AuditTol is how far above its budget a mechanism pmlopt returns may
	// audit (Audit): the engines' feasibility tolerance, about 1e-9 on
	// each row, magnified by outputs of small mass.
	AuditTol = 1e-7

	// ProbeSlack is how far above a probed ε a point may audit and still
	// show that ε feasible (Within): rounding of the audit itself, not a
	// solver's tolerance.
	ProbeSlack = 1e-13

	// RowSumTol is how far from 1 a row of a returned mechanism may sum
	// (RowsSumToOne).
	RowSumTol = 1e-12

	// breakSlack is the relative amount by which an output's ratio may
	// exceed its budget before the output breaks it (DropNoise).
	breakSlack = 1e-9

	// mixMargin raises the mixing weight of MixToBudget by a relative
	// amount, so that rounding leaves the mixture within the budget.
	mixMargin = 1e-12
)

// The noise levels of the points pmlopt cleans.
var (
	// VertexNoise is for an LP engine's point (a vertex, feasible to
	// about 1e-9 on each row, which an output of mass up to 1e-6 turns
	// into a ratio off by up to 1e-3).
	VertexNoise = Noise{Entry: 1e-12, Column: 1e-6}
	// InteriorNoise is for an interior point of package ipm, whose
	// entries off the support are of the order of 1e-11 at the last
	// iterations and whose outputs of noise are no larger than 1e-9.
	InteriorNoise = Noise{Entry: 1e-11, Column: 1e-9}
)
