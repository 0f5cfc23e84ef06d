package pmlopt

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/internal/certificate"
	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/verify"
)

// verifyProblem is what package verify checks a certificate against.
func verifyProblem(p *problem.Problem, m mech.Mechanism) verify.Problem {
	var o [][]int
	if p.Order != nil {
		o = p.Order
	}
	return verify.Problem{Prior: p.Prior, Utility: p.Utility, Order: o, Mechanism: m}
}

func mustVerify(t *testing.T, what string, vp verify.Problem, c *verify.Certificate) {
	t.Helper()
	if c == nil {
		t.Fatalf("%s: no certificate", what)
	}
	claims := verify.Check(vp, *c)
	if !verify.AllOK(claims) {
		var b strings.Builder
		for _, cl := range claims {
			b.WriteString(cl.String() + "\n")
		}
		t.Fatalf("%s: the certificate does not verify:\n%s", what, b.String())
	}
}

// Every testdata problem, solved for every objective it has the data for,
// carries a certificate that package verify accepts.
func TestSolveCertificatesVerify(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.yaml")
	json, _ := filepath.Glob("testdata/*.json")
	files = append(files, json...)
	if len(files) < 5 {
		t.Fatalf("only %d testdata problems", len(files))
	}
	ran := 0
	for _, f := range files {
		base, err := LoadProblem(f)
		if err != nil {
			t.Fatal(err)
		}
		if base.Privacy == nil {
			continue
		}
		for _, obj := range []problem.Objective{problem.WorstCaseOrder, problem.WorstCaseValue, problem.ExpectedUtility} {
			if obj != problem.WorstCaseOrder && base.Utility == nil || obj == problem.WorstCaseOrder && base.Order == nil {
				continue
			}
			if obj != problem.ExpectedUtility && base.Privacy.Measure != mech.PML {
				continue
			}
			if testlong.Short() && base.M()*len(base.Prior) > 400 {
				continue
			}
			p := *base
			p.Objective = obj
			sol, err := Solve(context.Background(), &p, Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", f, obj, err)
			}
			what := f + " " + string(obj)
			mustVerify(t, what, verifyProblem(&p, sol.Mechanism), sol.Certificate)
			if obj == problem.ExpectedUtility && (sol.Certificate.Utility.Alpha == nil) != (sol.ExpectedUtilityBound != sol.ExpectedUtilityBound) {
				t.Errorf("%s: bound %v reported, certificate bound %v", what, sol.ExpectedUtilityBound, sol.Certificate.Utility.Bound)
			}
			if obj != problem.ExpectedUtility && sol.OptimalEpsilonLower > 0 && sol.Certificate.Lower.Alpha == nil {
				t.Errorf("%s: a lower end %v without multipliers", what, sol.OptimalEpsilonLower)
			}
			ran++
		}
	}
	if ran < 8 {
		t.Fatalf("only %d solves checked", ran)
	}
}

// failed returns the names of the claims that fail.
func failed(claims []verify.Claim) []string {
	var out []string
	for _, c := range claims {
		if !c.OK {
			out = append(out, c.Name)
		}
	}
	return out
}

func cloneCert(c *verify.Certificate) verify.Certificate {
	d := *c
	if c.Lower != nil {
		l := *c.Lower
		l.Alpha = append([]float64(nil), l.Alpha...)
		d.Lower = &l
	}
	if c.Utility != nil {
		u := *c.Utility
		u.Alpha = append([]float64(nil), u.Alpha...)
		if u.Bound != nil {
			b := *u.Bound
			u.Bound = &b
		}
		d.Utility = &u
	}
	return d
}

func cloneMech(m mech.Mechanism) mech.Mechanism {
	out := make(mech.Mechanism, len(m))
	for i, row := range m {
		out[i] = append([]float64(nil), row...)
	}
	return out
}

