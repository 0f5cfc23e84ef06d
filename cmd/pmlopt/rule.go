package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
)

// denseUtility fills in the dense utility and order of a problem whose file
// gives a utility_rule: the engines and most commands read the matrix. It
// refuses, before any work, a matrix beyond the memory available, with the
// size needed (see problem.Problem.Materialize). It stops with ctx: the
// order of a large grid ranks every row of its utility.
func denseUtility(ctx context.Context, p *problem.Problem) error {
	if err := p.MaterializeContext(ctx); err != nil {
		if ctx.Err() != nil {
			return errors.New("the utility_rule's dense utility and order were still being built")
		}
		return err
	}
	return nil
}

// solveMemory checks, before any work, that solve's answer fits in memory:
// a solve that reads a rule a column at a time (pmlopt.SolvesByRule: an
// expected utility by the active set, with no backend, --exact or floor)
// holds the dense mechanism alone, every other solve also the dense
// utility and order, which denseUtility builds.
func solveMemory(ctx context.Context, p *problem.Problem, slv solver.Solver, dense bool) error {
	if !dense && pmlopt.SolvesByRule(p, pmlopt.Options{Solver: slv}) {
		return p.CheckColumns()
	}
	return denseUtility(ctx, p)
}

// parseSize reads a size in bytes: a positive number with an optional unit,
// B, KiB, MiB, GiB, TiB (powers of 1024; K, M, G, T the same) or KB, MB,
// GB, TB (powers of 1000).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	k := len(t)
	for k > 0 && (t[k-1] < '0' || t[k-1] > '9') && t[k-1] != '.' {
		k--
	}
	num, unit := t[:k], strings.TrimSpace(t[k:])
	units := map[string]float64{"": 1, "B": 1, "K": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20,
		"G": 1 << 30, "GiB": 1 << 30, "T": 1 << 40, "TiB": 1 << 40, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
	f, ok := units[unit]
	x, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || err != nil || !(x > 0) || math.IsInf(x, 0) || x*f >= math.MaxInt64 || x*f < 1 {
		return 0, fmt.Errorf("%q is not a size: want a positive number of bytes, such as 500000000, 512MiB or 4GiB", s)
	}
	return int64(x * f), nil
}
