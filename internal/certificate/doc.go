// Package certificate writes the certificates package verify checks, from
// an answer's parts: the problem, the mechanism and its audited level, the
// reported ends and whatever proofs the engine that found the answer left
// (multipliers, and over a prior set a Hint with the prior they were
// proven at). It needs no engine's state and calls none of the routes
// that solve.
//
// What callers can rely on:
//
//   - A certificate claims no more than what its proofs reach. A proof
//     that falls short of the reported end is dropped: the end is then
//     proven by the package's own means (pruning, and over a prior set a
//     small LP of its own) or goes out without multipliers, which verify
//     refuses. Over a prior set the lower end claimed may be a hair below
//     the reported one (what the proof's margins reach) and must then be
//     reported as the answer's.
//   - Levels are claimed rounded up (a float audit's roundoff, a few units
//     per letter, is below the margin added), and over a prior set they
//     are those of the set as verify reads it, which the engines' audit
//     (mech.PriorSet.MinMass) reads alike, to the last bit.
//   - Priors given with multipliers over a set are raised above the set in
//     exact arithmetic (AboveSet), the condition verify checks on them.
//   - TightenExpectedOver and TwoPriorBound replace a bound only by a
//     lower one that verify's exact check accepts, and ProvenBound keeps
//     the LP route's bound only as that check accepts it.
//
// The proofs are those of docs/certificates.md; package verify is the
// checker, and nothing here is trusted by it.
package certificate
