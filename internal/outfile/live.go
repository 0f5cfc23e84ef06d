package outfile

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A process stopped by a signal may be blocked in a system call that no
// context reaches: the open(2) of a FIFO waits for a reader, a write(2) to
// a full pipe for the reader to drain it. Such a process can only end by
// exiting from another goroutine, and then no deferred removal runs. So
// every temporary file is registered here, and RemoveTemps removes them all
// from wherever the exit is decided; and every output call that can wait
// without end is watched, so that Stalled tells whether the process is
// waiting for its reader rather than working.

// temps is the registry of the temporary files the process holds.
var temps struct {
	sync.Mutex
	names  map[string]bool
	closed bool // RemoveTemps ran: the process is ending
}

// ErrEnding is the failure to create a temporary file once RemoveTemps
// has run.
var ErrEnding = errors.New("the process is ending")

// createTemp creates a new file in dir named prefix, a random string and
// suffix, with flag (os.O_CREATE|os.O_EXCL added) and perm, and registers
// it. The lock is held across the creation, so that RemoveTemps sees every
// file created before it and no file is created after it.
func createTemp(dir, prefix, suffix string, flag int, perm os.FileMode) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.closed {
		return nil, ErrEnding
	}
	var f *os.File
	var err error
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36)+suffix)
		f, err = os.OpenFile(name, flag|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if temps.names == nil {
		temps.names = make(map[string]bool)
	}
	temps.names[f.Name()] = true
	return f, nil
}

// forget removes name from the registry, once it is renamed into place or
// removed.
func forget(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

// CreateTemp is os.CreateTemp (dir "" is os.TempDir(); the last "*" of
// pattern is replaced by a random string, or one is appended; the file is
// open for reading and writing, mode 0600) with the file registered for
// RemoveTemps. Release it with RemoveTemp.
func CreateTemp(dir, pattern string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if strings.ContainsRune(pattern, os.PathSeparator) {
		return nil, &fs.PathError{Op: "createtemp", Path: pattern, Err: errors.New("pattern contains path separator")}
	}
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	return createTemp(dir, prefix, suffix, os.O_RDWR, 0o600)
}

// RemoveTemp closes and removes a file of CreateTemp.
func RemoveTemp(f *os.File) {
	f.Close()
	os.Remove(f.Name())
	forget(f.Name())
}

// RemoveTemps removes every temporary file the process holds (those of
// CreateTemp and Write's), and makes later creations fail with ErrEnding.
// A process calls it before it exits, in particular when it exits from a
// signal handler while its main flow is blocked.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.closed = true
	for name := range temps.names {
		os.Remove(name)
	}
	clear(temps.names)
}

// pending is the set of output calls under way that can wait without end,
// each with what it writes and when it began, and when the last one ended.
var pending struct {
	sync.Mutex
	next  uint64
	calls map[uint64]call
	ended time.Time
}

type call struct {
	what  string
	since time.Time
}

// begin records an output call on what; the function it returns records
// its end.
func begin(what string) func() {
	pending.Lock()
	defer pending.Unlock()
	if pending.calls == nil {
		pending.calls = make(map[uint64]call)
	}
	id := pending.next
	pending.next++
	pending.calls[id] = call{what: what, since: time.Now()}
	return func() {
		pending.Lock()
		defer pending.Unlock()
		delete(pending.calls, id)
		pending.ended = time.Now()
	}
}

// Stalled reports whether an output call (a write through a Watch writer,
// the open of or a write to a device or FIFO by Write) has been under way
// for at least d, and what it writes: its reader is not reading.
func Stalled(d time.Duration) (what string, stalled bool) {
	pending.Lock()
	defer pending.Unlock()
	var oldest time.Time
	for _, c := range pending.calls {
		if time.Since(c.since) >= d && (oldest.IsZero() || c.since.Before(oldest)) {
			oldest, what = c.since, c.what
		}
	}
	return what, !oldest.IsZero()
}

// Idle reports whether no output call is under way and none has ended in
// the last d: the process is not writing.
func Idle(d time.Duration) bool {
	pending.Lock()
	defer pending.Unlock()
	return len(pending.calls) == 0 && time.Since(pending.ended) >= d
}

// Watch returns a writer that writes to w and records each write as an
// output call on what (for Stalled), such as "standard output" for a
// process's stdout, which may be a pipe that nobody reads.
func Watch(w io.Writer, what string) io.Writer { return &watched{w: w, what: what} }

// watched is deliberately not an io.ReaderFrom: every byte goes through
// Write, and so through begin.
type watched struct {
	w    io.Writer
	what string
}

func (w *watched) Write(b []byte) (int, error) {
	defer begin(w.what)()
	return w.w.Write(b)
}
