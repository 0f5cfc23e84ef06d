package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"text/tabwriter"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/internal/exact"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// exactJSON is the exact block of solve --json (docs/certificates.md,
// "The exact optimum"): ε* = log t for the prior Prior, proven in
// rationals.
type exactJSON struct {
	// Reading is "fractions" (each π_i the simplest rational that rounds
	// to the file's float64, when those sum to 1) or "float64" (the
	// float64 values as the dyadic rationals they are, divided by their
	// exact sum PriorSum when it exceeds 1: exact.Float64).
	Reading  string   `json:"prior_reading"`
	Prior    []string `json:"prior"`
	PriorSum *string  `json:"prior_sum,omitempty"`
	// T is t* = e^{ε*} when rational; TLower ≤ t* ≤ TUpper always.
	T       *string `json:"t"`
	TLower  string  `json:"t_lower"`
	TUpper  string  `json:"t_upper"`
	Epsilon string  `json:"epsilon"`
	// EpsilonValue is log TUpper to float64 precision.
	EpsilonValue jfloat `json:"epsilon_value"`
	Rational     bool   `json:"rational"`
	// IrrationalRoot: the bracket holds a root of the optimal basis's
	// polynomial of this degree, proven irrational.
	IrrationalRoot bool       `json:"irrational_root,omitempty"`
	Degree         int        `json:"degree,omitempty"`
	Mechanism      [][]string `json:"mechanism"`
	Alpha          []string   `json:"alpha"`
	Nu             []*string  `json:"nu"`
	Proved         bool       `json:"proved"`
	Solves         int        `json:"exact_solves"`
	Pivots         int        `json:"exact_pivots"`
	// Float64 is the same for the prior's float64 values, when the
	// fractions above differ from them.
	Float64 *exactJSON `json:"float64_prior,omitempty"`
}

// checkExact refuses --exact where it does not apply, before any work.
func checkExact(p *problem.Problem, floor bool) error {
	switch {
	case floor:
		return usagef("--exact is for the worst-case objectives, not for --min-order or --min-value")
	case p.Objective != problem.WorstCaseOrder && p.Objective != problem.WorstCaseValue:
		return usagef("--exact is for the worst-case objectives (worst-case-order, worst-case-value), not %s", p.Objective)
	case p.PriorSet != nil:
		return usagef("--exact is for one prior; the file gives a prior_set")
	case p.N() > exact.MaxLetters || p.M() > exact.MaxLetters:
		return usagef("--exact is for problems of at most %d inputs and %d outputs; this one has %d×%d", exact.MaxLetters, exact.MaxLetters, p.N(), p.M())
	}
	return nil
}

// exactPass proves the least ε of sol's worst case in rationals, for the
// prior read as fractions when it has such a reading, and as float64.
//
// note, told of the exact LPs as they end, shows progress: tiny prior
// masses make the rationals long and the LPs slow.
func exactPass(ctx context.Context, p *problem.Problem, sol *pmlopt.Solution, note func(string)) (*exactJSON, error) {
	var pat mech.Pattern
	if sol.Objective == problem.WorstCaseValue {
		pat = p.Utility.Pattern(sol.WorstCaseValue)
	} else {
		pat = p.Order.Pattern(sol.WorstCaseOrder)
	}
	dy, sum := exact.Float64(p.Prior)
	// The search solved for the float64 values as written; divided by
	// their sum S > 1, the least ε is log S higher (t* scales by S), and
	// the search's bracket, moved by log S, places the solves.
	shift, scaled := 0.0, sum.Cmp(big.NewRat(1, 1)) > 0
	if scaled {
		shift = logRat(sum)
	}
	run := func(pi []*big.Rat, reading string, shift float64) (*exactJSON, error) {
		if bits := denominatorBits(pi); bits > longDenominator {
			note(fmt.Sprintf("--exact: the prior read as %s has denominators of up to %d bits; exact arithmetic on numbers that long can take minutes (Ctrl-C stops it)", reading, bits))
		}
		r, err := exact.LeastT(ctx, pi, pat, sol.OptimalEpsilonLower+shift, sol.Epsilon+shift, func(msg string) { note("--exact, the prior as " + reading + ": " + msg) })
		if err != nil {
			return nil, fmt.Errorf("--exact: %w", err)
		}
		j := exactBlock(r, reading)
		if reading == "float64" && scaled {
			s := sum.RatString()
			j.PriorSum = &s
		}
		return j, nil
	}
	agree := func(j *exactJSON) error {
		// The float64 reading is the prior the search solved for (or it
		// divided by S > 1, whose ε* is at most log S above it, and never
		// below): its proven bracket and the search's certified one must
		// meet.
		lo, _ := new(big.Rat).SetString(j.TLower)
		if logRat(lo) > sol.Epsilon+shift+1e-9 || float64(j.EpsilonValue) < sol.OptimalEpsilonLower-1e-9 {
			return fmt.Errorf("--exact: the exact optimum %s lies outside the certified bracket [%s, %s]: please report this problem", j.Epsilon, num(sol.OptimalEpsilonLower), num(sol.Epsilon))
		}
		return nil
	}
	if fr, ok := exact.Fractions(p.Prior); ok && !sameRats(fr, dy) {
		j, err := run(fr, "fractions", 0)
		if err != nil {
			return nil, err
		}
		if j.Float64, err = run(dy, "float64", shift); err != nil {
			return nil, err
		}
		return j, agree(j.Float64)
	}
	j, err := run(dy, "float64", shift)
	if err != nil {
		return nil, err
	}
	return j, agree(j)
}

