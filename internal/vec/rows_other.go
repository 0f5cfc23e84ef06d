//go:build !amd64 || purego

package vec

func dotRowsFMA(dst *float64, rows int, a *float64, stride int, x *float64, n int) {
	panic("vec: no FMA kernel")
}

func subRowsFMA(y *float64, n int, c *float64, rows int, a *float64, stride int) {
	panic("vec: no FMA kernel")
}
