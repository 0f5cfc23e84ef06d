package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// PartTime is the wall time of one part of the run.
type PartTime struct {
	Name string
	Time time.Duration
}

// Report collects every part for report.md.
type Report struct {
	Config   Config
	Machine  Machine
	Started  time.Time
	Parts    []PartTime
	Fig1     *Fig1
	Fig23    *Fig23
	Scaling  *Scaling
	EULP     *EULP
	Families *Families
}

// coincideTol is the largest |ε_S − ε*| reported as "coincide": the
// bisection brackets ε* to 1e-9, the rest is rounding.
const coincideTol = 1e-6

func (r *Report) write() error {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	m := r.Machine
	w("# pmlopt benchmark report\n\n")
	w("Generated %s by `go run ./bench%s`.\n\n", r.Started.Format("2006-01-02 15:04 MST"), r.flagsString())
	w("| machine | |\n|---|---|\n")
	w("| OS/arch | %s/%s |\n| CPUs | %d (GOMAXPROCS %d) |\n| CPU model | %s |\n| Go | %s |\n",
		m.GOOS, m.GOARCH, m.CPUs, m.MaxProcs, m.CPUModel, m.GoVersion)
	w("| LP backends built in | %s (auto: %s) |\n\n", strings.Join(m.Backends, ", "), m.Auto)
	w("| part | wall time |\n|---|---|\n")
	var total time.Duration
	for _, p := range r.Parts {
		w("| %s | %v |\n", p.Name, p.Time.Round(time.Millisecond))
		total += p.Time
	}
	w("| total | %v |\n\n", total.Round(time.Millisecond))
	w("Timings were taken on whatever else the machine was running; read them as orders of magnitude.\n\n")
	if r.Fig1 != nil {
		r.writeFig1(&b)
	}
	if r.Fig23 != nil {
		r.writeFig23(&b)
	}
	if r.Scaling != nil {
		r.writeScaling(&b)
	}
	if r.EULP != nil {
		r.writeEULP(&b)
	}
	if r.Families != nil {
		r.writeFamilies(&b)
	}
	w("## Go benchmarks\n\n")
	w("`go test -run '^$' -bench . ./bench/` times the closed-form curve at 1000×1000 (SafeCurve), one PML expected-utility LP at N = M = 16, 64 and 128 per backend, the least ε of one threshold at 32×32 (LeastEpsilon) and the optimal curve at 16×16 (OrderCurve); add `-tags clp` for the Clp backend.\n")
	return os.WriteFile(filepath.Join(r.Config.Out, "report.md"), []byte(b.String()), 0o644)
}

func (r *Report) flagsString() string {
	c := r.Config
	s := " -out " + c.Out
	if c.Quick {
		s += " -quick"
	}
	var sz []string
	for _, n := range c.Sizes {
		sz = append(sz, fi(n))
	}
	s += " -sizes " + strings.Join(sz, ",")
	s += fmt.Sprintf(" -big %d -budget %v -gonum-max %d -solvers %s -seed %d", c.Big, c.Budget, c.GonumMax, strings.Join(c.Solvers, ","), c.Seed)
	if c.Studies != nil {
		s += " -studies " + strings.Join(c.Studies, ",")
	}
	if c.FamilySizes != nil {
		var fs []string
		for _, n := range c.FamilySizes {
			fs = append(fs, fi(n))
		}
		s += " -family-sizes " + strings.Join(fs, ",")
	}
	if c.Families != nil {
		s += " -families " + strings.Join(c.Families, ",")
	}
	if c.CPUBudget > 0 {
		s += fmt.Sprintf(" -cpu-budget %v", c.CPUBudget)
	}
	if c.FamilyTasks != nil {
		s += " -tasks " + strings.Join(c.FamilyTasks, ",")
	}
	var rs []string
	for _, n := range c.RefSizes {
		rs = append(rs, fi(n))
	}
	if len(rs) == 0 {
		rs = []string{"none"}
	}
	s += " -reference-sizes " + strings.Join(rs, ",")
	return s
}

