package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardFlag: a wrong --shard is a wrong command line, naming the flag.
func TestShardFlag(t *testing.T) {
	file := td + "counting-query.yaml"
	for _, bad := range []string{"0/3", "4/3", "x", "1/0", "1/", "2"} {
		out, stderr, code := cli(t, "curve", file, "--shard", bad, "--jsonl")
		require.Equal(t, exitUsage, code, bad)
		assert.Contains(t, stderr, "--shard", bad)
		assert.Empty(t, out, bad)
	}
	_, stderr, code := cli(t, "curve", file, "--shard", "1/2")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--jsonl")
	_, stderr, code = cli(t, "curve", file, "--shard", "1/2", "--jsonl", "--plot", filepath.Join(t.TempDir(), "c.svg"))
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--plot")
	_, stderr, code = cli(t, "curve", td+"expected-utility.yaml", "--objective", "expected-utility", "--shard", "1/2", "--jsonl")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--shard")
}

// TestShardRecords: a shard's lines are curve --jsonl's points with the
// keys merge checks; the fingerprint follows the numbers of the problem,
// not its name or budget.
func TestShardRecords(t *testing.T) {
	file := td + "counting-query.yaml"
	plain, _, code := cli(t, "curve", file, "--jsonl", "--quiet", "--workers", "1")
	require.Equal(t, 0, code)
	sharded, stderr, code := cli(t, "curve", file, "--jsonl", "--quiet", "--workers", "1", "--shard", "1/1")
	require.Equal(t, 0, code, stderr)
	pl, sl := strings.Split(strings.TrimSpace(plain), "\n"), strings.Split(strings.TrimSpace(sharded), "\n")
	require.Len(t, sl, len(pl))
	// The lines come in the order the thresholds settle.
	want := map[float64]map[string]any{}
	for _, l := range pl {
		var pt map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &pt))
		want[pt["h"].(float64)] = pt
	}
	fp := ""
	for k := range sl {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(sl[k]), &rec))
		if fp == "" {
			fp = rec["problem"].(string)
		}
		require.Regexp(t, "^sha256:[0-9a-f]{64}$", rec["problem"])
		assert.Equal(t, fp, rec["problem"])
		assert.Equal(t, "worst-case-order", rec["objective"])
		assert.Equal(t, 1e-9, rec["tol"])
		assert.Equal(t, "1/1", rec["shard"])
		assert.Equal(t, rec["h"], rec["index"])
		assert.NotEmpty(t, rec["solver"])
		for _, key := range []string{"problem", "objective", "solver", "tol", "shard", "index"} {
			delete(rec, key)
		}
		assert.Equal(t, want[rec["h"].(float64)], rec)
	}

	p := loadOK(t, file)
	q := *p
	q.Name, q.Privacy = "another name", nil
	assert.Equal(t, fp, problemFingerprint(&q))
	q.Prior = append(q.Prior[:0:0], q.Prior...)
	q.Prior[0] = math.Nextafter(q.Prior[0], 1)
	assert.NotEqual(t, fp, problemFingerprint(&q), "one ulp of the prior")
	q = *p
	q.Utility = append(q.Utility[:0:0], q.Utility...)
	q.Utility[0] = append([]float64{q.Utility[0][0] - 1}, q.Utility[0][1:]...)
	assert.NotEqual(t, fp, problemFingerprint(&q), "one entry of the utility")
}
