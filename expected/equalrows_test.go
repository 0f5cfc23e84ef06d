package expected_test

import (
	"math"
	"testing"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/mech"
)

// Column means under (0.2, 0.3, 0.5): 0.8, 1.4, 1.5 and, tied with the
// last, 1.5: the first of the largest is taken, and its value is that of
// the mechanism returned.
func TestEqualRows(t *testing.T) {
	pi := mech.Prior{0.2, 0.3, 0.5}
	u := mech.Utility{{1, 0, 5, 0}, {2, 3, 0, 5}, {0, 1, 1, 0}}
	p, v := expected.EqualRows(pi, u)
	if math.Abs(v-1.5) > 1e-15 {
		t.Fatalf("value %.17g, want 1.5", v)
	}
	for i, row := range p {
		for j, x := range row {
			if want := map[bool]float64{true: 1, false: 0}[j == 2]; x != want {
				t.Fatalf("p[%d][%d] = %g, want %g", i, j, x, want)
			}
		}
	}
	if got := u.ExpectedUtility(pi, p); math.Abs(got-v) > 1e-15 {
		t.Fatalf("expected utility %.17g, reported %.17g", got, v)
	}
}
