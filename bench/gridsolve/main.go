// Command gridsolve times the expected-utility optimum of a location grid
// (Euclidean loss) under one budget, as docs/performance.md records it:
//
//	go run ./bench/gridsolve -grid 64x64 -prior clustered -measure pml -epsilon 1
//
// It prints the size, the seconds, the peak resident memory, the outputs
// the optimum uses and the certified gap (bound − value).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/pmlopt/pmlopt/expected"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

func main() {
	grid := flag.String("grid", "32x32", "grid size WxH")
	prior := flag.String("prior", "uniform", "uniform or clustered (two Gaussian clusters of 20·cells points, +0.5 per cell)")
	measure := flag.String("measure", "pml", "pml, lip, alip (ε_l = ε, ε_u = ε/2) or ldp")
	eps := flag.Float64("epsilon", 1, "budget (nats)")
	verbose := flag.Bool("v", false, "print the solver's notes (the active set's rounds) with their times")
	full := flag.Bool("whole", false, "solve the whole problem by the interior point (no active set)")
	workers := flag.Int("workers", 1, "goroutines for the interior points' passes over the pairs")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	w, h, err := instance.ParseGridSize(*grid)
	if err != nil {
		fail(fmt.Errorf("-grid: %v", err))
	}
	// The utility is the grid's rule, read a column at a time by the
	// active set (expected.MaximizeColumns): the N×N matrix is built only
	// for -whole.
	pi, err := instance.GridPrior(w, h, *prior)
	if err != nil {
		fail(err)
	}
	rule := instance.GridRule(w, h)
	dense := func() (mech.Utility, error) { return instance.Grid(w, h) }
	b := mech.Budget{Measure: mech.Measure(*measure), Epsilon: *eps}
	if b.Measure == mech.ALIP {
		b = mech.Budget{Measure: mech.ALIP, EpsilonLower: *eps, EpsilonUpper: *eps / 2}
	}
	start := time.Now()
	opt := expected.Options{WholeProblem: *full, Workers: *workers}
	if *verbose {
		opt.Notify = func(msg string) { fmt.Fprintf(os.Stderr, "%6.1f s  %s\n", time.Since(start).Seconds(), msg) }
	}
	r, err := expected.MaximizeColumns(context.Background(), pi, rule, dense, b, opt)
	secs := time.Since(start).Seconds()
	if err != nil {
		fail(err)
	}
	used := 0
	for j := range r.Mechanism[0] {
		for i := range r.Mechanism {
			if r.Mechanism[i][j] > 0 {
				used++
				break
			}
		}
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("grid %s prior %s measure %s ε %g: %.1f s, max RSS %d MB, outputs used %d of %d, value %.12g, gap %.3g\n",
		*grid, *prior, *measure, *eps, secs, ru.Maxrss/1024, used, w*h, r.Value, r.Bound-r.Value)
}

func fail(err error) {
	pprof.StopCPUProfile()
	fmt.Fprintln(os.Stderr, "gridsolve:", err)
	os.Exit(1)
}
