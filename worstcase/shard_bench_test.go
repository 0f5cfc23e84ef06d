package worstcase

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/pmlopt/pmlopt/instance"
)

// BenchmarkShards compares the two layouts of Shard on the curves of a
// 64-letter random instance (instance family "random", seed 1): each of
// N shards runs alone with one worker, as on N machines, and the
// benchmark reports the slowest shard's time (the wall time of the
// sharded curve), the sum over the shards (the machine time) and the
// work (LPs and Go probes) summed over the shards. The unsharded curve
// (N = 1) is the reference.
func BenchmarkShards(b *testing.B) {
	f, err := instance.Lookup("random")
	if err != nil {
		b.Fatal(err)
	}
	in, err := f.New(64, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, obj := range []string{"order", "value"} {
		for _, n := range []int{1, 4} {
			for _, inter := range []bool{false, true} {
				if n == 1 && inter {
					continue
				}
				layout := "blocks"
				if inter {
					layout = "interleaved"
				}
				b.Run(fmt.Sprintf("%s/%s/N=%d", obj, layout, n), func(b *testing.B) {
					var slowest, sum time.Duration
					var lps, probes int
					for b.Loop() {
						slowest, sum, lps, probes = 0, 0, 0, 0
						for k := 1; k <= n; k++ {
							opt := Options{Workers: 1, Shard: Shard{K: k, N: n, Interleaved: inter}}
							opt.Settled = func(p Point) { lps += p.LPSolves; probes += p.GoProbes }
							start := time.Now()
							var err error
							if obj == "order" {
								_, err = OrderCurve(context.Background(), in.Prior, in.Order(), opt)
							} else {
								_, err = ValueCurve(context.Background(), in.Prior, in.Utility, opt)
							}
							if err != nil {
								b.Fatal(err)
							}
							d := time.Since(start)
							sum += d
							slowest = max(slowest, d)
						}
					}
					b.ReportMetric(slowest.Seconds(), "s-slowest-shard")
					b.ReportMetric(sum.Seconds(), "s-all-shards")
					b.ReportMetric(float64(lps), "LPs")
					b.ReportMetric(float64(probes), "Go-probes")
				})
			}
		}
	}
}
