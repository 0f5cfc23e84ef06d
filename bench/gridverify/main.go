// Command gridverify times 'pmlopt verify' on the certificate of a
// location grid's expected-utility optimum (Manhattan loss, uniform prior),
// as docs/performance.md records it:
//
//	go run ./bench/gridverify -grid 32x32 -measure pml -epsilon 1
//
// It solves the grid with pmlopt.Solve (not timed), then re-checks the
// certificate exactly with verify.Check and prints the claims, the
// seconds spent checking and the solve's seconds for scale. It exits 1
// when a claim fails.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

func main() {
	grid := flag.String("grid", "32x32", "grid size WxH")
	measure := flag.String("measure", "pml", "pml, lip, alip (ε_l = ε, ε_u = ε/2) or ldp")
	eps := flag.Float64("epsilon", 1, "budget (nats)")
	flag.Parse()
	var w, h int
	if _, err := fmt.Sscanf(*grid, "%dx%d", &w, &h); err != nil {
		fail(fmt.Errorf("-grid %q: %v", *grid, err))
	}
	u, err := instance.Grid(w, h)
	if err != nil {
		fail(err)
	}
	pi, err := instance.Uniform(w * h)
	if err != nil {
		fail(err)
	}
	b := mech.Budget{Measure: mech.Measure(*measure), Epsilon: *eps}
	if b.Measure == mech.ALIP {
		b = mech.Budget{Measure: mech.ALIP, EpsilonLower: *eps, EpsilonUpper: *eps / 2}
	}
	p := &problem.Problem{Prior: pi, Utility: u, Privacy: &b, Objective: problem.ExpectedUtility}
	start := time.Now()
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	if err != nil {
		fail(err)
	}
	solveSecs := time.Since(start).Seconds()
	start = time.Now()
	claims := verify.Check(verify.Problem{Prior: pi, Utility: u, Mechanism: sol.Mechanism}, *sol.Certificate)
	secs := time.Since(start).Seconds()
	for _, c := range claims {
		fmt.Println(c)
	}
	fmt.Printf("grid %s measure %s ε %g (%d cells): verify %.2f s, solve %.1f s\n", *grid, *measure, *eps, w*h, secs, solveSecs)
	if !verify.AllOK(claims) {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gridverify:", err)
	os.Exit(1)
}
