// Command gosolve times the Go call that python/bench/bench.py times from
// Python: pmlopt.Solve on a prior and utility read from raw little-endian
// float64 files (prior.f64: N values, utility.f64: N×M row-major), an
// expected-utility objective under an ε-PML budget. It prints one line of
// JSON: the seconds of each repetition and the expected utility reached.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

func read(path string) ([]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b)%8 != 0 {
		return nil, fmt.Errorf("%s: %d bytes, not a whole number of float64s", path, len(b))
	}
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v, nil
}

func main() {
	dir := flag.String("dir", ".", "directory holding prior.f64 and utility.f64")
	eps := flag.Float64("epsilon", 1, "PML budget (nats)")
	reps := flag.Int("reps", 3, "repetitions")
	flag.Parse()
	if err := run(*dir, *eps, *reps); err != nil {
		fmt.Fprintln(os.Stderr, "gosolve:", err)
		os.Exit(1)
	}
}

func run(dir string, eps float64, reps int) error {
	pi, err := read(filepath.Join(dir, "prior.f64"))
	if err != nil {
		return err
	}
	u, err := read(filepath.Join(dir, "utility.f64"))
	if err != nil {
		return err
	}
	n := len(pi)
	if n == 0 || len(u)%n != 0 {
		return fmt.Errorf("utility has %d values, not a multiple of N = %d", len(u), n)
	}
	m := len(u) / n
	util := make(mech.Utility, n)
	for i := range util {
		util[i] = u[i*m : (i+1)*m]
	}
	p := &problem.Problem{Prior: pi, Utility: util, Order: util.Order(),
		Privacy: &mech.Budget{Measure: mech.PML, Epsilon: eps}, Objective: problem.ExpectedUtility}
	var secs []float64
	var eu float64
	for k := 0; k < reps; k++ {
		start := time.Now()
		sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
		if err != nil {
			return err
		}
		secs = append(secs, time.Since(start).Seconds())
		eu = sol.ExpectedUtility
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"seconds": secs, "expected_utility": eu, "n": n, "m": m})
}
