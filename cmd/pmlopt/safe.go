package main

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

var cmdSafe = &command{
	name:  "safe",
	usage: "FILE (--h H | --epsilon E) [--out FILE] [--full] [--json]",
	short: "the utility-safe mechanism M*(h) for an order h or a PML budget",
	long:  safeHelp,
	nargs: 1,
	flags: safeFlags,
}

const safeHelp = `Prints the utility-safe mechanism M*(h) of Song & Oechtering (2026),
Thm 1: row i uniform over the outputs whose utility order is at least h.
With --h it is M*(h); with --epsilon (or the file's pml budget) it is the
largest h whose M*(h) is within the budget. The file needs a prior and a
utility or order. FILE "-" reads it from standard input.

"epsilon" is always the PML of the mechanism printed. Cor 1's ε_S(h) is
shown beside it ("safe_epsilon" in JSON): the least PML of any mechanism
with the zero pattern of h that uses every allowed output. The two are
equal when every input keeps the same number of outputs (always for a
strict order); under ties M*(h) may leak more than ε_S(h).

--out FILE writes the problem file with M*(h) as its mechanism and a pml
budget: --epsilon (or the file's budget) when given, else the PML of M*(h).
Above 20 outputs the mechanism is summarised; --full prints the matrix.

Example:

	pmlopt safe testdata/counting-query.yaml --epsilon 1.3 --out safe.yaml`

type safeOutput struct {
	H           int      `json:"h"`
	Epsilon     jfloat   `json:"epsilon"`      // the PML of Mechanism
	SafeEpsilon jfloat   `json:"safe_epsilon"` // ε_S(h), Cor 1
	Mechanism   jmech    `json:"mechanism"`
	Inputs      []string `json:"inputs,omitempty"`
	Outputs     []string `json:"outputs,omitempty"`
	PerOutput   []jfloat `json:"pml_per_output"`
	Marginal    []jfloat `json:"output_marginal"`
}

// safeFlags declares safe's flags on fs and returns its run function.
func safeFlags(fs *flagSet) runFunc {
	load := loaderFlag(fs)
	h := fs.Int("h", 0, "worst-case utility order `H` in 1..M")
	eps := fs.budgetFloat64("epsilon", math.NaN(), "PML budget `E` (nats); picks the largest h whose M*(h) is E-PML")
	asJSON := jsonFlag(fs)
	outPath := solvedOutFlag(fs)
	full := fullFlag(fs)
	return func(ctx context.Context, e *env, pos []string) error {
		if *outPath != "" {
			// The path is checked before the work, not after it.
			if err := checkOutput("out", *outPath, pos[0]); err != nil {
				return err
			}
		}
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		if p.PriorSet != nil {
			return errors.New("prior_set: safe works at one prior; 'pmlopt baseline FILE --mechanism utility-safe' gives the utility-safe mechanism over the set")
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
		if epsSet {
			if math.IsNaN(*eps) || *eps < 0 {
				return usagef("--epsilon must be a non-negative number, got %v", *eps)
			}
			*h, _ = closedform.SafeSchedule(p.Prior, o, *eps)
		}
		epsS, err := closedform.SafeEpsilon(p.Prior, o, *h)
		if err != nil {
			return usagef("--h: %v", err)
		}
		m, err := closedform.UtilitySafe(o, *h)
		if err != nil {
			return err
		}
		// The answer of a large grid takes seconds to format: a stop ends
		// it there, with nothing written.
		var b buffered
		var solved []byte
		err = stoppable(ctx, "the answer was still being formatted", func() error {
			// The level reported and written is the mechanism's own:
			// under ties ε_S(h) is only a lower bound on it.
			level := leakage.PML(p.Prior, m)
			if *outPath != "" {
				q := *p
				q.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: level}
				if epsSet {
					q.Privacy.Epsilon = *eps
				}
				var err error
				if solved, _, err = marshalSolved(*outPath, &q, m); err != nil {
					return err
				}
			}
			out := safeOutput{
				H: *h, Epsilon: jfloat(level), SafeEpsilon: jfloat(epsS), Mechanism: jmatrix(m),
				Inputs: p.Inputs, Outputs: p.Outputs,
				PerOutput: jfloats(leakage.PMLPerOutput(p.Prior, m)),
				Marginal:  jfloats(m.Marginal(p.Prior)),
			}
			if *asJSON {
				return writeJSON(&b, out)
			}
			fmt.Fprintf(&b, "utility-safe mechanism M*(%d)\n", *h)
			fmt.Fprintf(&b, "PML ε = %s nats (ε_S(%d) = %s, Cor 1)\n", num(level), *h, num(epsS))
			if epsSet {
				fmt.Fprintf(&b, "budget ε = %s: the largest h whose M*(h) is within it is %d\n", num(*eps), *h)
			}
			fmt.Fprintln(&b)
			writeMechanism(&b, m, p.Inputs, p.Outputs, *full)
			return nil
		})
		if err != nil {
			return err
		}
		if *outPath != "" {
			if err := writeFileAtomic(*outPath, solved); err != nil {
				return err
			}
		}
		return b.commit(e.stdout)
	}
}