// embed shows the picture plot (plot.png, with links to plot.svg and
// plot.pdf) and links its data file.
func embed(b *strings.Builder, plot, data, caption string) {
	fmt.Fprintf(b, "![%s](%s.png)\n\n(%s: [SVG](%s.svg), [PDF](%s.pdf), data: [%s](%s))\n\n", caption, plot, caption, plot, plot, data, data)
}

// spanText says that values whose least is lo and greatest hi "are lo"
// when they are all equal and "lie between lo and hi" otherwise.
func spanText(lo, hi float64) string {
	if lo == hi {
		return fmt.Sprintf("are all %g", lo)
	}
	return fmt.Sprintf("lie between %g and %g", lo, hi)
}

// bothText names a quantity of E and R: "%g for both" when they agree.
func bothText(e, r float64) string {
	if e == r {
		return fmt.Sprintf("%g for both", e)
	}
	return fmt.Sprintf("%g for E and %g for R", e, r)
}

func fmtList(xs []float64, prec int) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprintf("%.*f", prec, x))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// findings says in words what Figure 1's rows show about S, E and R.
func (f *Fig1) findings() []string {
	if len(f.Rows) == 0 {
		return nil
	}
	var out []string
	first, last := f.Rows[0], f.Rows[len(f.Rows)-1]
	schedule := "The schedule keeps h = 1 on this grid"
	if len(f.Breaks) > 0 {
		schedule = fmt.Sprintf("The schedule changes at ε_S = %s nats (the utility-safe PMLs of the thresholds it uses)", fmtList(f.Breaks, 4))
	}
	switch {
	case len(f.JumpsAt) > 0:
		out = append(out, fmt.Sprintf("%s; the exact worst case of S rises at the grid points ε = %s, from %g at ε = %.2f to %g at ε = %.2f.",
			schedule, fmtList(f.JumpsAt, 2), first.SWorst, first.Eps, last.SWorst, last.Eps))
	case first.SWorst == last.SWorst:
		out = append(out, fmt.Sprintf("%s; the exact worst case of S is %g at every grid point.", schedule, first.SWorst))
	default:
		out = append(out, fmt.Sprintf("%s; the exact worst case of S never rises on this grid: %g at ε = %.2f, %g at ε = %.2f.",
			schedule, first.SWorst, first.Eps, last.SWorst, last.Eps))
	}
	// E and R over the budgets where ε̄ is finite.
	eLo, eHi, rLo, rHi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	ewLo, ewHi, rwLo, rwHi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	var fin []Fig1Row
	var infAt []float64
	for _, x := range f.Rows {
		if math.IsInf(x.EpsBar, 1) {
			infAt = append(infAt, x.Eps)
			continue
		}
		fin = append(fin, x)
		eLo, eHi = min(eLo, x.EMin), max(eHi, x.EMin)
		rLo, rHi = min(rLo, x.RMin), max(rHi, x.RMin)
		ewLo, ewHi = min(ewLo, x.EWorst), max(ewHi, x.EWorst)
		rwLo, rwHi = min(rwLo, x.RWorst), max(rwHi, x.RWorst)
	}
	if len(fin) > 0 {
		var minima string
		if eLo == eHi && rLo == rHi && eLo == rLo {
			minima = fmt.Sprintf("E's and R's sample minima are all %g", eLo)
		} else {
			minima = fmt.Sprintf("E's sample minima %s and R's %s", spanText(eLo, eHi), spanText(rLo, rHi))
		}
		budgets := fmt.Sprintf("%d budgets", len(fin))
		if len(fin) == 1 {
			budgets = "1 budget"
		}
		s := fmt.Sprintf("Where ε̄ is finite (%s) %s: both keep every output possible", budgets, minima)
		switch {
		case ewLo == ewHi && rwLo == rwHi && ewLo == rwLo:
			s += fmt.Sprintf(", so the exact worst case of each is %g throughout — they do not improve with ε.", ewLo)
		case ewLo == ewHi && rwLo == rwHi:
			s += fmt.Sprintf(", so their exact worst cases are %g (E) and %g (R) throughout — they do not improve with ε.", ewLo, rwLo)
		default:
			s += fmt.Sprintf("; their exact worst cases change with ε (E's %s, R's %s).", spanText(ewLo, ewHi), spanText(rwLo, rwHi))
		}
		out = append(out, s)
	}
	if len(infAt) > 0 {
		var inf Fig1Row
		for _, x := range f.Rows {
			if math.IsInf(x.EpsBar, 1) {
				inf = x
				break
			}
		}
		out = append(out, fmt.Sprintf("At ε = %s the budget reaches −log p_min = %.4f, where every mechanism is ε-PML, so Prop 1 gives ε̄ = ∞: E and R become deterministic (each x to its best output) and their exact worst case becomes %s. The paper's plot does not show this end point.",
			fmtList(infAt, 2), -math.Log(f.PMin), bothText(inf.EWorst, inf.RWorst)))
	}
	return out
}

