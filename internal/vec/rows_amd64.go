//go:build !purego

package vec

// dotRowsFMA is DotRows's kernel: dotFMA's sum of each row of n entries
// (at stride entries from the last) with x, into dst.
//
//go:noescape
func dotRowsFMA(dst *float64, rows int, a *float64, stride int, x *float64, n int)

// subRowsFMA is SubRows's kernel: axpyFMA's y −= c_i·a_i for each nonzero
// c_i of the rows entries of c, with a_i at i·stride entries from a.
//
//go:noescape
func subRowsFMA(y *float64, n int, c *float64, rows int, a *float64, stride int)
