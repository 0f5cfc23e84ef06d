package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mechFile writes a 7-input mechanism whose row i keeps i with probability
// 1/2 and draws another count otherwise.
func mechFile(t *testing.T) string {
	t.Helper()
	src := "prior: [\"1/7\",\"1/7\",\"1/7\",\"1/7\",\"1/7\",\"1/7\",\"1/7\"]\nmechanism:\n"
	for i := 0; i < 7; i++ {
		row := make([]string, 7)
		for j := range row {
			row[j] = "\"1/12\""
		}
		row[i] = "\"1/2\""
		src += "  - [" + strings.Join(row, ", ") + "]\n"
	}
	path := filepath.Join(t.TempDir(), "m.yaml")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
	return path
}

// TestSampleOutIsAllOrNothing streams the privatized CSV to --out, and a
// bad record leaves the previous file as it was and no temporary file.
func TestSampleOutIsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "private.csv")
	_, stderr, code := cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count", "--out", out)
	require.Equal(t, 0, code, stderr)
	in, err := os.ReadFile(td + "records.csv")
	require.NoError(t, err)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, strings.Count(string(in), "\n"), strings.Count(string(got), "\n"))
	stdoutRun, _, code := cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count")
	require.Equal(t, 0, code)
	assert.Equal(t, stdoutRun, string(got), "the same seed draws the same outputs on stdout and --out")

	bad := filepath.Join(dir, "bad.csv")
	long := strings.Repeat("9", 1<<20)
	require.NoError(t, os.WriteFile(bad, []byte("id,count\n1,3\n2,"+long+"\n"), 0o644))
	stdout, stderr, code := cli(t, "sample", mechFile(t), "--input", bad, "--column", "count", "--out", out)
	assert.Equal(t, exitError, code)
	assert.Empty(t, stdout)
	assert.Less(t, len(stderr), 300, "the megabyte-long value is not echoed")
	assert.Contains(t, stderr, "pmlopt sample: line 3: value \"999")
	assert.NotContains(t, stderr, "sample: sample:")
	again, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, got, again, "the previous file is kept")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2)

	// On stdout nothing is written either, and a CSV beyond --max-output
	// is refused with a pointer to --out.
	stdout, _, code = cli(t, "sample", mechFile(t), "--input", bad, "--column", "count")
	assert.Equal(t, exitError, code)
	assert.Empty(t, stdout)
	stdout, stderr, code = cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count", "--max-output", "20")
	assert.Equal(t, exitError, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "write it with --out FILE")
}

// TestSampleStdoutSpool spools the stdout output to a temporary file in
// $TMPDIR, which is gone after a success and after a failure; the JSON
// form holds the same records as the CSV.
func TestSampleStdoutSpool(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	csvOut, stderr, code := cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count")
	require.Equal(t, 0, code, stderr)
	jsonOut, stderr, code := cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count", "--json")
	require.Equal(t, 0, code, stderr)
	var recs []map[string]string
	require.NoError(t, json.Unmarshal([]byte(jsonOut), &recs))
	rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, len(rows)-1)
	for k, rec := range rows[1:] {
		for c, name := range rows[0] {
			assert.Equal(t, rec[c], recs[k][name], "record %d, column %s", k+1, name)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("id,count\n1,3\n2,x\n"), 0o644))
	stdout, _, code := cli(t, "sample", mechFile(t), "--input", bad, "--column", "count", "--json")
	assert.Equal(t, exitError, code)
	assert.Empty(t, stdout)
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "no spool file is left")

	_, stderr, code = cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count", "--max-output", "-1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--max-output -1 is negative")
}

// TestSampleHeaderBOM reads a CSV whose header starts with a UTF-8 byte
// order mark: the first column keeps its name.
func TestSampleHeaderBOM(t *testing.T) {
	in := filepath.Join(t.TempDir(), "bom.csv")
	require.NoError(t, os.WriteFile(in, []byte("\ufeffcount,id\n3,a\n"), 0o644))
	out, stderr, code := cli(t, "sample", mechFile(t), "--input", in, "--column", "count")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "count,id\n"), out)
}