func (r *Report) writeFig1(b *strings.Builder) {
	f := r.Fig1
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("## Figure 1: counting query\n\n")
	w("Song & Oechtering (2026), §IV-A: %s, uniform prior, %d draws of X from the prior and Y from each mechanism at every ε (fixed seeds; the same X for every mechanism). S is the utility-safe schedule, E the exponential mechanism (Δ = %g, 2Δ = %g) and R randomized response followed by y = argmax_y u'(x', y), both with the LDP parameter ε̄ = LDPForPML(ε, p_min = %.4f) of Song & Oechtering (2026), Prop 1. O is the mechanism with the best worst-case utility value at each ε (worstcase.BestValue, %s backend, %d LPs in all), which the paper does not show.\n\n",
		f.Problem, f.Draws, f.Delta, 2*f.Delta, f.PMin, f.Solver, f.LPSolves)
	embed(b, fig1Plot, fig1Data, "Figure 1")
	if len(f.Rows) == 0 {
		return
	}
	w("What the data show:\n\n")
	for _, line := range f.findings() {
		w("- %s\n", line)
	}
	var above []string
	maxGain, gainAt := 0.0, math.NaN()
	for _, x := range f.Rows {
		if x.OAbove {
			above = append(above, fmt.Sprintf("%.2f (%g vs %g)", x.Eps, x.OWorst, x.SWorst))
			if g := x.OWorst - x.SWorst; g > maxGain {
				maxGain, gainAt = g, x.Eps
			}
		}
	}
	if len(above) == 0 {
		w("- The optimal worst-case value O never beats S on this grid.\n\n")
	} else {
		w("- The optimal worst-case value O beats S's exact worst case at %d of %d budgets: ε = %s; the largest gain is %g at ε = %.2f.\n\n",
			len(above), len(f.Rows), strings.Join(above, ", "), maxGain, gainAt)
	}
	w("| ε | S: h | S: ε_S | S min | E min | R min | O: value | O min |\n|---|---|---|---|---|---|---|---|\n")
	for _, x := range f.Rows {
		w("| %.2f | %d | %.4f | %g | %g | %g | %g | %g |\n", x.Eps, x.SH, x.SEps, x.SMin, x.EMin, x.RMin, x.OValue, x.OMin)
	}
	w("\n")
}

func (r *Report) writeFig23(b *strings.Builder) {
	f := r.Fig23
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("## Figures 2 and 3: least PML on the 4×4 circulant order\n\n")
	w("Song & Oechtering (2026), §IV-B: U = [[4,3,2,1],[1,4,3,2],[2,1,4,3],[3,2,1,4]]. For each prior and h, S is ε_S(h) of Cor 1 (closedform.SafeEpsilon) and O the least PML of any mechanism with worst-case order h, bracketed by LP bisection (worstcase.LeastEpsilon, %s backend) to %g; the plot shows the upper end of the bracket, which an audited mechanism reaches. The low letters are listed first; the order is circulant, so which letters are low does not matter.\n\n", f.Solver, f.Tol)
	for k, pattern := range []string{"one-low-three-high", "three-low-one-high"} {
		w("### Figure %d: %s\n\n", k+2, pattern)
		embed(b, fig23Plots[pattern], fmt.Sprintf("fig%d.csv", k+2), fmt.Sprintf("Figure %d", k+2))
		for _, h := range []int{2, 3} {
			w("- %s\n", describeGap(f.sel(pattern, h), pattern, h))
		}
		w("\n| p_min | h | ε_S | ε* lower | ε* upper | ε_S − ε* |\n|---|---|---|---|---|---|\n")
		for _, h := range []int{2, 3} {
			for _, x := range f.sel(pattern, h) {
				w("| %.2f | %d | %.6f | %.6f | %.6f | %.2e |\n", x.PMin, x.H, x.Safe, x.OptLower, x.OptUpper, x.Gap)
			}
		}
		w("\n")
	}
}

