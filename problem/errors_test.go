package problem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/mech"
)

// Every malformed file of testdata/bad is refused with one line that names
// the file, the field and, where there is one, the 1-based row and column.
func TestLoadBadFiles(t *testing.T) {
	tests := []struct {
		file     string
		field    string
		row, col int // 1-based, 0 when absent
		msg      string
	}{
		{"unknown-key.yaml", "problem", 0, 0, `unknown key "epsilon"; allowed keys are name, inputs`},
		{"unknown-key.json", "problem", 0, 0, `unknown key "epsilon"; allowed keys are name, inputs`},
		{"unknown-privacy-key.yaml", "privacy", 0, 0, `unknown key "eps"; allowed keys are measure, epsilon, epsilon_lower, epsilon_upper`},
		{"not-a-number.yaml", "utility", 3, 2, `"abc" is not a number`},
		{"zero-denominator.yaml", "prior", 0, 2, `"1/0" has a zero denominator`},
		{"nan.yaml", "utility", 2, 2, "is NaN"},
		{"nan-string.json", "prior", 0, 2, "is NaN"},
		{"inf.yaml", "mechanism", 3, 1, "is infinite"},
		{"prior-sum.yaml", "prior", 0, 0, "sums to 0.9499"},
		{"prior-zero.yaml", "prior", 0, 3, "is zero"},
		{"prior-negative.yaml", "prior", 0, 2, "is negative (-0.25)"},
		{"prior-missing.yaml", "prior", 0, 0, "is missing"},
		{"shape-rows.yaml", "utility", 0, 0, "has 3 rows, but the prior has 2 letters"},
		{"shape-columns.yaml", "order", 0, 0, "has 3 columns, but utility has 2"},
		{"ragged.yaml", "utility", 2, 0, "has 2 entries, row 1 has 3"},
		{"order-not-ranking.yaml", "order", 2, 2, "is not a ranking of 1..3"},
		{"order-not-integer.yaml", "order", 2, 2, `"2.5" is not an integer`},
		{"order-utility-disagree.yaml", "order", 3, 2, "is 3, but the utility ranks this entry 2"},
		{"mechanism-row-sum.yaml", "mechanism", 2, 0, "sums to 0.9"},
		{"mechanism-negative.yaml", "mechanism", 3, 2, "is negative (-0.5)"},
		{"inputs-count.yaml", "inputs", 0, 0, "has 2 labels, but the prior has 3 letters"},
		{"outputs-count.yaml", "outputs", 0, 0, "has 4 labels, but utility has 3 columns"},
		{"duplicate-label.yaml", "inputs", 0, 3, `"a" repeats entry 1`},
		{"label-control.yaml", "outputs", 0, 2, `"no\tmaybe" holds the control character U+0009`},
		{"label-utf8.json", "inputs", 0, 2, `"b\xffc" is not valid UTF-8`},
		{"measure-unknown.yaml", "privacy.measure", 0, 0, `"dp" is not one of pml, alip, lip, ldp`},
		{"epsilon-missing.yaml", "privacy.epsilon", 0, 0, "is missing; measure pml needs it"},
		{"epsilon-unused.yaml", "privacy.epsilon_lower", 0, 0, "is not used by measure pml"},
		{"alip-missing-upper.yaml", "privacy.epsilon_upper", 0, 0, "is missing; measure alip needs it"},
		{"epsilon-negative.yaml", "privacy.epsilon", 0, 0, "is negative (-1)"},
		{"epsilon-huge.yaml", "privacy.epsilon", 0, 0, "is 1e+308, beyond the largest budget 700 nats"},
		{"objective-unknown.yaml", "objective", 0, 0, `"average" is not one of worst-case-order`},
		{"duplicate-key.yaml", "prior", 0, 0, "is given twice"},
		{"alias.yaml", "utility", 2, 0, "is a YAML alias"},
		{"syntax.yaml", "problem", 0, 0, "not valid YAML: line 1:"},
		{"syntax.json", "problem", 0, 0, "not valid JSON: line 3:"},
		{"empty.yaml", "problem", 0, 0, "the file is empty"},
		{"not-a-mapping.yaml", "problem", 0, 0, "the file must hold a mapping of keys"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("..", "testdata", "bad", tt.file)
			seen[tt.file] = true
			p, err := Load(path)
			require.Error(t, err)
			assert.Nil(t, p)
			msg := err.Error()
			assert.NotContains(t, msg, "\n", "errors are one line")
			assert.True(t, strings.HasPrefix(msg, path+": "), "names the file: %s", msg)

			var fe *mech.FieldError
			require.True(t, errors.As(err, &fe), "a *mech.FieldError: %v", err)
			assert.Equal(t, tt.field, fe.Field)
			assert.Equal(t, tt.row-1, fe.Row, "row of %s", msg)
			assert.Equal(t, tt.col-1, fe.Col, "column of %s", msg)
			assert.Contains(t, fe.Msg, tt.msg)
		})
	}
	// Every file of testdata/bad is in the table.
	files, err := os.ReadDir(filepath.Join("..", "testdata", "bad"))
	require.NoError(t, err)
	for _, f := range files {
		if f.IsDir() {
			continue // files that load but that a command refuses (cmd/pmlopt's tests)
		}
		assert.True(t, seen[f.Name()], "testdata/bad/%s has no test", f.Name())
	}
}

