// Package pollctx is a context for tests that counts the looks at its Err
// and ends at a chosen one, before that look reads it: a test shows with
// it that a loop watches its caller's context, how often, and that a stop
// at any look ends the call there.
package pollctx

import (
	"context"
	"sync"
)

// Context counts the calls of Err and is cancelled at the at-th.
type Context struct {
	context.Context
	cancel    context.CancelFunc
	mu        sync.Mutex
	polls, at int
}

// New returns a context that ends at the at-th look at its Err (never
// when at is 0).
func New(at int) *Context {
	ctx, cancel := context.WithCancel(context.Background())
	return &Context{Context: ctx, cancel: cancel, at: at}
}

// Err counts the look, ends the context when it is the chosen one, and
// reports the context's error.
func (c *Context) Err() error {
	c.mu.Lock()
	c.polls++
	if c.polls == c.at {
		c.cancel()
	}
	c.mu.Unlock()
	return c.Context.Err()
}

// Polls is the number of looks so far.
func (c *Context) Polls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.polls
}

// Cancel ends the context, releasing its resources.
func (c *Context) Cancel() { c.cancel() }
