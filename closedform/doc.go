// Package closedform builds the privacy mechanisms of pmlopt that have a
// closed form (docs/theory.md §4) and the quantities that calibrate them:
//
//   - the utility-safe mechanism M*(h) of Song & Oechtering (2026), Thm 1
//     (UtilitySafe), its PML ε_S(h) by Cor 1 (SafeEpsilon), the whole curve h ↦ ε_S(h) in one
//     O(NM log M) sweep (SafeCurve) and the utility-safe schedule for a PML
//     budget (SafeSchedule);
//   - the PML-extremal mechanism of the high-privacy regime (Extremal,
//     Grosse et al. (2024), Cor 4; Saeidian et al. (2024), Example 4);
//   - the LDP baselines: randomized response (RandomizedResponse) with its
//     pointwise maximal cost, and the exponential mechanism (Exponential),
//     calibrated to a PML budget by LDPForPML (Song & Oechtering (2026), Prop 1);
//   - Calibrate: a family's largest parameter whose mechanism a caller's
//     audit finds within a budget, from the conversions' start by bisection.
//
// Thresholds h are utility orders in 1..M under the max-rank tie rule of
// package mech. All logarithms are natural. Functions validate their inputs
// and return errors; none panics on user data.
package closedform
