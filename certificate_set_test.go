package pmlopt_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/verify"
)

// setVerifyProblem is the verify.Problem of p with mechanism m.
func setVerifyProblem(p *problem.Problem, m mech.Mechanism) verify.Problem {
	vp := verify.Problem{Prior: p.Prior, Utility: p.Utility, Mechanism: m}
	if p.Order != nil {
		vp.Order = p.Order
	}
	if s := p.PriorSet; s != nil {
		if s.IsBox() {
			vp.PriorSet = &verify.PriorSet{Lower: s.Lower, Upper: s.Upper}
		} else {
			r := s.Radius
			vp.PriorSet = &verify.PriorSet{L1Radius: &r}
		}
	}
	return vp
}

// mustVerify fails the test unless every claim of c holds.
func mustVerify(t *testing.T, what string, p *problem.Problem, m mech.Mechanism, c *verify.Certificate) {
	t.Helper()
	if c == nil {
		t.Fatalf("%s: no certificate", what)
	}
	cs := verify.Check(setVerifyProblem(p, m), *c)
	if !verify.AllOK(cs) {
		t.Fatalf("%s: %v", what, cs)
	}
}

// mustVerifySolution is mustVerify of sol's mechanism and certificate,
// with the level sol reports (ALIP's two) held to the certificate's as a
// document's are: over a set the audit reads the set as the checker does.
func mustVerifySolution(t *testing.T, what string, p *problem.Problem, sol *pmlopt.Solution) {
	t.Helper()
	if sol.Certificate == nil {
		t.Fatalf("%s: no certificate", what)
	}
	vp := setVerifyProblem(p, sol.Mechanism)
	vp.Reported = &verify.Reported{Level: &sol.Epsilon}
	if sol.Certificate.Measure == "alip" {
		vp.Reported.ALIPLower = &sol.ALIPLower
	}
	if cs := verify.Check(vp, *sol.Certificate); !verify.AllOK(cs) {
		t.Fatalf("%s: %v", what, cs)
	}
}

// failsClaim reports the claims of c that fail, and whether one named name
// is among them.
func failsClaim(p *problem.Problem, m mech.Mechanism, c verify.Certificate, name string) (bool, []verify.Claim) {
	var bad []verify.Claim
	hit := false
	for _, cl := range verify.Check(setVerifyProblem(p, m), c) {
		if !cl.OK {
			bad = append(bad, cl)
			hit = hit || cl.Name == name
		}
	}
	return hit, bad
}

// randomBox is a box around p's prior that holds it.
func randomBox(r *rand.Rand, pi mech.Prior) *mech.PriorSet {
	n := len(pi)
	lo, up := make([]float64, n), make([]float64, n)
	for k := range n {
		lo[k], up[k] = pi[k]*(0.5+0.5*r.Float64()), math.Min(1, pi[k]*(1+r.Float64()))
	}
	s, err := mech.NewBoxSet(pi, lo, up)
	if err != nil {
		panic(err)
	}
	return s
}

// Worst-case answers over a box and a ball carry certificates that verify
// accepts, with a positive lower end proven over the set.
func TestSetCertificateWorstCase(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 1))
	for trial := range 4 {
		p := setProblem(r, 3, 4)
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 0.5 + r.Float64()}
		for _, obj := range []problem.Objective{problem.WorstCaseOrder, problem.WorstCaseValue} {
			for _, set := range []*mech.PriorSet{randomBox(r, p.Prior), func() *mech.PriorSet { s, _ := mech.NewL1Set(p.Prior, 0.2); return s }()} {
				q := *p
				q.Objective, q.PriorSet = obj, set
				sol, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
				if err != nil {
					t.Fatal(err)
				}
				mustVerifySolution(t, string(obj), &q, sol)
				c := sol.Certificate
				if c.PriorSet == nil || c.Lower == nil || (sol.OptimalEpsilonLower > 0 && c.Lower.Alpha == nil) {
					t.Fatalf("trial %d %s: certificate without its set or lower proof: %+v", trial, obj, c)
				}
				if c.Lower.OptimalEpsilonLower != sol.OptimalEpsilonLower {
					t.Fatalf("trial %d %s: certificate's lower end %g, the answer's %g", trial, obj, c.Lower.OptimalEpsilonLower, sol.OptimalEpsilonLower)
				}
			}
		}
	}
}