// describeGap says in words how S and O compare along p_min.
func describeGap(rows []Fig23Row, pattern string, h int) string {
	if len(rows) == 0 {
		return "no data"
	}
	maxAbs := 0.0
	for _, x := range rows {
		maxAbs = max(maxAbs, math.Abs(x.Gap))
	}
	if maxAbs <= coincideTol {
		return fmt.Sprintf("h = %d: S and O coincide at every p_min (largest |ε_S − ε*| = %.1e nats): the utility-safe mechanism is optimal.", h, maxAbs)
	}
	first, last := rows[0], rows[len(rows)-1]
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range rows {
		lo, hi = min(lo, x.Gap), max(hi, x.Gap)
	}
	if hi-lo <= coincideTol {
		return fmt.Sprintf("h = %d under %s: S loses to O by %.3f nats at every p_min (ε_S = %.3f vs ε* ≤ %.3f at p_min = %.2f).",
			h, pattern, last.Gap, last.Safe, last.OptUpper, last.PMin)
	}
	mono := "shrinking"
	for k := 1; k < len(rows); k++ {
		if rows[k].Gap > rows[k-1].Gap+coincideTol {
			mono = "changing, not monotonically,"
			break
		}
	}
	if last.Gap > first.Gap+coincideTol && mono == "shrinking" {
		mono = "growing"
	}
	var equal []string
	for _, x := range rows {
		if math.Abs(x.Gap) <= coincideTol {
			equal = append(equal, fmt.Sprintf("%.2f", x.PMin))
		}
	}
	s := fmt.Sprintf("h = %d under %s: S loses to O; the gap is %.3f nats at p_min = %.2f, %s to %.3f at p_min = %.2f (ε_S = %.3f vs ε* ≤ %.3f there).",
		h, pattern, first.Gap, first.PMin, mono, last.Gap, last.PMin, last.Safe, last.OptUpper)
	if len(equal) > 0 {
		s += " They coincide at p_min = " + strings.Join(equal, ", ") + "."
	}
	return s
}

