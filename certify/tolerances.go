package certify

// The tolerances of the trust kernel. Proofs (DualBound, UpperBound) carry
// their own rounding margins in units of UnitRoundoff and need no other.
const (
	// UnitRoundoff is 2^−53, the relative rounding error of one float64
	// operation: the unit of every rounding margin in pmlopt's proofs.
	UnitRoundoff = 0x1p-53

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

	// DustEntry is the least positive entry a mechanism pmlopt returns
	// should have: an entry below it is a solver's rounding on an output
	// of little mass, not a release anyone designed, and deployed it
	// would release that output all the same (clean.WithoutDust).
	DustEntry = 1e-9
)
