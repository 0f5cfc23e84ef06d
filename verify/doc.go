// Package verify re-checks a pmlopt certificate in exact arithmetic.
//
// Its only inputs are a problem (the prior, the utility or order), a
// mechanism and a Certificate: the claimed levels and worst case, and the
// multipliers behind the lower end of an ε bracket and behind an
// expected-utility bound. It shares no code with the engines, the cleaning
// or package certify: every float64 is read as the dyadic rational it is,
// sums and products are exact (math/big.Float at a precision that holds
// them, each operation checked exact), and e^x enters only through
// rational bounds from a Taylor series with an explicit remainder,
// rounded outward. docs/certificates.md states each claim and the
// inequality that proves it.
package verify
