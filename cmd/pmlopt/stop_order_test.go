package main

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signalAt is a command's context that counts the looks at its Err and is
// ended at the at-th, before that look reads it, as by a SIGINT.
type signalAt struct {
	context.Context
	cancel    context.CancelCauseFunc
	mu        sync.Mutex
	polls, at int
}

func (c *signalAt) Err() error {
	c.mu.Lock()
	c.polls++
	if c.polls == c.at {
		c.cancel(&stopped{sig: os.Interrupt})
	}
	c.mu.Unlock()
	return c.Context.Err()
}

// A SIGINT while solve builds a utility_rule's dense utility and order (a
// 12×12 grid: 144 rows ranked, a look at the context every few rows) ends
// the run there, with exit status 130 and the stop message naming the
// step, at the look that saw the stop: after it come only the three looks
// that report it (the step's, the command's, and context.Cause's, which may read
// Err).
func TestSolveStoppedInTheOrder(t *testing.T) {
	file := filepath.Join(t.TempDir(), "grid.yaml")
	require.NoError(t, os.WriteFile(file, []byte("prior: uniform\nutility_rule:\n  metric: euclidean\n"+
		"  grid: {width: 12, height: 12, cell: 1}\nprivacy: {measure: pml, epsilon: 1}\nobjective: worst-case-order\n"), 0o644))
	const at = 3
	c, code, stdout, stderr := runSignalledAt([]string{"solve", file}, at)
	assert.Equal(t, exitStopped, code, stderr)
	assert.Equal(t, "pmlopt solve: stopped by SIGINT: the utility_rule's dense utility and order were still being built\n", stderr)
	assert.Empty(t, stdout)
	assert.LessOrEqual(t, c.polls, at+3)
}
