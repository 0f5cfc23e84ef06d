package main

import (
	"fmt"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// judgeProblem measures m against b as the problem's file asks: over its
// prior set when it has one (the largest level over every prior of the
// set), at its prior otherwise.
func judgeProblem(p *problem.Problem, m mech.Mechanism, b mech.Budget) verdict {
	if p.PriorSet == nil {
		return judge(p.Prior, m, b)
	}
	return judgeOver(p.PriorSet, m, b)
}

// judgeOver is judge with every prior-dependent level taken over the set
// (LDP does not depend on the prior).
func judgeOver(s *mech.PriorSet, m mech.Mechanism, b mech.Budget) verdict {
	v := verdict{Budget: b, OverSet: b.Measure != mech.LDP}
	v.Level, v.Lower, v.Excess = leakage.LevelOver(s, m, b)
	return v
}

// writeOverSet prints the largest PML, LIP and ALIP over the prior set.
func writeOverSet(b *buffered, p *problem.Problem, m mech.Mechanism) {
	s := p.PriorSet
	if s == nil {
		return
	}
	kind := fmt.Sprintf("the L1 ball of radius %s around the prior", num(s.Radius))
	if s.IsBox() {
		kind = "the box of prior_set.lower and prior_set.upper"
	}
	if src := p.PriorSetSource; src != nil && src.Method != "" {
		kind += fmt.Sprintf(" (%s, %d samples, level %s)", src.Method, src.Samples, num(src.Confidence))
	}
	fmt.Fprintf(b, "\nover every prior of the prior set, %s:\n", kind)
	l, u := leakage.ALIPOver(s, m)
	t := newTable(b)
	t.row("PML over the prior set", num(u))
	t.row("LIP over the prior set", num(max(l, u)))
	t.row("ALIP over the prior set (ε_l, ε_u)", fmt.Sprintf("(%s, %s)", num(l), num(u)))
	t.flush()
}

// confidenceSet gives p, whose prior new estimated from counts, the prior
// set of --confidence and --prior-set (instance.ConfidenceSet), recording
// the method, the number of samples and the level in the file.
func confidenceSet(fs *flagSet, p *problem.Problem, counts []float64, level float64, kind string) error {
	if !fs.isSet("confidence") {
		if fs.isSet("prior-set") {
			return usagef("--prior-set is for --confidence")
		}
		return nil
	}
	if counts == nil {
		return usagef("--confidence is for --prior-from: the set is estimated from the counts")
	}
	if !(level > 0 && level < 1) {
		return usagef("--confidence must be strictly between 0 and 1, got %v", level)
	}
	method := instance.MethodClopperPearson
	switch kind {
	case "box":
	case "l1":
		method = instance.MethodWeissman
	default:
		return usagef("--prior-set must be box or l1, got %q", kind)
	}
	s, err := instance.ConfidenceSet(counts, p.Prior, level, method)
	if err != nil {
		return fmt.Errorf("--confidence: %w", err)
	}
	n := 0.0
	for _, c := range counts {
		n += c
	}
	p.PriorSet = s
	p.PriorSetSource = &problem.PriorSetSource{Method: method, Samples: int(n), Confidence: level}
	return nil
}