// The message for a field names its row i and column j, as docs/problem-files.md says.
func TestErrorMessageFormat(t *testing.T) {
	_, err := Parse([]byte("prior: [0.5, 0.25, 0.25]\nutility: [[0, 1], [2, 3], [4, abc]]\n"), YAML)
	require.EqualError(t, err, `utility row 3, column 2: "abc" is not a number`)
}

// The same content in YAML and JSON gives the same message.
func TestYAMLAndJSONGiveTheSameMessages(t *testing.T) {
	tests := []struct{ yaml, json string }{
		{"prior: [0.5, 0.5]\nfoo: 1\n", `{"prior": [0.5, 0.5], "foo": 1}`},
		{"prior: [0.5, 0.5]\nprivacy: {measure: pml, eps: 1}\n", `{"prior": [0.5, 0.5], "privacy": {"measure": "pml", "eps": 1}}`},
		{"prior: [0.5, abc]\n", `{"prior": [0.5, "abc"]}`},
		{"prior: [0.5, .nan]\n", `{"prior": [0.5, "NaN"]}`},
		{"prior: [0.5, -.inf]\n", `{"prior": [0.5, "-Infinity"]}`},
		{"prior: [0.5, 1e999]\n", `{"prior": [0.5, 1e999]}`},
		{"prior: [0.5, \"1/0\"]\n", `{"prior": [0.5, "1/0"]}`},
		{"prior: [0.5, [1]]\n", `{"prior": [0.5, [1]]}`},
		{"prior: [0.5, {a: 1}]\n", `{"prior": [0.5, {"a": 1}]}`},
		{"prior: [0.5, null]\n", `{"prior": [0.5, null]}`},
		{"prior: [0.5, true]\n", `{"prior": [0.5, true]}`},
		{"prior: 0.5\n", `{"prior": 0.5}`},
		{"prior: [0.6, 0.6]\n", `{"prior": [0.6, 0.6]}`},
		{"prior: [0.5, 0.5]\nutility: [[1, 2], 3]\n", `{"prior": [0.5, 0.5], "utility": [[1, 2], 3]}`},
		{"prior: [0.5, 0.5]\nutility: [[1, 2], [[3], 4]]\n", `{"prior": [0.5, 0.5], "utility": [[1, 2], [[3], 4]]}`},
		{"prior: [0.5, 0.5]\norder: [[1, 2], [\"2\", 1]]\n", `{"prior": [0.5, 0.5], "order": [[1, 2], ["2", 1]]}`},
		{"prior: [0.5, 0.5]\norder: [[1, 2], [2.0, 1]]\n", `{"prior": [0.5, 0.5], "order": [[1, 2], [2.0, 1]]}`},
		{"prior: [0.5, 0.5]\norder: [[1, 2], [3, 1]]\n", `{"prior": [0.5, 0.5], "order": [[1, 2], [3, 1]]}`},
		{"prior: [0.5, 0.5]\nmechanism: [[1, 0], [0.5, 0.6]]\n", `{"prior": [0.5, 0.5], "mechanism": [[1, 0], [0.5, 0.6]]}`},
		{"prior: [0.5, 0.5]\nprivacy: {measure: alip, epsilon: 1}\n", `{"prior": [0.5, 0.5], "privacy": {"measure": "alip", "epsilon": 1}}`},
		{"prior: [0.5, 0.5]\nprivacy: {epsilon: 1}\n", `{"prior": [0.5, 0.5], "privacy": {"epsilon": 1}}`},
		{"prior: [0.5, 0.5]\nprivacy: pml\n", `{"prior": [0.5, 0.5], "privacy": "pml"}`},
		{"prior: [0.5, 0.5]\nobjective: [a]\n", `{"prior": [0.5, 0.5], "objective": ["a"]}`},
		{"prior: [0.5, 0.5]\nprior: [0.5, 0.5]\n", `{"prior": [0.5, 0.5], "prior": [0.5, 0.5]}`},
		{"[1, 2]\n", `[1, 2]`},
		{"", ""},
	}
	for _, tt := range tests {
		_, errY := Parse([]byte(tt.yaml), YAML)
		_, errJ := Parse([]byte(tt.json), JSON)
		require.Error(t, errY, tt.yaml)
		require.Error(t, errJ, tt.json)
		assert.Equal(t, errY.Error(), errJ.Error(), "YAML %q and JSON %q", tt.yaml, tt.json)
	}
}

