package sample

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// A deterministic mechanism (a permutation) makes the output predictable.
var shift = mech.Mechanism{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}}

func TestPrivatizeCSVLabels(t *testing.T) {
	s, err := NewSeededSampler(shift, 1)
	require.NoError(t, err)
	in := "id,colour,note\n1,blue,\"a, quoted\"\n2,green,x\n3,brown,y\n"
	var out bytes.Buffer
	err = PrivatizeCSV(strings.NewReader(in), &out, "colour",
		[]string{"blue", "green", "brown"}, []string{"B", "G", "R"}, s)
	require.NoError(t, err)
	assert.Equal(t, "id,colour,note\n1,G,\"a, quoted\"\n2,R,x\n3,B,y\n", out.String())
}

func TestPrivatizeCSVIndices(t *testing.T) {
	s, err := NewSeededSampler(shift, 1)
	require.NoError(t, err)
	var out bytes.Buffer
	err = PrivatizeCSV(strings.NewReader("count\n0\n2\n+1\n"), &out, "count", nil, nil, s)
	require.NoError(t, err)
	assert.Equal(t, "count\n1\n0\n2\n", out.String())
}

// Random mechanism, many records: the other columns survive, every output
// is a label, and the draws equal SampleAll's with the same seed.
func TestPrivatizeCSVRoundTrip(t *testing.T) {
	p := mech.Mechanism{{0.5, 0.5, 0}, {0.1, 0.2, 0.7}}
	inputs, outputs := []string{"no", "yes"}, []string{"low", "mid", "high"}
	var b strings.Builder
	b.WriteString("name,smoker\n")
	var idx []int
	for k := 0; k < 500; k++ {
		i := k % 3 % 2
		idx = append(idx, i)
		b.WriteString("p" + string(rune('a'+k%26)) + "," + inputs[i] + "\n")
	}
	s, _ := NewSeededSampler(p, 5)
	var out bytes.Buffer
	require.NoError(t, PrivatizeCSV(strings.NewReader(b.String()), &out, "smoker", inputs, outputs, s))

	ref, _ := NewSeededSampler(p, 5)
	want, err := ref.SampleAll(idx)
	require.NoError(t, err)

	recs, err := csv.NewReader(&out).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 501)
	assert.Equal(t, []string{"name", "smoker"}, recs[0])
	inRecs, _ := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	for k, rec := range recs[1:] {
		assert.Equal(t, inRecs[k+1][0], rec[0])
		assert.Equal(t, outputs[want[k]], rec[1])
		if idx[k] == 0 {
			assert.NotEqual(t, "high", rec[1], "p_{no,high} = 0")
		}
	}
}

