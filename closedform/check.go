package closedform

import (
	"fmt"

	"github.com/pmlopt/pmlopt/internal/mathx"
	"github.com/pmlopt/pmlopt/mech"
)

// checkOrder validates o in O(NM) time: non-empty, rectangular, and every
// row a ranking under the max-rank tie rule of package mech (a tie group of
// size c occupies ranks r−c+1..r and all its members carry rank r). It
// accepts exactly the orders mech.NewOrder accepts, without sorting.
func checkOrder(o mech.Order) (n, m int, err error) {
	if len(o) == 0 {
		return 0, 0, &mech.FieldError{Field: "order", Row: -1, Col: -1, Msg: "has no rows"}
	}
	m = len(o[0])
	if m == 0 {
		return 0, 0, &mech.FieldError{Field: "order", Row: 0, Col: -1, Msg: "has no columns"}
	}
	count := make([]int, m+1)
	for i, row := range o {
		if len(row) != m {
			return 0, 0, &mech.FieldError{Field: "order", Row: i, Col: -1,
				Msg: fmt.Sprintf("has %d entries, row 1 has %d", len(row), m)}
		}
		clear(count)
		for j, r := range row {
			if r < 1 || r > m {
				return 0, 0, &mech.FieldError{Field: "order", Row: i, Col: j,
					Msg: fmt.Sprintf("is %d, outside 1..%d", r, m)}
			}
			count[r]++
		}
		// Walk the tie groups down from rank M: a group with rank r and
		// size c must be followed by the group with rank r−c.
		k := m
		for k > 0 && count[k] > 0 {
			k -= count[k]
		}
		if k != 0 {
			return 0, 0, &mech.FieldError{Field: "order", Row: i, Col: -1,
				Msg: fmt.Sprintf("%v is not a ranking of 1..%d (a tie group of size c must share the rank of its largest position, e.g. 1 3 3 or 2 2 3)", row, m)}
		}
	}
	return len(o), m, nil
}

// checkPrior validates pi and that it has n letters.
func checkPrior(pi mech.Prior, n int) error {
	if _, err := mech.NewPrior(pi); err != nil {
		return err
	}
	if len(pi) != n {
		return &mech.FieldError{Field: "prior", Row: -1, Col: -1,
			Msg: fmt.Sprintf("has %d letters but the order has %d rows", len(pi), n)}
	}
	return nil
}

// checkH validates a threshold h against M outputs.
func checkH(h, m int) error {
	if h < 1 || h > m {
		return fmt.Errorf("closedform: threshold h = %d is outside 1..%d", h, m)
	}
	return nil
}

// negLog returns −log s for a sum s of prior probabilities, snapped to 0
// when s is within 1e-12 of 1 (a column every input may use: Σπ_i = 1 up to
// rounding, in either direction), far below the 1e-9 pmlopt works to.
func negLog(s float64) float64 {
	if s >= 1-1e-12 {
		// The mass of every input: rounding of Σπ_i, not leakage.
		return 0
	}
	return -mathx.Log(s)
}