// Expected-utility answers over a set, under every measure: the
// certificate verifies, the levels over the set included.
func TestSetCertificateExpected(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 2))
	for trial := range 3 {
		p := setProblem(r, 3+r.IntN(2), 3+r.IntN(2))
		p.Objective = problem.ExpectedUtility
		eps := 0.4 + r.Float64()
		for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: eps}, {Measure: mech.LIP, Epsilon: eps},
			{Measure: mech.ALIP, EpsilonLower: eps / 2, EpsilonUpper: eps}, {Measure: mech.LDP, Epsilon: eps}} {
			for _, set := range []*mech.PriorSet{randomBox(r, p.Prior), func() *mech.PriorSet { s, _ := mech.NewL1Set(p.Prior, 0.1); return s }()} {
				q := *p
				q.Privacy, q.PriorSet = &b, set
				sol, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
				if err != nil {
					t.Fatal(err)
				}
				c := sol.Certificate
				if c == nil || c.Utility == nil {
					t.Fatalf("trial %d %s: no certificate", trial, b.Measure)
				}
				if c.Utility.Bound == nil || c.Utility.Alpha == nil {
					t.Fatalf("trial %d %s: bound without multipliers", trial, b.Measure)
				}
				mustVerify(t, string(b.Measure), &q, sol.Mechanism, c)
			}
		}
	}
}

// Tampering with a worst-case certificate over a set is refused, each
// naming its claim.
func TestSetCertificateTampering(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 3))
	p := setProblem(r, 3, 4)
	p.Objective = problem.WorstCaseOrder
	p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 1}
	q := *p
	q.PriorSet = randomBox(r, p.Prior)
	sol, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustVerifySolution(t, "untouched", &q, sol)
	if sol.Certificate.Lower.Alpha == nil || !(sol.OptimalEpsilonLower > 0) {
		t.Fatalf("no lower proof to tamper with: %+v", sol.Certificate.Lower)
	}
	clone := func() verify.Certificate {
		c := *sol.Certificate
		l := *c.Lower
		l.Alpha = append([]float64(nil), l.Alpha...)
		l.Priors = make([][]float64, len(c.Lower.Priors))
		for k, v := range c.Lower.Priors {
			l.Priors[k] = append([]float64(nil), v...)
		}
		c.Lower = &l
		ps := *c.PriorSet
		c.PriorSet = &ps
		return c
	}
	for _, tc := range []struct {
		name  string
		claim string
		edit  func(c *verify.Certificate, q *problem.Problem)
	}{
		{"a per-output prior below the box", verify.ClaimLower, func(c *verify.Certificate, _ *problem.Problem) {
			c.Lower.Priors[0][0] = q.PriorSet.Lower[0] / 2
		}},
		{"a raised lower end", verify.ClaimLower, func(c *verify.Certificate, _ *problem.Problem) {
			c.Lower.OptimalEpsilonLower = math.Min(c.Epsilon, c.Lower.OptimalEpsilonLower*1.01+1e-6)
		}},
		{"a multiplier changed", verify.ClaimLower, func(c *verify.Certificate, _ *problem.Problem) {
			k := 0
			for i, a := range c.Lower.Alpha {
				if math.Abs(a) > math.Abs(c.Lower.Alpha[k]) {
					k = i
				}
			}
			c.Lower.Alpha[k] *= 1.5
		}},
		{"the problem's set widened", verify.ClaimSet, func(_ *verify.Certificate, q *problem.Problem) {
			lo := append([]float64(nil), q.PriorSet.Lower...)
			lo[0] /= 2
			q.PriorSet = &mech.PriorSet{Center: q.Prior, Lower: lo, Upper: q.PriorSet.Upper}
		}},
		{"the problem's set narrowed", verify.ClaimSet, func(_ *verify.Certificate, q *problem.Problem) {
			up := append([]float64(nil), q.PriorSet.Upper...)
			up[1] = (up[1] + q.Prior[1]) / 2
			q.PriorSet = &mech.PriorSet{Center: q.Prior, Lower: q.PriorSet.Lower, Upper: up}
		}},
		{"the set dropped from the problem", verify.ClaimSet, func(_ *verify.Certificate, q *problem.Problem) {
			q.PriorSet = nil
		}},
	} {
		c := clone()
		qq := q
		tc.edit(&c, &qq)
		hit, bad := failsClaim(&qq, sol.Mechanism, c, tc.claim)
		if !hit {
			t.Errorf("%s: not refused by %q: %v", tc.name, tc.claim, bad)
		}
		for _, cl := range bad {
			if cl.Name == tc.claim && !strings.Contains(cl.String(), "FAILED") {
				t.Errorf("%s: %v", tc.name, cl)
			}
		}
	}
	// Widening the set in both the problem and the certificate: the claims
	// are re-checked over the wider set, where the level over it or the
	// lower proof's priors fail.
	c := clone()
	lo := make([]float64, len(q.Prior))
	up := make([]float64, len(q.Prior))
	for k := range up {
		up[k] = 1
	}
	c.PriorSet = &verify.PriorSet{Lower: lo, Upper: up}
	qq := q
	qq.PriorSet = mech.Simplex(q.Prior)
	if hit, bad := failsClaim(&qq, sol.Mechanism, c, verify.ClaimLevel); !hit {
		t.Errorf("set widened to the simplex in both: level not refused: %v", bad)
	}
}

