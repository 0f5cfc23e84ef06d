package main

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// circulant is the 4×4 order matrix of Song & Oechtering (2026), eq. (13).
var circulant = mech.Order{{4, 3, 2, 1}, {1, 4, 3, 2}, {2, 1, 4, 3}, {3, 2, 1, 4}}

// Fig23Row is one (prior pattern, p_min, h) of Figures 2 and 3.
type Fig23Row struct {
	Pattern  string // "one-low-three-high" or "three-low-one-high"
	PMin     float64
	H        int
	Safe     float64 // ε_S(h), Cor 1
	OptLower float64 // bracket of the least PML ε*(h) (LP + bisection)
	OptUpper float64
	Gap      float64 // Safe − OptUpper: a lower bound on ε_S(h) − ε*(h)
	LPSolves int
}

// Fig23 is the outcome of Figures 2 and 3.
type Fig23 struct {
	Rows   []Fig23Row
	Solver string
	Tol    float64
}

// Priors of the two patterns; the low letters come first.
func oneLowThreeHigh(pmin float64) mech.Prior {
	h := (1 - pmin) / 3
	return mech.Prior{pmin, h, h, h}
}

func threeLowOneHigh(pmin float64) mech.Prior {
	return mech.Prior{pmin, pmin, pmin, 1 - 3*pmin}
}

func pminGrid(quick bool) []float64 {
	var g []float64
	for k := 1; k <= 10; k++ {
		if quick && k != 1 && k != 5 && k != 10 {
			continue
		}
		g = append(g, math.Round(0.02*float64(k)*100)/100)
	}
	return g
}

func figures23(ctx context.Context, cfg Config) (*Fig23, error) {
	sv := solver.Auto()
	res := &Fig23{Solver: sv.Name(), Tol: worstcase.DefaultTol}
	opt := worstcase.Options{Solver: sv, Workers: cfg.Workers}
	patterns := []struct {
		name  string
		prior func(float64) mech.Prior
	}{{"one-low-three-high", oneLowThreeHigh}, {"three-low-one-high", threeLowOneHigh}}
	for _, pt := range patterns {
		for _, pmin := range pminGrid(cfg.Quick) {
			pi := pt.prior(pmin)
			for _, h := range []int{2, 3} {
				safe, err := closedform.SafeEpsilon(pi, circulant, h)
				if err != nil {
					return nil, err
				}
				r, err := worstcase.LeastEpsilon(ctx, pi, circulant.Pattern(h), opt)
				if err != nil {
					return nil, err
				}
				row := Fig23Row{Pattern: pt.name, PMin: pmin, H: h, Safe: safe,
					OptLower: r.OptimalEpsilonLower, OptUpper: r.OptimalEpsilon, Gap: safe - r.OptimalEpsilon, LPSolves: r.LPSolves}
				res.Rows = append(res.Rows, row)
				fmt.Fprintf(cfg.Log, "  %s p_min=%.2f h=%d: ε_S=%.6f ε*∈[%.6f, %.6f]\n", pt.name, pmin, h, safe, r.OptimalEpsilonLower, r.OptimalEpsilon)
			}
		}
	}
	if err := res.write(cfg.Out); err != nil {
		return nil, err
	}
	return res, nil
}

// select returns the rows of one pattern and threshold, in order of p_min.
func (f *Fig23) sel(pattern string, h int) []Fig23Row {
	var out []Fig23Row
	for _, r := range f.Rows {
		if r.Pattern == pattern && r.H == h {
			out = append(out, r)
		}
	}
	return out
}

func (f *Fig23) write(dir string) error {
	header := []string{"pattern", "p_min", "h", "eps_safe", "eps_opt_lower", "eps_opt_upper", "gap", "lp_solves"}
	for k, pattern := range []string{"one-low-three-high", "three-low-one-high"} {
		name := fmt.Sprintf("fig%d", k+2)
		var rows [][]string
		var series []figure.Series
		for _, h := range []int{2, 3} {
			var xs, s, o []float64
			for _, r := range f.sel(pattern, h) {
				rows = append(rows, []string{r.Pattern, ff(r.PMin), fi(r.H), ff(r.Safe), ff(r.OptLower), ff(r.OptUpper), ff(r.Gap), fi(r.LPSolves)})
				xs = append(xs, r.PMin)
				s = append(s, r.Safe)
				o = append(o, r.OptUpper)
			}
			series = append(series,
				figure.Series{Name: fmt.Sprintf("S (utility-safe), h = %d", h), X: xs, Y: s, Marks: true},
				figure.Series{Name: fmt.Sprintf("O (optimal, LP), h = %d", h), X: xs, Y: o, Marks: true, Dashed: true})
		}
		if err := writeCSV(dir, name+".csv", header, rows); err != nil {
			return err
		}
		fig := figure.Figure{
			Title:  fmt.Sprintf("Figure %d: least PML for worst-case order h, %s prior", k+2, pattern),
			XLabel: "smallest prior probability p_min",
			YLabel: "least PML ε (nats)",
			Width:  9,
			Series: series,
		}
		if err := savePlots(dir, fig23Plots[pattern], fig); err != nil {
			return err
		}
	}
	return nil
}
