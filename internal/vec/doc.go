// Package vec holds the two vector kernels of the column generation's dense
// simplex engine (and of the rank-2 updates of package ipm's Newton
// system), y += a·x and x·y, with AVX2 and fused multiply-add on amd64
// processors that have them and gonum's floats elsewhere (or with the build
// tag purego).
//
// At 256 letters a least-ε search spent seven tenths of its time in these
// two operations on vectors of length N: the rank-one update of the
// engine's explicit N×N basis inverse, the forward transformation of an
// entering column and the pricing dot products. gonum's assembly for them
// uses 2-wide SSE2; 4-wide FMA does the same work in half (vectors in the
// L1 cache) to two thirds (a 256×256 inverse, from the L2 cache) of the
// time. Results differ from gonum's in the last bits (a fused multiply-add
// rounds once, and the dot product keeps sixteen partial sums), never by
// more than the rounding error of the sum.
package vec
