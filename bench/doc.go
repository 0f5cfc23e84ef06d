// Command bench regenerates pmlopt's experimental report: the three figures of
// Song & Oechtering (2026), §IV, a scaling study of the closed-form schedule and of
// the optimal trade-off curve per LP backend, the expected-utility LP study,
// the instance-families study (every family of package instance: curves and
// expected-utility solves under each measure), and a report.md that embeds
// the plots and states in words, computed from the data, what they show.
//
//	go run ./bench -out report/             # default set, a few minutes on 2 cores
//	go run -tags clp ./bench -out report/   # with the Clp backend as well
//	go run ./bench -out /tmp/r -quick       # small grids, N up to 16
//
// Flags:
//
//	-out dir        output folder (created); default "report"
//	-quick          small ε grid subset, three p_min values, N up to 16
//	-sizes list     N = M of the scaling study, e.g. 8,16,32 (default 8,...,256)
//	-big n          size of the closed-form-only scaling point (default 1000, 0 = off)
//	-budget d       time budget of each curve, per instance and backend (default 30s)
//	-gonum-max n    largest N whose curve the gonum backend solves (default 0:
//	                its dense Simplex can cycle on degenerate LPs and can not
//	                be interrupted)
//	-solvers s      auto, all, or a comma-separated list of backend names
//	-workers n      thresholds solved at once by the curves (0 = GOMAXPROCS)
//	-seed n         seed of the samplers and of the random instances
//	-problem path   the counting-query problem file (default testdata/counting-query.yaml)
//	-studies list   parts to run: fig1, fig23, scaling, eulp, families (default all)
//
// The families study:
//
//	-family-sizes l N of the study (default 64,128,256; quick: 8,12)
//	-families list  families of package instance (default all)
//	-tasks list     order, value, eu-pml, eu-lip, eu-alip, eu-ldp (default all)
//	-budget d       the wall-time budget of each run
//	-cpu-budget d   a budget in CPU time of each run's process (0 = none)
//	-isolate        run each run in a child process of this binary, killed past
//	                its budget (default true; an expected-utility solve can not
//	                be interrupted in-process)
//
// The folder receives the data fig1.csv, fig2.csv, fig3.csv, scaling.csv,
// bigsafe.csv, eulp.csv and families.csv; an SVG, a PNG and a PDF of every
// plot, named for what it shows (fig1-counting-query-minimum-utility,
// fig2-least-pml-one-low-three-high, fig3-least-pml-three-low-one-high,
// scaling-time-against-size); and report.md. Progress goes to stderr.
// Sizes that a backend cannot finish within the budget are reported as
// skipped with the reason, never dropped.
//
// The Go benchmarks of the same computations run with
//
//	go test -run '^$' -bench . ./bench/
package main
