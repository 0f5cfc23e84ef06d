package main

import (
	"context"
	"fmt"
	"math"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/sample"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// Fig1Row is one budget ε of Figure 1. The Min fields are sample minima of
// u'(X, Y) over the draws, the Worst fields the exact worst-case value
// min{u'_ij : π_i p_ij > 0} of the mechanism (for R: of the composed
// mechanism x → x' → argmax_y u'(x', y)).
type Fig1Row struct {
	Eps float64

	SH            int     // utility-safe schedule: threshold h
	SEps          float64 // and its PML ε_S(h)
	SMin, SWorst  float64
	EpsBar        float64 // LDP parameter of E and R (Song & Oechtering (2026), Prop 1)
	EMin, EWorst  float64
	RMin, RWorst  float64
	OValue        float64 // BestValue: the optimal worst-case value threshold
	OEps          float64 // PML of the mechanism reaching it
	OMin, OWorst  float64
	OLPSolves     int
	SJump, OAbove bool // S improved on the previous ε; O's worst case beats S's
}

// Fig1 is the outcome of Figure 1.
type Fig1 struct {
	Rows     []Fig1Row
	Draws    int
	Delta    float64 // Δ of the exponential mechanism
	PMin     float64
	Problem  string
	Breaks   []float64 // ε_S at which the schedule changes (the distinct ε_S(h) used)
	JumpsAt  []float64 // grid ε where S's worst case increases
	Solver   string
	LPSolves int
}

// fig1Grid returns ε = 0.50, 0.55, …, 2.00, or in quick mode the subset that
// brackets every break of the schedule.
func fig1Grid(quick bool) []float64 {
	var g []float64
	for k := 0; k <= 30; k++ {
		e := math.Round((0.5+0.05*float64(k))*100) / 100
		if quick {
			switch e {
			case 0.5, 0.8, 0.85, 1.25, 1.3, 1.9, 1.95, 2.0:
			default:
				continue
			}
		}
		g = append(g, e)
	}
	return g
}

func figure1(ctx context.Context, cfg Config) (*Fig1, error) {
	p, err := problem.Load(cfg.Problem)
	if err != nil {
		return nil, err
	}
	u, err := p.RequireUtility()
	if err != nil {
		return nil, err
	}
	o, err := p.RequireOrder()
	if err != nil {
		return nil, err
	}
	pi := p.Prior
	n, m := u.Dims()
	if n != m {
		return nil, fmt.Errorf("counting query must be square, got %d×%d", n, m)
	}
	res := &Fig1{Draws: 1000, Delta: closedform.Sensitivity(u), PMin: pi.Min(), Problem: cfg.Problem}
	sv := solver.Auto()
	res.Solver = sv.Name()
	opt := worstcase.Options{Solver: sv, Workers: cfg.Workers}

	// The inputs are drawn once, from the prior, and shared by every
	// mechanism and every ε, so that the curves differ only by the
	// mechanisms.
	xs, err := drawPrior(pi, res.Draws, cfg.Seed)
	if err != nil {
		return nil, err
	}
	// argmax_y u'(x', y) for randomized response's post-processing.
	best := make([]int, n)
	for i := range u {
		for j := range u[i] {
			if u[i][j] > u[i][best[i]] {
				best[i] = j
			}
		}
	}

	for k, eps := range fig1Grid(cfg.Quick) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := Fig1Row{Eps: eps}
		seed := cfg.Seed + uint64(k+1)*1000

		// S: the utility-safe schedule.
		r.SH, r.SEps = closedform.SafeSchedule(pi, o, eps)
		ms, err := closedform.UtilitySafe(o, r.SH)
		if err != nil {
			return nil, err
		}
		if r.SMin, err = sampleMin(ms, u, xs, nil, seed+1); err != nil {
			return nil, err
		}
		r.SWorst = u.WorstCaseValue(ms)

		// E and R with ε̄ from Prop 1.
		r.EpsBar = closedform.LDPForPML(eps, res.PMin)
		me, err := closedform.Exponential(u, r.EpsBar, res.Delta)
		if err != nil {
			return nil, err
		}
		if r.EMin, err = sampleMin(me, u, xs, nil, seed+2); err != nil {
			return nil, err
		}
		r.EWorst = u.WorstCaseValue(me)
		mr, err := closedform.RandomizedResponse(n, r.EpsBar)
		if err != nil {
			return nil, err
		}
		if r.RMin, err = sampleMin(mr, u, xs, best, seed+3); err != nil {
			return nil, err
		}
		r.RWorst = u.WorstCaseValue(compose(mr, best, m))

		// O: the optimal worst-case value (not in the paper).
		v, br, err := worstcase.BestValue(ctx, pi, u, eps, opt)
		if err != nil {
			return nil, err
		}
		r.OValue, r.OEps, r.OLPSolves = v, br.OptimalEpsilon, br.LPSolves
		res.LPSolves += br.LPSolves
		if r.OMin, err = sampleMin(br.Mechanism, u, xs, nil, seed+4); err != nil {
			return nil, err
		}
		r.OWorst = u.WorstCaseValue(br.Mechanism)
		r.OAbove = r.OWorst > r.SWorst
		if k > 0 && r.SWorst > res.Rows[k-1].SWorst {
			r.SJump = true
			res.JumpsAt = append(res.JumpsAt, eps)
		}
		res.Rows = append(res.Rows, r)
		fmt.Fprintf(cfg.Log, "  ε=%.2f  S: h=%d min %g  E: min %g  R: min %g  O: v=%g min %g\n",
			eps, r.SH, r.SMin, r.EMin, r.RMin, r.OValue, r.OMin)
	}
	// The breaks of the schedule: ε_S(h) of every threshold used beyond h = 1.
	seen := map[float64]bool{}
	for _, r := range res.Rows {
		if r.SH > 1 && !seen[r.SEps] {
			seen[r.SEps] = true
			res.Breaks = append(res.Breaks, r.SEps)
		}
	}
	if err := res.write(cfg.Out); err != nil {
		return nil, err
	}
	return res, nil
}

