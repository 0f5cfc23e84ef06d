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
	var (
		pi  mech.Prior
		err error
	)
	switch prior {
	case "uniform":
		pi, err = Uniform(w * h)
	case "clustered":
		pi, err = GridClusters(rand.New(rand.NewPCG(1, 2)), w, h, 20*w*h)
	default:
		return nil, nil, fmt.Errorf("instance: grid prior %q: want uniform or clustered", prior)
	}
	if err != nil {
		return nil, nil, err
	}
	u, err := Grid(w, h)
	if err != nil {
		return nil, nil, err
	}
	return pi, u, nil
}
