package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// readNPY parses a .npy file of version 1.0 holding a C-order '<f8' matrix,
// by the format's specification, independently of writeNPY.
func readNPY(t *testing.T, data []byte) mech.Mechanism {
	t.Helper()
	require.True(t, len(data) >= 10 && string(data[:8]) == "\x93NUMPY\x01\x00", "magic and version")
	hlen := int(binary.LittleEndian.Uint16(data[8:10]))
	require.Zero(t, (10+hlen)%64, "the data starts at a multiple of 64 bytes")
	header := string(data[10 : 10+hlen])
	require.True(t, strings.HasSuffix(header, "\n"))
	require.Contains(t, header, "'descr': '<f8'")
	require.Contains(t, header, "'fortran_order': False")
	sh := regexp.MustCompile(`'shape': \((\d+), (\d+)\)`).FindStringSubmatch(header)
	require.NotNil(t, sh, header)
	n, _ := strconv.Atoi(sh[1])
	m, _ := strconv.Atoi(sh[2])
	body := data[10+hlen:]
	require.Len(t, body, 8*n*m)
	out := make(mech.Mechanism, n)
	for i := range out {
		out[i] = make([]float64, m)
		for j := range out[i] {
			out[i][j] = math.Float64frombits(binary.LittleEndian.Uint64(body[8*(i*m+j):]))
		}
	}
	return out
}

// TestSolveMechanismOut: --mechanism-out writes the mechanism --json
// prints, as .npy and as .csv; NumPy reads the .npy where it is installed.
func TestSolveMechanismOut(t *testing.T) {
	dir := t.TempDir()
	v := runJSON(t, "solve", td+"counting-query.yaml", "--epsilon", "1.3", "--json")
	want := toMechanism(t, v["mechanism"])
	npy, csvPath := filepath.Join(dir, "m.npy"), filepath.Join(dir, "m.csv")
	for _, path := range []string{npy, csvPath} {
		_, stderr, code := cli(t, "solve", td+"counting-query.yaml", "--epsilon", "1.3", "--mechanism-out", path)
		require.Equal(t, 0, code, stderr)
	}
	data, err := os.ReadFile(npy)
	require.NoError(t, err)
	assert.Equal(t, want, readNPY(t, data))
	text, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	require.Len(t, lines, len(want))
	for i, l := range lines {
		fields := strings.Split(l, ",")
		require.Len(t, fields, len(want[i]))
		for j, f := range fields {
			x, err := strconv.ParseFloat(f, 64)
			require.NoError(t, err)
			assert.Equal(t, want[i][j], x, "row %d col %d", i, j)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-c", "import numpy").Run() != nil {
		t.Log("python3 with numpy is not installed: the .npy file is checked by its header only")
		return
	}
	out, err := exec.Command(py, "-c", "import numpy, sys; a = numpy.load(sys.argv[1]); print(a.shape, repr(a.dtype.str), float(a.sum()))", npy).CombinedOutput()
	require.NoError(t, err, string(out))
	total := 0.0
	for _, r := range want {
		for _, x := range r {
			total += x
		}
	}
	assert.Contains(t, string(out), fmt.Sprintf("(%d, %d) '<f8' ", len(want), len(want[0])))
	got, err := strconv.ParseFloat(strings.Fields(string(out))[3], 64)
	require.NoError(t, err)
	assert.InDelta(t, total, got, 1e-9)
}

func TestSolveMechanismOutRefused(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := cli(t, "solve", td+"counting-query.yaml", "--mechanism-out", filepath.Join(dir, "m.txt"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--mechanism-out")
	assert.Contains(t, stderr, "want a .npy or .csv file")
	_, err := os.Stat(filepath.Join(dir, "m.txt"))
	assert.True(t, os.IsNotExist(err))
	_, stderr, code = cli(t, "solve", td+"counting-query.yaml", "--mechanism-out", filepath.Join(dir, "no", "m.npy"))
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "mechanism-out")
}