func solveFile(t *testing.T, path string, obj problem.Objective) (*problem.Problem, *Solution) {
	t.Helper()
	p, err := LoadProblem(path)
	if err != nil {
		t.Fatal(err)
	}
	p.Objective = obj
	sol, err := Solve(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustVerify(t, path, verifyProblem(p, sol.Mechanism), sol.Certificate)
	return p, sol
}

func wantFail(t *testing.T, what string, claims []verify.Claim, name string) {
	t.Helper()
	got := failed(claims)
	for _, g := range got {
		if g == name {
			return
		}
	}
	t.Errorf("%s: want claim %q to fail, failed: %v", what, name, got)
}

// Each tampering of a worst-case certificate is refused, naming the claim.
func TestCertificateTamperingWorstCase(t *testing.T) {
	p, sol := solveFile(t, "testdata/circulant-one-low.yaml", problem.WorstCaseOrder)
	if !(sol.OptimalEpsilonLower > 0) || sol.Certificate.Lower.Alpha == nil {
		t.Fatalf("no multipliers to tamper with: %+v", sol.Certificate.Lower)
	}
	vp := verifyProblem(p, sol.Mechanism)

	// A raised lower end (the upper end raised with it, so that only the
	// multipliers' inequality can refuse it).
	c := cloneCert(sol.Certificate)
	c.Epsilon += 1e-6
	c.Lower.OptimalEpsilonLower += 1e-6
	wantFail(t, "raised lower end", verify.Check(vp, c), verify.ClaimLower)

	// A lower end above the upper end.
	c = cloneCert(sol.Certificate)
	c.Lower.OptimalEpsilonLower = c.Epsilon * 1.01
	wantFail(t, "lower above upper", verify.Check(vp, c), verify.ClaimLower)

	// A multiplier changed: the letter with the least α gets the largest
	// (scaling them all would prove the same).
	c = cloneCert(sol.Certificate)
	lo, hi := 0, 0
	for i, a := range c.Lower.Alpha {
		if a > c.Lower.Alpha[hi] {
			hi = i
		}
		if a < c.Lower.Alpha[lo] {
			lo = i
		}
	}
	c.Lower.Alpha[lo] = c.Lower.Alpha[hi]
	wantFail(t, "multiplier changed", verify.Check(vp, c), verify.ClaimLower)

	// A forbidden pair made positive, the row still summing to 1.
	m := cloneMech(sol.Mechanism)
	h := *sol.Certificate.WorstCaseOrder
	done := false
	for i, row := range m {
		for j := range row {
			if !done && p.Order[i][j] < h {
				for j2, v := range row {
					if v > 0.01 {
						row[j2] -= 0.01
						row[j] += 0.01
						done = true
						break
					}
				}
			}
		}
		m[i] = row
	}
	if !done {
		t.Fatal("no forbidden pair to tamper with")
	}
	wantFail(t, "forbidden pair", verify.Check(verifyProblem(p, m), *sol.Certificate), verify.ClaimPattern)

	// An entry changed so that its row no longer sums to 1.
	m = cloneMech(sol.Mechanism)
	for j, v := range m[0] {
		if v > 0 {
			m[0][j] = v * (1 + 1e-9)
			break
		}
	}
	wantFail(t, "row sum", verify.Check(verifyProblem(p, m), *sol.Certificate), verify.ClaimRows)

	// The prior changed after solving: mass moved from the low letter to
	// another one (the sum kept).
	q := *p
	q.Prior = append(mech.Prior(nil), p.Prior...)
	q.Prior[0], q.Prior[1] = q.Prior[0]+0.05, q.Prior[1]-0.05
	wantFail(t, "prior changed", verify.Check(verifyProblem(&q, sol.Mechanism), *sol.Certificate), verify.ClaimLower)

	// A worst case better than the support reaches.
	c = cloneCert(sol.Certificate)
	h2 := h - 1
	c.WorstCaseOrder = &h2
	wantFail(t, "worst case", verify.Check(vp, c), verify.ClaimWorst)
}

// Each tampering of an expected-utility certificate is refused.
func TestCertificateTamperingExpected(t *testing.T) {
	for _, f := range []string{"testdata/expected-utility.yaml", "testdata/expected-utility-lip.yaml", "testdata/expected-utility-ldp.yaml", "testdata/expected-utility-alip.yaml"} {
		p, sol := solveFile(t, f, problem.ExpectedUtility)
		cert := sol.Certificate
		if cert.Utility.Bound == nil {
			t.Errorf("%s: no bound to tamper with", f)
			continue
		}
		vp := verifyProblem(p, sol.Mechanism)
		gap := *cert.Utility.Bound - cert.Utility.ExpectedUtility

		// A lowered bound: below the mechanism's own utility, which no
		// multipliers can prove.
		c := cloneCert(cert)
		*c.Utility.Bound = cert.Utility.ExpectedUtility - 1e-6 - gap
		wantFail(t, f+": lowered bound", verify.Check(vp, c), verify.ClaimBound)

		// A multiplier changed.
		c = cloneCert(cert)
		c.Utility.Alpha[0] -= 0.1 * (1 + abs(c.Utility.Alpha[0]))
		wantFail(t, f+": multiplier changed", verify.Check(vp, c), verify.ClaimBound)

		// A raised expected utility.
		c = cloneCert(cert)
		c.Utility.ExpectedUtility += 1e-6 * (1 + abs(c.Utility.ExpectedUtility))
		wantFail(t, f+": raised expected utility", verify.Check(vp, c), verify.ClaimExpected)

		// A level below the mechanism's.
		c = cloneCert(cert)
		c.Epsilon *= 0.9
		wantFail(t, f+": lowered level", verify.Check(vp, c), verify.ClaimLevel)

		// The prior changed after solving.
		q := *p
		q.Prior = append(mech.Prior(nil), p.Prior...)
		d := q.Prior[len(q.Prior)-1] / 2
		q.Prior[0], q.Prior[len(q.Prior)-1] = q.Prior[0]+d, q.Prior[len(q.Prior)-1]-d
		if fs := failed(verify.Check(verifyProblem(&q, sol.Mechanism), *cert)); len(fs) == 0 {
			t.Errorf("%s: a changed prior verified", f)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// Every point of a curve carries a certificate that verify accepts, with
// multipliers wherever its lower end is positive.
func TestCurveCertificatesVerify(t *testing.T) {
	for _, tc := range []struct {
		file string
		obj  problem.Objective
	}{
		{"testdata/counting-query.yaml", problem.WorstCaseOrder},
		{"testdata/circulant-three-low.yaml", problem.WorstCaseOrder},
		{"testdata/example1.yaml", problem.WorstCaseOrder},
		{"testdata/counting-query.yaml", problem.WorstCaseValue},
		{"testdata/expected-utility.yaml", problem.WorstCaseValue},
	} {
		p, err := LoadProblem(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if tc.obj == problem.WorstCaseValue && p.Utility == nil {
			t.Fatalf("%s has no utility", tc.file)
		}
		pts, err := Curve(context.Background(), p, tc.obj, Options{})
		if err != nil {
			t.Fatal(err)
		}
		proved := 0
		for k, pt := range pts {
			what := fmt.Sprintf("%s point %d (threshold %v)", tc.file, k, pt.Threshold)
			mustVerify(t, what, verifyProblem(p, nil), pt.Certificate)
			if pt.OptimalEpsilonLower > 0 {
				if pt.Certificate.Lower.Alpha == nil {
					t.Errorf("%s: lower end %v without multipliers", what, pt.OptimalEpsilonLower)
				}
				proved++
			}
		}
		if proved == 0 {
			t.Errorf("%s: no point with a positive lower end", tc.file)
		}
	}
}

// SolveJoint's answer (expected utility keeping a worst case) carries a
// certificate that verify accepts: the floor's zero pattern, the bound over
// the mechanisms keeping it, the lower end of the floor's least ε. A
// mechanism leaving the floor, or a lowered bound, is refused.
func TestJointCertificateVerifies(t *testing.T) {
	p, err := LoadProblem("testdata/counting-query.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p.Objective = problem.ExpectedUtility
	p.Privacy = &mech.Budget{Measure: mech.PML, Epsilon: 1.3}
	for _, f := range []Floor{{Order: 2}, {Order: 4}, {Order: 6}, {Value: -10, ByValue: true}} {
		sol, err := SolveJoint(context.Background(), p, f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := sol.Certificate
		mustVerify(t, f.String(), verifyProblem(p, sol.Mechanism), c)
		if c.Utility.Alpha == nil || c.Lower == nil || (c.WorstCaseOrder == nil) == (c.WorstCaseValue == nil) {
			t.Fatalf("%s: incomplete certificate %+v", f, c)
		}
		d := cloneCert(c)
		*d.Utility.Bound = c.Utility.ExpectedUtility - 1e-6
		wantFail(t, f.String()+": lowered bound", verify.Check(verifyProblem(p, sol.Mechanism), d), verify.ClaimBound)
		// A used pair below the floor: the mass of one row moved to a
		// forbidden output (the row keeps its sum).
		pat := certificate.WorstPattern(p, problem.WorstCaseOrder, f.Order, 0)
		if f.ByValue {
			pat = certificate.WorstPattern(p, problem.WorstCaseValue, 0, f.Value)
		}
		m := cloneMech(sol.Mechanism)
		moved := false
		for i, row := range m {
			for j := range row {
				if !moved && !pat[i][j] {
					for j2, v := range row {
						if v > 0 {
							row[j2], row[j] = 0, v
							moved = true
							break
						}
					}
				}
			}
		}
		if !moved {
			continue // every pair is allowed (h = 1)
		}
		wantFail(t, f.String()+": forbidden pair", verify.Check(verifyProblem(p, m), *c), verify.ClaimPattern)
	}
}

// The counting query at h = 6 has ε* = log 7/2 (Song & Oechtering (2026),
// §IV-A): for the prior as written, 1/7 rounded to a float64 π, the
// certificate closes the bracket exactly at log 1/(2π).
func TestCertificateExactOptimum(t *testing.T) {
	p, sol := solveFile(t, "testdata/counting-query.yaml", problem.WorstCaseOrder)
	if *sol.Certificate.WorstCaseOrder != 6 {
		t.Fatalf("worst case %d, want 6", *sol.Certificate.WorstCaseOrder)
	}
	pi := new(big.Rat).SetFloat64(p.Prior[0])
	want := new(big.Rat).Inv(new(big.Rat).Mul(pi, big.NewRat(2, 1)))
	found := false
	for _, c := range verify.Check(verifyProblem(p, sol.Mechanism), *sol.Certificate) {
		if c.Name == verify.ClaimExact {
			found = c.OK && strings.Contains(c.Detail, "log "+want.RatString()+" exactly")
			t.Log(c)
		}
	}
	if !found {
		t.Errorf("no exact optimum log %s", want.RatString())
	}
	if d := math.Abs(math.Log(3.5) - math.Log(1/(2*p.Prior[0]))); d > 1e-15 {
		t.Errorf("log 1/(2π) is %v from log 7/2", d)
	}
}

// The active set's bound is proven for the prior as given: a 24×24 grid
// (above the active set's size) with a geometric prior whose floats sum
// to 1 − 2e-16, not to 1, has a certified bound under PML and LIP that
// verify accepts, with its multipliers.
func TestActiveSetCertificateOnTheGivenPrior(t *testing.T) {
	pi, err := instance.Geometric(576, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range pi {
		sum += v
	}
	if sum == 1 {
		t.Fatal("the prior's floats sum to 1: the test needs one that does not")
	}
	u, err := instance.Grid(24, 24)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []mech.Budget{{Measure: mech.PML, Epsilon: 1}, {Measure: mech.LIP, Epsilon: 1}} {
		p := &problem.Problem{Prior: pi, Utility: u, Objective: problem.ExpectedUtility, Privacy: &b}
		var notes []string
		sol, err := Solve(context.Background(), p, Options{Notify: func(s string) { notes = append(notes, s) }})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(notes, "\n"), "active set") {
			t.Fatalf("%s: not the active set's answer: %v", b.Measure, notes)
		}
		if sol.Certificate.Utility.Alpha == nil {
			t.Fatalf("%s: bound %v without multipliers", b.Measure, sol.ExpectedUtilityBound)
		}
		mustVerify(t, string(b.Measure), verifyProblem(p, sol.Mechanism), sol.Certificate)
	}
}
