package instance

import (
	"fmt"
	"math/rand/v2"

	"github.com/pmlopt/pmlopt/mech"
)

// GridClusters returns the prior of a w×h grid (cell k = (k mod w, k div w),
// as Grid) binned from points drawn from two Gaussian clusters
// (GridClusterCounts); the counts are smoothed by adding 0.5 to every
// cell (FromCounts), so every cell has mass. rng drives the points.
func GridClusters(rng *rand.Rand, w, h, points int) (mech.Prior, error) {
	counts, err := GridClusterCounts(rng, w, h, points)
	if err != nil {
		return nil, err
	}
	return FromCounts(counts, 0.5)
}

// GridClusterCounts returns the counts per cell of a w×h grid of points
// drawn from two Gaussian clusters, a city's check-ins around two
// centres: points points, a third of them around (w/4, h/3) with
// standard deviation w/8 and the rest around (2w/3, 2h/3) with standard
// deviation w/6, clipped to the grid. rng drives the points.
func GridClusterCounts(rng *rand.Rand, w, h, points int) ([]float64, error) {
	if w < 1 || h < 1 || points < 0 {
		return nil, fmt.Errorf("instance: clustered grid prior: %d×%d cells, %d points", w, h, points)
	}
	counts := make([]float64, w*h)
	for k := range points {
		cx, cy, sd := float64(w)/4, float64(h)/3, float64(w)/8
		if k%3 != 0 {
			cx, cy, sd = 2*float64(w)/3, 2*float64(h)/3, float64(w)/6
		}
		x := min(max(int(cx+sd*rng.NormFloat64()), 0), w-1)
		y := min(max(int(cy+sd*rng.NormFloat64()), 0), h-1)
		counts[y*w+x]++
	}
	return counts, nil
}
