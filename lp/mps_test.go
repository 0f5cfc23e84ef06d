package lp

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// every returns a model that uses every row type, range and bound type.
func every() *Model {
	m := &Model{Maximize: true, Offset: 1.5}
	a := m.AddCol(3, 0, Inf, "a")             // default bounds
	b := m.AddCol(-1, math.Inf(-1), Inf, "b") // FR
	c := m.AddCol(0, math.Inf(-1), 2, "c")    // MI + UP
	d := m.AddCol(0.1, 0.25, 0.25, "d")       // FX
	e := m.AddCol(0, -3, Inf, "e")            // LO
	f := m.AddCol(0, 1, 7, "f")               // LO + UP
	g := m.AddCol(0, 0, 1e-3, "g")            // UP
	m.AddCol(0, 0, Inf, "empty")              // no entries, no cost
	m.AddRow(math.Inf(-1), 4, "le", Entry(a, 1), Entry(b, 2))
	m.AddRow(-2, Inf, "ge", Entry(c, 1), Entry(a, -1))
	m.AddRow(0.1, 0.1, "eq", Entry(d, 1), Entry(e, 1e-17))
	m.AddRow(0.1, 0.3, "rng", Entry(f, 1), Entry(g, 1), Entry(a, 0.5))
	m.AddRow(math.Inf(-1), Inf, "free", Entry(b, 1))
	m.AddRow(0, 0, "zero")
	return m
}

func TestWriteMPSText(t *testing.T) {
	m := &Model{Maximize: true, Offset: 2}
	x := m.AddCol(1, 0, Inf, "")
	y := m.AddCol(0, -1, 3, "")
	m.AddRow(1, 2, "", Entry(y, 4), Entry(x, 1))
	m.AddRow(math.Inf(-1), 5, "", Entry(x, -1))
	var buf bytes.Buffer
	require.NoError(t, m.WriteMPS(&buf))
	want := `NAME
OBJSENSE
    MAX
ROWS
 N  obj
 G  R0
 L  R1
COLUMNS
    C0  obj  1
    C0  R0  1
    C0  R1  -1
    C1  R0  4
RHS
    RHS  obj  -2
    RHS  R0  1
    RHS  R1  5
RANGES
    RNG  R0  1
BOUNDS
 LO BND  C1  -1
 UP BND  C1  3
ENDATA
`
	assert.Equal(t, want, buf.String())
}

func TestMPSRoundTrip(t *testing.T) {
	m := every()
	require.NoError(t, m.Validate())
	var buf bytes.Buffer
	require.NoError(t, m.WriteMPS(&buf))
	got, err := ReadMPS(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err, buf.String())
	// ReadMPS lists non-zeros column by column; compare through CSC.
	assertSameModel(t, m, got)

	// Writing again gives the same bytes.
	var again bytes.Buffer
	require.NoError(t, got.WriteMPS(&again))
	assert.Equal(t, buf.String(), again.String())
}

func assertSameModel(t *testing.T, want, got *Model) {
	t.Helper()
	assert.Equal(t, want.Maximize, got.Maximize)
	assert.Equal(t, want.Offset, got.Offset)
	assert.Equal(t, want.ColCosts, got.ColCosts)
	assert.Equal(t, want.ColLower, got.ColLower)
	assert.Equal(t, want.ColUpper, got.ColUpper)
	assert.Equal(t, want.RowLower, got.RowLower)
	assert.Equal(t, want.RowUpper, got.RowUpper)
	assert.Equal(t, want.ColNames, got.ColNames)
	assert.Equal(t, want.RowNames, got.RowNames)
	ws, wr, wv := want.CSC()
	gs, gr, gv := got.CSC()
	assert.Equal(t, ws, gs)
	assert.Equal(t, wr, gr)
	assert.Equal(t, wv, gv)
}

func TestMPSObjectiveNameClash(t *testing.T) {
	m := &Model{}
	x := m.AddCol(1, 0, 1, "x")
	m.AddRow(0, 1, "obj", Entry(x, 1))
	var buf bytes.Buffer
	require.NoError(t, m.WriteMPS(&buf))
	assert.Contains(t, buf.String(), " N  obj_\n")
	got, err := ReadMPS(&buf)
	require.NoError(t, err)
	assertSameModel(t, m, got)
}

func TestWriteMPSRefuses(t *testing.T) {
	var buf bytes.Buffer
	m := small()
	m.ColNames[1] = "x"
	assert.ErrorContains(t, m.WriteMPS(&buf), `column 0 and column 1 are both named "x"`)
	m = small()
	m.RowNames[0] = "a b"
	assert.ErrorContains(t, m.WriteMPS(&buf), `row 0 name "a b" contains white space`)
	m = small()
	m.RowNames[1] = ""
	assert.ErrorContains(t, m.WriteMPS(&buf), "row 1 has an empty name")
	m = small()
	m.ColLower[0] = math.NaN()
	assert.ErrorContains(t, m.WriteMPS(&buf), "column 0 (x): lower bound is NaN")
}

