package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/polytope"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// euEpsilon is the PML budget of the expected-utility LP study.
const euEpsilon = 0.5

// EURow is one cold solve of the ε-PML expected-utility LP.
type EURow struct {
	N, Rows, Cols, Nonzeros int
	Backend                 string
	Time                    time.Duration
	Objective               float64
	PML                     float64 // audited PML of the optimum
	LPSolves                int     // 2 when the optimum was polished with the row-scaled LP
	Skipped                 string
}

// EULP is the expected-utility LP study of the LP-core issue: model size and
// time of one solve per size and backend, and the largest N the pure-Go
// default backend solves within the time limit.
type EULP struct {
	Rows       []EURow
	Limit      time.Duration
	LargestN   int // largest N solved by the pure-Go backend within Limit
	LargestFor string
	// LargestIPM is the largest N (doubling from 16) that package ipm, the
	// default method of pmlopt solve, solves within Limit; 0 if not run.
	LargestIPM int
}

// ipmName is the EU study's name for the default method, pmlopt.Solve
// without a Solver (package ipm).
const ipmName = "ipm"

// euSolve solves the instance's ε-PML expected-utility problem once with
// pmlopt.Solve and reports the full LP's size. A nil s is the default
// method, package ipm alone (no LP). With a backend, the solve is what
// `pmlopt solve --solver NAME` does: ipm, then the backend's LP on ipm's
// support; with full, the whole LP instead (and a warm polish with its
// rows scaled if the optimum exceeds the budget by over 1e-9).
func euSolve(in Instance, s solver.Solver, full bool) (EURow, error) {
	b := mech.Budget{Measure: mech.PML, Epsilon: euEpsilon}
	name := ipmName
	if s != nil {
		name = s.Name() + fullSuffix(full)
	}
	row, err := euSize(in, name)
	if err != nil {
		return row, err
	}
	p := &problem.Problem{Prior: in.Prior, Utility: in.Utility, Privacy: &b, Objective: problem.ExpectedUtility}
	t0 := time.Now()
	sol, err := pmlopt.Solve(context.Background(), p, pmlopt.Options{Solver: s, FullLP: full})
	row.Time = time.Since(t0)
	if err != nil {
		return row, err
	}
	row.Objective, row.PML, row.LPSolves = sol.ExpectedUtility, leakage.PML(in.Prior, sol.Mechanism), sol.LPSolves
	return row, nil
}

func fullSuffix(full bool) string {
	if full {
		return " full LP"
	}
	return ""
}

// euSize returns a row with the size of the instance's expected-utility LP.
func euSize(in Instance, backend string) (EURow, error) {
	m, err := polytope.Build(polytope.Spec{Prior: in.Prior, Budget: mech.Budget{Measure: mech.PML, Epsilon: euEpsilon},
		Objective: polytope.ExpectedUtility, Utility: in.Utility})
	if err != nil {
		return EURow{}, err
	}
	return EURow{N: in.N, Rows: m.LP.NumRows(), Cols: m.LP.NumCols(), Nonzeros: m.LP.NumNonzeros(), Backend: backend}, nil
}

func euLP(ctx context.Context, cfg Config) (*EULP, error) {
	sizes := []int{16, 64, 128, 256}
	maxN := 512
	if cfg.Quick {
		sizes, maxN = []int{16, 32}, 32
	}
	res := &EULP{Limit: 10 * time.Second}
	// First the largest N the pure-Go default backend solves within the
	// limit: double from 16 while a solve stays under it. Its solves are
	// reused below, and sizes beyond it are not attempted: a solve can not
	// be interrupted, so each one over the limit costs its full time.
	pure := ""
	measured := map[int]EURow{}
	tooSlow := 0 // smallest N over the limit, 0 if none
	if _, err := solver.Get("revised"); err == nil && contains(cfg.Solvers, "revised") {
		pure = "revised"
		res.LargestFor = pure
		s, _ := solver.Get(pure)
		for n := 16; n <= maxN && ctx.Err() == nil; n *= 2 {
			row, err := euSolve(randomInstance(n, cfg.Seed), s, true)
			if err != nil {
				return nil, fmt.Errorf("N = %d: %w", n, err)
			}
			measured[n] = row
			fmt.Fprintf(cfg.Log, "  largest-N search: %s solved N=%d in %v\n", pure, n, row.Time.Round(time.Millisecond))
			if row.Time > res.Limit {
				tooSlow = n
				break
			}
			res.LargestN = n
		}
	}
	// The default method: every size, and its own largest N.
	ipmRows := map[int]EURow{}
	for n := 16; n <= 2*maxN && ctx.Err() == nil; n *= 2 {
		row, err := euSolve(randomInstance(n, cfg.Seed), nil, false)
		if err != nil {
			return nil, fmt.Errorf("N = %d, %s: %w", n, ipmName, err)
		}
		ipmRows[n] = row
		fmt.Fprintf(cfg.Log, "  N=%d %s: %v (largest-N search)\n", n, ipmName, row.Time.Round(time.Microsecond))
		if row.Time > res.Limit {
			break
		}
		res.LargestIPM = n
	}
	for _, n := range sizes {
		in := randomInstance(n, cfg.Seed)
		if row, ok := ipmRows[n]; ok {
			res.Rows = append(res.Rows, row)
		}
		for _, name := range cfg.Solvers {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s, _ := solver.Get(name)
			if name != "gonum" {
				// ipm finished on its support by the backend: what
				// `pmlopt solve --solver NAME` does.
				row, err := euSolve(in, s, false)
				if err != nil {
					return nil, fmt.Errorf("N = %d: %w", n, err)
				}
				logEU(cfg, row)
				res.Rows = append(res.Rows, row)
			}
			if name == pure {
				row, ok := measured[n]
				if !ok {
					var err error
					if row, err = euSize(in, name+fullSuffix(true)); err != nil {
						return nil, err
					}
					row.Skipped = fmt.Sprintf("not attempted: N = %d already took over %v", tooSlow, res.Limit)
				}
				res.Rows = append(res.Rows, row)
				continue
			}
			row, err := euSolve(in, s, true)
			switch {
			case errors.Is(err, solver.ErrTooLarge):
				row.Skipped = "refused: " + solver.ErrTooLarge.Error()
			case err != nil:
				return nil, fmt.Errorf("N = %d: %w", n, err)
			}
			logEU(cfg, row)
			res.Rows = append(res.Rows, row)
		}
	}
	return res, nil
}

