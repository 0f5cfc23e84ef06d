package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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
	_, stderr, code := cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count", "--out", out, "--seed", "5")
	require.Equal(t, 0, code, stderr)
	in, err := os.ReadFile(td + "records.csv")
	require.NoError(t, err)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, strings.Count(string(in), "\n"), strings.Count(string(got), "\n"))
	stdoutRun, _, code := cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count", "--seed", "5")
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
	csvOut, stderr, code := cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count", "--seed", "2")
	require.Equal(t, 0, code, stderr)
	jsonOut, stderr, code := cli(t, "sample", mechFile(t), "--input", td+"records.csv", "--column", "count", "--json", "--seed", "2")
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

// answers writes a 1 000-record CSV whose answer column holds the given
// value, or a fixed pattern of yes and no when value is "".
func answers(t *testing.T, value string) (path string, secrets []string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,answer\n")
	for k := range 1000 {
		v := value
		if v == "" {
			v = []string{"no", "yes"}[(k*k+k/7)%3%2]
		}
		secrets = append(secrets, v)
		b.WriteString(strconv.Itoa(k) + "," + v + "\n")
	}
	path = filepath.Join(t.TempDir(), "answers.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path, secrets
}

// answerColumn returns the answer column of a sample's CSV output.
func answerColumn(t *testing.T, out string) []string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	col := make([]string, 0, len(recs)-1)
	for _, r := range recs[1:] {
		col = append(col, r[1])
	}
	return col
}

// TestSampleIsNotReplayable runs the attack on a replayable sampler: the
// attacker reruns the command on all-"yes" and all-"no" copies of the
// column and, where the two copies' releases differ, reads the secret off
// the release. With --seed the draws replay (and stderr warns); without
// it they are the system's: a rerun of the same command gives other
// releases (the same 1 000 would have probability below 0.63^1000),
// nothing is printed on stderr, and the attack does no better than the
// release alone: its guesses are right 70 % of the time
// (0.7 = (9/16·3/4 + 1/16·1/4)/(10/16)), about 8σ below 0.85 for the ~625
// records it guesses.
func TestSampleIsNotReplayable(t *testing.T) {
	coin := coinFile(t, "1") // log 1.5 ≤ 1: within budget
	real, secrets := answers(t, "")
	allYes, _ := answers(t, "yes")
	allNo, _ := answers(t, "no")
	run := func(in string, seed ...string) []string {
		args := append([]string{"sample", coin, "--input", in, "--column", "answer"}, seed...)
		out, stderr, code := cli(t, args...)
		require.Equal(t, 0, code, stderr)
		if len(seed) > 0 {
			assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
			assert.Contains(t, stderr, "pmlopt sample: warning: with --seed "+seed[1]+" the release is reproducible by anyone who knows the seed")
		} else {
			assert.Empty(t, stderr)
		}
		return answerColumn(t, out)
	}
	attack := func(release, yes, no []string) (guessed, right int) {
		for k := range release {
			if yes[k] == no[k] {
				continue
			}
			guessed++
			guess := "no"
			if release[k] == yes[k] {
				guess = "yes"
			}
			if guess == secrets[k] {
				right++
			}
		}
		return guessed, right
	}

	seed := []string{"--seed", "12"}
	release := run(real, seed...)
	assert.Equal(t, release, run(real, seed...), "a seed replays the draws")

	release = run(real)
	assert.NotEqual(t, release, run(real))
	guessed, right := attack(release, run(allYes), run(allNo))
	require.Greater(t, guessed, 400)
	assert.Less(t, float64(right)/float64(guessed), 0.85, "%d of %d", right, guessed)
}