func TestPrivatizeCSVErrors(t *testing.T) {
	counting := make(mech.Mechanism, 7)
	for i := range counting {
		counting[i] = []float64{1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7, 1.0 / 7}
	}
	cases := []struct {
		name, in, column string
		inputs, outputs  []string
		want             string
	}{
		{"bad value", "id,count\n1,3\n2,4\n3,0\n4,6\n5,1\n6,9\n7,2\n", "count", nil, nil,
			`line 7: value "9" of column count is not an input label (the inputs are the indices 0..6)`},
		{"negative index", "count\n-1\n", "count", nil, nil, `line 2: value "-1" of column count`},
		{"label not index", "count\n3\n", "count", []string{"a", "b", "c", "d", "e", "f", "g"}, nil,
			`line 2: value "3" of column count is not an input label (the inputs are ["a" "b" "c" "d" "e" "f" "g"])`},
		{"multi-line record", "id,count\n\"x\ny\",2\n\"z\",8\n", "count", nil, nil, `line 4: value "8"`},
		{"value after a multi-line field", "id,count\n\"x\ny\",9\n", "count", nil, nil, `line 3: value "9"`},
		{"missing column", "id,cnt\n1,2\n", "count", nil, nil, `no column "count" in the header id,cnt`},
		{"duplicate column", "count,count\n1,2\n", "count", nil, nil, `column "count" appears twice`},
		{"field count", "id,count\n1,2\n3\n", "count", nil, nil, "line 3"},
		{"syntax", "id,count\n1,\"2\n", "count", nil, nil, "line"},
		{"empty", "", "count", nil, nil, "empty"},
		{"input labels", "count\n1\n", "count", []string{"a"}, nil, "1 input labels for a mechanism with 7 inputs"},
		{"output labels", "count\n1\n", "count", nil, []string{"a", "b"}, "2 output labels for a mechanism with 7 outputs"},
		{"duplicate labels", "count\n1\n", "count", []string{"a", "b", "c", "a", "e", "f", "g"}, nil, `input label "a" is used twice (input 1 and 4)`},
	}
	for _, c := range cases {
		s, err := NewSeededSampler(counting, 3)
		require.NoError(t, err)
		var out bytes.Buffer
		err = PrivatizeCSV(strings.NewReader(c.in), &out, c.column, c.inputs, c.outputs, s)
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
		// What was written is the header and the records before the bad
		// one, complete, and the sampler advanced once per record written.
		recs, perr := csv.NewReader(bytes.NewReader(out.Bytes())).ReadAll()
		require.NoError(t, perr, c.name)
		written := max(0, len(recs)-1)
		fresh, _ := NewSeededSampler(counting, 3)
		for range written {
			fresh.Sample(0)
		}
		got, _ := s.SampleAll([]int{0, 1, 2, 3, 4, 5, 6})
		want, _ := fresh.SampleAll([]int{0, 1, 2, 3, 4, 5, 6})
		assert.Equal(t, want, got, c.name)
	}
	// The first case stops at its sixth record, after five good ones.
	s, _ := NewSeededSampler(counting, 3)
	var out bytes.Buffer
	require.Error(t, PrivatizeCSV(strings.NewReader(cases[0].in), &out, "count", nil, nil, s))
	assert.Equal(t, 6, strings.Count(out.String(), "\n"))
}

func TestPrivatizeCSVLongAndBOM(t *testing.T) {
	s, _ := NewSeededSampler(shift, 1)
	// A megabyte-long value is quoted in 64 bytes.
	long := strings.Repeat("x", 1<<20)
	var out bytes.Buffer
	err := PrivatizeCSV(strings.NewReader("c\n"+long+"\n"), &out, "c", nil, nil, s)
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 200)
	assert.NotContains(t, err.Error(), "sample:")
	err = PrivatizeCSV(strings.NewReader(long+"\n0\n"), &out, "c", nil, nil, s)
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 200)
	// A byte order mark before the header is not part of its first name.
	out.Reset()
	require.NoError(t, PrivatizeCSV(strings.NewReader("\ufeffc,d\n0,a\n"), &out, "c", nil, nil, s))
	assert.True(t, strings.HasPrefix(out.String(), "c,d\n"), out.String())
}

func TestPrivatizeCSVNilReaderWriter(t *testing.T) {
	s, _ := NewSeededSampler(shift, 1)
	var out bytes.Buffer
	require.ErrorContains(t, PrivatizeCSV(nil, &out, "c", nil, nil, s), "reader")
	require.ErrorContains(t, PrivatizeCSV(strings.NewReader("c\n0\n"), nil, "c", nil, nil, s), "writer")
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, assert.AnError }

func TestPrivatizeCSVNilSampler(t *testing.T) {
	var out bytes.Buffer
	err := PrivatizeCSV(strings.NewReader("c\n0\n"), &out, "c", nil, nil, nil)
	require.ErrorContains(t, err, "nil")
	assert.Zero(t, out.Len())
}

func TestPrivatizeCSVWriteError(t *testing.T) {
	s, _ := NewSeededSampler(shift, 1)
	err := PrivatizeCSV(strings.NewReader("c\n0\n"), failWriter{}, "c", nil, nil, s)
	require.ErrorIs(t, err, assert.AnError)
}