func (r *Report) writeScaling(b *strings.Builder) {
	s := r.Scaling
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	workers := "GOMAXPROCS"
	if s.Workers > 0 {
		workers = fi(s.Workers)
	}
	w("## Scaling study\n\n")
	w("Random instances with N = M: prior from Dirichlet(1,…,1), utilities i.i.d. uniform (so every row of the order is a random permutation), seed %d. The closed-form curve is h ↦ ε_S(h) of every threshold (closedform.SafeCurve, mean time over repeated calls); the LP size is that of the PML feasibility LP of h = ⌈N/2⌉ without pruning; the optimal curve is ε*(h) for every h (worstcase.OrderCurve, workers: %s), within a budget of %v per instance and backend. The gap is max_h (ε_S(h) − ε*(h)) with ε* at the upper end of its bracket.\n\n",
		r.Config.Seed, workers, s.Budget)
	embed(b, scalingPlot, scalingData, "Scaling")
	w("| N = M | closed-form curve | LP rows | LP cols | non-zeros |")
	for _, name := range s.Backends {
		w(" %s: optimal curve | LPs + Go probes | max gap (nats) at h |", name)
	}
	w("\n|---|---|---|---|---|")
	for range s.Backends {
		w("---|---|---|")
	}
	w("\n")
	var skipped []string
	for _, x := range s.Rows {
		w("| %d | %v | %d | %d | %d |", x.N, x.SafeTime, x.Rows, x.Cols, x.NZ)
		for _, c := range x.Curves {
			if c.Skipped != "" {
				w(" skipped | | |")
				skipped = append(skipped, fmt.Sprintf("N = %d, %s: %s", x.N, c.Backend, c.Skipped))
				continue
			}
			w(" %v | %d + %d | %.3g at %d |", c.Time.Round(time.Millisecond), c.LPSolves, c.Probes, c.Gap, c.GapH)
		}
		w("\n")
	}
	w("\n")
	if len(skipped) > 0 {
		w("Skipped:\n\n")
		for _, x := range skipped {
			w("- %s\n", x)
		}
		w("\n")
	}
	if s.Big != nil {
		w("The closed-form curve at N = M = %d takes %v.\n\n", s.Big.N, s.Big.SafeTime)
	}
	r.writeTargets(b)
	// Words from the data: largest gap seen, and growth of the curve time.
	maxGap, gapN, gapB := math.Inf(-1), 0, ""
	for _, x := range s.Rows {
		for _, c := range x.Curves {
			if c.Skipped == "" && c.Gap > maxGap {
				maxGap, gapN, gapB = c.Gap, x.N, c.Backend
			}
		}
	}
	if gapB != "" {
		w("Across the instances solved, the utility-safe curve is at most %.3f nats above the optimum (largest at N = %d). ", maxGap, gapN)
	}
	if len(s.Rows) >= 2 {
		a, z := s.Rows[0], s.Rows[len(s.Rows)-1]
		w("The closed-form curve takes %v at N = %d and %v at N = %d (the input grows %.0f×).\n", a.SafeTime, a.N, z.SafeTime, z.N, float64(z.N*z.N)/float64(a.N*a.N))
	}
	w("\n")
}

// curveTarget is a speed target of the performance issue: the full optimal
// curve of an N×N instance on a backend within a time.
type curveTarget struct {
	backend string
	n       int
	limit   time.Duration
}

var curveTargets = []curveTarget{
	{"clp", 64, 3 * time.Second},
	{"clp", 128, 30 * time.Second},
	{"clp", 256, 5 * time.Minute},
	{"revised", 32, time.Minute},
}

// writeTargets compares the scaling study with the performance targets and,
// for each curve solved, says how its time splits into LPs and ipm
// probes: how many per threshold, and the time per LP or probe (wall time ×
// workers / solves).
func (r *Report) writeTargets(b *strings.Builder) {
	s := r.Scaling
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	w("### Targets\n\n")
	w("| target | measured | met | LPs + Go probes | per threshold | time per LP or probe |\n|---|---|---|---|---|---|\n")
	for _, t := range curveTargets {
		var c *CurveRun
		for i := range s.Rows {
			if s.Rows[i].N != t.n {
				continue
			}
			for k := range s.Rows[i].Curves {
				if s.Rows[i].Curves[k].Backend == t.backend {
					c = &s.Rows[i].Curves[k]
				}
			}
		}
		name := fmt.Sprintf("%s, N = %d, < %v", t.backend, t.n, t.limit)
		switch {
		case c == nil:
			w("| %s | not run | | | | |\n", name)
		case c.Skipped != "":
			w("| %s | not finished: %s | no | | | |\n", name, c.Skipped)
		default:
			met := "yes"
			if c.Time > t.limit {
				met = fmt.Sprintf("no (%.1f× the target)", c.Time.Seconds()/t.limit.Seconds())
			}
			per := time.Duration(0)
			if solves := c.LPSolves + c.Probes; solves > 0 {
				per = c.Time * time.Duration(workers) / time.Duration(solves)
			}
			w("| %s | %v | %s | %d + %d | %.1f + %.1f | %v |\n", name, c.Time.Round(time.Millisecond), met, c.LPSolves, c.Probes,
				float64(c.LPSolves)/float64(t.n), float64(c.Probes)/float64(t.n), per.Round(10*time.Microsecond))
		}
	}
	if s.Big != nil {
		met := "yes"
		if s.Big.SafeTime > 50*time.Millisecond {
			met = "no"
		}
		w("| closed-form curve, N = %d, < 50ms | %v | %s | | | |\n", s.Big.N, s.Big.SafeTime, met)
	}
	w("\n")
}
