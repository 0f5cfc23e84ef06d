package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzCommandLine runs arbitrary command lines: none may panic, and each
// must end with one of the documented exit statuses. Arguments are split
// on spaces; "@" followed by a testdata file name stands for a copy of
// that file.
// Each run works in a fresh directory and is stopped after a fraction of a
// second, so a fuzzed curve or solve can not run long or write into the
// repository.
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"solve @counting-query.yaml --json",
		"solve @expected-utility.yaml --measure ldp --epsilon 2",
		"curve @counting-query.yaml --objective worst-case-value --csv",
		"safe @counting-query.yaml --h 5 --out x.yaml",
		"audit @eye-colour.json --alpha 2 --beta 1",
		"convert --from pml --epsilon 0.1 --pmin 0.2",
		"export @example1.yaml --mps - --h 2",
		"new --letters 5 --utility abs --prior zipf:1.1 --epsilon 1",
		"sample @eye-colour.json --input @records.csv --column eye --seed 3",
		"compare @counting-query.yaml --optimum",
		"baseline @counting-query.yaml --mechanism randomized-response",
		"plot @counting-query.yaml --heatmap h.svg",
		"solve --tol NaN @example1.yaml",
		"help solve",
	} {
		f.Add(s)
	}
	// "@" names a copy of testdata: an argument such as "--out @x.svg"
	// then writes into the copy, never into the repository.
	td := copyTestdata(f)
	f.Fuzz(func(t *testing.T, line string) {
		t.Chdir(t.TempDir())
		var args []string
		for _, a := range strings.Fields(line) {
			if strings.HasPrefix(a, "@") {
				a = filepath.Join(td, filepath.Base(a[1:]))
			}
			args = append(args, a)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		var out, errb bytes.Buffer
		code := run(ctx, args, &env{stdout: &out, stderr: &errb, stdin: strings.NewReader("")})
		switch code {
		case exitOK, exitError, exitUsage, exitBudget:
		default:
			t.Fatalf("%q: exit status %d\n%s", line, code, errb.String())
		}
		if code != exitOK && code != exitBudget && errb.Len() == 0 {
			t.Fatalf("%q: exit status %d with nothing on stderr", line, code)
		}
	})
}

// new refuses sizes whose utility could not be written or loaded, before
// allocating it (--letters 100000 is a utility of 80 GB).
func TestNewRefusesHugeSizes(t *testing.T) {
	for _, args := range [][]string{
		{"new", "--letters", "100000", "--utility", "abs"},
		{"new", "--letters", "5", "--outputs", "99999999", "--utility", "abs"},
		{"new", "--grid", "1000x1000", "--utility", "euclid", "--dense"},
		{"new", "--grid", "4611686018427387904x4", "--utility", "euclid", "--dense"},
	} {
		out, stderr, code := cli(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(stderr, "4096") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
}

// copyTestdata copies the regular files of testdata into a temporary
// directory and returns it.
func copyTestdata(f *testing.F) string {
	dir := f.TempDir()
	entries, err := os.ReadDir(td)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(td, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	return dir
}