// The limits: over {π̂} the certificate's claims are the nominal ones; over
// the simplex the level is the LDP level.
func TestSetCertificateLimits(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 4))
	for trial := range 3 {
		p := setProblem(r, 3, 4)
		p.Objective = problem.WorstCaseOrder
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 0.8 + r.Float64()}
		nominal, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		q := *p
		q.PriorSet, _ = mech.NewBoxSet(p.Prior, p.Prior, p.Prior)
		sol, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mustVerifySolution(t, "over {π̂}", &q, sol)
		// The same claims as the nominal certificate: its level and worst
		// case, its lower end proven at the estimate.
		nc := verify.Check(setVerifyProblem(p, sol.Mechanism), verify.Certificate{Objective: sol.Certificate.Objective,
			Measure: "pml", Epsilon: sol.Certificate.Epsilon, WorstCaseOrder: sol.Certificate.WorstCaseOrder,
			Lower: &verify.Lower{OptimalEpsilonLower: sol.Certificate.Lower.OptimalEpsilonLower, Alpha: sol.Certificate.Lower.Alpha, Nu: sol.Certificate.Lower.Nu}})
		if !verify.AllOK(nc) {
			t.Fatalf("trial %d: the certificate over {π̂} read as a nominal one: %v", trial, nc)
		}
		if *sol.Certificate.WorstCaseOrder != *nominal.Certificate.WorstCaseOrder {
			t.Fatalf("trial %d: order %d over {π̂}, %d nominal", trial, *sol.Certificate.WorstCaseOrder, *nominal.Certificate.WorstCaseOrder)
		}
		// Over the simplex the claimed level is the mechanism's LDP.
		q.PriorSet = mech.Simplex(p.Prior)
		sol, err = pmlopt.Solve(ctx, &q, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mustVerifySolution(t, "over the simplex", &q, sol)
		ldp := verify.Certificate{Objective: "expected-utility", Measure: "ldp", Epsilon: sol.Certificate.Epsilon,
			Utility: &verify.Utility{ExpectedUtility: sol.ExpectedUtility}}
		if cs := verify.Check(setVerifyProblem(p, sol.Mechanism), ldp); !verify.AllOK(cs) {
			t.Fatalf("trial %d: the level over the simplex is not the LDP level: %v", trial, cs)
		}
	}
}

