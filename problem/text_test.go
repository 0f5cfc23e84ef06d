package problem

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Labels are one line of printable UTF-8 text: JSON's invalid UTF-8 is
// refused (YAML refuses the file), as is a control character written in
// either format, each in one line naming the field and the entry; the
// name may hold tabs and line breaks but no other control character.
func TestLabelText(t *testing.T) {
	const tail = `"prior": [0.5, 0.5], "mechanism": [[1, 0], [0, 1]]}`
	for _, c := range []struct {
		doc  string
		f    Format
		want string
	}{
		{`{"inputs": ["a", "b` + "\xff" + `"], ` + tail, JSON, `inputs entry 2: "b\xff" is not valid UTF-8`},
		{`{"inputs": ["a", "b` + "\xff\\n" + `"], ` + tail, JSON, `inputs entry 2: "b\xff\\n" is not valid UTF-8`},
		{`{"outputs": ["a", "` + "\xc3" + `"], ` + tail, JSON, `outputs entry 2: "\xc3" is not valid UTF-8`},
		{`{"inputs": ["a", ["b"], "` + "\xff" + `"], ` + tail, JSON, `inputs entry 2: is a list, not a label`},
		{`{"inputs": ["a", "` + "\xff" + `", ["b"]], ` + tail, JSON, `inputs entry 2: "\xff" is not valid UTF-8`},
		{`{"name": "x` + "\xff" + `", ` + tail, JSON, `name: "x\xff" is not valid UTF-8`},
		{`{"inputs": ["a", "b\u0007"], ` + tail, JSON, `inputs entry 2: "b\a" holds the control character U+0007; a label is one line of printable text`},
		{`{"inputs": ["a", "b\n"], ` + tail, JSON, `inputs entry 2: "b\n" holds the control character U+000A; a label is one line of printable text`},
		{`{"outputs": ["a\u0085", "b"], ` + tail, JSON, `outputs entry 1: "a\u0085" holds the control character U+0085; a label is one line of printable text`},
		{`{"outputs": ["a\uffff", "b"], ` + tail, JSON, `outputs entry 1: "a\uffff" holds the control character U+FFFF; a label is one line of printable text`},
		{`{"name": "a\u0001", ` + tail, JSON, `name: "a\x01" holds the control character U+0001`},
		// An escaped surrogate outside a pair is no character: encoding/json
		// would read it as U+FFFD; the bytes that would encode it are
		// shown, and YAML refuses the same escape.
		{`{"inputs": ["a\ud800b", "c"], ` + tail, JSON, `inputs entry 1: "a\xed\xa0\x80b" is not valid UTF-8`},
		{`{"outputs": ["a", "\\\udfff"], ` + tail, JSON, `outputs entry 2: "\\\\\xed\xbf\xbf" is not valid UTF-8`},
		{`{"inputs": ["\ud83d\ude00\ud83d", "c"], ` + tail, JSON, `inputs entry 1: "\\ud83d\\ude00\xed\xa0\xbd" is not valid UTF-8`},
		{`{"name": "x\udc00", ` + tail, JSON, `name: "x\xed\xb0\x80" is not valid UTF-8`},
		{"inputs: [a, \"b\\ud800\"]\n" + "prior: [0.5, 0.5]\n", YAML, "not valid YAML"},
		{"inputs: [a, \"b\\x01\"]\n" + "prior: [0.5, 0.5]\n", YAML, `inputs entry 2: "b\x01" holds the control character U+0001; a label is one line of printable text`},
		{"inputs: [a, \"b\tc\"]\n" + "prior: [0.5, 0.5]\n", YAML, `inputs entry 2: "b\tc" holds the control character U+0009; a label is one line of printable text`},
		{"inputs:\n- a\n- |\n  b\n" + "prior: [0.5, 0.5]\n", YAML, `inputs entry 2: "b\n" holds the control character U+000A; a label is one line of printable text`},
		{"inputs: [a, \"b\xff\"]\n" + "prior: [0.5, 0.5]\n", YAML, "not valid YAML"},
	} {
		_, err := Parse([]byte(c.doc), c.f)
		require.Error(t, err, c.doc)
		assert.Contains(t, err.Error(), c.want, c.doc)
		assert.NotContains(t, err.Error(), "\n", c.doc)
	}
	for _, doc := range []string{
		`{"name": "two\nlines\tand a tab", "inputs": ["日本", "😀 b"], ` + tail,
		"name: |\n  two\n  lines\ninputs: [\"日本\", \"😀 b\"]\nprior: [0.5, 0.5]\n",
	} {
		p, err := Parse([]byte(doc), Auto)
		require.NoError(t, err, doc)
		assert.Contains(t, p.Name, "two\nlines")
		assert.Equal(t, "日本", p.Inputs[0])
	}
}

// A JSON document with more values than maxJSONTreeValues outside the lists
// read straight into Go values is refused before its tree grows past
// them.
func TestJSONRefusesLargeTree(t *testing.T) {
	b := []byte(`{"prior": [1], "name": [`)
	for j := 0; j < 1000000; j++ {
		if j > 0 {
			b = append(b, ',')
		}
		b = append(b, '1')
	}
	b = append(b, "]}"...)
	var err error
	a := allocated(func() { _, err = Parse(b, JSON) })
	require.Error(t, err)
	assert.Equal(t, "problem: holds more than 65536 values besides the lists of prior, inputs, outputs, utility, order, mechanism, points and prior_set's bounds; they were not read", err.Error())
	// The nodes up to the bound, with the growth of their list.
	assert.Less(t, a, uint64(8*maxJSONTreeValues*80))
	// Below the bound, the decoder says what is wrong.
	_, err = Parse([]byte(`{"prior": [1], "name": [1, 2]}`), JSON)
	assert.EqualError(t, err, "name: is a list, not a name")
}

// An escaped backslash before "ud800", or a surrogate pair, is text like
// any other: the label is read as encoding/json reads it.
func TestJSONSurrogatePairsAndEscapedBackslash(t *testing.T) {
	doc := `{"inputs": ["a\\ud800", "\ud83d\ude00"], "prior": [0.5, 0.5], "mechanism": [[1, 0], [0, 1]]}`
	p, err := Parse([]byte(doc), JSON)
	require.NoError(t, err)
	assert.Equal(t, []string{`a\ud800`, "\U0001F600"}, p.Inputs)
}
