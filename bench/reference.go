package main

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// refTol is how far a curve's bracket may lie from the plain bisection's
// least ε, and an expected-utility optimum from the full LP's (relative
// to max(1, |optimum|)): the plain LP decides feasibility to about 1e-9
// per row.
const refTol = 1e-7

// FamRef compares one family's curve or expected-utility optimum, at a
// small size, with a plain reference computed without any of pmlopt's
// search machinery: plain bisection over the full feasibility LP for the
// curves, the full LP for expected utility.
type FamRef struct {
	Family  string
	N       int
	Backend string // the LP engine of both the run and its reference
	Task    string // order, value or eu-pml
	Checked int    // thresholds (curves) or solves (expected utility) compared
	MaxDev  float64
	Note    string // an error, if the comparison could not be made
}

// OK reports whether every compared value agreed within refTol.
func (r FamRef) OK() bool { return r.Note == "" && r.Checked > 0 && r.MaxDev <= refTol }

// plainLeast is the least ε at which the pattern admits an ε-PML
// mechanism, by plain bisection on [0, hi] over the full feasibility LP
// solved by s, to a bracket of width 1e-10. The LP's rows are multiplied
// by polytope.RowScale: an engine's row tolerance of 1e-9 on an output of
// mass 2e-4 (counting-binomial) calls ε feasible 1.6e-7 below ε*.
func plainLeast(s solver.Solver, pi mech.Prior, pat mech.Pattern, hi float64) (float64, error) {
	feasible := func(eps float64) (bool, error) {
		m, err := polytope.Build(polytope.Spec{Prior: pi, Budget: mech.Budget{Measure: mech.PML, Epsilon: eps}, Pattern: pat})
		if err != nil {
			return false, err
		}
		res, err := s.Solve(m.LP.ScaledRows(polytope.RowScale))
		if err != nil {
			return false, fmt.Errorf("plain LP at ε = %g: %w", eps, err)
		}
		if res.Status != solver.Optimal && res.Status != solver.Infeasible {
			return false, fmt.Errorf("plain LP at ε = %g: status %v", eps, res.Status)
		}
		return res.Status == solver.Optimal, nil
	}
	if ok, err := feasible(0); err != nil || ok {
		return 0, err
	}
	lo := 0.0
	for {
		ok, err := feasible(hi)
		if err != nil {
			return 0, err
		}
		if ok {
			break
		}
		lo, hi = hi, 2*hi+1
	}
	for hi-lo > 1e-10 {
		mid := (lo + hi) / 2
		ok, err := feasible(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// curveDev is how far the plain least ε of every point's pattern lies
// outside the point's bracket (0 when inside), at most.
func curveDev(s solver.Solver, in instance.Instance, task string, pts []worstcase.Point) (float64, error) {
	o := in.Order()
	dev := 0.0
	for _, p := range pts {
		pat := o.Pattern(p.H)
		if task == "value" {
			pat = in.Utility.Pattern(p.Threshold)
		}
		want, err := plainLeast(s, in.Prior, pat, max(p.SafeEpsilon, 1e-3))
		if err != nil {
			return 0, fmt.Errorf("h = %d: %w", p.H, err)
		}
		dev = max(dev, max(want-p.OptimalEpsilon, p.OptimalEpsilonLower-want))
	}
	return dev, nil
}

// famReferences compares, at every reference size, each family's curves
// (with each LP backend) and its ε-PML expected-utility optimum (the
// default pipeline and each backend's) with the plain references.
func famReferences(ctx context.Context, cfg Config, fams []instance.Family) ([]FamRef, error) {
	var refs []FamRef
	for _, n := range cfg.RefSizes {
		for _, f := range fams {
			in, err := f.New(n, cfg.Seed)
			if err != nil {
				return nil, err
			}
			for _, b := range cfg.Solvers {
				if b == "gonum" && n > cfg.GonumMax {
					continue
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				sv, err := solver.Get(b)
				if err != nil {
					return nil, err
				}
				for _, task := range []string{"order", "value", "eu-pml"} {
					if cfg.FamilyTasks != nil && !contains(cfg.FamilyTasks, task) {
						continue
					}
					r := famReference(ctx, in, sv, task)
					r.Family, r.N, r.Backend = f.Name, n, b
					fmt.Fprintf(cfg.Log, "  reference %s N=%d %s %s: %d compared, max deviation %.2g %s\n",
						r.Family, r.N, r.Backend, r.Task, r.Checked, r.MaxDev, r.Note)
					refs = append(refs, r)
				}
			}
		}
	}
	return refs, nil
}

func famReference(ctx context.Context, in instance.Instance, sv solver.Solver, task string) FamRef {
	r := FamRef{Task: task}
	fail := func(err error) FamRef {
		r.Note = err.Error()
		return r
	}
	if task == "order" || task == "value" {
		var pts []worstcase.Point
		var err error
		opt := worstcase.Options{Solver: sv, Workers: 1}
		if task == "order" {
			pts, err = worstcase.OrderCurve(ctx, in.Prior, in.Order(), opt)
		} else {
			pts, err = worstcase.ValueCurve(ctx, in.Prior, in.Utility, opt)
		}
		if err != nil {
			return fail(err)
		}
		if r.MaxDev, err = curveDev(sv, in, task, pts); err != nil {
			return fail(err)
		}
		r.Checked = len(pts)
		return r
	}
	b := mech.Budget{Measure: mech.PML, Epsilon: famEpsilon}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, Privacy: &b, Objective: problem.ExpectedUtility}
	ref, err := pmlopt.Solve(ctx, p, pmlopt.Options{Solver: sv, FullLP: true})
	if err != nil {
		return fail(fmt.Errorf("full LP: %w", err))
	}
	for _, s := range []solver.Solver{nil, sv} {
		sol, err := pmlopt.Solve(ctx, p, pmlopt.Options{Solver: s})
		if err != nil {
			return fail(err)
		}
		r.MaxDev = max(r.MaxDev, math.Abs(sol.ExpectedUtility-ref.ExpectedUtility)/max(1, math.Abs(ref.ExpectedUtility)))
		r.Checked++
	}
	return r
}
