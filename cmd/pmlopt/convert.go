package main

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/mech"
)

var cmdConvert = &command{
	name:  "convert",
	usage: "--from pml|pmc|alip|lip|ldp --epsilon E [--epsilon-lower L] --pmin P [--json]",
	short: "translate one privacy guarantee into the ones it implies",
	long:  convertHelp,
	nargs: 0,
	flags: convertFlags,
}

const convertHelp = `Given a guarantee (its measure and level) and the smallest prior probability
p_min, prints every guarantee it implies (docs/theory.md §3) with the
regime in which each holds. For ALIP give --epsilon-lower (ε_l) and --epsilon (ε_u).

Example:

	pmlopt convert --from pml --epsilon 0.1 --pmin 0.2 --json`

type convertJSON struct {
	From    impliedJSON   `json:"from"`
	PMin    jfloat        `json:"p_min"`
	Implied []impliedJSON `json:"implied"`
}

// convertFlags declares convert's flags on fs and returns its run function.
func convertFlags(fs *flagSet) runFunc {
	from := fs.String("from", "", "`measure` of the given guarantee: pml, pmc, alip, lip or ldp")
	eps := fs.budgetFloat64("epsilon", math.NaN(), "level `E` (nats); for alip the upper level ε_u")
	epsL := epsilonLowerFlag(fs)
	pmin := fs.Float64("pmin", math.NaN(), "smallest prior probability `P` in (0, 1]")
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, pos []string) error {
		g := mech.Budget{Measure: mech.Measure(*from), Epsilon: *eps}
		switch {
		case *from == "":
			return usagef("--from is required")
		case math.IsNaN(*eps):
			return usagef("--epsilon is required")
		case math.IsNaN(*pmin):
			return usagef("--pmin is required")
		case g.Measure == mech.ALIP:
			if math.IsNaN(*epsL) {
				return usagef("--from alip needs --epsilon-lower (ε_l) and --epsilon (ε_u)")
			}
			g = mech.Budget{Measure: mech.ALIP, EpsilonLower: *epsL, EpsilonUpper: *eps}
		case fs.isSet("epsilon-lower"):
			return usagef("--epsilon-lower is only for --from alip")
		}
		imps, err := guarantee.Implied(g, *pmin)
		if err != nil {
			return usagef("%v", err)
		}
		if *asJSON {
			src := toImpliedJSON([]guarantee.Implication{{Implied: g, Holds: true, Regime: "given"}})[0]
			return writeJSON(e.stdout, convertJSON{From: src, PMin: jfloat(*pmin), Implied: toImpliedJSON(imps)})
		}
		var b buffered
		fmt.Fprintf(&b, "%s with p_min = %s implies (high-privacy regime ends at ε = log 1/(1−p_min) = %s):\n",
			formatGuarantee(g), num(*pmin), num(guarantee.HighPrivacyBound(*pmin)))
		t := newTable(&b)
		for _, line := range describeImplications(imps) {
			t.row("  "+line[0], line[1])
		}
		t.flush()
		return b.commit(e.stdout)
	}
}