func logEU(cfg Config, row EURow) {
	fmt.Fprintf(cfg.Log, "  N=%d %s: %d rows, %d cols, %d non-zeros, %v %s\n", row.N, row.Backend, row.Rows, row.Cols, row.Nonzeros,
		row.Time.Round(time.Microsecond), row.Skipped)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (e *EULP) write(dir string) error {
	var rows [][]string
	for _, r := range e.Rows {
		rows = append(rows, []string{fi(r.N), r.Backend, fi(r.Rows), fi(r.Cols), fi(r.Nonzeros),
			ff(r.Time.Seconds()), fi(r.LPSolves), ff(r.Objective), ff(r.PML), r.Skipped})
	}
	return writeCSV(dir, "eulp.csv", []string{"N", "backend", "rows", "cols", "nonzeros", "seconds", "lp_solves", "expected_utility", "audited_pml", "note"}, rows)
}

func (r *Report) writeEULP(b *strings.Builder) {
	e := r.EULP
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("## Expected-utility LP\n\n")
	w("One `pmlopt solve` of the ε-PML expected-utility problem (ε = %g) on the scaling study's random instances (data: [eulp.csv](eulp.csv)). Rows `ipm`: the default method, package ipm's structured interior-point method alone (no LP). Rows with a backend name: `--solver NAME`, ipm followed by the backend's LP restricted to the pairs ipm's point uses, whose optimal vertex ipm's bound certifies. Rows `NAME full LP`: the whole LP (`pmlopt.Options.FullLP`), cold, and, if its optimum exceeds ε by more than 1e-9 (an engine's absolute row tolerance lets outputs of little mass slip), a polish: a second solve with every row scaled by 2^10, started from the first one's basis where the backend keeps one (LPs = 2). The time is that of `pmlopt.Solve`: builds, solves and the audit. The columns give the full LP's size: N·M + M columns and N + M + N·M rows (O(NM) non-zeros).\n\n", euEpsilon)
	w("| N = M | backend | rows | cols | non-zeros | time | LPs | expected utility | audited PML |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range e.Rows {
		if x.Skipped != "" {
			w("| %d | %s | %d | %d | %d | skipped: %s | | | |\n", x.N, x.Backend, x.Rows, x.Cols, x.Nonzeros, x.Skipped)
			continue
		}
		w("| %d | %s | %d | %d | %d | %v | %d | %.9f | %.12f |\n", x.N, x.Backend, x.Rows, x.Cols, x.Nonzeros, x.Time.Round(time.Microsecond), x.LPSolves, x.Objective, x.PML)
	}
	if e.LargestFor != "" {
		w("\nThe largest N = M (doubling from 16) that the pure-Go `%s` backend solves within %v: **%d**.\n", e.LargestFor, e.Limit, e.LargestN)
	}
	if e.LargestIPM > 0 {
		w("\nRows `%s` are the default method of `pmlopt solve` for this problem: package ipm's structured interior-point method (pure Go, no LP; the LP's size is shown for comparison), certified by the upper bound its row multipliers prove. The largest N = M it solves within %v (doubling from 16): **%d**.\n", ipmName, e.Limit, e.LargestIPM)
	}
	w("\n")
}
