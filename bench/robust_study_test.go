package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pmlopt/pmlopt/mech"
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
	md, err := os.ReadFile(filepath.Join(dir, "robust.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Each family's summary counts its tasks over both sets, and the size's
	// all of the runs.
	per := len(robustTasks) * len(robustSets)
	for _, f := range cfg.Families {
		found := false
		for _, line := range strings.Split(string(md), "\n") {
			found = found || strings.HasPrefix(line, "| 4 | "+f+" | ") && strings.HasSuffix(line, fmt.Sprintf(" of %d |", per))
		}
		if !found {
			t.Errorf("robust.md: no summary of %s at N = 4 counting %d runs", f, per)
		}
	}
	if want := fmt.Sprintf("of %d |", len(runs)); !strings.Contains(string(md), want) {
		t.Errorf("robust.md: no summary counting %d runs", len(runs))
	}
}

// -robust-tasks picks the tasks and refuses an unknown one; -robust-repeat
// must be at least 1 and -robust-min-time at least 0; each solve is timed
// over -robust-repeat rounds of at least one solve each. A study of the worst-case tasks alone solves them at
// the prior and over both sets, each robust bracket ordered and its
// mechanism within the budget over the set.
func TestRobustStudyTasksAndRepeat(t *testing.T) {
	for _, bad := range [][]string{{"-robust-tasks", "order,worst"}, {"-robust-sets", "box,ball"}, {"-robust-repeat", "0"}, {"-robust-min-time", "-1ms"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: error %v, want one naming %s", bad, err, bad[0])
		}
	}
	cfg, err := parseFlags([]string{"-robust-tasks", "order,value", "-robust-repeat", "2"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.RobustTasks) != 2 || cfg.RobustRepeat != 2 || cfg.RobustMinTime != 50*time.Millisecond || !slices.Equal(cfg.RobustSets, robustSets) {
		t.Fatalf("tasks %v, sets %v, repeat %d, min time %v", cfg.RobustTasks, cfg.RobustSets, cfg.RobustRepeat, cfg.RobustMinTime)
	}
	cfg.Out, cfg.Log, cfg.Families, cfg.RobustSizes, cfg.Seed = t.TempDir(), io.Discard, []string{"random"}, []int{6}, 1
	runs, err := robustStudy(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(robustSets); len(runs) != want {
		t.Fatalf("%d runs, want %d", len(runs), want)
	}
	for _, r := range runs {
		if r.Task != "order" && r.Task != "value" || r.Err != "" {
			t.Fatalf("run %s %s: %s", r.Task, r.Set, r.Err)
		}
		if r.NominalSolves < 2 || r.RobustSolves < 2 || r.NominalSolves%2 != 0 || r.RobustSolves%2 != 0 {
			t.Fatalf("%s %s: %d and %d solves timed, want two rounds of equally many", r.Task, r.Set, r.NominalSolves, r.RobustSolves)
		}
		if r.RobustEps[0] > r.RobustEps[1]+1e-9 || r.RobustEps[1] > famEpsilon+1e-9 {
			t.Fatalf("%s %s: bracket [%g, %g], budget %g", r.Task, r.Set, r.RobustEps[0], r.RobustEps[1], famEpsilon)
		}
	}
}

// The median of an odd count is its middle value, of an even count the mean
// of the middle two, whatever the order.
func TestRobustMedian(t *testing.T) {
	if m := median([]float64{5, 1, 3}); m != 3 {
		t.Errorf("median of 5, 1, 3: %g", m)
	}
	if m := median([]float64{4, 1, 3, 10}); m != 3.5 {
		t.Errorf("median of 4, 1, 3, 10: %g", m)
	}
}

// -robust-sets wide solves over the box of masses between 0.5 and 2 times
// the prior's alone: each robust bracket ordered, the robust optimum no
// better than the nominal one, and the set the one the flag names (its
// lower ends half the prior's masses).
func TestRobustStudyWideSet(t *testing.T) {
	cfg, err := parseFlags([]string{"-robust-tasks", "value,eu-pml", "-robust-sets", "wide", "-robust-repeat", "1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Out, cfg.Log, cfg.Families, cfg.RobustSizes, cfg.Seed = t.TempDir(), io.Discard, []string{"random"}, []int{6}, 1
	runs, err := robustStudy(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	for _, r := range runs {
		if r.Set != "wide" || r.Err != "" {
			t.Fatalf("run %s %s: %s", r.Task, r.Set, r.Err)
		}
		if r.RobustEps[0] > r.RobustEps[1]+1e-9 {
			t.Errorf("%s: robust bracket %v", r.Task, r.RobustEps)
		}
		if r.Task == "eu-pml" && r.RobustValue > r.NominalValue+1e-9 {
			t.Errorf("expected utility %g over the set above %g at the prior", r.RobustValue, r.NominalValue)
		}
	}
	all, err := parseFlags([]string{"-robust-sets", "all"}, io.Discard)
	if err != nil || !slices.Equal(all.RobustSets, allRobustSets) {
		t.Errorf("-robust-sets all: %v (%v), want %v", all.RobustSets, err, allRobustSets)
	}
	set, err := robustSet("wide", mech.Prior{0.25, 0.75})
	if err != nil || !slices.Equal(set.Lower, []float64{0.125, 0.375}) || !slices.Equal(set.Upper, []float64{0.5, 1}) {
		t.Errorf("wide set %+v (%v)", set, err)
	}
}
