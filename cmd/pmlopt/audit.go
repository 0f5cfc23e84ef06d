package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/pmlopt/pmlopt/guarantee"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

var cmdAudit = &command{
	name:  "audit",
	usage: "FILE [--alpha A] [--beta B] [--json]",
	short: "every leakage measure of the file's mechanism, and what it implies",
	long:  auditHelp,
	nargs: 1,
	flags: auditFlags,
}

const auditHelp = `Reads a prior and a mechanism and reports, per output, the marginal, PML and
PMC; then the mechanism-level measures (PML, PMC, ALIP, LIP, LDP, lift, Bayes
capacity, maximal leakage, Bayes vulnerability and leakage, maximal α- and
(α,β)-leakage, LRDP of order α); then the guarantees the measured PML, PMC
and LDP imply for the file's prior (docs/theory.md §3). Logarithms are
natural (nats). When the file has a privacy budget, the report ends with
"within budget" or "exceeds the budget by …" (JSON: within_budget,
budget_excess), and the exit status is 3 when the budget is exceeded.
When the file has a prior_set, the report adds the largest PML, LIP and
ALIP over every prior of the set (JSON: pml_over_prior_set,
lip_over_prior_set, alip_over_prior_set), and the budget verdict uses them.

Example:

	pmlopt audit testdata/eye-colour.json --alpha 2 --json`

// impliedJSON is one implied guarantee in the audit's "implied" object.
type impliedJSON = jsonout.Implied

// auditJSON is what audit --json writes: the report the C library's audit
// writes too, then the levels over a prior set and the budget's verdict.
type auditJSON struct {
	jsonout.Audit
	jsonout.OverSet // the levels over the file's prior_set, if any
	// Privacy, WithinBudget and BudgetExcess are there when the file has
	// a budget.
	Privacy      *budgetJSON `json:"privacy,omitempty"`
	WithinBudget *bool       `json:"within_budget,omitempty"`
	BudgetExcess *jfloat     `json:"budget_excess,omitempty"`
}

// auditFlags declares audit's flags on fs and returns its run function.
func auditFlags(fs *flagSet) runFunc {
	load := ruleLoaderFlag(fs)
	alpha := fs.infiniteFloat64("alpha", 2, "order `α` > 1 of maximal α-leakage, (α,β)-leakage and LRDP (inf allowed)")
	beta := fs.infiniteFloat64("beta", 1, "order `β` ≥ 1 of maximal (α,β)-leakage (inf allowed)")
	asJSON := jsonFlag(fs)
	return func(ctx context.Context, e *env, pos []string) error {
		p, err := load(pos[0])
		if err != nil {
			return err
		}
		m, err := p.RequireMechanism()
		if err != nil {
			return err
		}
		if !(*alpha > 1) {
			return usagef("--alpha must be > 1, got %v", *alpha)
		}
		if !(*beta >= 1) {
			return usagef("--beta must be ≥ 1, got %v", *beta)
		}
		r, err := leakage.AuditContext(ctx, p.Prior, m, *alpha, *beta)
		if err != nil {
			return err
		}
		implied, err := impliedBy(r, p.Prior.Min())
		if err != nil {
			return err
		}
		var v *verdict
		if p.Privacy != nil {
			j := judgeProblem(p, m, *p.Privacy)
			v = &j
		}
		var b buffered
		if *asJSON {
			j := toAuditJSON(r, p.Prior.Min(), implied)
			j.OverSet = jsonout.OverSetOf(p.PriorSet, m)
			if v != nil {
				within, excess := v.within(), jfloat(v.Excess)
				j.WithinBudget, j.BudgetExcess = &within, &excess
				b := toBudgetJSON(v.Budget)
				j.Privacy = &b
			}
			if err := writeJSON(&b, j); err != nil {
				return err
			}
		} else {
			writeAuditReport(&b, p, m, r, implied)
			writeOverSet(&b, p, m)
			if v != nil {
				fmt.Fprintf(&b, "\n%s\n", v)
			}
		}
		if err := b.commit(e.stdout); err != nil {
			return err
		}
		if v != nil && !v.within() {
			return &overBudget{v: *v}
		}
		return nil
	}
}

// impliedFrom lists the measured guarantees whose implications the audit
// reports, in order.
var impliedFrom = jsonout.ImpliedFrom

// impliedBy derives what the measured PML, PMC and LDP imply for p_min.
func impliedBy(r leakage.Report, pmin float64) (map[mech.Measure][]guarantee.Implication, error) {
	return jsonout.ImpliedBy(r, pmin)
}

func toImpliedJSON(imps []guarantee.Implication) []impliedJSON { return jsonout.ImpliedOf(imps) }

func toAuditJSON(r leakage.Report, pmin float64, implied map[mech.Measure][]guarantee.Implication) auditJSON {
	return auditJSON{Audit: jsonout.AuditOf(r, pmin, implied)}
}