// TestSampleDrop leaves out the columns --drop names, and refuses the
// privatized column, an empty name and a name the header lacks (exit
// status 2, naming --drop, nothing written).
func TestSampleDrop(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	require.NoError(t, os.WriteFile(in, []byte("id,raw,count,note\r\n1,3,3,\"a, b\"\r\n2,5,5,\xff\r\n"), 0o644))
	out, stderr, code := cli(t, "sample", mechFile(t), "--input", in, "--column", "count", "--drop", "raw", "--seed", "1")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(out, "\r\n")
	require.Len(t, lines, 4, "%q", out)
	assert.Equal(t, "id,count,note", lines[0])
	matchTemplate(t, `1,?,"a, b"`, lines[1])
	matchTemplate(t, "2,?,\xff", lines[2])
	out, stderr, code = cli(t, "sample", mechFile(t), "--input", in, "--column", "count", "--drop", "raw", "--drop", "id,note")
	require.Equal(t, 0, code, stderr)
	matchTemplate(t, "count\r\n?\r\n?\r\n", out)

	for _, c := range []struct {
		drop, want string
	}{
		{"count", "pmlopt sample: --drop count: that is the --column to privatize"},
		{"raw,count", "pmlopt sample: --drop count: that is the --column to privatize"},
		{"raw,,id", `pmlopt sample: invalid value "raw,,id" for flag -drop: "raw,,id" names an empty column`},
		{"Raw", `pmlopt sample: --drop: no column "Raw" in the header id,raw,count,note`},
	} {
		target := filepath.Join(dir, "out.csv")
		stdout, stderr, code := cli(t, "sample", mechFile(t), "--input", in, "--column", "count", "--drop", c.drop, "--out", target)
		assert.Equal(t, exitUsage, code, "%s: %s", c.drop, stderr)
		assert.Empty(t, stdout)
		assert.Equal(t, c.want, strings.SplitN(stderr, "\n", 2)[0], c.drop)
		assert.NoFileExists(t, target)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, entries, 1, "no temporary file is left")
	}
}

// TestSampleCopiesOtherColumns gives sample a CSV with bytes that are not
// UTF-8, quoted fields, CRLF line ends, a quoted line break and no final
// line break: only the privatized column changes. --json refuses bytes
// that are not UTF-8 rather than replace them by U+FFFD.
func TestSampleCopiesOtherColumns(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	src := "id,name,count,note\r\n" +
		"\"1\",caf\xe9,\"3\",\"x, \"\"y\"\"\"\r\n" +
		"2,\xff\xfe\xfd,5,\"two\r\nlines\"\r\n" +
		"3,\"\xc3\",0, lead"
	require.NoError(t, os.WriteFile(in, []byte(src), 0o644))
	out, stderr, code := cli(t, "sample", mechFile(t), "--input", in, "--column", "count")
	require.Equal(t, 0, code, stderr)
	matchTemplate(t, "id,name,count,note\r\n"+
		"\"1\",caf\xe9,?,\"x, \"\"y\"\"\"\r\n"+
		"2,\xff\xfe\xfd,?,\"two\r\nlines\"\r\n"+
		"3,\"\xc3\",?, lead", out)

	stdout, stderr, code := cli(t, "sample", mechFile(t), "--input", in, "--column", "count", "--json")
	assert.Equal(t, exitError, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "pmlopt sample: line 2 of the CSV holds bytes that are not UTF-8, which JSON can not carry; leave out --json to write them as they are\n", stderr)

	// Through a symbolic link, --out is still the input.
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink("in.csv", link))
	_, stderr, code = cli(t, "sample", mechFile(t), "--input", in, "--column", "count", "--out", link)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--out "+link+": is an input of this command")
	got, err := os.ReadFile(in)
	require.NoError(t, err)
	assert.Equal(t, src, string(got))
}

// checkUTF8 names the line of the first bad byte, also when a rune is cut
// between two reads of its buffer.
func TestCheckUTF8(t *testing.T) {
	good := strings.Repeat("é", 1<<16/2-1) + "x" + strings.Repeat("€\n", 40000)
	assert.NoError(t, checkUTF8(strings.NewReader(good)))
	assert.NoError(t, checkUTF8(strings.NewReader("")))
	for _, c := range []struct {
		in   string
		line int
	}{
		{"\xff", 1},
		{"a\nb\n\xc3", 3},
		{good + "\xe2\x82", 40001},
		{good[:1<<16-1] + "\x80" + good[1<<16-1:], 1},
	} {
		err := checkUTF8(strings.NewReader(c.in))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "line "+strconv.Itoa(c.line)+" of the CSV")
	}
}

// matchTemplate asserts that got is template byte for byte, with a count
// 0..6 in place of each '?'.
func matchTemplate(t *testing.T, template, got string) {
	t.Helper()
	if !assert.Equal(t, len(template), len(got), "%q", got) {
		return
	}
	for k := range template {
		if template[k] == '?' {
			assert.True(t, got[k] >= '0' && got[k] <= '6', "%q at %d", got, k)
		} else if template[k] != got[k] {
			assert.Failf(t, "bytes differ", "%q differs from %q at %d", got, template, k)
			return
		}
	}
}
