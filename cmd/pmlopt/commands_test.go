package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommandList: every command of the list has its usage line, short and
// long help with an example, and a flags function; "pmlopt help" lists
// them in the list's order, and each one's --help is its usage line, its
// long help and its flags.
func TestCommandList(t *testing.T) {
	require.NotEmpty(t, commands)
	help, _, code := cli(t, "help")
	require.Equal(t, 0, code)
	var names []string
	at := 0
	for _, c := range commands {
		names = append(names, c.name)
		assert.NotEmpty(t, c.name)
		assert.NotContains(t, c.name, " ", c.name)
		assert.NotEmpty(t, c.usage, c.name)
		assert.NotEmpty(t, c.short, c.name)
		assert.NotContains(t, c.short, "\n", c.name)
		assert.Contains(t, c.long, "Example", c.name)
		assert.GreaterOrEqual(t, c.nargs, -1, c.name)
		require.NotNil(t, c.flags, c.name)

		line := "\t" + c.name + strings.Repeat(" ", max(1, 9-len(c.name))) + c.short + "\n"
		k := strings.Index(help[at:], line)
		if assert.GreaterOrEqual(t, k, 0, "pmlopt help lists %s after the commands before it", c.name) {
			at += k + len(line)
		}

		out, stderr, code := cli(t, c.name, "--help")
		require.Equal(t, 0, code, "%s --help: %s", c.name, stderr)
		want := "Usage: pmlopt " + c.name + " " + c.usage + "\n\n" + strings.TrimSpace(c.long) + "\n\nFlags:\n"
		assert.True(t, strings.HasPrefix(out, want), "%s --help starts with its usage and long help:\n%s", c.name, out)
	}
	assert.True(t, slices.IsSorted(names), "commands in alphabetical order: %v", names)
	assert.Len(t, slices.Compact(slices.Clone(names)), len(names), "a name once: %v", names)
}

// helpFlags returns the flags a command's --help lists, each with the
// text flag.PrintDefaults gives it (its line and its help).
func helpFlags(t *testing.T, name string) map[string]string {
	t.Helper()
	out, stderr, code := cli(t, name, "--help")
	require.Equal(t, 0, code, "%s --help: %s", name, stderr)
	_, list, ok := strings.Cut(out, "\nFlags:\n")
	require.True(t, ok, "%s --help lists its flags", name)
	flags := map[string]string{}
	cur := ""
	for _, line := range strings.Split(list, "\n") {
		if strings.HasPrefix(line, "  -") {
			cur = strings.Fields(line)[0][1:]
		}
		if cur != "" && line != "" {
			flags[cur] += line + "\n"
		}
	}
	return flags
}

// sharedFlags are the flags that several commands take with one meaning,
// and the commands that take them.
var sharedFlags = map[string][]string{
	"json":          {"audit", "baseline", "compare", "convert", "curve", "export", "merge", "new", "plot", "safe", "sample", "solve"},
	"csv":           {"curve", "merge"},
	"plot":          {"compare", "curve", "merge"},
	"full":          {"safe", "solve"},
	"mechanisms":    {"curve", "merge"},
	"tol":           {"curve", "solve"},
	"solver":        {"curve", "solve"},
	"workers":       {"compare", "curve", "plot", "solve"},
	"max-bytes":     {"audit", "baseline", "compare", "curve", "export", "merge", "plot", "safe", "sample", "solve", "verify"},
	"max-memory":    {"audit", "baseline", "compare", "curve", "export", "merge", "plot", "safe", "sample", "solve", "verify"},
	"mechanism-out": {"solve"},
	"epsilon-lower": {"convert", "new"},
	// budgetFlags and solvedOutFlag: the flags of this name in the other
	// commands mean something else.
	"measure": {"baseline", "compare", "solve"},
	"epsilon": {"baseline", "compare", "solve"},
	"out":     {"safe", "solve"},
}

// TestSharedFlagsDeclaredOnce: a flag several commands take is declared
// in one place: its --help text is the same in every command that takes
// it (compare's --json and solve's --json say the same), and the sources
// of the command declare it once.
func TestSharedFlagsDeclaredOnce(t *testing.T) {
	helps := map[string]map[string]string{}
	for _, c := range commands {
		helps[c.name] = helpFlags(t, c.name)
	}
	for flag, names := range sharedFlags {
		want := ""
		for _, name := range names {
			got, ok := helps[name][flag]
			if !assert.True(t, ok, "%s takes --%s", name, flag) {
				continue
			}
			if want == "" {
				want = got
			}
			assert.Equal(t, want, got, "--%s in %s and %s", flag, names[0], name)
		}
	}
	// The flags of the shared names' declaration functions take every
	// command that has them, except those whose flag of that name means
	// something else.
	for name, flags := range helps {
		for _, flag := range []string{"json", "csv", "plot", "tol", "solver", "workers", "max-bytes", "max-memory", "mechanisms"} {
			if _, ok := flags[flag]; ok {
				assert.Contains(t, sharedFlags[flag], name, "%s takes --%s, from its one declaration", name, flag)
			}
		}
	}
	assert.Equal(t, helps["solve"]["json"], "  -json\n    \twrite JSON (keys as in docs/cli.md)\n")

	decl := flagDeclarations(t)
	for flag := range sharedFlags {
		switch flag {
		case "measure", "epsilon", "out":
			// Other commands declare a flag of the same name that means
			// something else (new's --measure and --out, sample's --out,
			// convert's --epsilon, ...): one declaration of the shared one.
			assert.Contains(t, decl[flag], "flags_shared.go", "--%s", flag)
			assert.Equal(t, 1, countIn(decl[flag], "flags_shared.go"), "--%s", flag)
		default:
			assert.Equal(t, []string{"flags_shared.go"}, decl[flag], "--%s declared once", flag)
		}
	}
}

func countIn(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// flagDeclarations returns, for each flag name, the files of this package
// (tests aside) where a flag of that name is declared: a call of a flag
// set's Bool, String, Int, Int64, Uint64, Float64, budgetFloat64 or
// infiniteFloat64 with the name first, or of StringVar or Var with the name
// second, once per declaration.
func flagDeclarations(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err, f)
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			arg := -1
			switch sel.Sel.Name {
			case "Bool", "String", "Int", "Int64", "Uint64", "Float64", "Duration", "budgetFloat64", "infiniteFloat64":
				arg = 0
			case "StringVar", "BoolVar", "IntVar", "Float64Var", "Var", "Func":
				arg = 1
			}
			if arg < 0 || len(call.Args) <= arg {
				return true
			}
			lit, ok := call.Args[arg].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			name, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			out[name] = append(out[name], f)
			return true
		})
	}
	// The scan sees the declarations: audit's --alpha, solve's --exact.
	require.Equal(t, []string{"audit.go"}, out["alpha"])
	require.Equal(t, []string{"solve.go"}, out["exact"])
	return out
}
