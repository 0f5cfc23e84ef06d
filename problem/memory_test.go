package problem

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/testlong"
)

// allocated returns the bytes f allocates (runtime.MemStats.TotalAlloc):
// an allocation count, deterministic enough to bound, not a timing.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// dataBytes is the size of what a problem holds: 8 bytes a number (prior,
// utility, order, mechanism) and, for a label, its string header and text.
func dataBytes(p *Problem) uint64 {
	n := uint64(len(p.Prior))
	for _, a := range [][][]float64{p.Utility, p.Mechanism} {
		for _, row := range a {
			n += uint64(len(row))
		}
	}
	for _, row := range p.Order {
		n += uint64(len(row))
	}
	b := 8 * n
	for _, l := range append(append([]string(nil), p.Inputs...), p.Outputs...) {
		b += 16 + uint64(len(l))
	}
	return b
}

// bigProblem is an n × m problem: a prior, labels on both sides and a
// utility of full-precision numbers.
func bigProblem(n, m int) *Problem {
	p := &Problem{Prior: make([]float64, n), Utility: make([][]float64, n), Inputs: make([]string, n), Outputs: make([]string, m)}
	for i := range p.Utility {
		p.Prior[i] = 1.0 / float64(n)
		p.Inputs[i] = "in-" + strconv.Itoa(i)
		p.Utility[i] = make([]float64, m)
		for j := range p.Utility[i] {
			p.Utility[i][j] = -float64((i-j)*(i-j)) / 7
		}
	}
	for j := range p.Outputs {
		p.Outputs[j] = strconv.Itoa(j)
	}
	p.Prior[0] += 1 - sum(p.Prior)
	return p
}

// blockLists rewrites the flow lists of labels and of the prior that
// Marshal writes ("key: [a, b]") as block lists, one entry a line.
func blockLists(text []byte) []byte {
	var out []string
	for _, line := range strings.Split(string(text), "\n") {
		key, val, _ := strings.Cut(line, ": [")
		if (key == "prior" || key == "inputs" || key == "outputs") && strings.HasSuffix(val, "]") {
			out = append(out, key+":")
			for _, e := range strings.Split(strings.TrimSuffix(val, "]"), ", ") {
				out = append(out, "  - "+e)
			}
			continue
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n"))
}

// withComments puts comments where people put them: a first line, after
// a key, after a row, on a line of its own between rows and after a value.
func withComments(text []byte) []byte {
	var out []string
	rows := 0
	for _, line := range strings.Split(string(text), "\n") {
		switch {
		case line == "utility:":
			line += "  # minus the squared distance over 7"
		case strings.HasPrefix(line, "  - ["):
			rows++
			if rows%50 == 1 {
				out = append(out, "  # rows "+strconv.Itoa(rows)+" on")
			}
			if rows%7 == 0 {
				line += " # row " + strconv.Itoa(rows)
			}
		case strings.HasPrefix(line, "prior:"):
			line += "   # uniform"
		}
		out = append(out, line)
	}
	return []byte("# a generated problem\n" + strings.Join(out, "\n") + "# the end\n")
}

// Every loader path holds a large file in a small multiple of the numbers
// and labels it reads: YAML as Marshal writes it, with comments and with
// block lists; JSON matrices, fractions written as strings, vectors and
// label lists. The bound is 8 bytes for every byte of what the problem
// holds (the derived order and the checks included); yaml.v3's tree costs
// some hundred bytes an entry, so the bound fails where it is used.
func TestLoadMemoryIsBounded(t *testing.T) {
	if testlong.Short() {
		t.Skip("generates files of some megabytes")
	}
	wide := bigProblem(300, 300)
	tall := bigProblem(100000, 2)
	long := &Problem{Prior: make([]float64, 200000), Inputs: make([]string, 200000)}
	for i := range long.Prior {
		long.Prior[i] = 1.0 / 200000
		long.Inputs[i] = "x" + strconv.Itoa(i)
	}
	long.Prior[0] += 1 - sum(long.Prior)
	yamlOf := func(p *Problem) []byte {
		b, err := Marshal(p, YAML)
		require.NoError(t, err)
		return b
	}
	jsonOf := func(p *Problem) []byte {
		b, err := Marshal(p, JSON)
		require.NoError(t, err)
		return b
	}
	fractions := func(p *Problem) []byte {
		b := jsonOf(p)
		// "-1/7" as a string for every entry -1/7 · k², read as the number.
		return bytes.ReplaceAll(b, []byte("-0.14285714285714285"), []byte(`"-1/7"`))
	}
	cases := []struct {
		name string
		p    *Problem
		data []byte
		f    Format
	}{
		{"yaml as Marshal writes it", wide, yamlOf(wide), YAML},
		{"yaml with comments", wide, withComments(yamlOf(wide)), YAML},
		{"yaml, tall", tall, yamlOf(tall), YAML},
		{"yaml, tall, block lists and comments", tall, withComments(blockLists(yamlOf(tall))), YAML},
		{"yaml, prior and labels", long, yamlOf(long), YAML},
		{"yaml, prior and labels in block lists", long, blockLists(yamlOf(long)), YAML},
		{"json", wide, jsonOf(wide), JSON},
		{"json, tall", tall, jsonOf(tall), JSON},
		{"json, fractions as strings", wide, fractions(wide), JSON},
		{"json, prior and labels", long, jsonOf(long), JSON},
		{"json sniffed", long, jsonOf(long), Auto},
	}
	for _, c := range cases {
		var got *Problem
		var err error
		a := allocated(func() { got, err = Parse(c.data, c.f) })
		require.NoError(t, err, c.name)
		want := c.p
		if want.Utility != nil {
			q := *want
			q.Order = want.Utility.Order()
			want = &q
		}
		require.True(t, same(want, got), c.name)
		d := dataBytes(got)
		t.Logf("%-40s file %9d B, data %9d B, allocated %10d B = %.2f× the data", c.name, len(c.data), d, a, float64(a)/float64(d))
		assert.LessOrEqual(t, a, 8*d, "%s: %d bytes allocated for %d bytes of data", c.name, a, d)
	}
}

// A large YAML document outside the layouts read straight into numbers is
// refused before yaml.v3 builds its tree, in one line that says which line
// is not in such a layout and how to write it; a small one is read.
func TestLoadRefusesLargeSlowYAML(t *testing.T) {
	var b strings.Builder
	b.WriteString("prior: [1]\nutility:\n  - !!seq [")
	for j := 0; j < 400000; j++ {
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString("1")
	}
	b.WriteString("]\n")
	data := []byte(b.String())
	var err error
	a := allocated(func() { _, err = Parse(data, YAML) })
	require.Error(t, err)
	assert.Less(t, a, uint64(1<<20), "allocated before refusing")
	msg := err.Error()
	assert.NotContains(t, msg, "\n")
	assert.Contains(t, msg, "utility (line 2)")
}
