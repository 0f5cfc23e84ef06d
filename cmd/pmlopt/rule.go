package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt/problem"
)

// denseUtility fills in the dense utility and order of a problem whose file
// gives a utility_rule: the engines and most commands read the matrix. It
// refuses, before any work, a matrix beyond the memory available, with the
// size needed (see problem.Problem.Materialize).
func denseUtility(p *problem.Problem) error {
	return p.Materialize()
}

// ruleLoaderFlag is loaderFlag for a command that reads a rule's utility an
// entry at a time (audit) or not at all (sample, plot of a file's
// mechanism): the dense utility is built only where a solve asks for it
// (problem.Problem.RequireUtility), with the same memory check.
func ruleLoaderFlag(fs *flagSet) func(path string) (*problem.Problem, error) {
	limit := fs.Int64("max-bytes", problem.DefaultMaxBytes, "refuse a problem file (or standard input) larger than `N` bytes")
	maxMem := fs.String("max-memory", "", "refuse a utility_rule whose dense utility, order and mechanism (or a mechanism_sparse whose dense matrix) take more than `SIZE` (bytes, or 512MiB, 4GiB, 2GB; default: the memory available)")
	return func(path string) (*problem.Problem, error) {
		if *limit <= 0 {
			return nil, usagef("--max-bytes must be positive, got %d", *limit)
		}
		mem := int64(0)
		if *maxMem != "" {
			var err error
			if mem, err = parseSize(*maxMem); err != nil {
				return nil, usagef("--max-memory: %v", err)
			}
		}
		return loadProblemLimit(fs.env, path, *limit, mem)
	}
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
