// Package mathx holds the logarithm that every log of a probability in
// pmlopt goes through.
//
// Go's math.Log on amd64 is an assembly routine that is wrong for subnormal
// arguments, below 2^-1022 ≈ 2.2e-308 (golang/go#56600): math.Log(1e-310)
// returns −709.085 where log(1e-310) = −713.801. A prior mass, a smallest
// prior probability p_min, an output's marginal q_j and a mechanism's entry
// are inputs or come from them, and any of them may be subnormal; a level
// computed from such a logarithm would be off by up to 36 nats. Log scales a
// subnormal argument into the normal range first, where math.Log is right to
// an ulp, and LogRatio takes log(a/b) as log a − log b where the quotient
// would overflow, underflow or lose digits. LogSumExp, log Σ exp(x_k),
// shifts by the largest term first so that no exponential overflows.
package mathx
