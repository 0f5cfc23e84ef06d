package mech_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/mech"
)

// The merged set's least and greatest masses of a column over the groups
// are those of the whole set, computed as a plain LP, of the column that
// gives each letter its group's entry: for boxes (the bounds' sums) and
// L1 balls (the same radius), with groups of one letter and of many.
func TestMergeKeepsTheMasses(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 40 {
		n, k := 6+r.IntN(10), 1+r.IntN(5)
		pi := randomPrior(r, n)
		of := make([]int, n)
		for i := range of {
			of[i] = i % k // every group holds a letter
			if i >= k {
				of[i] = r.IntN(k)
			}
		}
		var set *mech.PriorSet
		var err error
		if trial%2 == 0 {
			lo, up := make([]float64, n), make([]float64, n)
			for i, p := range pi {
				lo[i], up[i] = p*(0.3+0.6*r.Float64()), min(1, p*(1.1+r.Float64()))
			}
			set, err = mech.NewBoxSet(pi, lo, up)
		} else {
			set, err = mech.NewL1Set(pi, 0.5*r.Float64())
		}
		if err != nil {
			t.Fatal(err)
		}
		merged, err := set.Merge(of, k)
		if err != nil {
			t.Fatal(err)
		}
		for range 5 {
			c := make([]float64, k)
			for g := range c {
				c[g] = r.Float64()
			}
			full := make([]float64, n)
			for i, g := range of {
				full[i] = c[g]
			}
			for _, hi := range []bool{false, true} {
				want := lpMass(t, set, full, hi)
				got := merged.MinMass(c)
				if hi {
					got = merged.MaxMass(c)
				}
				if math.Abs(got-want) > 1e-9 {
					t.Fatalf("trial %d (box %v), greatest %v: merged %.15g, the whole set's LP %.15g", trial, set.IsBox(), hi, got, want)
				}
			}
		}
	}
}

// Groups that are not 0..k−1, each with a letter, are refused.
func TestMergeErrors(t *testing.T) {
	set, err := mech.NewL1Set(mech.Prior{0.5, 0.3, 0.2}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		of   []int
		k    int
		want string
	}{
		{[]int{0, 1}, 2, "2 groups for 3 letters"},
		{[]int{0, 1, 2}, 2, "letter 2 in group 2 of 2"},
		{[]int{0, 0, 2}, 3, "group 1 has no letter"},
	} {
		if _, err := set.Merge(c.of, c.k); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Merge(%v, %d): %v, want %q", c.of, c.k, err, c.want)
		}
	}
}

// A group may use an output where every one of its inputs may, and the
// rows of a mechanism with the merged pattern, given to each group's
// inputs, hold the whole pattern.
func TestPatternMerge(t *testing.T) {
	pat := mech.Pattern{
		{true, true, false},
		{true, false, true},
		{false, true, true},
		{true, true, true},
	}
	of := []int{0, 0, 1, 1}
	got := pat.Merge(of, 2)
	want := mech.Pattern{{true, false, false}, {false, true, true}}
	for g := range want {
		for j := range want[g] {
			if got[g][j] != want[g][j] {
				t.Fatalf("merged pattern %v, want %v", got, want)
			}
		}
	}
	rows := mech.Mechanism{{1, 0, 0}, {0, 0.5, 0.5}}
	whole := make(mech.Mechanism, len(of))
	for i, g := range of {
		whole[i] = rows[g]
	}
	if !got.Holds(rows) || !pat.Holds(whole) {
		t.Fatalf("the merged rows hold the merged pattern %v, the whole %v", got.Holds(rows), pat.Holds(whole))
	}
}
