package outfile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reopen undoes RemoveTemps for the tests that follow: a process calls it
// once, as it exits.
func reopen(t *testing.T) {
	t.Cleanup(func() {
		temps.Lock()
		temps.closed = false
		temps.Unlock()
	})
}

// CreateTemp makes a private file (mode 0600, whatever the umask) open for
// reading and writing, named by the pattern; RemoveTemp removes it.
func TestCreateTemp(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateTemp(dir, "spool-*.csv")
	require.NoError(t, err)
	name := filepath.Base(f.Name())
	assert.True(t, strings.HasPrefix(name, "spool-") && strings.HasSuffix(name, ".csv") && len(name) > len("spool-.csv"), name)
	fi, err := f.Stat()
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	_, err = f.WriteString("abc")
	require.NoError(t, err)
	_, err = f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	b, err := io.ReadAll(f)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(b))
	RemoveTemp(f)
	assert.Empty(t, entries(t, dir))

	t.Setenv("TMPDIR", dir)
	f, err = CreateTemp("", "x")
	require.NoError(t, err)
	assert.Equal(t, dir, filepath.Dir(f.Name()))
	assert.NotEqual(t, "x", filepath.Base(f.Name()))
	RemoveTemp(f)
	_, err = CreateTemp(dir, "a/*")
	assert.Error(t, err)
	assert.Empty(t, entries(t, dir))
}

// RemoveTemps, called while a Write is under way and a spool file is open,
// removes both temporary files, leaves the target as it was, and refuses
// new temporary files: the process is ending.
func TestRemoveTempsWhileWriting(t *testing.T) {
	reopen(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(path, []byte("previous"), 0o644))
	spool, err := CreateTemp(dir, "spool-*")
	require.NoError(t, err)
	defer spool.Close()
	err = Write(path, func(w io.Writer) error {
		require.Len(t, entries(t, dir), 3, "the target, the spool and Write's temporary file")
		RemoveTemps()
		assert.Equal(t, []string{"out.txt"}, entries(t, dir))
		_, err := io.WriteString(w, "new")
		return err
	})
	require.Error(t, err, "the temporary file is gone: nothing to rename")
	assert.NotContains(t, err.Error(), ".tmp")
	assert.Equal(t, []string{"out.txt"}, entries(t, dir))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "previous", string(b))

	_, err = CreateTemp(dir, "late-*")
	assert.ErrorIs(t, err, ErrEnding)
	err = Write(filepath.Join(dir, "late.txt"), writeString("x"))
	assert.ErrorIs(t, err, ErrEnding)
	assert.Equal(t, []string{"out.txt"}, entries(t, dir))
}

// waitFor polls cond; the deadline only ends a test that would otherwise
// hang, it measures nothing.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "condition never held")
	}
}

// A Write to a FIFO that nobody opens waits in open(2): Stalled names the
// path while it waits, and nothing once a reader came and the write is
// done. A watched writer blocked in Write is reported the same way.
func TestStalled(t *testing.T) {
	_, stalled := Stalled(0)
	require.False(t, stalled)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() { done <- Write(fifo, writeString("through the fifo")) }()
	waitFor(t, func() bool { what, ok := Stalled(0); return ok && what == fifo })
	assert.False(t, Idle(0))
	r, err := os.Open(fifo)
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	r.Close()
	require.NoError(t, <-done)
	assert.Equal(t, "through the fifo", string(b))
	_, stalled = Stalled(0)
	assert.False(t, stalled)
	assert.True(t, Idle(0))
	assert.False(t, Idle(time.Hour), "a write has just ended")

	release := make(chan struct{})
	w := Watch(blocking{release}, "standard output")
	go func() { w.Write([]byte("x")); close(done) }()
	waitFor(t, func() bool { what, ok := Stalled(0); return ok && what == "standard output" })
	_, stalled = Stalled(time.Hour)
	assert.False(t, stalled, "under way for less than an hour")
	close(release)
	<-done
	_, stalled = Stalled(0)
	assert.False(t, stalled)
	_, isReaderFrom := w.(io.ReaderFrom)
	assert.False(t, isReaderFrom, "every byte goes through Write")
}

type blocking struct{ release chan struct{} }

func (b blocking) Write(p []byte) (int, error) {
	<-b.release
	return len(p), nil
}