func TestReadMPSDialects(t *testing.T) {
	// Set names omitted, OBJSENSE on the header line and unindented,
	// comments, E and L rows with ranges, PL and MI bounds.
	src := `* a comment
NAME test
OBJSENSE MAXIMIZE
ROWS
 N cost
 E e1
 E e2
 L l1
 N spare
COLUMNS
 x cost 1 e1 1
 x l1 1
 y e2 1 l1 1
 y spare 3
RHS
 e1 2 e2 3
 l1 10
 cost 4
RANGES
 e1 1.5 e2 -0.5
 l1 4
BOUNDS
 MI x
 UP x 8
 LO BND y -1
 PL y
ENDATA
`
	m, err := ReadMPS(strings.NewReader(src))
	require.NoError(t, err)
	assert.True(t, m.Maximize)
	assert.Equal(t, -4.0, m.Offset)
	assert.Equal(t, []string{"e1", "e2", "l1", "spare"}, m.RowNames)
	assert.Equal(t, []string{"x", "y"}, m.ColNames)
	assert.Equal(t, []float64{1, 0}, m.ColCosts)
	assert.Equal(t, []float64{2, 2.5, 6, math.Inf(-1)}, m.RowLower)
	assert.Equal(t, []float64{3.5, 3, 10, math.Inf(1)}, m.RowUpper)
	assert.Equal(t, []float64{math.Inf(-1), -1}, m.ColLower)
	assert.Equal(t, []float64{8, math.Inf(1)}, m.ColUpper)
	assert.Equal(t, 5, m.NumNonzeros())

	m, err = ReadMPS(strings.NewReader("NAME\nOBJSENSE\nMAX\nROWS\n N o\nCOLUMNS\n x o 1\nENDATA\n"))
	require.NoError(t, err)
	assert.True(t, m.Maximize)
}

func TestReadMPSErrors(t *testing.T) {
	head := "NAME\nROWS\n N obj\n L r\nCOLUMNS\n"
	for _, tc := range []struct{ src, want string }{
		{head + " x r 1\n", "no ENDATA"},
		{head + " x r 1\nENDATA\n x r 1\n", "line 8: text after ENDATA"},
		{head + " x q 1\nENDATA\n", `line 6: unknown row "q"`},
		{head + " x r 1\n x r 2\nENDATA\n", `line 7: column "x" has two coefficients in row "r"`},
		{head + " x r 1\n y r 1\n x obj 1\nENDATA\n", `line 8: column "x" is not contiguous`},
		{head + " x r nan\nENDATA\n", "line 6: number is NaN"},
		{head + " x r one\nENDATA\n", `"one" is not a number`},
		{head + " M 'MARKER' 'INTORG'\nENDATA\n", "integer markers are not supported"},
		{head + " x r 1\nBOUNDS\n BV BND x\nENDATA\n", "integer bound type BV"},
		{head + " x r 1\nBOUNDS\n UP BND z 1\nENDATA\n", `unknown column "z"`},
		{head + " x r 1\nBOUNDS\n UP BND x\nENDATA\n", `unknown column "BND"`},
		{head + " x r 1\nBOUNDS\n UP BND x 1 2\nENDATA\n", "bound UP has 5 fields"},
		{head + " x r 1\nBOUNDS\n UP BND x -1\nENDATA\n", "column 0 (x): lower bound 0 exceeds upper bound -1"},
		{head + " x r 1\nRHS\n RHS r inf\nENDATA\n", `right-hand side of row "r" is infinite`},
		{head + " x r 1\nRHS\n RHS q 1\nENDATA\n", `unknown row "q"`},
		{head + " x r 1\nRANGES\n r 1 r 2 r 3\nENDATA\n", "want one or two (row, value) pairs"},
		{"NAME\nROWS\n N obj\n L r\n G r\nENDATA\n", `row "r" declared twice`},
		{"NAME\nROWS\n X r\nENDATA\n", `unknown row type "X"`},
		{"ROWS\nNAME\nENDATA\n", "NAME must come first"},
		{"NAME\nFOO\nENDATA\n", `unknown section "FOO"`},
		{"NAME\nOBJSENSE\n UP\nENDATA\n", `unknown objective sense "UP"`},
		{" x r 1\n", "data outside a section"},
	} {
		_, err := ReadMPS(strings.NewReader(tc.src))
		if assert.Error(t, err, tc.src) {
			assert.Contains(t, err.Error(), tc.want, tc.src)
		}
	}
}

func FuzzReadMPS(f *testing.F) {
	var buf bytes.Buffer
	if err := every().WriteMPS(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add("NAME\nROWS\n N o\n G r\nCOLUMNS\n x o 1 r 2\nRHS\n r 1\nRANGES\n r -3\nBOUNDS\n FR BND x\nENDATA\n")
	f.Add("NAME\nOBJSENSE MAX\nROWS\n N o\n E e\nCOLUMNS\n x e 1\nRHS\n e 1\nRANGES\n e -0.5\nENDATA\n")
	f.Add("NAME\nENDATA\n")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ReadMPS(strings.NewReader(src))
		if err != nil {
			return
		}
		// What ReadMPS accepts is a valid model that survives a round trip.
		require.NoError(t, m.Validate())
		var out bytes.Buffer
		require.NoError(t, m.WriteMPS(&out))
		m2, err := ReadMPS(bytes.NewReader(out.Bytes()))
		require.NoError(t, err, out.String())
		assert.Equal(t, m.Maximize, m2.Maximize)
		assert.Equal(t, m.ColCosts, m2.ColCosts)
		assert.Equal(t, m.ColLower, m2.ColLower)
		assert.Equal(t, m.ColUpper, m2.ColUpper)
		assert.Equal(t, m.RowLower, m2.RowLower)
		for i, up := range m.RowUpper {
			// A ranged row's upper bound is lower + range, rounded.
			assert.InDelta(t, up, m2.RowUpper[i], 4e-16*math.Max(1, math.Abs(up)))
		}
		assert.Equal(t, m.RowNames, m2.RowNames)
		assert.Equal(t, m.ColNames, m2.ColNames)
		assert.Equal(t, m.NumNonzeros(), m2.NumNonzeros())
	})
}
