package instance

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt/mech"
)

// GridPriors names the priors of GridProblem.
var GridPriors = []string{"uniform", "clustered"}

// ParseGridSize reads a grid size "WxH" (or "W×H"), both sides whole
// numbers of at least 1; the error names what is wrong.
func ParseGridSize(s string) (w, h int, err error) {
	a, b, ok := strings.Cut(strings.ReplaceAll(s, "×", "x"), "x")
	if !ok {
		return 0, 0, fmt.Errorf("grid size %q: want WxH, e.g. 32x32", s)
	}
	if w, err = strconv.Atoi(strings.TrimSpace(a)); err != nil || w < 1 {
		return 0, 0, fmt.Errorf("grid size %q: the width must be a whole number ≥ 1", s)
	}
	if h, err = strconv.Atoi(strings.TrimSpace(b)); err != nil || h < 1 {
		return 0, 0, fmt.Errorf("grid size %q: the height must be a whole number ≥ 1", s)
	}
	return w, h, nil
}

// GridProblem returns the prior and the Euclidean utility (Grid) of a w×h
// location grid, the instances of the bench's grid studies. The prior is
// "uniform" or "clustered": GridClusters binned from 20 points per cell
// drawn by a fixed seed, so that every run measures the same instance.
func GridProblem(w, h int, prior string) (mech.Prior, mech.Utility, error) {
	pi, err := GridPrior(w, h, prior)
	if err != nil {
		return nil, nil, err
	}
	u, err := Grid(w, h)
	if err != nil {
		return nil, nil, err
	}
	return pi, u, nil
}

// GridPrior returns GridProblem's prior alone, for a solve that reads the
// utility by its rule (GridRule) instead of as a matrix.
func GridPrior(w, h int, prior string) (mech.Prior, error) {
	switch prior {
	case "uniform":
		return Uniform(w * h)
	case "clustered":
		return GridClusters(rand.New(rand.NewPCG(1, 2)), w, h, 20*w*h)
	}
	return nil, fmt.Errorf("instance: grid prior %q: want uniform or clustered", prior)
}

// GridRule returns the utility of Grid(w, h) as a rule: the same entries,
// −(Euclidean distance) between cells of side 1, in O(1) memory.
func GridRule(w, h int) *mech.UtilityRule {
	return &mech.UtilityRule{Metric: mech.Euclidean, Inputs: mech.Sites{Grid: &mech.Grid{Width: w, Height: h, Cell: 1}}}
}
