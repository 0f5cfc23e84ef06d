package worstcase

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
	}{{"1/1", Shard{K: 1, N: 1}}, {"2/3", Shard{K: 2, N: 3}}, {" 3 / 3", Shard{K: 3, N: 3}}} {
		got, err := ParseShard(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got)
		assert.Equal(t, c.want.N == 1, got.All(), c.in)
	}
	for _, bad := range []string{"0/3", "4/3", "x", "1/0", "1/", "/3", "-1/3", "1/-3", "1.5/3", ""} {
		_, err := ParseShard(bad)
		assert.Error(t, err, bad)
	}
	in := familyInstance(t, "random", 4, 1)
	_, err := OrderCurve(context.Background(), in.Prior, in.Order(), Options{Shard: Shard{K: 4, N: 3}})
	assert.ErrorContains(t, err, "shard 4/3")
}

// TestShardsPartition: the shards of N cover every index of a curve exactly
// once, in both layouts, and Holds agrees with Indices.
func TestShardsPartition(t *testing.T) {
	for _, inter := range []bool{false, true} {
		for m := 0; m <= 13; m++ {
			for n := 1; n <= 7; n++ {
				seen := make([]int, m)
				for k := 1; k <= n; k++ {
					s := Shard{K: k, N: n, Interleaved: inter}
					idx := s.Indices(m)
					for j, i := range idx {
						require.True(t, i >= 0 && i < m)
						if j > 0 {
							require.Less(t, idx[j-1], i, "ascending")
						}
						seen[i]++
					}
					for i := range m {
						assert.Equal(t, seen[i] > 0 && containsInt(idx, i), s.Holds(i, m), "%v m=%d i=%d", s, m, i)
					}
					if inter {
						assert.Equal(t, (m-k+n)/n, len(idx))
					} else {
						assert.Equal(t, m*k/n-m*(k-1)/n, len(idx))
						if len(idx) > 0 {
							assert.Equal(t, len(idx)-1, idx[len(idx)-1]-idx[0], "a block is contiguous")
						}
					}
				}
				for i, c := range seen {
					assert.Equal(t, 1, c, "interleaved=%v m=%d N=%d index %d", inter, m, n, i)
				}
			}
		}
	}
}

func containsInt(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// TestShardedCurvesCoverTheCurve: the shards of an order curve and of a
// value curve together report every threshold once, each bracket certified
// (it overlaps the unsharded curve's, both being proven, and is at most
// Tol wide), with the same utility-safe ε; Settled sees exactly the
// shard's thresholds; and shard 1/1 is the unsharded curve itself.
func TestShardedCurvesCoverTheCurve(t *testing.T) {
	in := familyInstance(t, "random", 12, 3)
	ctx := context.Background()
	curves := map[string]func(Options) ([]Point, error){
		"order": func(o Options) ([]Point, error) { return OrderCurve(ctx, in.Prior, in.Order(), o) },
		"value": func(o Options) ([]Point, error) {
			o.Settled = nil
			// The value curve's thresholds one by one: shard 1/1 reports
			// steps, so the reference is what Settled saw.
			var all []Point
			o.Settled = func(p Point) { all = append(all, p) }
			_, err := ValueCurve(ctx, in.Prior, in.Utility, o)
			return byH(all), err
		},
	}
	for name, curve := range curves {
		whole, err := curve(Options{Workers: 1})
		require.NoError(t, err)
		m := len(whole)
		require.Greater(t, m, 5, name)
		for _, inter := range []bool{false, true} {
			for _, n := range []int{2, 3, 5} {
				got := make([]int, m)
				for k := 1; k <= n; k++ {
					sh := Shard{K: k, N: n, Interleaved: inter}
					var settled []Point
					var pts []Point
					if name == "order" {
						pts, err = OrderCurve(ctx, in.Prior, in.Order(), Options{Workers: 2, Shard: sh, Settled: func(p Point) { settled = append(settled, p) }})
					} else {
						pts, err = ValueCurve(ctx, in.Prior, in.Utility, Options{Workers: 2, Shard: sh, Settled: func(p Point) { settled = append(settled, p) }})
					}
					require.NoError(t, err)
					settled = byH(settled)
					require.Len(t, settled, len(sh.Indices(m)), "%s %v", name, sh)
					require.Len(t, pts, len(settled))
					for j, p := range settled {
						require.Equal(t, sh.Indices(m)[j]+1, p.H)
						require.Equal(t, p.H, pts[j].H)
						assert.Equal(t, p.OptimalEpsilon, pts[j].OptimalEpsilon)
						w := whole[p.H-1]
						require.Equal(t, w.H, p.H)
						got[p.H-1]++
						assert.Equal(t, w.Threshold, p.Threshold)
						assert.Equal(t, w.SafeEpsilon, p.SafeEpsilon)
						assert.LessOrEqual(t, p.OptimalEpsilon-p.OptimalEpsilonLower, DefaultTol)
						assert.LessOrEqual(t, p.OptimalEpsilonLower, w.OptimalEpsilon, "%s %v h=%d: the brackets are both proven", name, sh, p.H)
						assert.LessOrEqual(t, w.OptimalEpsilonLower, p.OptimalEpsilon, "%s %v h=%d", name, sh, p.H)
						require.NotNil(t, p.Mechanism)
						pat := in.Order().Pattern(p.H)
						if name == "value" {
							pat = in.Utility.Pattern(p.Threshold)
						}
						audit(t, in.Prior, pat, Result{OptimalEpsilonLower: p.OptimalEpsilonLower, OptimalEpsilon: p.OptimalEpsilon, Mechanism: p.Mechanism, Lower: p.Lower, Proof: p.Proof}, DefaultTol)
					}
				}
				for i, c := range got {
					assert.Equal(t, 1, c, "%s N=%d interleaved=%v: threshold %d", name, n, inter, i+1)
				}
			}
		}
		one, err := curve(Options{Workers: 1, Shard: Shard{K: 1, N: 1}})
		require.NoError(t, err)
		assert.Equal(t, whole, one, name)
	}
}

// byH sorts points by H (Settled reports them in the order they settle).
func byH(pts []Point) []Point {
	out := append([]Point(nil), pts...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].H < out[j-1].H; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
