package alphaopt_test

import (
	"context"
	"fmt"

	"github.com/pmlopt/pmlopt/internal/alphaopt"
	"github.com/pmlopt/pmlopt/mech"
)

// The bracket of eq. 6 of Gilani et al. (2022) for a binary symmetric
// channel, α = 2 and β = 1.5, before the factor α/((α−1)β).
func ExampleMax() {
	rows := mech.Mechanism{{0.8, 0.2}, {0.2, 0.8}}
	cols := alphaopt.UsedColumns(rows)
	lo, up := alphaopt.Max(context.Background(), rows, cols, 2, 1.5, 1e-12)
	fmt.Printf("%.9f %.9f\n", lo, up)
	// Output:
	// 0.530628251 0.530628251
}
