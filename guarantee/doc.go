// Package guarantee derives the privacy guarantees implied by another
// guarantee for a prior with smallest probability p_min (docs/theory.md §3): PML and
// PMC imply each other (Saeidian et al. (2024), Thm 4), both imply ALIP, LIP and LDP
// guarantees (Saeidian et al. (2024), Cor 3, Grosse et al. (2024), Cors 1-3), ALIP and LIP imply LDP and
// PML, and LDP implies LIP, ALIP, PML and PMC (Saeidian et al. (2024), Prop 1 and Prop 3).
// It also calibrates an LDP mechanism to a PML budget (Song & Oechtering (2026), Prop 1).
//
// All logarithms are natural. Every function takes p_min ∈ (0, 1]; a
// guarantee outside the regime where an implication holds implies nothing,
// and Implied says so rather than returning +Inf.
package guarantee