// Only the privatized column changes: other fields keep their bytes
// (invalid UTF-8 included), their quotes, and the lines their endings;
// blank lines and a last line without a line break are kept too. Outputs
// that need quotes get them.
func TestPrivatizeCSVCopiesBytes(t *testing.T) {
	s, _ := NewSeededSampler(shift, 1)
	in := "id,name,colour,note\r\n" +
		"1,caf\xe9,blue,\"a, \"\"quoted\"\" note\"\r\n" +
		"\r\n" +
		"\"2\",\xff\xfe,\"green\",\"two\r\nlines\"\n" +
		"3,\"\xc3\",\"brown\", lead\n" +
		"\n" +
		"4,\"\",blue,x"
	want := "id,name,colour,note\r\n" +
		"1,caf\xe9,\"G, g\",\"a, \"\"quoted\"\" note\"\r\n" +
		"\r\n" +
		"\"2\",\xff\xfe,\" R\",\"two\r\nlines\"\n" +
		"3,\"\xc3\",\"say \"\"b\"\"\", lead\n" +
		"\n" +
		"4,\"\",\"G, g\",x"
	var out bytes.Buffer
	err := PrivatizeCSV(strings.NewReader(in), &out, "colour",
		[]string{"blue", "green", "brown"}, []string{"say \"b\"", "G, g", " R"}, s)
	require.NoError(t, err)
	assert.Equal(t, want, out.String())
	// encoding/csv reads the output as the input with the column replaced.
	got, err := csv.NewReader(&out).ReadAll()
	require.NoError(t, err)
	ref, err := csv.NewReader(strings.NewReader(in)).ReadAll()
	require.NoError(t, err)
	require.Len(t, got, len(ref))
	for k := range ref {
		for c := range ref[k] {
			if c != 2 || k == 0 {
				assert.Equal(t, ref[k][c], got[k][c], "record %d field %d", k, c)
			}
		}
	}
	assert.Equal(t, []string{"G, g", " R", "say \"b\"", "G, g"}, []string{got[1][2], got[2][2], got[3][2], got[4][2]})

	// An empty output label is written "" so that a one-column record
	// stays a record.
	out.Reset()
	s, _ = NewSeededSampler(mech.Mechanism{{1, 0}}, 1)
	require.NoError(t, PrivatizeCSV(strings.NewReader("c\nx\n"), &out, "c", []string{"x"}, []string{"", "y"}, s))
	assert.Equal(t, "c\n\"\"\n", out.String())
}

// Drop leaves columns out, every column of the name; the privatized one
// and names the header lacks are refused before anything is written.
func TestPrivatizeCSVDrop(t *testing.T) {
	in := "ssn,name,colour,ssn,age\n\"1-2\",\"Ng, A\",blue,x,31\r\n9,Bo,brown,y,\"4\n2\"\n"
	for _, c := range []struct {
		drop []string
		want string
	}{
		{[]string{"ssn"}, "name,colour,age\n\"Ng, A\",G,31\r\nBo,B,\"4\n2\"\n"},
		{[]string{"age", "name"}, "ssn,colour,ssn\n\"1-2\",G,x\r\n9,B,y\n"},
		{[]string{"ssn", "name", "age"}, "colour\nG\r\nB\n"},
	} {
		s, _ := NewSeededSampler(shift, 1)
		var out bytes.Buffer
		err := CSV{Column: "colour", Inputs: []string{"blue", "green", "brown"}, Outputs: []string{"B", "G", "R"}, Drop: c.drop}.
			Privatize(strings.NewReader(in), &out, s)
		require.NoError(t, err, "%v", c.drop)
		assert.Equal(t, c.want, out.String(), "%v", c.drop)
	}
	for _, c := range []struct {
		drop []string
		want string
	}{
		{[]string{"colour"}, `column "colour" is the one privatized; it can not be dropped`},
		{[]string{"name", "SSN"}, `no column "SSN" in the header ssn,name,colour,ssn,age`},
	} {
		s, _ := NewSeededSampler(shift, 1)
		var out bytes.Buffer
		err := CSV{Column: "colour", Inputs: []string{"blue", "green", "brown"}, Drop: c.drop}.Privatize(strings.NewReader(in), &out, s)
		var de *DropError
		require.ErrorAs(t, err, &de, "%v", c.drop)
		assert.Equal(t, c.want, err.Error())
		assert.Zero(t, out.Len(), "nothing is written")
	}
}