// number accepts numbers, decimal strings and fractions and refuses the
// rest with a message.
func TestNumber(t *testing.T) {
	good := []struct {
		text string
		str  bool
		want float64
	}{
		{"0.25", false, 0.25},
		{"0.25", true, 0.25},
		{"1/4", true, 0.25},
		{"1/4", false, 0.25}, // unquoted in YAML
		{" 1 / 7 ", true, 1.0 / 7},
		{"-3/4", true, -0.75},
		{"1.5/0.5", true, 3},
		{".5", false, 0.5},
		{"5.", false, 5},
		{"+2", false, 2},
		{"-1e-3", false, -0.001},
		{"2E+2", false, 200},
		{"0e-400", false, 0},
		{"0.000e-400", false, 0},
		{"4e-320", false, 4e-320}, // subnormal, not zero
	}
	for _, tt := range good {
		x, msg := number(&node{kind: scalarNode, str: tt.str, text: tt.text})
		assert.Empty(t, msg, tt.text)
		assert.Equal(t, tt.want, x, tt.text)
	}
	bad := []struct {
		n    node
		want string
	}{
		{node{kind: scalarNode, text: "abc"}, `"abc" is not a number`},
		{node{kind: scalarNode, text: ""}, `"" is not a number`},
		{node{kind: scalarNode, text: "1/0"}, `"1/0" has a zero denominator`},
		{node{kind: scalarNode, text: "1/0.0"}, `"1/0.0" has a zero denominator`},
		{node{kind: scalarNode, text: "1/"}, `"1/" is not a number (a fraction is written a/b)`},
		{node{kind: scalarNode, text: "1/2/3"}, `"1/2/3" is not a number (a fraction is written a/b)`},
		{node{kind: scalarNode, text: "/2"}, `"/2" is not a number`},
		{node{kind: scalarNode, text: "NaN"}, "is NaN"},
		{node{kind: scalarNode, text: ".nan"}, "is NaN"},
		{node{kind: scalarNode, text: "-.inf"}, "is infinite"},
		{node{kind: scalarNode, text: "+Inf"}, "is infinite"},
		{node{kind: scalarNode, text: "Infinity"}, "is infinite"},
		{node{kind: scalarNode, text: "1e999"}, `"1e999" is out of range`},
		{node{kind: scalarNode, text: "1e300/1e-300"}, `"1e300/1e-300" is out of range`},
		{node{kind: scalarNode, text: "1e-400"}, `"1e-400" is out of range (a magnitude below the least positive float64, 4.9e-324, would be read as 0)`},
		{node{kind: scalarNode, text: "-2.5e-330"}, `"-2.5e-330" is out of range (a magnitude below the least positive float64, 4.9e-324, would be read as 0)`},
		{node{kind: scalarNode, text: "1/1e-400"}, `"1/1e-400" is out of range (a magnitude below the least positive float64, 4.9e-324, would be read as 0)`},
		{node{kind: scalarNode, text: "1e-300/1e300"}, `"1e-300/1e300" is out of range (a magnitude below the least positive float64, 4.9e-324, would be read as 0)`},
		{node{kind: scalarNode, text: "0x10"}, `"0x10" is not a number`},
		{node{kind: scalarNode, text: "1_000"}, `"1_000" is not a number`},
		{node{kind: scalarNode, text: "1e"}, `"1e" is not a number`},
		{node{kind: scalarNode, text: "."}, `"." is not a number`},
		{node{kind: nullNode}, "is empty (null), not a number"},
		{node{kind: seqNode}, "is a list, not a number"},
		{node{kind: mapNode}, "is a mapping, not a number"},
		{node{kind: aliasNode}, "is a YAML alias, not a number"},
	}
	for _, tt := range bad {
		_, msg := number(&tt.n)
		assert.Equal(t, tt.want, msg, tt.n.text)
	}
}

