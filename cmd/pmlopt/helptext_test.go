package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelpSaysWhichCommandsTakeJSON: the top-level help's sentence about
// --json names, after "Every command but", exactly the commands whose
// --help lists no --json flag.
func TestHelpSaysWhichCommandsTakeJSON(t *testing.T) {
	help, _, code := cli(t, "help")
	require.Equal(t, 0, code)
	flat := strings.Join(strings.Fields(help), " ")
	_, rest, ok := strings.Cut(flat, "Every command but ")
	require.True(t, ok, "the help says which commands take --json:\n%s", help)
	named, _, ok := strings.Cut(rest, " takes --json")
	require.True(t, ok, "the help says which commands take --json:\n%s", help)
	var without []string
	for _, c := range commands {
		if _, ok := helpFlags(t, c.name)["json"]; !ok {
			without = append(without, c.name)
		}
	}
	slices.Sort(without)
	assert.Equal(t, strings.Join(without, ", "), named)
}
