// Package guarantee derives the privacy guarantees implied by another
// guarantee for a prior with smallest probability p_min (SPEC §3): PML and
// PMC imply each other (seed 000 Thm 4), both imply ALIP, LIP and LDP
// guarantees (seed 000 Cor 3, seed 003 Cors 1-3), ALIP and LIP imply LDP and
// PML, and LDP implies LIP, ALIP, PML and PMC (seed 000 Prop 1 and Prop 3).
// It also calibrates an LDP mechanism to a PML budget (seed 002 Prop 1).
//
// All logarithms are natural. Every function takes p_min ∈ (0, 1]; a
// guarantee outside the regime where an implication holds implies nothing,
// and Implied says so rather than returning +Inf.
package guarantee
