package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// entries lists dir, to show that no temporary file is left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	require.NoError(t, Check(path))
	require.NoError(t, Write(path, writeString("first")))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "first", string(b))

	// A new file's mode is 0666 less the umask, as os.Create gives.
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	ref := filepath.Join(dir, "ref")
	f, err := os.Create(ref)
	require.NoError(t, err)
	f.Close()
	mine := filepath.Join(dir, "mine")
	require.NoError(t, Write(mine, writeString("x")))
	refInfo, err := os.Stat(ref)
	require.NoError(t, err)
	mineInfo, err := os.Stat(mine)
	require.NoError(t, err)
	assert.Equal(t, refInfo.Mode().Perm(), mineInfo.Mode().Perm())
	assert.Equal(t, fs.FileMode(0o640), mineInfo.Mode().Perm())

	// A replaced file keeps its permission bits.
	require.NoError(t, os.Chmod(path, 0o604))
	require.NoError(t, Write(path, writeString("second")))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "second", string(b))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o604), st.Mode().Perm())
	assert.ElementsMatch(t, []string{"out.txt", "ref", "mine"}, entries(t, dir))
}

func TestFailedWriteKeepsThePreviousFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(path, []byte("previous"), 0o644))
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	require.ErrorIs(t, err, boom)
	assert.Equal(t, "boom", err.Error(), "an error of the writing function is not about the path")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "previous", string(b))
	assert.Equal(t, []string{"out.txt"}, entries(t, dir))
}

func TestSymlinkIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	require.NoError(t, os.WriteFile(real, []byte("previous"), 0o644))
	link := filepath.Join(dir, "link.txt")
	require.NoError(t, os.Symlink("real.txt", link))
	require.NoError(t, Check(link))
	require.NoError(t, Write(link, writeString("new")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeSymlink, "the link is kept")
	b, err := os.ReadFile(real)
	require.NoError(t, err)
	assert.Equal(t, "new", string(b))

	// A dangling link creates the file it names, as os.Create does.
	dangling := filepath.Join(dir, "dangling.txt")
	require.NoError(t, os.Symlink("made.txt", dangling))
	require.NoError(t, Write(dangling, writeString("made")))
	b, err = os.ReadFile(filepath.Join(dir, "made.txt"))
	require.NoError(t, err)
	assert.Equal(t, "made", string(b))

	// A loop is an error naming the caller's path.
	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	err = Check(loop)
	require.Error(t, err)
	assert.Equal(t, loop+": too many levels of symbolic links", err.Error())
}

func TestDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, err := range []error{Check(dir), Write(dir, writeString("x"))} {
		require.Error(t, err)
		assert.Equal(t, dir+": is a directory", err.Error())
	}
	missing := filepath.Join(dir, "no", "out.txt")
	err := Check(missing)
	require.Error(t, err)
	assert.Equal(t, missing+": directory "+filepath.Join(dir, "no")+" does not exist", err.Error())
}

func TestReadOnlyDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	require.NoError(t, os.Mkdir(dir, 0o755))
	path := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(path, []byte("previous"), 0o644))
	require.NoError(t, os.Chmod(dir, 0o555))
	defer os.Chmod(dir, 0o755)
	err := Check(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path+": directory "+dir+" is not writable")
	err = Write(path, writeString("new"))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), path+": "), err.Error())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "previous", string(b))
}

func TestDevicesAreWrittenDirectly(t *testing.T) {
	// /dev/null takes the bytes and stays a device.
	require.NoError(t, Check(os.DevNull))
	require.NoError(t, Write(os.DevNull, writeString("gone")))
	fi, err := os.Stat(os.DevNull)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeCharDevice)

	// /dev/full fails every write; the error names it and it stays a
	// device (a rename over it would have replaced it, as root).
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	err = Write("/dev/full", writeString("x"))
	require.Error(t, err)
	assert.Equal(t, "/dev/full: write: no space left on device", err.Error())
	fi, err = os.Stat("/dev/full")
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeCharDevice)
}

func TestFIFOIsWrittenDirectly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(path, 0o644))
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(path)
		got <- string(b)
	}()
	require.NoError(t, Write(path, writeString("through the pipe")))
	assert.Equal(t, "through the pipe", <-got)
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&fs.ModeNamedPipe)
}
