package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The robust study solves each task at the prior and over both sets, and a
// guarantee over a set never buys a better answer than at the prior.
func TestRobustStudy(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Out: dir, Log: io.Discard, Families: []string{"counting-uniform", "random"}, RobustSizes: []int{4}, Seed: 1}
	runs, err := robustStudy(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(robustTasks) * len(robustSets); len(runs) != want {
		t.Fatalf("%d runs, want %d", len(runs), want)
	}
	for _, r := range runs {
		if r.Err != "" {
			t.Fatalf("%s %s %s: %s", r.Family, r.Task, r.Set, r.Err)
		}
		if strings.HasPrefix(r.Task, "eu-") {
			if r.RobustValue > r.NominalValue+1e-9 {
				t.Fatalf("%s %s %s: robust utility %g above the nominal %g", r.Family, r.Task, r.Set, r.RobustValue, r.NominalValue)
			}
		}
		if r.RobustEps[0] > r.RobustEps[1]+1e-9 {
			t.Fatalf("%s %s %s: bracket [%g, %g]", r.Family, r.Task, r.Set, r.RobustEps[0], r.RobustEps[1])
		}
	}
	csv, err := os.ReadFile(filepath.Join(dir, "robust.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(csv), "\n"); lines != len(runs)+1 {
		t.Fatalf("robust.csv has %d lines, want %d", lines, len(runs)+1)
	}
	if _, err := os.Stat(filepath.Join(dir, "robust.md")); err != nil {
		t.Fatal(err)
	}
}