func sameRats(a, b []*big.Rat) bool {
	for i := range a {
		if a[i].Cmp(b[i]) != 0 {
			return false
		}
	}
	return true
}

func exactBlock(r *exact.Result, reading string) *exactJSON {
	j := &exactJSON{Reading: reading, Prior: ratStrings(r.Prior), TLower: r.TLower.RatString(), TUpper: r.TUpper.RatString(),
		Rational: r.Rational, IrrationalRoot: r.Irrational, Mechanism: make([][]string, len(r.Mechanism)),
		Alpha: ratStrings(r.Alpha), Proved: true, Solves: r.Solves, Pivots: r.Pivots}
	if r.Rational {
		t := r.TUpper.RatString()
		j.T, j.Epsilon = &t, "log("+t+")"
	} else {
		j.Epsilon = "in [log(" + j.TLower + "), log(" + j.TUpper + ")]"
		if r.Irrational {
			j.Degree = r.Degree
		}
	}
	j.EpsilonValue = jfloat(logRat(r.TUpper))
	for i, row := range r.Mechanism {
		j.Mechanism[i] = ratStrings(row)
	}
	for _, v := range r.Nu {
		if v == nil {
			j.Nu = append(j.Nu, nil)
			continue
		}
		s := v.RatString()
		j.Nu = append(j.Nu, &s)
	}
	return j
}

func ratStrings(v []*big.Rat) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = x.RatString()
	}
	return out
}

// logRat returns log x for a positive rational, to float64 precision
// whatever the size of its numerator and denominator.
func logRat(x *big.Rat) float64 {
	mn, md := new(big.Float), new(big.Float)
	en := new(big.Float).SetInt(x.Num()).MantExp(mn)
	ed := new(big.Float).SetInt(x.Denom()).MantExp(md)
	a, _ := mn.Float64()
	b, _ := md.Float64()
	return math.Log(a) - math.Log(b) + float64(en-ed)*math.Ln2
}

// writeExact prints the exact block's lines under the table's bracket line.
func writeExact(w io.Writer, j *exactJSON, inputs, outputs []string) {
	line := func(j *exactJSON) {
		what := "the prior read as fractions (" + shortList(j.Prior) + ")"
		if j.Reading == "float64" {
			what = floatReading(j)
		}
		if j.Rational {
			fmt.Fprintf(w, "exact      ε* = %s = %s, proven in rationals for %s\n", j.Epsilon, num(float64(j.EpsilonValue)), what)
			return
		}
		irr := " (no exact value found)"
		if j.IrrationalRoot {
			irr = fmt.Sprintf("; the optimal basis's polynomial of degree %d has an irrational root in it", j.Degree)
		}
		lo, _ := new(big.Rat).SetString(j.TLower)
		hi, _ := new(big.Rat).SetString(j.TUpper)
		fmt.Fprintf(w, "exact      ε* = log t, t in [%s, %s], proven in rationals for %s%s\n",
			ratDigits(lo, false), ratDigits(hi, true), what, irr)
	}
	line(j)
	if j.Float64 != nil {
		line(j.Float64)
	}
}

// writeExactMechanism prints the exact mechanism of the first line.
func writeExactMechanism(w io.Writer, j *exactJSON, inputs, outputs []string) {
	what := "the prior read as fractions"
	if j.Reading == "float64" {
		what = floatReading(j)
	}
	fmt.Fprintf(w, "\nexact mechanism at t = e^ε* for %s (rows sum to 1 exactly):\n", what)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "x\\y\t")
	for k := range j.Mechanism[0] {
		fmt.Fprintf(tw, "%s\t", label(outputs, k))
	}
	fmt.Fprintln(tw)
	for i, row := range j.Mechanism {
		fmt.Fprintf(tw, "%s\t%s\t\n", label(inputs, i), strings.Join(row, "\t"))
	}
	tw.Flush()
}

// floatReading names the float64 reading of the prior in the table.
func floatReading(j *exactJSON) string {
	if j.PriorSum != nil {
		return "the prior's float64 values divided by their sum S > 1"
	}
	return "the prior's float64 values"
}

// shortList joins the first few entries of v.
func shortList(v []string) string {
	if len(v) > 4 {
		return strings.Join(v[:4], ", ") + ", …"
	}
	return strings.Join(v, ", ")
}

// ratDigits writes x ≥ 1 with 25 significant digits, rounded down or up,
// so that a printed bracket still holds the value.
func ratDigits(x *big.Rat, up bool) string {
	digits := len(new(big.Int).Quo(x.Num(), x.Denom()).String())
	places := max(25-digits, 0)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)
	n := new(big.Int).Mul(x.Num(), scale)
	q, rem := new(big.Int).QuoRem(n, x.Denom(), new(big.Int))
	if up && rem.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	s := q.String()
	if places == 0 {
		return s
	}
	for len(s) <= places {
		s = "0" + s
	}
	return s[:len(s)-places] + "." + s[len(s)-places:]
}

// longDenominator is the denominator size, in bits, above which solve
// --exact says it may take long: a float64 mass of ordinary size is a
// fraction of 2^60 or so, one of 1e-30 of 2^152, one of 1e-300 of 2^1049.
const longDenominator = 128

// denominatorBits is the bit length of the largest denominator of pi.
func denominatorBits(pi []*big.Rat) int {
	most := 0
	for _, r := range pi {
		most = max(most, r.Denom().BitLen())
	}
	return most
}
