package testlong

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/solver"
)

// TestNoTestingShort: every test that skips its long cases asks Short, so
// that plain go test leaves them out and -tags long runs them; a test that
// asks testing.Short instead would run them in the README's test command.
func TestNoTestingShort(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root is not two levels up: %v", err)
	}
	self, err := filepath.Abs("testlong.go")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		if abs, err := filepath.Abs(path); err == nil && abs == self {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(b), "testing."+"Short()") {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("these files ask testing.Short where they should ask testlong.Short: %s", strings.Join(found, ", "))
	}
}

// TestClpMatchesTheBuild: Clp reports the tag that links Clp in, the one
// under which the solver registry holds "clp".
func TestClpMatchesTheBuild(t *testing.T) {
	if got, want := Clp(), slices.Contains(solver.Names(), "clp"); got != want {
		t.Fatalf("Clp() = %v, but the registry has clp: %v", got, want)
	}
}