func writeAuditReport(b *buffered, p *problem.Problem, m mech.Mechanism, r leakage.Report, implied map[mech.Measure][]guarantee.Implication) {
	n, mm := m.Dims()
	fmt.Fprintf(b, "audit of a %d×%d mechanism, p_min = %s (all values in nats unless noted)\n\n", n, mm, num(p.Prior.Min()))
	t := newTable(b)
	t.row("output", "P(y)", "PML ℓ(X→y)", "PMC Λ(X→y)")
	for j := 0; j < mm; j++ {
		t.row(label(p.Outputs, j), num(r.Marginal[j]), perOutput(r.Marginal[j], r.PMLPerOutput[j]), perOutput(r.Marginal[j], r.PMCPerOutput[j]))
	}
	t.flush()
	fmt.Fprintln(b)
	t = newTable(b)
	t.row("PML", num(r.PML))
	t.row("PMC", num(r.PMC))
	t.row("ALIP (ε_l, ε_u)", fmt.Sprintf("(%s, %s)", num(r.ALIPLower), num(r.ALIPUpper)))
	t.row("LIP", num(r.LIP))
	t.row("LDP", num(r.LDP))
	t.row("lift", num(r.Lift)+" (ratio)")
	t.row("Bayes capacity", num(r.BayesCapacity)+" (ratio)")
	t.row("maximal leakage", num(r.MaximalLeakage))
	t.row("posterior Bayes vulnerability", num(r.PosteriorBayesVulnerability)+" (probability)")
	t.row("multiplicative Bayes leakage", num(r.BayesLeakage)+" (ratio)")
	t.row(fmt.Sprintf("maximal α-leakage, α = %s", num(r.Alpha)), bracket(r.MaximalAlphaLeakage, r.MaximalAlphaLeakageUpper))
	t.row(fmt.Sprintf("maximal (α,β)-leakage, α = %s, β = %s", num(r.Alpha), num(r.Beta)), bracket(r.MaximalAlphaBetaLeakage, r.MaximalAlphaBetaLeakageUpper))
	t.row(fmt.Sprintf("LRDP, α = %s", num(r.Alpha)), num(r.LRDP))
	if p.Order != nil {
		t.row("worst-case utility order h(P)", fmt.Sprint(p.Order.WorstCaseOrder(m)))
	}
	if p.Utility != nil {
		t.row("worst-case utility value", num(p.Utility.WorstCaseValue(m)))
		t.row("expected utility", num(p.Utility.ExpectedUtility(p.Prior, m)))
	}
	if r := p.Rule; r != nil && p.Utility == nil {
		// A rule's utility is read an entry at a time, never as a matrix.
		t.row("worst-case utility order h(P)", fmt.Sprint(r.WorstCaseOrder(m)))
		t.row("worst-case utility value", num(r.WorstCaseValue(m)))
		t.row("expected utility", num(r.ExpectedUtility(p.Prior, m)))
	}
	t.flush()
	for _, n := range r.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	fmt.Fprintln(b, "\nimplied guarantees (docs/theory.md §3):")
	t = newTable(b)
	for _, from := range impliedFrom {
		for _, line := range describeImplications(implied[from]) {
			t.row("  measured "+string(from), line[0], line[1])
		}
	}
	t.flush()
}

// describeImplications renders implications as (guarantee, regime) pairs,
// folding the ones that do not hold into one line per distinct regime.
func describeImplications(imps []guarantee.Implication) [][2]string {
	var out [][2]string
	var none []string
	noneRegime := ""
	for _, im := range imps {
		if im.Holds {
			out = append(out, [2]string{"⇒ " + formatGuarantee(im.Implied), im.Regime})
			continue
		}
		none = append(none, string(im.Implied.Measure))
		noneRegime = im.Regime
	}
	if len(none) > 0 {
		out = append(out, [2]string{"⇒ no " + strings.Join(none, ", ") + " guarantee", noneRegime})
	}
	return out
}

// formatGuarantee prints a guarantee with table precision.
func formatGuarantee(g mech.Budget) string {
	if g.Measure == mech.ALIP {
		return fmt.Sprintf("(%s, %s)-alip", num(g.EpsilonLower), num(g.EpsilonUpper))
	}
	return num(g.Epsilon) + "-" + string(g.Measure)
}

func perOutput(q, v float64) string {
	if q == 0 {
		return "unused"
	}
	return num(v)
}

// bracket prints a certified value, or its bracket when the bracket is wider
// than the table's precision.
func bracket(lower, upper float64) string {
	if num(lower) == num(upper) || upper-lower <= 1e-7 {
		return num(lower)
	}
	return fmt.Sprintf("in [%s, %s] (not certified closer)", num(lower), num(upper))
}
