package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An output that names an input, by the same path, through a symbolic
// link, a hard link or another spelling of the path, is refused with the
// output's path; a new file, another file, "-" and a FIFO are not.
func TestNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "d.yaml")
	require.NoError(t, os.WriteFile(in, []byte("prior: [1]\n"), 0o644))
	other := filepath.Join(dir, "other.yaml")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	link := filepath.Join(dir, "link.yaml")
	require.NoError(t, os.Symlink("d.yaml", link))
	hard := filepath.Join(dir, "hard.yaml")
	require.NoError(t, os.Link(in, hard))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	for _, out := range []string{in, link, hard, filepath.Join(dir, ".", "sub", "..", "d.yaml")} {
		if out == filepath.Join(dir, ".", "sub", "..", "d.yaml") {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
		}
		err := NotInput(out, other, in)
		require.Error(t, err, out)
		assert.True(t, errors.Is(err, ErrIsInput), out)
		var oe *Error
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, out, oe.Path)
		// The input comes through a link too.
		assert.ErrorIs(t, NotInput(in, link), ErrIsInput)
	}
	assert.Equal(t, in+": is an input of this command", NotInput(in, in).Error())
	assert.Equal(t, link+": is an input of this command ("+in+")", NotInput(link, in).Error())

	for _, out := range []string{filepath.Join(dir, "new.yaml"), other, "-", "", fifo} {
		assert.NoError(t, NotInput(out, in, "-", "", fifo), out)
	}
	assert.NoError(t, NotInput(in))
	assert.NoError(t, NotInput(in, filepath.Join(dir, "missing.yaml")))
}

// An input "-" is standard input: an output naming the file a shell
// opened on it (cmd - --out f < f), directly or through a link, is
// refused; another output is not.
func TestNotInputStandardInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "d.yaml")
	require.NoError(t, os.WriteFile(in, []byte("prior: [1]\n"), 0o644))
	link := filepath.Join(dir, "link.yaml")
	require.NoError(t, os.Symlink("d.yaml", link))
	other := filepath.Join(dir, "other.yaml")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	stdin, err := os.Open(in)
	require.NoError(t, err)
	defer stdin.Close()
	for _, out := range []string{in, link} {
		err := notInput(out, stdin, "-")
		assert.ErrorIs(t, err, ErrIsInput, out)
		assert.EqualError(t, err, out+": is an input of this command (standard input)")
	}
	assert.NoError(t, notInput(other, stdin, "-"))
	assert.NoError(t, notInput(in, stdin, other))
}

// Two outputs are one file when they are one path, spelt alike or not,
// existing or not, or two links to one regular file; other paths, "-",
// "" and a FIFO named twice are not.
func TestSameOutput(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	assert.True(t, SameOutput(a, a))
	assert.True(t, SameOutput(a, filepath.Join(dir, "sub", "..", "a.csv")))
	assert.False(t, SameOutput(a, filepath.Join(dir, "b.csv")))
	require.NoError(t, os.WriteFile(a, []byte("x"), 0o644))
	link := filepath.Join(dir, "link.csv")
	require.NoError(t, os.Symlink("a.csv", link))
	assert.True(t, SameOutput(a, link))
	assert.True(t, SameOutput(link, a))
	linked := filepath.Join(dir, "linked")
	require.NoError(t, os.Symlink(dir, linked))
	assert.True(t, SameOutput(filepath.Join(linked, "new.npy"), filepath.Join(dir, "new.npy")))
	assert.False(t, SameOutput("-", "-"))
	assert.False(t, SameOutput("", ""))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	assert.False(t, SameOutput(fifo, fifo))
}
