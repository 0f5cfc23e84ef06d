package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/problem"
)

// loadProblem reads the problem file at path, or standard input when path
// is "-" (YAML or JSON, told apart by the content).
func loadProblem(e *env, path string) (*problem.Problem, error) {
	return loadProblemLimit(e, path, problem.DefaultMaxBytes, 0)
}

// loadProblemLimit is loadProblem refusing more than limit bytes, from a
// file or from standard input alike, and dense matrices beyond mem bytes
// (0: the memory available; problem.LoadMemory).
func loadProblemLimit(e *env, path string, limit, mem int64) (*problem.Problem, error) {
	// Opening a FIFO and reading a terminal or a pipe block until a writer
	// comes: the load runs aside, and a signal stops the wait.
	p, err := interruptibly(e.context(), func() (*problem.Problem, error) { return loadBlocking(e, path, limit, mem) })
	return p, waitedFor(e.context(), path, err)
}

// waitedFor replaces the error of a read that a signal cut short by what
// the read was waiting for, which the stop message then names.
func waitedFor(ctx context.Context, path string, err error) error {
	if err == nil || ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		return err
	}
	if path == "-" {
		return errors.New("standard input was still being read")
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fmt.Errorf("%s was still being loaded", path)
	}
	return fmt.Errorf("%s was still being read (a FIFO or device with no writer?)", path)
}

func loadBlocking(e *env, path string, limit, mem int64) (*problem.Problem, error) {
	if path != "-" {
		p, err := problem.LoadMemory(path, limit, mem)
		if errors.Is(err, problem.ErrTooLarge) {
			return nil, fmt.Errorf("%w (--max-bytes)", err)
		}
		return p, err
	}
	data, err := io.ReadAll(io.LimitReader(e.stdin, limit+1))
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("standard input: %w: more than %d bytes (--max-bytes)", problem.ErrTooLarge, limit)
	}
	return problem.ParseSourceMemory(data, problem.Auto, "standard input", mem)
}

// stdinOnce refuses "-" (standard input) among several problem files more
// than once: standard input is read once.
func stdinOnce(paths []string) error {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	if n > 1 {
		return usagef("standard input (-) can be read once, given %d times", n)
	}
	return nil
}

// withPath prefixes the problem file's path to an error that names a field
// of it (a *mech.FieldError: field, row, column), so that the one line a
// user reads says which file is meant.
// An error that names its file already (the Require methods of a loaded
// problem) is returned as it is.
func withPath(path string, err error) error {
	var fe *mech.FieldError
	if path == "-" {
		path = "standard input"
	}
	if errors.As(err, &fe) && !strings.HasPrefix(err.Error(), path+": ") {
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}

// context returns the command's context (Background outside run).
func (e *env) context() context.Context {
	if e.ctx == nil {
		return context.Background()
	}
	return e.ctx
}

// interruptibly runs f, which may block in an open or a read, and returns
// ctx's error as soon as ctx is done; f then ends in the background (when
// its writer comes, or with the process) and its result is dropped.
func interruptibly[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned f never blocks
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// openInput opens the CSV input path (standard input for "-") as a reader
// whose reads stop when the command's context is done. close releases it.
func openInput(e *env, path string) (r io.Reader, close func(), err error) {
	if path == "-" {
		return &ctxReader{ctx: e.context(), r: e.stdin, path: path}, func() {}, nil
	}
	f, err := interruptibly(e.context(), func() (*os.File, error) { return os.Open(path) })
	if err != nil {
		return nil, nil, waitedFor(e.context(), path, err)
	}
	return &ctxReader{ctx: e.context(), r: f, path: path}, func() { f.Close() }, nil
}

// ctxReader is a reader whose Read returns ctx's error as soon as ctx is
// done, even while the read underneath waits for a writer. Each read runs
// aside into a buffer of its own; after ctx is done no read starts, so a
// read left waiting never writes where a later one reads.
type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	path string // named when a signal stops a read that waits
	buf  []byte
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, waitedFor(c.ctx, c.path, err)
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	n, err := interruptibly(c.ctx, func() (int, error) { return c.r.Read(buf) })
	copy(p, buf[:n])
	return n, waitedFor(c.ctx, c.path, err)
}
