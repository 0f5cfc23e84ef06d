package outfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrIsInput is the failure of an output path that names a file the same
// run reads: writing it would replace the input (a problem file, a CSV)
// with the output, often before the input is read.
var ErrIsInput = errors.New("is an input of this command")

// NotInput reports an error when path names the same file as one of
// inputs, through symbolic links and hard links alike (os.SameFile). A
// path that does not exist yet is no input; neither are "-" (standard
// input or output) and "", except that an input "-" is standard input,
// which a shell may have opened on the output's file (cmd - --out f < f).
// Only a regular file can be replaced, so a device or a FIFO named on
// both sides (/dev/stdin and /dev/stdout on a terminal) is left to the
// command. The error names path and the input as the caller gave it.
func NotInput(path string, inputs ...string) error {
	return notInput(path, os.Stdin, inputs...)
}

// notInput is NotInput with stdin as the file that an input "-" reads.
func notInput(path string, stdin *os.File, inputs ...string) error {
	if path == "" || path == "-" {
		return nil
	}
	out, err := os.Stat(path)
	if err != nil || !out.Mode().IsRegular() {
		return nil
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if in == "-" {
			if fi, err := stdin.Stat(); err == nil && os.SameFile(out, fi) {
				return &Error{Path: path, Err: fmt.Errorf("%w (standard input)", ErrIsInput)}
			}
			continue
		}
		fi, err := os.Stat(in)
		if err == nil && os.SameFile(out, fi) {
			if in == path {
				return &Error{Path: path, Err: ErrIsInput}
			}
			return &Error{Path: path, Err: fmt.Errorf("%w (%s)", ErrIsInput, in)}
		}
	}
	return nil
}

// SameOutput reports whether two outputs of one run, a and b, name one
// file: the second write would replace the first. They do when they are
// one path once made absolute, with the symbolic links of its directory
// resolved (neither exists yet, or both spell it alike), or when both
// exist and are one regular file (os.SameFile: a link or a hard link). A
// device or a FIFO named twice is left to the command, as in NotInput;
// "" and "-" (no file, standard output) name no file.
func SameOutput(a, b string) bool {
	if a == "" || b == "" || a == "-" || b == "-" {
		return false
	}
	fa, ea := os.Stat(a)
	fb, eb := os.Stat(b)
	if ea == nil && eb == nil {
		return fa.Mode().IsRegular() && os.SameFile(fa, fb)
	}
	return resolved(a) == resolved(b)
}

// resolved is path made absolute, with the symbolic links of its directory
// resolved where it exists.
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	dir, base := filepath.Split(abs)
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(d, base)
	}
	return abs
}
