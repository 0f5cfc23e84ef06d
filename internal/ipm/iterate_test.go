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
// as the lean runs are (a blow-up of 1e3, robustAcceptGap settled), a run
// never near-optimal whose measure blows up (the shape of the first lean
// run of fine at 64 letters under LIP over the box 0.8–1.25) ends five
// iterations after its measure passes a thousand times its least, and one
// whose measure rises less runs to maxIter; iterate runs both to maxIter.
// Past a near-optimal point both end after five unobserved iterations
// that grow, or five observed points that do not improve. A run whose
// best point is within robustAcceptGap and that then crawls back from a
// jump (the shape of counting-binomial's at 64 letters under LIP over the
// L1 ball) ends, watched, five iterations after that point, but not
// where the best point is further, and counts again from a point that
// improves on it; iterate runs it to maxIter, and so a run whose gap
// measure reaches 0.
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
	zero := slices.Clone(crawl)
	zero[3] = 0
	relapse := []float64{1, 1e-3, 1e-6, 1e-9, 2e-9, 2e-9, 2e-9, 9e-10, 2e-9, 2e-9, 2e-9, 2e-9, 2e-9, 2e-9, 2e-9}
	cases := []struct {
		name          string
		gaps          []float64
		watched, want int
	}{
		{"blow-up", blowUp, 13, 30}, // 14 is not above 1000×0.014; 7.3e4 to 6.3e50 are the five
		{"rise", rises, 30, 30},
		{"jump", jump, 10, 10},
		{"flat", flat, 9, 9},
		{"crawl", crawl, 8, 30},
		{"unsettled", unsettled, 30, 30},
		{"zero", zero, 8, 30},
		{"relapse", relapse, 12, 12},
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
				got, err = iterateWatched(context.Background(), x, 30, 1e-4, observe, newStallWatch(leanBlownUp, robustAcceptGap))
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