// Curves over a set: every worst-case point and every expected-utility
// point carries a certificate that verify accepts, and some worst-case
// point has a positive lower end proven by multipliers.
func TestSetCertificateCurves(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 5))
	positive := 0
	for trial := range 3 {
		p := setProblem(r, 3, 4)
		q := *p
		q.PriorSet = randomBox(r, p.Prior)
		if trial == 1 {
			q.PriorSet, _ = mech.NewL1Set(p.Prior, 0.15)
		}
		for _, obj := range []problem.Objective{problem.WorstCaseOrder, problem.WorstCaseValue} {
			pts, err := pmlopt.Curve(ctx, &q, obj, pmlopt.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, pt := range pts {
				if pt.Mechanism == nil {
					continue
				}
				mustVerify(t, "curve point", &q, pt.Certificate.Mechanism, pt.Certificate)
				if pt.Certificate.Lower.OptimalEpsilonLower != pt.OptimalEpsilonLower {
					t.Fatalf("trial %d: point's lower end %g, certificate's %g", trial, pt.OptimalEpsilonLower, pt.Certificate.Lower.OptimalEpsilonLower)
				}
				if pt.OptimalEpsilonLower > 0 {
					positive++
				}
			}
		}
		budgets := []mech.Budget{{Measure: mech.PML, Epsilon: 0.5}, {Measure: mech.LIP, Epsilon: 1}, {Measure: mech.ALIP, EpsilonLower: 0.5, EpsilonUpper: 1}}
		eu := q
		eu.Objective = problem.ExpectedUtility
		epts, err := pmlopt.ExpectedCurve(ctx, &eu, budgets, pmlopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, pt := range epts {
			mustVerify(t, "expected-utility point "+string(pt.Budget.Measure), &eu, pt.Certificate.Mechanism, pt.Certificate)
		}
	}
	if positive == 0 {
		t.Fatal("no curve point over a set had a positive lower end")
	}
}

// SolveJoint over a set: the bound over the mechanisms keeping the floor
// and the least ε of the floor's pattern over the set both verify.
func TestSetCertificateJoint(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 6))
	done := 0
	for trial := range 5 {
		p := setProblem(r, 3, 4)
		p.Objective = problem.ExpectedUtility
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 1.5 + r.Float64()}
		p.PriorSet, _ = mech.NewL1Set(p.Prior, 0.2)
		if trial%2 == 1 {
			p.PriorSet = randomBox(r, p.Prior)
		}
		got, err := pmlopt.SolveJoint(ctx, p, pmlopt.Floor{Order: 2}, pmlopt.Options{})
		var below *pmlopt.BelowLeastEpsilonError
		if errors.As(err, &below) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		c := got.Certificate
		mustVerify(t, "joint", p, got.Mechanism, c)
		if c.WorstCaseOrder == nil || *c.WorstCaseOrder != 2 || c.Lower == nil || c.Lower.OptimalEpsilonLower != got.LeastEpsilonLower {
			t.Fatalf("trial %d: joint certificate without its floor or lower end: %+v", trial, c)
		}
		done++
	}
	if done == 0 {
		t.Fatal("every joint solve was refused")
	}
}

// Tampering over a ball and with an expected-utility bound over a set.
func TestSetCertificateTamperingBallAndBound(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 7))
	p := setProblem(r, 4, 4)
	p.Objective = problem.ExpectedUtility
	p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 0.8}
	p.PriorSet, _ = mech.NewL1Set(p.Prior, 0.2)
	sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustVerifySolution(t, "untouched", p, sol)
	if len(sol.Certificate.Utility.Priors) == 0 {
		// Proven at the estimate: the estimate given as the one prior
		// proves the same.
		sol.Certificate.Utility.Priors = [][]float64{p.Prior}
		mustVerifySolution(t, "the estimate as the prior", p, sol)
	}
	clone := func() verify.Certificate {
		c := *sol.Certificate
		u := *c.Utility
		u.Alpha = append([]float64(nil), u.Alpha...)
		u.Priors = [][]float64{append([]float64(nil), u.Priors[0]...)}
		c.Utility = &u
		return c
	}
	// A prior moved out of the ball: all its mass on one letter.
	c := clone()
	for i := range c.Utility.Priors[0] {
		c.Utility.Priors[0][i] = 0
	}
	c.Utility.Priors[0][0] = 1
	if hit, bad := failsClaim(p, sol.Mechanism, c, verify.ClaimBound); !hit {
		t.Errorf("a prior outside the ball: %v", bad)
	}
	// A prior with less mass than the estimate: below every prior of the set.
	c = clone()
	for i := range c.Utility.Priors[0] {
		c.Utility.Priors[0][i] *= 0.9
	}
	if hit, bad := failsClaim(p, sol.Mechanism, c, verify.ClaimBound); !hit {
		t.Errorf("a prior of mass 0.9: %v", bad)
	}
	// A lowered bound.
	c = clone()
	low := sol.ExpectedUtility - 1e-3
	c.Utility.Bound = &low
	if hit, bad := failsClaim(p, sol.Mechanism, c, verify.ClaimBound); !hit {
		t.Errorf("a lowered bound: %v", bad)
	}
	// A multiplier changed.
	c = clone()
	c.Utility.Alpha[1] -= 0.5
	if hit, bad := failsClaim(p, sol.Mechanism, c, verify.ClaimBound); !hit {
		t.Errorf("a multiplier changed: %v", bad)
	}
	// The ball narrowed in the problem after solving.
	q := *p
	q.PriorSet, _ = mech.NewL1Set(p.Prior, 0.1)
	if hit, bad := failsClaim(&q, sol.Mechanism, *sol.Certificate, verify.ClaimSet); !hit {
		t.Errorf("a narrowed ball: %v", bad)
	}
}

