package main

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

func init() {
	register(command{name: "safe", summary: "the utility-safe mechanism M*(h) for an order h or a PML budget", run: runSafe})
}

const safeHelp = `Prints the utility-safe mechanism M*(h) of Song & Oechtering (2026),
Thm 1: row i uniform over the outputs whose utility order is at least h.
With --h it is M*(h); with --epsilon (or the file's pml budget) it is the
largest h whose utility-safe PML ε_S(h) (Cor 1) fits the budget. The file
needs a prior and a utility or order. FILE "-" reads it from standard input.

--out FILE writes the problem file with M*(h) as its mechanism and a pml
budget: --epsilon (or the file's budget) when given, else ε_S(h). Above 20
outputs the mechanism is summarised; --full prints the matrix.

Example:

	pmlopt safe testdata/counting-query.yaml --epsilon 1.3 --out safe.yaml`

type safeOutput struct {
	H         int        `json:"h"`
	Epsilon   jfloat     `json:"epsilon"`
	Mechanism [][]jfloat `json:"mechanism"`
	Inputs    []string   `json:"inputs,omitempty"`
	Outputs   []string   `json:"outputs,omitempty"`
	PerOutput []jfloat   `json:"pml_per_output"`
	Marginal  []jfloat   `json:"output_marginal"`
}

func runSafe(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, "safe", "safe FILE (--h H | --epsilon E) [--out FILE] [--full] [--json]", safeHelp)
	load := loaderFlag(fs, e)
	h := fs.Int("h", 0, "worst-case utility order `H` in 1..M")
	eps := fs.Float64("epsilon", math.NaN(), "PML budget `E` (nats); picks the largest h with ε_S(h) ≤ E")
	asJSON := fs.Bool("json", false, "write JSON (keys h, epsilon, mechanism)")
	outPath := fs.String("out", "", "also write the problem with M*(h) as its mechanism to this `file`")
	full := fs.Bool("full", false, "print the whole mechanism, even above 20 outputs")
	pos, err := fs.parse(args, 1)
	if err != nil {
		return err
	}
	if *outPath != "" {
		// The path is checked before the work, not after it.
		if err := checkOutput("out", *outPath); err != nil {
			return err
		}
	}
	p, err := load(pos[0])
	if err != nil {
		return err
	}
	o, err := p.RequireOrder()
	if err != nil {
		return err
	}
	hSet, epsSet := fs.isSet("h"), fs.isSet("epsilon")
	switch {
	case hSet && epsSet:
		return usagef("give --h or --epsilon, not both")
	case !hSet && !epsSet:
		if p.Privacy == nil || p.Privacy.Measure != mech.PML {
			return usagef("give --h or --epsilon (the file has no pml budget to use)")
		}
		*eps, epsSet = p.Privacy.Epsilon, true
	}
	var epsS float64
	if epsSet {
		if math.IsNaN(*eps) || *eps < 0 {
			return usagef("--epsilon must be a non-negative number, got %v", *eps)
		}
		*h, epsS = closedform.SafeSchedule(p.Prior, o, *eps)
	} else if epsS, err = closedform.SafeEpsilon(p.Prior, o, *h); err != nil {
		return usagef("--h: %v", err)
	}
	m, err := closedform.UtilitySafe(o, *h)
	if err != nil {
		return err
	}
	if *outPath != "" {
		q := *p
		q.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: epsS}
		if epsSet {
			q.Privacy.Epsilon = *eps
		}
		if err := writeSolved(*outPath, &q, m); err != nil {
			return err
		}
	}
	out := safeOutput{
		H: *h, Epsilon: jfloat(epsS), Mechanism: jmatrix(m),
		Inputs: p.Inputs, Outputs: p.Outputs,
		PerOutput: jfloats(leakage.PMLPerOutput(p.Prior, m)),
		Marginal:  jfloats(m.Marginal(p.Prior)),
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	var b buffered
	fmt.Fprintf(&b, "utility-safe mechanism M*(%d)\n", *h)
	fmt.Fprintf(&b, "PML ε_S(%d) = %s nats (Cor 1; audited PML %s)\n", *h, num(epsS), num(leakage.PML(p.Prior, m)))
	if epsSet {
		fmt.Fprintf(&b, "budget ε = %s: the largest h with ε_S(h) ≤ ε is %d\n", num(*eps), *h)
	}
	fmt.Fprintln(&b)
	writeMechanism(&b, m, p.Inputs, p.Outputs, *full)
	return b.commit(e.stdout)
}
