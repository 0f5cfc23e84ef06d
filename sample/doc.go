// Package sample draws outputs of a privacy mechanism: a Sampler holds one
// Walker/Vose alias table per input letter, so that after O(NM) set-up every
// draw costs O(1), and CSV.Privatize replaces a column of a CSV file by
// outputs drawn through the mechanism, copying the rest byte for byte.
//
// NewSampler draws from a ChaCha8 stream keyed by the operating system's
// cryptographic random source: a release can not be replayed. A replayable
// release is no release: whoever can rerun the draws on copies of the data
// with each possible secret learns which copy matches, record by record.
// NewSeededSampler keys the stream with a seed, for tests and simulations
// that must give the same outputs on every run and platform.
package sample
