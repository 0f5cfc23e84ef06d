package ipm

import (
	"context"
	"math"
	"slices"
	"testing"
)

// scripted is an iterand whose gap measures are given in advance.
type scripted struct {
	gaps []float64
	at   int
}

func (s *scripted) residuals() {}
func (s *scripted) gapMeasure() float64 {
	return s.gaps[min(s.at, len(s.gaps)-1)]
}
func (s *scripted) tiny() (near, stop bool) { return false, false }
func (s *scripted) step() error {
	s.at++
	return nil
}

// The stall rules on scripted runs, the iteration each ends at. Watched
// for a blow-up of 1e3 (the lean runs'), a run never near-optimal whose
// measure blows up ends five iterations past a thousand times its least
// (the first lean run over a box at 64 letters of fine went on so for 72
// iterations), one whose measure rises less runs to maxIter; iterate,
// without that watch, runs both to maxIter. Past a near-optimal point
// both end after five unobserved iterations that grow, or five observed
// points that do not improve.
func TestIterateStallRules(t *testing.T) {
	blowUp := []float64{55, 20, 3, 0.4, 0.05, 0.014, 0.036, 0.6, 14, 7.3e4, 1.9e11, 1.1e25, 2.6e37, 6.3e50, 6.3e49, 6.7e49}
	rises := []float64{55, 20, 3, 0.4, 0.05, 0.014, 0.036, 0.6, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13, 13}
	jump := []float64{1, 0.1, 1e-3, 1e-5, 2e-7, 2e-7, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3}
	flat := []float64{1, 0.1, 1e-3, 1e-5, 2e-7, 3e-7, 3e-7, 3e-7, 3e-7, 3e-7, 3e-7, 3e-7}
	crawl := []float64{1, 1e-3, 1e-6, 1.5e-10, 2e-7, 2e-7, 1.9e-3, 1.6e-3, 1.4e-3, 3.7e-4, 3.1e-2, 7.7e-2}
	for len(crawl) <= 30 {
		crawl = append(crawl, crawl[len(crawl)-1]*0.999)
	}
	unsettled := slices.Clone(crawl)
	unsettled[3] = 1.4e-8
	cases := []struct {
		name          string
		gaps          []float64
		watched, want int
	}{
		{"blow-up", blowUp, 13, 30}, // 14 is 1000×0.014 (not above); 7.3e4 … 6.3e50 the five
		{"rise", rises, 30, 30},
		{"jump", jump, 10, 10},
		{"flat", flat, 9, 9},
		{"crawl", crawl, 8, 30}, // counting-binomial at 64 letters, LIP over the L1 ball, went on to 72
		{"unsettled", unsettled, 30, 30},
	}
	for _, c := range cases {
		for _, watched := range []bool{true, false} {
			x := &scripted{gaps: c.gaps}
			best := math.Inf(1)
			observe := func(int) (bool, bool) {
				g := x.gapMeasure()
				if g < best {
					best = g
					return true, false
				}
				return false, false
			}
			var got int
			var err error
			want := c.want
			if watched {
				got, err = iterateWatched(context.Background(), x, 30, 1e-4, observe, newStallWatch(leanBlownUp, AcceptedGap))
				want = c.watched
			} else {
				got, err = iterate(context.Background(), x, 30, 1e-4, observe)
			}
			if err != nil || got != want {
				t.Errorf("%s (watched %v): ended at iteration %d (%v), want %d", c.name, watched, got, err, want)
			}
		}
	}
}