func TestInteger(t *testing.T) {
	x, msg := integer(&node{kind: scalarNode, text: "+3"})
	assert.Empty(t, msg)
	assert.Equal(t, 3, x)
	for text, want := range map[string]string{
		"2.5":                  `"2.5" is not an integer`,
		"2.0":                  `"2.0" is not an integer as written: give its digits alone (2)`,
		"1e3":                  `"1e3" is not an integer as written: give its digits alone (1000)`,
		"1e30":                 `"1e30" is beyond the integers a file can hold (|n| ≤ 9223372036854775807)`,
		"9223372036854775808":  `"9223372036854775808" is beyond the integers a file can hold (|n| ≤ 9223372036854775807)`,
		"12345678901234567.0":  `"12345678901234567.0" is not an integer as written: give its digits alone`,
		"-0.0":                 `"-0.0" is not an integer as written: give its digits alone (0)`,
		"1/2":                  `"1/2" is not an integer`,
		"99999999999999999999": `"99999999999999999999" is beyond the integers a file can hold (|n| ≤ 9223372036854775807)`,
		".inf":                 "is infinite",
		"x":                    `"x" is not an integer`,
	} {
		_, msg := integer(&node{kind: scalarNode, text: text})
		assert.Equal(t, want, msg, text)
	}
	_, msg = integer(&node{kind: scalarNode, str: true, text: "2"})
	assert.Equal(t, `"2" is a string, not an integer`, msg)
}

// A long offending text is shortened so that the message stays readable.
func TestLongTextIsShortened(t *testing.T) {
	long := strings.Repeat("x", 10000)
	_, err := Parse([]byte(`{"prior": ["`+long+`"]}`), JSON)
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 120)
	assert.Contains(t, err.Error(), "prior entry 1: \"xxxx")
}

// Deep nesting, which the schema never needs, is refused without recursion
// into it.
func TestDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	_, err := Parse([]byte(`{"utility": `+deep+`, "prior": [1]}`), JSON)
	require.EqualError(t, err, "utility row 1, column 1: is a list, not a number")
	_, err = Parse([]byte("utility: "+deep+"\nprior: [1]\n"), YAML)
	require.EqualError(t, err, "utility row 1, column 1: is a list, not a number")
	deeper := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	_, err = Parse([]byte(`{"utility": `+deeper+`}`), JSON)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exceeded max depth")
	_, err = Parse([]byte(`{"utility": [[[`), JSON)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not valid JSON")
	_, err = Parse([]byte("utility: "+strings.Repeat("[", 20000)), YAML)
	require.Error(t, err)
}

// A YAML alias is refused where it is used, so a "billion laughs" document
// cannot expand.
func TestAliasBomb(t *testing.T) {
	doc := `prior: [1]
a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
utility: [*d,*d,*d,*d,*d,*d,*d,*d,*d]
`
	_, err := Parse([]byte(doc), YAML)
	require.EqualError(t, err, `problem: unknown key "a"; allowed keys are name, inputs, outputs, prior, utility, order, mechanism, privacy, objective, utility_rule, points, output_points, mechanism_sparse, prior_set, certificate`)
	_, err = Parse([]byte("prior: [1]\nutility: &u [[0]]\norder: *u\n"), YAML)
	require.EqualError(t, err, "order: is a YAML alias, not a list of rows")
}

func TestMoreThanOneDocument(t *testing.T) {
	_, err := Parse([]byte("prior: [1]\n---\nprior: [1]\n"), YAML)
	require.EqualError(t, err, "problem: the file holds more than one YAML document")
	_, err = Parse([]byte(`{"prior": [1]} {"prior": [1]}`), JSON)
	require.EqualError(t, err, "problem: the file holds more than one JSON value")
}

func TestParseUnknownFormat(t *testing.T) {
	_, err := Parse([]byte("prior: [1]"), Format("toml"))
	require.EqualError(t, err, `unknown problem file format "toml" (want yaml or json)`)
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}
