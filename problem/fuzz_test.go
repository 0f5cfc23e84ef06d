package problem

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, that every error is one
// line, and that whatever Parse accepts is valid and survives a write and a
// read in both formats unchanged.
//
//	go test -fuzz=FuzzParse ./problem
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"*.yaml", "*.json", "bad/*.*", "bad/solve/*"} {
		files, err := filepath.Glob(filepath.Join("..", "testdata", pattern))
		if err != nil {
			f.Fatal(err)
		}
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{Auto, YAML, JSON} {
			p, err := Parse(data, format)
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("%s: error is not one line: %q", format, err)
				}
				continue
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("%s: Parse accepted what Validate refuses: %v", format, err)
			}
			if p.Utility != nil && p.Order == nil {
				t.Fatalf("%s: order not derived from the utility", format)
			}
			for _, out := range []Format{YAML, JSON} {
				text, err := Marshal(p, out)
				if err != nil {
					t.Fatalf("%s→%s: Marshal: %v", format, out, err)
				}
				q, err := Parse(text, out)
				if err != nil {
					t.Fatalf("%s→%s: reading back: %v\n%s", format, out, err, text)
				}
				if !same(p, q) {
					t.Fatalf("%s→%s: round trip changed the problem\n%s", format, out, text)
				}
			}
		}
	})
}

// same compares two problems, treating NaN-free floats bitwise (so that -0
// and 0 differ) and nil and empty label lists alike.
func same(a, b *Problem) bool {
	eqs := func(x, y []string) bool {
		if len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	eqf := func(x, y []float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] || (x[i] == 0 && (1/x[i] > 0) != (1/y[i] > 0)) {
				return false
			}
		}
		return true
	}
	eqm := func(x, y [][]float64) bool {
		if len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !eqf(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	eqo := func(x, y [][]int) bool {
		if len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if len(x[i]) != len(y[i]) {
				return false
			}
			for j := range x[i] {
				if x[i][j] != y[i][j] {
					return false
				}
			}
		}
		return true
	}
	if (a.Privacy == nil) != (b.Privacy == nil) || a.Privacy != nil && *a.Privacy != *b.Privacy {
		return false
	}
	return a.Name == b.Name && a.Objective == b.Objective &&
		eqs(a.Inputs, b.Inputs) && eqs(a.Outputs, b.Outputs) &&
		eqf(a.Prior, b.Prior) && eqm(a.Utility, b.Utility) && eqo(a.Order, b.Order) &&
		eqm(a.Mechanism, b.Mechanism)
}