// Every family of package instance, over a box (each mass within a factor
// 0.8 to 1.25 of the prior's) and an L1 ball of radius 0.1: the answers
// of the worst-case order and of the expected utility under PML, LIP and
// ALIP carry certificates that verify accepts.
func TestSetCertificateInstances(t *testing.T) {
	ctx := context.Background()
	n := 6
	if testlong.Short() {
		n = 4
	}
	for _, f := range instance.Families() {
		in, err := f.New(n, 7)
		if err != nil {
			t.Fatal(err)
		}
		lo, up := make([]float64, len(in.Prior)), make([]float64, len(in.Prior))
		for k, v := range in.Prior {
			lo[k], up[k] = 0.8*v, math.Min(1, 1.25*v)
		}
		box, err := mech.NewBoxSet(in.Prior, lo, up)
		if err != nil {
			t.Fatal(err)
		}
		ball, _ := mech.NewL1Set(in.Prior, 0.1)
		for _, set := range []*mech.PriorSet{box, ball} {
			p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, Order: in.Order(), PriorSet: set}
			for _, tc := range []struct {
				obj problem.Objective
				b   mech.Budget
			}{
				{problem.WorstCaseOrder, mech.Budget{Measure: mech.PML, Epsilon: 1}},
				{problem.ExpectedUtility, mech.Budget{Measure: mech.PML, Epsilon: 1}},
				{problem.ExpectedUtility, mech.Budget{Measure: mech.LIP, Epsilon: 1.5}},
				{problem.ExpectedUtility, mech.Budget{Measure: mech.ALIP, EpsilonLower: 1, EpsilonUpper: 1.5}},
			} {
				q := *p
				q.Objective, q.Privacy = tc.obj, &tc.b
				sol, err := pmlopt.Solve(ctx, &q, pmlopt.Options{})
				if err != nil {
					t.Fatalf("%s %s %s: %v", f.Name, tc.obj, tc.b.Measure, err)
				}
				mustVerifySolution(t, fmt.Sprintf("%s %v %s %s", f.Name, set.IsBox(), tc.obj, tc.b.Measure), &q, sol)
			}
		}
	}
}

// A box with lower ends 0 around a prior whose floats sum to 1 + 1.1e-16,
// under 40 nats of PML: the optimum's column (1, 4.3e-18) has a least
// mass of 4.3e-18 over priors of total 1, and 1.2e-16 over priors of the
// estimate's exact sum, 3.3 nats of level apart. The box holds priors of
// either total, so its least mass pours the smaller: the level the
// solution reports is the certificate's, and verify accepts every claim.
func TestSetCertificateLevelAtTheEstimatesTotal(t *testing.T) {
	pi := mech.Prior{0.3093471974486841, 0.690652802551316}
	set, err := mech.NewBoxSet(pi, []float64{0, 0}, []float64{0.34028191719355255, 1})
	if err != nil {
		t.Fatal(err)
	}
	b := mech.Budget{Measure: mech.PML, Epsilon: 40}
	p := &problem.Problem{Prior: pi, PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b,
		Utility: mech.Utility{{-3, 1, 0.22615537826622767}, {3, 1, -0.24484307163628705}}}
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Mechanism[1][1] == 0 || sol.Mechanism[1][1] > 1e-15 {
		t.Fatalf("mechanism %v: the instance no longer has a tiny entry", sol.Mechanism)
	}
	mustVerifySolution(t, "pml 40 over the box", p, sol)
}

