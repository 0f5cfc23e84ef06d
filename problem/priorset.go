package problem

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// priorSetKeys are the keys of the prior_set mapping: a box (lower and
// upper) or an L1 ball around the prior (l1_radius), and, for a set
// estimated from data, how it was obtained.
var priorSetKeys = []string{"lower", "upper", "l1_radius", "method", "samples", "confidence"}

// PriorSetSource records how a prior set was estimated from data: the
// method (clopper-pearson-bonferroni or weissman-l1), the number of
// samples and the confidence level. It is informational: no computation
// reads it.
type PriorSetSource struct {
	Method     string
	Samples    int
	Confidence float64
}

// priorSetSpec is the prior_set mapping as read, before the prior is known.
type priorSetSpec struct {
	lower, upper []float64
	radius       float64
	ball         bool
	src          *PriorSetSource
}

func decodePriorSet(v *node) (*priorSetSpec, error) {
	if v.kind != mapNode {
		return nil, fieldErr("prior_set", -1, -1, "is %s, not a mapping with lower and upper, or l1_radius", v.describe())
	}
	if err := checkKeys("prior_set.", *v, priorSetKeys); err != nil {
		return nil, err
	}
	s := &priorSetSpec{}
	given := map[string]bool{}
	src := PriorSetSource{}
	for i, k := range v.keys {
		kid := &v.kids[i]
		given[k] = true
		var err error
		switch k {
		case "lower":
			s.lower, err = vector("prior_set.lower", kid)
		case "upper":
			s.upper, err = vector("prior_set.upper", kid)
		case "l1_radius":
			x, msg := number(kid)
			if msg != "" {
				return nil, fieldErr("prior_set.l1_radius", -1, -1, "%s", msg)
			}
			s.radius, s.ball = x, true
		case "method":
			src.Method, err = scalarText("prior_set.method", -1, kid, "a method name")
			if err == nil && src.Method != "clopper-pearson-bonferroni" && src.Method != "weissman-l1" {
				err = fieldErr("prior_set.method", -1, -1, "%s is not one of clopper-pearson-bonferroni, weissman-l1", quote(src.Method))
			}
		case "samples":
			n, msg := integer(kid)
			if x, m := number(kid); msg != "" && m == "" && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				// A count in a float's form (1e+06), as files written
				// before counts were written in digits hold it.
				n, msg = int(x), ""
			}
			if msg == "" && n < 1 {
				msg = "is " + kid.text + "; want a positive number of samples"
			}
			if msg != "" {
				return nil, fieldErr("prior_set.samples", -1, -1, "%s", msg)
			}
			src.Samples = n
		case "confidence":
			x, msg := number(kid)
			if msg == "" && !(x > 0 && x < 1) {
				msg = "is " + kid.text + "; want a level strictly between 0 and 1"
			}
			if msg != "" {
				return nil, fieldErr("prior_set.confidence", -1, -1, "%s", msg)
			}
			src.Confidence = x
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case s.ball && (given["lower"] || given["upper"]):
		return nil, fieldErr("prior_set", -1, -1, "gives both a box (lower, upper) and l1_radius; give one")
	case !s.ball && !given["lower"]:
		return nil, missing("prior_set.lower", "a box needs lower and upper (or give l1_radius)")
	case !s.ball && !given["upper"]:
		return nil, missing("prior_set.upper", "a box needs lower and upper (or give l1_radius)")
	}
	if err := methodFits(src.Method, !s.ball); err != nil {
		return nil, err
	}
	if given["method"] || given["samples"] || given["confidence"] {
		s.src = &src
	}
	return s, nil
}

// build checks the set against the (valid) prior.
func (s *priorSetSpec) build(prior mech.Prior) (*mech.PriorSet, error) {
	if s.ball {
		return mech.NewL1Set(prior, s.radius)
	}
	return mech.NewBoxSet(prior, s.lower, s.upper)
}

// methodFits checks that a recorded method (empty when none) is the one of
// the set's shape: a box's Clopper–Pearson intervals, a ball's L1 bound.
func methodFits(method string, box bool) error {
	switch {
	case !box && method == "clopper-pearson-bonferroni":
		return fieldErr("prior_set.method", -1, -1, "is clopper-pearson-bonferroni, a box's method, but the set is an L1 ball (weissman-l1)")
	case box && method == "weissman-l1":
		return fieldErr("prior_set.method", -1, -1, "is weissman-l1, an L1 ball's method, but the set is a box (clopper-pearson-bonferroni)")
	}
	return nil
}

// validatePriorSet checks a problem's prior set built in code: it must be a
// valid set around the problem's prior, its recorded method that of its
// shape.
func (p *Problem) validatePriorSet() error {
	s := p.PriorSet
	if s == nil {
		return nil
	}
	if src := p.PriorSetSource; src != nil {
		if err := methodFits(src.Method, s.IsBox()); err != nil {
			return err
		}
	}
	if len(s.Center) != len(p.Prior) {
		return fieldErr("prior_set", -1, -1, "is around a prior of %d letters, but the prior has %d", len(s.Center), len(p.Prior))
	}
	for i := range s.Center {
		if s.Center[i] != p.Prior[i] && !(math.IsNaN(s.Center[i]) && math.IsNaN(p.Prior[i])) {
			return fieldErr("prior_set", -1, i, "is around %g, but the prior is %g", s.Center[i], p.Prior[i])
		}
	}
	var err error
	if s.IsBox() {
		_, err = mech.NewBoxSet(p.Prior, s.Lower, s.Upper)
	} else {
		_, err = mech.NewL1Set(p.Prior, s.Radius)
	}
	return err
}

// priorSetEntry is the prior_set mapping Marshal writes.
func priorSetEntry(p *Problem) []entry {
	s := p.PriorSet
	if s == nil {
		return nil
	}
	var es []entry
	if s.IsBox() {
		es = append(es, entry{"lower", s.Lower}, entry{"upper", s.Upper})
	} else {
		es = append(es, entry{"l1_radius", s.Radius})
	}
	if src := p.PriorSetSource; src != nil {
		if src.Method != "" {
			es = append(es, entry{"method", word(src.Method)})
		}
		if src.Samples > 0 {
			es = append(es, entry{"samples", src.Samples})
		}
		if src.Confidence > 0 {
			es = append(es, entry{"confidence", src.Confidence})
		}
	}
	return []entry{{"prior_set", es}}
}
