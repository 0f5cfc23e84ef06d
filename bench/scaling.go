package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/pmlopt/pmlopt/closedform"
	"github.com/pmlopt/pmlopt/figure"
	"github.com/pmlopt/pmlopt/internal/randinst"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// Instance is a seeded random problem of the scaling study.
type Instance struct {
	N       int
	Prior   mech.Prior
	Utility mech.Utility
	Order   mech.Order
}

// randomInstance draws a prior from Dirichlet(1,…,1) and a utility with
// independent uniform entries, so that every row of the order is a
// uniformly random permutation.
func randomInstance(n int, seed uint64) Instance {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	pi := randinst.Dirichlet(r, n)
	u := randinst.Utility(r, n, n, 0)
	return Instance{N: n, Prior: pi, Utility: u, Order: u.Order()}
}

// CurveRun is one backend's optimal curve on one instance.
type CurveRun struct {
	Backend  string
	Skipped  string // why it was not run or not finished; "" if it finished
	Time     time.Duration
	LPSolves int
	Probes   int     // probes answered in Go (worstcase.Result.GoProbes: colgen below bisect's ipmLetters letters, ipm.Probe from there)
	Gap      float64 // max_h ε_S(h) − ε*(h), ε* taken at the bracket's upper end
	GapH     int     // the h where the gap is largest
	Done     int     // thresholds resolved (of N) when skipped mid-way
}

// ScaleRow is one size of the scaling study.
type ScaleRow struct {
	N              int
	SafeTime       time.Duration // closedform.SafeCurve
	MidH           int
	Rows, Cols, NZ int // PML feasibility LP at h = MidH, ε = ε_S(MidH), no pruning
	Curves         []CurveRun
}

// Scaling is the outcome of the scaling study.
type Scaling struct {
	Rows     []ScaleRow
	Big      *ScaleRow // closed form only
	Budget   time.Duration
	Workers  int
	Backends []string
}

// timeSafeCurve runs SafeCurve until at least 20 ms have passed and returns
// the mean time per call (a single call at N = 8 is too short for the clock).
func timeSafeCurve(in Instance) (time.Duration, []float64, error) {
	var curve []float64
	var err error
	calls := 0
	t0 := time.Now()
	for calls == 0 || time.Since(t0) < 20*time.Millisecond {
		curve, err = closedform.SafeCurve(in.Prior, in.Order)
		if err != nil {
			return 0, nil, err
		}
		calls++
	}
	return time.Since(t0) / time.Duration(calls), curve, nil
}

func scaling(ctx context.Context, cfg Config) (*Scaling, error) {
	res := &Scaling{Budget: cfg.Budget, Workers: cfg.Workers, Backends: cfg.Solvers}
	failedAt := map[string]int{} // backend → size at which the budget ran out
	for _, n := range cfg.Sizes {
		in := randomInstance(n, cfg.Seed)
		row := ScaleRow{N: n, MidH: (n + 1) / 2}
		var safe []float64
		var err error
		if row.SafeTime, safe, err = timeSafeCurve(in); err != nil {
			return nil, err
		}
		m, err := polytope.Build(polytope.Spec{
			Prior:   in.Prior,
			Budget:  mech.Budget{Measure: mech.PML, Epsilon: safe[row.MidH-1]},
			Pattern: in.Order.Pattern(row.MidH),
		})
		if err != nil {
			return nil, err
		}
		row.Rows, row.Cols, row.NZ = m.LP.NumRows(), m.LP.NumCols(), m.LP.NumNonzeros()
		fmt.Fprintf(cfg.Log, "  N=%d: SafeCurve %v, LP at h=%d: %d rows, %d cols, %d non-zeros\n",
			n, row.SafeTime, row.MidH, row.Rows, row.Cols, row.NZ)

		for _, name := range cfg.Solvers {
			cr := CurveRun{Backend: name, Gap: math.NaN()}
			switch {
			case name == "gonum" && n > cfg.GonumMax:
				cr.Skipped = fmt.Sprintf("gonum's dense Simplex can cycle on the degenerate feasibility LPs of a curve and can not be interrupted; %s", gonumLimit(cfg.GonumMax))
			case failedAt[name] > 0:
				cr.Skipped = fmt.Sprintf("not attempted: N = %d already exceeded the %v budget", failedAt[name], cfg.Budget)
			default:
				if err := runCurve(ctx, cfg, in, safe, &cr); err != nil {
					return nil, err
				}
				if cr.Skipped != "" {
					failedAt[name] = n
				}
			}
			if cr.Skipped != "" {
				fmt.Fprintf(cfg.Log, "  N=%d %s: skipped: %s\n", n, name, cr.Skipped)
			} else {
				fmt.Fprintf(cfg.Log, "  N=%d %s: OrderCurve %v, %d LPs, %d Go probes, max gap %.3g at h=%d\n",
					n, name, cr.Time.Round(time.Millisecond), cr.LPSolves, cr.Probes, cr.Gap, cr.GapH)
			}
			row.Curves = append(row.Curves, cr)
		}
		res.Rows = append(res.Rows, row)
	}
	if cfg.Big > 0 {
		in := randomInstance(cfg.Big, cfg.Seed)
		d, _, err := timeSafeCurve(in)
		if err != nil {
			return nil, err
		}
		res.Big = &ScaleRow{N: cfg.Big, SafeTime: d}
		fmt.Fprintf(cfg.Log, "  N=%d: SafeCurve %v\n", cfg.Big, d)
	}
	if err := res.write(cfg.Out); err != nil {
		return nil, err
	}
	return res, nil
}