// SolveJoint, and Solve's expected utility on the LP backend, over a box
// that lets a letter fall to 0, at budgets where an LP engine's row
// tolerance times e^ε exceeds 1 (21 to 700 nats): the answer keeps the
// budget over the box, is no worse than the answer at 20 nats, stays below
// its bound proven at the budget, and verifies. Prior (0.5,
// 0.3, 0.2), the box [0.3, 0.7] × [0.1, 0.5] × [0, 0.4]; at order 2 the
// least ε over the box is 0.
func TestSetJointAtLargeBudgets(t *testing.T) {
	ctx := context.Background()
	p := &problem.Problem{Prior: mech.Prior{0.5, 0.3, 0.2}, Utility: mech.Utility{{0, -1, -3}, {-1, 0, -1}, {-3, -1, 0}}, Objective: problem.ExpectedUtility}
	p.Order = p.Utility.Order()
	var err error
	p.PriorSet, err = mech.NewBoxSet(p.Prior, []float64{0.3, 0.1, 0}, []float64{0.7, 0.5, 0.4})
	if err != nil {
		t.Fatal(err)
	}
	p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 20}
	at20, err := pmlopt.SolveJoint(ctx, p, pmlopt.Floor{Order: 2}, pmlopt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range []float64{21, 40, 700} {
		p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: eps}
		got, err := pmlopt.SolveJoint(ctx, p, pmlopt.Floor{Order: 2}, pmlopt.Options{})
		if err != nil {
			t.Fatalf("ε = %g: %v", eps, err)
		}
		if v := leakage.PMLOver(p.PriorSet, got.Mechanism); v > eps+1e-7 {
			t.Fatalf("ε = %g: PML over the box %g", eps, v)
		}
		if got.ExpectedUtility < at20.ExpectedUtility-1e-12 || got.ExpectedUtility > got.ExpectedUtilityBound+1e-12 {
			t.Fatalf("ε = %g: %g, at 20 nats %g, bound %g", eps, got.ExpectedUtility, at20.ExpectedUtility, got.ExpectedUtilityBound)
		}
		mustVerify(t, "joint at a large budget", p, got.Mechanism, got.Certificate)
	}
	// The expected utility without a floor, on the LP backend, alike.
	rev, err := solver.Get("revised")
	if err != nil {
		t.Fatal(err)
	}
	p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 21}
	eu, err := pmlopt.Solve(ctx, p, pmlopt.Options{Solver: rev})
	if err != nil {
		t.Fatalf("expected utility at 21 nats: %v", err)
	}
	if v := leakage.PMLOver(p.PriorSet, eu.Mechanism); v > 21+1e-7 || eu.ExpectedUtility > eu.ExpectedUtilityBound+1e-12 {
		t.Fatalf("expected utility at 21 nats: PML over the box %g, value %g above its bound %g", v, eu.ExpectedUtility, eu.ExpectedUtilityBound)
	}
	mustVerify(t, "expected utility at a large budget", p, eu.Mechanism, eu.Certificate)
}

