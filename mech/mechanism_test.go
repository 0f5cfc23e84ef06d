package mech

import (
	"math"
	"testing"
)

// ColumnMax agrees with a pass down each column, NaN and ragged rows
// included.
func TestColumnMax(t *testing.T) {
	p := Mechanism{{0.2, 0.5, 0.3}, {0.7, 0.1, 0.2}, {0.1, math.NaN(), 0.9}, {0.4}}
	got := p.ColumnMax()
	want := []float64{0.7, math.NaN(), 0.9}
	if len(got) != len(want) {
		t.Fatalf("ColumnMax = %v, want %v", got, want)
	}
	for j := range want {
		if got[j] != want[j] && !(math.IsNaN(got[j]) && math.IsNaN(want[j])) {
			t.Fatalf("ColumnMax = %v, want %v", got, want)
		}
	}
	if got := (Mechanism{}).ColumnMax(); len(got) != 0 {
		t.Fatalf("empty mechanism: %v", got)
	}
}
