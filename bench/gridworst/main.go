// Command gridworst times the worst-case value objectives of a location grid
// (Euclidean loss), as docs/performance.md records them: the best
// worst-case value for a budget,
//
//	go run ./bench/gridworst -grid 64x64 -prior uniform -epsilon 1
//
// the best worst-case order for it (-objective order, the utility's order),
// or, with -curve, the worst-case value curve (every distinct distance).
// It prints the size, the seconds, the CPU seconds, the peak resident
// memory, the LPs and Go probes spent, and the certified bracket(s).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/worstcase"
)

func main() {
	grid := flag.String("grid", "32x32", "grid size WxH")
	prior := flag.String("prior", "uniform", "uniform or clustered (two Gaussian clusters of 20·cells points, +0.5 per cell)")
	eps := flag.Float64("epsilon", 1, "budget (nats) of the best worst-case value")
	curve := flag.Bool("curve", false, "compute the worst-case value curve instead")
	objective := flag.String("objective", "value", "value (worstcase.BestValue) or order (worstcase.BestOrder of the utility's order) for the budget")
	probes := flag.String("probes", "auto", "auto, lp, ipm or columns (worstcase.Options.Probes)")
	workers := flag.Int("workers", 0, "worstcase.Options.Workers (0: every core)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	symmetry := flag.String("symmetry", "auto", "auto (bisect finds the grid's reflections) or off (worstcase.Options.Symmetry empty)")
	verbose := flag.Bool("v", false, "with -curve, print every threshold as it settles (seconds since the start, its bracket, probes and LPs) on stderr")
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
		// An interrupted run keeps its profile: a long curve is often
		// stopped before it completes.
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-sig
			fail(errors.New("interrupted"))
		}()
	}
	var w, h int
	if _, err := fmt.Sscanf(*grid, "%dx%d", &w, &h); err != nil {
		fail(fmt.Errorf("-grid %q: %v", *grid, err))
	}
	u, err := instance.Grid(w, h)
	if err != nil {
		fail(err)
	}
	var pi mech.Prior
	switch *prior {
	case "uniform":
		pi, err = instance.Uniform(w * h)
	case "clustered":
		pi, err = instance.GridClusters(rand.New(rand.NewPCG(1, 2)), w, h, 20*w*h)
	default:
		err = fmt.Errorf("-prior %q: want uniform or clustered", *prior)
	}
	if err != nil {
		fail(err)
	}
	opt := worstcase.Options{Workers: *workers}
	switch *probes {
	case "auto":
	case "lp":
		opt.Probes = worstcase.ProbesLP
	case "ipm":
		opt.Probes = worstcase.ProbesIPM
	case "columns":
		opt.Probes = worstcase.ProbesColumns
	default:
		fail(fmt.Errorf("-probes %q: want auto, lp, ipm or columns", *probes))
	}
	switch *symmetry {
	case "auto":
	case "off":
		opt.Symmetry = &worstcase.Symmetry{}
	default:
		fail(fmt.Errorf("-symmetry %q: want auto or off", *symmetry))
	}
	if *objective != "value" && *objective != "order" {
		fail(fmt.Errorf("-objective %q: want value or order", *objective))
	}
	start := time.Now()
	if *verbose {
		opt.Settled = func(p worstcase.Point) {
			fmt.Fprintf(os.Stderr, "%7.1f s  h %4d  value %-14.10g ε* in [%.12g, %.12g] (width %.2g, %s)  probes %d  LPs %d\n",
				time.Since(start).Seconds(), p.H, p.Threshold, p.OptimalEpsilonLower, p.OptimalEpsilon,
				p.OptimalEpsilon-p.OptimalEpsilonLower, p.Lower, p.GoProbes, p.LPSolves)
		}
	}
	var line string
	if *curve {
		pts, err := worstcase.ValueCurve(context.Background(), pi, u, opt)
		if err != nil {
			fail(err)
		}
		lps, gos, open, worst := 0, 0, 0, 0.0
		for _, p := range pts {
			lps += p.LPSolves
			gos += p.GoProbes
			if g := p.OptimalEpsilon - p.OptimalEpsilonLower; g > 1e-9 {
				open++
				worst = max(worst, g)
			}
		}
		line = fmt.Sprintf("curve: %d thresholds, LPs %d, Go probes %d, brackets wider than 1e-9: %d (widest %.3g)", len(pts), lps, gos, open, worst)
	} else if *objective == "order" {
		h, r, err := worstcase.BestOrder(context.Background(), pi, u.Order(), *eps, opt)
		if err != nil {
			fail(err)
		}
		line = fmt.Sprintf("best order %d, ε* in [%.12g, %.12g] (width %.3g, %s), LPs %d, Go probes %d",
			h, r.OptimalEpsilonLower, r.OptimalEpsilon, r.OptimalEpsilon-r.OptimalEpsilonLower, r.Lower, r.LPSolves, r.GoProbes)
	} else {
		v, r, err := worstcase.BestValue(context.Background(), pi, u, *eps, opt)
		if err != nil {
			fail(err)
		}
		line = fmt.Sprintf("best value %.12g, ε* in [%.12g, %.12g] (width %.3g, %s), LPs %d, Go probes %d",
			v, r.OptimalEpsilonLower, r.OptimalEpsilon, r.OptimalEpsilon-r.OptimalEpsilonLower, r.Lower, r.LPSolves, r.GoProbes)
	}
	secs := time.Since(start).Seconds()
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	fmt.Printf("grid %s prior %s objective %s ε %g probes %s symmetry %s workers %d: %.1f s wall, %.1f s CPU, max RSS %d MB; %s\n",
		*grid, *prior, *objective, *eps, *probes, *symmetry, *workers, secs, cpu, ru.Maxrss/1024, line)
}

func fail(err error) {
	pprof.StopCPUProfile()
	fmt.Fprintln(os.Stderr, "gridworst:", err)
	os.Exit(1)
}
