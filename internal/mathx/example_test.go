package mathx_test

import (
	"fmt"

	"github.com/pmlopt/pmlopt/internal/mathx"
)

// A subnormal prior mass and the PML of an output that only it produces.
func ExampleLog() {
	fmt.Printf("%.6f\n", mathx.Log(1e-310))
	fmt.Printf("%.6f\n", mathx.LogRatio(1, 1e-310))
	// Output:
	// -713.801379
	// 713.801379
}
