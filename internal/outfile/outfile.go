// Package outfile writes a command's output files so that a failure never
// leaves a half-written file nor destroys the file it was to replace.
//
// A regular file (or a path that does not exist yet) is written to a
// temporary file in the same directory, which is renamed over the target
// only once it is complete. A target that is not a regular file (a device
// such as /dev/null or /dev/full, a FIFO, a socket) can not be replaced
// that way and is written directly. A symbolic link is written through:
// the file it names is replaced, the link is kept. Errors name the path
// the caller gave, never the temporary file.
//
// Every temporary file is registered, so that a process ending from a
// signal handler, while its main flow is blocked, removes them all
// (RemoveTemps); output calls that can wait without end for a reader are
// watched (Watch, Stalled), so that the handler can tell a blocked run from
// a working one. NotInput refuses an output path that is also an input.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// Error is a failure to write an output file; Path is the path the caller
// gave.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// fail wraps err for the caller's path, dropping the name of the file
// the system call was about (a temporary or a resolved one).
func fail(path string, err error) error {
	var oe *Error
	if errors.As(err, &oe) {
		return oe
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = fmt.Errorf("%s: %w", le.Op, le.Err)
	}
	return &Error{Path: path, Err: err}
}

// target is where a write to path lands.
type target struct {
	path    string      // path with its symbolic links resolved
	info    os.FileInfo // of path, nil when it does not exist
	replace bool        // a regular file or a new one: write a temporary and rename
}

// resolve follows the symbolic links of path's last element. A link to a
// file that does not exist yet resolves to that file, as os.Create would
// create it.
func resolve(path string) (target, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target{path: p, replace: true}, nil
		case err != nil:
			return target{}, err
		case fi.Mode()&fs.ModeSymlink != 0:
			dest, err := os.Readlink(p)
			if err != nil {
				return target{}, err
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(p), dest)
			}
			p = dest
			continue
		case fi.IsDir():
			return target{}, errors.New("is a directory")
		}
		return target{path: p, info: fi, replace: fi.Mode().IsRegular()}, nil
	}
	return target{}, errors.New("too many levels of symbolic links")
}

// Check reports whether path can be written, without writing it: a
// command calls it before the work whose result goes to path, so that a
// typing error does not cost the work. A regular target needs a writable
// directory (the temporary file is created there) and, when it exists, to
// be writable itself, as os.Create would need.
func Check(path string) error {
	if path == "" {
		return &Error{Path: path, Err: errors.New("empty file name")}
	}
	t, err := resolve(path)
	if err != nil {
		return fail(path, err)
	}
	if t.info != nil {
		if err := access(t.path, unix.W_OK); err != nil {
			return fail(path, fmt.Errorf("not writable: %w", err))
		}
	}
	if !t.replace {
		return nil
	}
	dir := filepath.Dir(t.path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(path, fmt.Errorf("directory %s does not exist", dir))
	case err != nil:
		return fail(path, err)
	case !fi.IsDir():
		return fail(path, fmt.Errorf("%s is not a directory", dir))
	}
	if err := access(dir, unix.W_OK|unix.X_OK); err != nil {
		return fail(path, fmt.Errorf("directory %s is not writable: %w", dir, err))
	}
	return nil
}

// Write calls write with a writer whose bytes end up in path, and puts
// them there only if write and every system call succeed. The writer's
// errors name path; write's error is returned as it is. On failure the
// previous content of a regular path is untouched and no temporary file
// is left; a device or FIFO has received what was written before the
// failure. A new file gets mode 0666 less the umask, as os.Create gives;
// a replaced file keeps its permission bits.
func Write(path string, write func(io.Writer) error) error {
	t, err := resolve(path)
	if err != nil {
		return fail(path, err)
	}
	if !t.replace {
		return direct(path, t.path, write)
	}
	// 1. Create the temporary file next to the target so that the rename
	// stays within one file system. Mode 0666 lets the umask decide, as
	// it would for os.Create.
	// It is registered (live.go), so that a process ended by a signal
	// removes it wherever the main flow is.
	dir, base := filepath.Dir(t.path), filepath.Base(t.path)
	f, err := createTemp(dir, "."+base+".tmp", "", os.O_WRONLY, 0o666)
	if err != nil {
		return fail(path, err)
	}
	tmp := f.Name()
	defer forget(tmp)
	abandon := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fail(path, err)
	}
	// 2. Write and flush it to the disk, so that the rename never installs
	// a file whose data is still only in the page cache. An error of write
	// itself (bad input, say) is passed on as it is: it is not about path.
	if err := write(named{f, path}); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if t.info != nil {
		if err := f.Chmod(t.info.Mode().Perm()); err != nil {
			return abandon(err)
		}
	}
	if err := f.Sync(); err != nil {
		return abandon(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fail(path, err)
	}
	// 3. Put it in place.
	if err := os.Rename(tmp, t.path); err != nil {
		os.Remove(tmp)
		return fail(path, err)
	}
	return nil
}

// named is a file whose write errors name the caller's path, so that a
// writer that wraps them does not show the temporary file's name.
type named struct {
	f    *os.File
	path string
}

func (w named) Write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	if err != nil {
		err = fail(w.path, err)
	}
	return n, err
}

// direct writes to a target that can not be replaced by a rename. Its
// open (of a FIFO: until a reader comes) and its writes (to a pipe: while
// the reader does not read) can wait without end, and are watched (live.go).
func direct(path, resolved string, write func(io.Writer) error) error {
	end := begin(path)
	f, err := os.OpenFile(resolved, os.O_WRONLY|os.O_TRUNC, 0)
	end()
	if err != nil {
		return fail(path, err)
	}
	if err := write(Watch(named{f, path}, path)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fail(path, err)
	}
	return nil
}

// access checks the permission bits mode on path for the effective user,
// the one the open and rename will run as.
func access(path string, mode uint32) error {
	return unix.Faccessat(unix.AT_FDCWD, path, mode, unix.AT_EACCESS)
}