// runCurve computes the optimal order curve of in with one backend within
// the budget and fills cr.
func runCurve(ctx context.Context, cfg Config, in Instance, safe []float64, cr *CurveRun) error {
	sv, err := solver.Get(cr.Backend)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.Budget)
	defer cancel()
	t0 := time.Now()
	pts, err := worstcase.OrderCurve(cctx, in.Prior, in.Order, worstcase.Options{Solver: sv, Workers: cfg.Workers})
	cr.Time = time.Since(t0)
	for _, p := range pts {
		cr.LPSolves += p.LPSolves
		cr.Probes += p.GoProbes
	}
	cr.Done = len(pts)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			cr.Skipped = fmt.Sprintf("exceeded the %v budget (%d of %d thresholds resolved, %d LPs)",
				cfg.Budget, cr.Done, in.N, cr.LPSolves)
			return nil
		}
		return fmt.Errorf("N=%d %s: %w", in.N, cr.Backend, err)
	}
	if len(pts) != in.N {
		return fmt.Errorf("N=%d %s: OrderCurve returned %d points", in.N, cr.Backend, len(pts))
	}
	cr.Gap, cr.GapH = math.Inf(-1), 0
	for _, p := range pts {
		// ε_S from closedform and from bisect must agree: they are the same
		// Cor 1 value computed twice.
		if d := math.Abs(p.SafeEpsilon - safe[p.H-1]); d > 1e-9 {
			return fmt.Errorf("N=%d %s: h=%d: bisect ε_S %v ≠ SafeCurve %v", in.N, cr.Backend, p.H, p.SafeEpsilon, safe[p.H-1])
		}
		if g := p.SafeEpsilon - p.OptimalEpsilon; g > cr.Gap {
			cr.Gap, cr.GapH = g, p.H
		}
	}
	return nil
}

func (s *Scaling) write(dir string) error {
	header := []string{"N", "safecurve_seconds", "mid_h", "lp_rows", "lp_cols", "lp_nonzeros",
		"backend", "status", "curve_seconds", "lp_solves", "go_probes", "max_gap", "max_gap_h", "note"}
	var rows [][]string
	for _, r := range s.Rows {
		base := []string{fi(r.N), ff(r.SafeTime.Seconds()), fi(r.MidH), fi(r.Rows), fi(r.Cols), fi(r.NZ)}
		if len(r.Curves) == 0 {
			rows = append(rows, append(base, "", "closed form only", "", "", "", "", ""))
		}
		for _, c := range r.Curves {
			status := "ok"
			if c.Skipped != "" {
				status = "skipped"
			}
			rows = append(rows, append(append([]string{}, base...), c.Backend, status, ff(c.Time.Seconds()),
				fi(c.LPSolves), fi(c.Probes), ff(c.Gap), fi(c.GapH), c.Skipped))
		}
	}
	if err := writeCSV(dir, scalingData, header, rows); err != nil {
		return err
	}
	var big [][]string
	if s.Big != nil {
		big = append(big, []string{fi(s.Big.N), ff(s.Big.SafeTime.Seconds())})
	}
	if err := writeCSV(dir, "bigsafe.csv", []string{"N", "safecurve_seconds"}, big); err != nil {
		return err
	}

	// Times against N, log–log.
	series := []figure.Series{{Name: "utility-safe curve (closed form)", Marks: true}}
	for _, r := range s.Rows {
		series[0].X = append(series[0].X, float64(r.N))
		series[0].Y = append(series[0].Y, r.SafeTime.Seconds())
	}
	if s.Big != nil {
		series[0].X = append(series[0].X, float64(s.Big.N))
		series[0].Y = append(series[0].Y, s.Big.SafeTime.Seconds())
	}
	for _, b := range s.Backends {
		sr := figure.Series{Name: "optimal curve, " + b + " backend", Marks: true, Dashed: true}
		for _, r := range s.Rows {
			for _, c := range r.Curves {
				if c.Backend == b && c.Skipped == "" {
					sr.X = append(sr.X, float64(r.N))
					sr.Y = append(sr.Y, c.Time.Seconds())
				}
			}
		}
		if len(sr.X) > 0 {
			series = append(series, sr)
		}
	}
	fig := figure.Figure{
		Title:  "Scaling: time of the utility-safe curve and of the optimal curve (N = M)",
		XLabel: "N = M (log scale)",
		YLabel: "wall time (s, log scale)",
		Width:  9,
		LogX:   true,
		LogY:   true,
		Series: series,
	}
	return savePlots(dir, scalingPlot, fig)
}

// gonumLimit says in words how far -gonum-max lets the gonum backend go.
func gonumLimit(n int) string {
	if n <= 0 {
		return "no curves on it (-gonum-max 0)"
	}
	return fmt.Sprintf("curves only up to N = %d (-gonum-max)", n)
}