// drawPrior draws count inputs from pi with an alias sampler.
func drawPrior(pi mech.Prior, count int, seed uint64) ([]int, error) {
	s, err := sample.NewSeededSampler(mech.Mechanism{pi}, seed)
	if err != nil {
		return nil, err
	}
	xs := make([]int, count)
	for k := range xs {
		xs[k] = s.Sample(0)
	}
	return xs, nil
}

// sampleMin draws Y for every x in xs from p and returns the least u'(x, Y).
// If post is not nil the released output is post[Y] (the mechanism's output
// is post-processed), and the utility is u'(x, post[Y]).
func sampleMin(p mech.Mechanism, u mech.Utility, xs []int, post []int, seed uint64) (float64, error) {
	s, err := sample.NewSeededSampler(p, seed)
	if err != nil {
		return 0, err
	}
	low := math.Inf(1)
	for _, x := range xs {
		y := s.Sample(x)
		if post != nil {
			y = post[y]
		}
		low = min(low, u[x][y])
	}
	return low, nil
}

// compose returns the mechanism x → x' ~ p(·|x) → post[x'] with m outputs.
func compose(p mech.Mechanism, post []int, m int) mech.Mechanism {
	out := mech.Zeros(len(p), m)
	for i := range p {
		for j, v := range p[i] {
			out[i][post[j]] += v
		}
	}
	return out
}

func (f *Fig1) write(dir string) error {
	header := []string{"eps", "S_h", "S_eps", "S_min", "S_worst", "epsbar", "E_min", "E_worst",
		"R_min", "R_worst", "O_value", "O_eps", "O_min", "O_worst", "O_lp_solves"}
	var rows [][]string
	var xs, s, e, r, o []float64
	for _, x := range f.Rows {
		rows = append(rows, []string{ff(x.Eps), fi(x.SH), ff(x.SEps), ff(x.SMin), ff(x.SWorst), ff(x.EpsBar),
			ff(x.EMin), ff(x.EWorst), ff(x.RMin), ff(x.RWorst), ff(x.OValue), ff(x.OEps), ff(x.OMin), ff(x.OWorst), fi(x.OLPSolves)})
		xs = append(xs, x.Eps)
		s = append(s, x.SMin)
		e = append(e, x.EMin)
		r = append(r, x.RMin)
		o = append(o, x.OMin)
	}
	if err := writeCSV(dir, fig1Data, header, rows); err != nil {
		return err
	}
	fig := figure.Figure{
		Title:  fmt.Sprintf("Figure 1: counting query, sample minimum of u'(X, Y) over %d draws", f.Draws),
		XLabel: "PML budget ε (nats)",
		YLabel: "minimum utility u'(X, Y)",
		Width:  9,
		Series: []figure.Series{
			{Name: "S: utility-safe", X: xs, Y: s, Step: true, Marks: true},
			{Name: "E: exponential", X: xs, Y: e, Step: true, Marks: true},
			// Dashed: where E and R coincide, E shows between the dashes.
			{Name: "R: randomized response", X: xs, Y: r, Step: true, Marks: true, Dashed: true},
			{Name: "O: optimal worst-case value", X: xs, Y: o, Step: true, Marks: true, Dashed: true},
		},
	}
	return savePlots(dir, fig1Plot, fig)
}

// The files of the figures: the data under the figure's number, the
// pictures under a name that says what they show.
const (
	fig1Data    = "fig1.csv"
	fig1Plot    = "fig1-counting-query-minimum-utility"
	scalingData = "scaling.csv"
	scalingPlot = "scaling-time-against-size"
)

// fig23Plots are the pictures of Figures 2 and 3, one per prior pattern.
var fig23Plots = map[string]string{
	"one-low-three-high": "fig2-least-pml-one-low-three-high",
	"three-low-one-high": "fig3-least-pml-three-low-one-high",
}

// savePlots writes fig as dir/name.svg, dir/name.png and dir/name.pdf.
func savePlots(dir, name string, fig figure.Figure) error {
	for _, ext := range []string{".svg", ".png", ".pdf"} {
		if err := fig.Save(dir + "/" + name + ext); err != nil {
			return fmt.Errorf("%s%s: %w", name, ext, err)
		}
	}
	return nil
}
