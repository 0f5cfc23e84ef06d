package main

import (
	"strconv"
	"strings"
)

// decimalFloat reads a number written in decimal, as problem files write
// them: a sign, digits, a point, an exponent, or inf and nan (which the
// caller refuses where it wants a finite number). Go's own syntax also
// reads hexadecimal floats and digit separators ("0x1p0", "1_0"), which
// in a CSV column or a flag are typos more likely than numbers.
func decimalFloat(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if strings.ContainsAny(t, "_xX") {
		return 0, &strconv.NumError{Func: "ParseFloat", Num: t, Err: strconv.ErrSyntax}
	}
	return strconv.ParseFloat(t, 64)
}