// Over boxes that let letters fall to 0 and balls, around estimates that
// sum to 1 ± 1e-10, at budgets of 20 and 40 nats where an output's least
// mass over the set reaches 1e-17: every answer's reported level is its
// certificate's (the audit reads the set as the checker does), and every
// claim holds.
func TestSetReportedLevelIsTheCertificatesAtLargeBudgets(t *testing.T) {
	ctx := context.Background()
	in, err := instance.Lookup("abs-zipf")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := in.New(5, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, drift := range []float64{1e-10, -1e-10} {
		pi := append(mech.Prior(nil), inst.Prior...)
		pi[0] += drift
		lo, up := make([]float64, len(pi)), make([]float64, len(pi))
		for k, v := range pi {
			lo[k], up[k] = 0.5*v, min(1, 2*v)
		}
		lo[1], lo[3] = 0, 0
		box, err := mech.NewBoxSet(pi, lo, up)
		if err != nil {
			t.Fatal(err)
		}
		ball, _ := mech.NewL1Set(pi, 0.3)
		for _, set := range []*mech.PriorSet{box, ball} {
			for _, eps := range []float64{20, 40} {
				for _, tc := range []struct {
					obj problem.Objective
					b   mech.Budget
				}{
					{problem.ExpectedUtility, mech.Budget{Measure: mech.PML, Epsilon: eps}},
					{problem.ExpectedUtility, mech.Budget{Measure: mech.LIP, Epsilon: eps}},
					{problem.ExpectedUtility, mech.Budget{Measure: mech.ALIP, EpsilonLower: eps, EpsilonUpper: eps}},
					{problem.WorstCaseValue, mech.Budget{Measure: mech.PML, Epsilon: eps}},
				} {
					p := &problem.Problem{Prior: pi, Utility: inst.Utility, Order: inst.Order(), PriorSet: set, Objective: tc.obj, Privacy: &tc.b}
					what := fmt.Sprintf("drift %g, box %v, %s %s %g", drift, set.IsBox(), tc.obj, tc.b.Measure, eps)
					sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{})
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					mustVerifySolution(t, what, p, sol)
				}
			}
		}
	}
}

// Around an estimate of sum 1 − 9e-10 the answer at a budget keeps it to
// the last bit, 0 included, and verifies: the rounding of the estimate
// gives no level to the columns every distribution weighs alike.
func TestSetLevelWithinTheBudgetBelowATotalOfOne(t *testing.T) {
	pi := mech.Prior{0.5, 0.5 - 9e-10}
	box, err := mech.NewBoxSet(pi, []float64{0, 1e-7}, []float64{1 - 1e-6, 1})
	if err != nil {
		t.Fatal(err)
	}
	ball, _ := mech.NewL1Set(pi, 0.3)
	u := mech.Utility{{1, 0}, {0, 1}}
	for _, set := range []*mech.PriorSet{box, ball} {
		for _, eps := range []float64{0, 1, 20} {
			b := mech.Budget{Measure: mech.PML, Epsilon: eps}
			p := &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
			sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
			if err != nil {
				t.Fatalf("box %v, ε = %g: %v", set.IsBox(), eps, err)
			}
			if sol.Epsilon > eps {
				t.Errorf("box %v, ε = %g: level %.17g", set.IsBox(), eps, sol.Epsilon)
			}
			mustVerifySolution(t, fmt.Sprintf("box %v, ε = %g", set.IsBox(), eps), p, sol)
		}
	}
}

// An estimate summing to 1 + 9e-10 (within the files' 1e-9): the interior
// point solves at the estimate divided by its sum, and the bound its
// multipliers prove at the estimate as given, 9e-10 above its own, is
// the one reported and certified, at the estimate and over sets around
// it, at budgets of 0, 1 and 20 nats.
func TestBoundAtAnEstimateAboveATotalOfOne(t *testing.T) {
	pi := mech.Prior{0.5, 0.5 + 9e-10}
	box, err := mech.NewBoxSet(pi, []float64{0, 1e-7}, []float64{1 - 1e-6, 1})
	if err != nil {
		t.Fatal(err)
	}
	ball, _ := mech.NewL1Set(pi, 0.3)
	u := mech.Utility{{1, 0}, {0, 1}}
	for _, set := range []*mech.PriorSet{nil, box, ball} {
		for _, eps := range []float64{0, 1, 20} {
			b := mech.Budget{Measure: mech.PML, Epsilon: eps}
			p := &problem.Problem{Prior: pi, Utility: u, Order: u.Order(), PriorSet: set, Objective: problem.ExpectedUtility, Privacy: &b}
			what := fmt.Sprintf("set %v, ε = %g", set != nil, eps)
			sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if !(sol.ExpectedUtilityBound >= sol.ExpectedUtility) {
				t.Errorf("%s: bound %.17g below the expected utility %.17g", what, sol.ExpectedUtilityBound, sol.ExpectedUtility)
			}
			mustVerifySolution(t, what, p, sol)
		}
	}
}
