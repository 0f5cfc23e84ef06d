package problem

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// parseNodes is Parse with the matrices read into nodes like every other
// value: through yaml.v3's tree for YAML, one node per entry for JSON.
func parseNodes(data []byte, format Format) (*Problem, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var (
		root node
		err  error
	)
	switch format {
	case YAML:
		root, err = parseYAMLNodes(data)
	case JSON:
		root, err = parseJSONRows(data, false)
	}
	if err != nil {
		return nil, err
	}
	return decode(root)
}

// agree parses data both ways and fails unless both give the same problem
// (bitwise) or the same message.
func agree(t *testing.T, data []byte, format Format, what string) *Problem {
	t.Helper()
	want, wantErr := parseNodes(data, format)
	got, err := Parse(data, format)
	if wantErr != nil {
		require.Error(t, err, "%s: the fast path accepted what the node path refuses (%v)", what, wantErr)
		require.Equal(t, wantErr.Error(), err.Error(), what)
		return nil
	}
	require.NoError(t, err, what)
	require.True(t, same(want, got), "%s: the fast path read another problem", what)
	return got
}

// fastYAML reports whether the fast path reads the matrices of a YAML
// document.
func fastYAML(data []byte) bool {
	_, ok, _ := parseYAMLLists(bytes.TrimPrefix(data, []byte("\ufeff")))
	return ok
}

// The files of testdata, good and bad, read the same through the fast
// paths as through the node tree, in the format they are written in and,
// sniffed, in both.
func TestFastPathAgreesOnTestdata(t *testing.T) {
	var files []string
	for _, pattern := range []string{"*.yaml", "*.json", "bad/*.*", "bad/solve/*"} {
		m, err := filepath.Glob(filepath.Join("..", "testdata", pattern))
		require.NoError(t, err)
		files = append(files, m...)
	}
	require.Greater(t, len(files), 40)
	fast := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, format := range []Format{YAML, JSON} {
			agree(t, data, format, path+" as "+string(format))
		}
		if FormatOf(path) == YAML && fastYAML(data) {
			fast++
		}
	}
	// Most YAML files write their matrices as Marshal does.
	assert.Greater(t, fast, 25)
}

// layout writes a matrix value (the text after "key:") in one layout.
type layout struct {
	name  string
	write func(rows [][]string) string
}

var layouts = []layout{
	{"flow on one line", func(rows [][]string) string {
		var s []string
		for _, r := range rows {
			s = append(s, "["+strings.Join(r, ", ")+"]")
		}
		return " [" + strings.Join(s, ", ") + "]"
	}},
	{"flow, one row a line, closing bracket in column 1", func(rows [][]string) string {
		var s []string
		for _, r := range rows {
			s = append(s, "  ["+strings.Join(r, ",")+"]")
		}
		return " [\n" + strings.Join(s, ",\n") + "\n]"
	}},
	{"flow on the next line, commas leading", func(rows [][]string) string {
		var s []string
		for _, r := range rows {
			s = append(s, "[ "+strings.Join(r, "\n    , ")+" ]")
		}
		return "\n  [" + strings.Join(s, "\n  , ") + "]  "
	}},
	{"block of flow rows, indented", func(rows [][]string) string {
		var b strings.Builder
		b.WriteString("  \n")
		for _, r := range rows {
			b.WriteString("    -   [ " + strings.Join(r, " ,  ") + " ]  \n\n")
		}
		return strings.TrimSuffix(b.String(), "\n\n")
	}},
	{"block of flow rows in column 1, rows over two lines", func(rows [][]string) string {
		var b strings.Builder
		for _, r := range rows {
			h := (len(r) + 1) / 2
			b.WriteString("\n- [" + strings.Join(r[:h], ", "))
			if h < len(r) {
				b.WriteString(",\n" + strings.Join(r[h:], ", "))
			}
			b.WriteString("]")
		}
		return b.String()
	}},
	{"block of block rows", func(rows [][]string) string {
		var b strings.Builder
		for _, r := range rows {
			for j, x := range r {
				if j == 0 {
					b.WriteString("\n  -   - " + x)
				} else {
					b.WriteString("\n      -  " + x + " ")
				}
			}
		}
		return b.String()
	}},
	{"block of block rows in column 1", func(rows [][]string) string {
		var b strings.Builder
		for _, r := range rows {
			for j, x := range r {
				if j == 0 {
					b.WriteString("\n- - " + x)
				} else {
					b.WriteString("\n  - " + x)
				}
			}
		}
		return b.String()
	}},
}

// spell writes a matrix's entries as YAML scalars: the shortest decimal,
// or, with quoted, in double quotes, or as 17 significant digits in single
// quotes, by turns.
func spell(a [][]float64, quoted bool) [][]string {
	out := make([][]string, len(a))
	for i, row := range a {
		for j, x := range row {
			s := formatFloat(x)
			if quoted {
				if (i+j)%2 == 0 {
					s = `"` + s + `"`
				} else {
					s = "'" + strconv.FormatFloat(x, 'e', 16, 64) + "'"
				}
			}
			out[i] = append(out[i], s)
		}
	}
	return out
}

func spellInts(a [][]int) [][]string {
	out := make([][]string, len(a))
	for i, row := range a {
		for _, x := range row {
			out[i] = append(out[i], strconv.Itoa(x))
		}
	}
	return out
}

// withLayout writes p as Marshal does and then rewrites its matrices in
// the layout l; with order it also writes the order next to a utility.
func withLayout(t *testing.T, p *Problem, l layout, quoted, order bool) []byte {
	t.Helper()
	text, err := Marshal(p, YAML)
	require.NoError(t, err)
	values := map[string]string{}
	if p.Utility != nil {
		values["utility"] = l.write(spell(p.Utility, quoted))
	}
	if p.Order != nil && (p.Utility == nil || order) {
		values["order"] = l.write(spellInts(p.Order))
	}
	if p.Mechanism != nil {
		values["mechanism"] = l.write(spell(p.Mechanism, quoted))
	}
	var out []string
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	for k := 0; k < len(lines); k++ {
		key, _, _ := strings.Cut(lines[k], ":")
		v, ok := values[key]
		if !ok {
			out = append(out, lines[k])
			continue
		}
		for k+1 < len(lines) && strings.HasPrefix(lines[k+1], " ") {
			k++ // the value as Marshal wrote it
		}
		out = append(out, key+":"+v)
		if order && key == "utility" {
			out = append(out, "order:"+values["order"])
		}
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

// Every valid problem of testdata, its matrices rewritten in each layout
// the fast path reads, with LF and CR LF line breaks, reads back to the
// same problem through the fast path as through yaml.v3's tree.
func TestFastPathLayouts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.yaml"))
	require.NoError(t, err)
	json, err := filepath.Glob(filepath.Join("..", "testdata", "*.json"))
	require.NoError(t, err)
	n := 0
	for _, path := range append(files, json...) {
		p, err := Load(path)
		require.NoError(t, err, path)
		for _, l := range layouts {
			for _, v := range []struct {
				quoted, order, crlf bool
			}{{false, false, false}, {true, false, false}, {false, true, true}} {
				data := withLayout(t, p, l, v.quoted, v.order)
				if v.crlf {
					data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
				}
				what := fmt.Sprintf("%s, %s, %+v:\n%s", path, l.name, v, data)
				require.True(t, fastYAML(data), "the fast path declined %s", what)
				got := agree(t, data, YAML, what)
				require.NotNil(t, got, what)
				require.True(t, same(p, got), what)
				n++
			}
		}
	}
	assert.Greater(t, n, 200)
}

// Values outside the fast layouts, and documents where a matrix key is not
// what it seems, are read by yaml.v3 alone: the result or the message is
// that of yaml.v3's tree. fast says whether the fast path takes the file.
func TestFastPathFallsBack(t *testing.T) {
	const head = "prior: !!seq [0.5, 0.5]\n" // a tag: the fast path leaves the prior to yaml.v3
	tests := []struct {
		name, doc string
		fast      bool
	}{
		{"plain", head + "utility:\n  - [1, 2]\n  - [3, 4]\n", true},
		{"no final line break", head + "utility: [[1, 2], [3, 4]]", true},
		{"a key after", head + "utility:\n- [1, 2]\n- [3, 4]\n\n\nname: x\n", true},
		{"empty matrix", head + "utility: []\n", true},
		{"empty rows", head + "utility: [[], []]\n", true},
		{"fractions", head + "utility: [[1/3, '2/3'], [\"-1/7\", +.5e-3]]\n", true},
		{"line comment", head + "utility:\n  - [1, 2] # first\n  - [3, 4]\n", true},
		{"comment line after", head + "utility:\n  - [1, 2]\n  - [3, 4]\n# end\nname: x\n", true},
		{"comment inside a row", head + "utility: [[1, # one\n  2], [3, 4]]\n", true},
		{"tab", head + "utility:\n  - [1,\t2]\n  - [3, 4]\n", false},
		{"anchor and alias", head + "utility:\n  - &r [1, 2]\n  - *r\n", false},
		{"tag", head + "utility: !!seq [[1, 2], [3, 4]]\n", false},
		{"tagged entry", head + "utility: [[!!float 1, 2], [3, 4]]\n", false},
		{"not a number", head + "utility: [[1, abc], [3, 4]]\n", false},
		{"NaN", head + "utility: [[1, .nan], [3, 4]]\n", false},
		{"out of range", head + "utility: [[1, 1e400], [3, 4]]\n", false},
		{"zero denominator", head + "utility: [[1, 1/0], [3, 4]]\n", false},
		{"hexadecimal", head + "utility: [[0x1F, 2], [3, 4]]\n", false},
		{"underscore", head + "utility: [[1_000, 2], [3, 4]]\n", false},
		{"escape", head + "utility: [[\"\\x31\", 2], [3, 4]]\n", false},
		{"space in quotes", head + "utility: [[\" 1\", 2], [3, 4]]\n", false},
		{"two entries folded", head + "utility: [[1\n  2, 3], [3, 4]]\n", false},
		{"block entry folded", head + "utility:\n- - 1\n    2\n  - 3\n- - 3\n  - 4\n", false},
		{"trailing comma", head + "utility: [[1, 2,], [3, 4]]\n", false},
		{"empty entry", head + "utility: [[1, , 2], [3, 4]]\n", false},
		{"null entry", head + "utility:\n- - 1\n  -\n- - 3\n  - 4\n", false},
		{"a mapping entry", head + "utility: [[1: 2, 3], [3, 4]]\n", false},
		{"indented line after", head + "utility:\n  - [1, 2]\n  - [3, 4]\n   - [5, 6]\nname: x\n", false},
		{"less indented row", head + "utility:\n    - [1, 2]\n  - [3, 4]\n", false},
		{"flow not closed", head + "utility: [[1, 2], [3, 4]\nname: x\n", false},
		{"text after the value", head + "utility: [[1, 2], [3, 4]] x\n", false},
		{"nested deeper", head + "utility: [[[1], 2], [3, 4]]\n", false},
		{"string in an order", head + "order: [['1', 2], [2, 1]]\n", false},
		{"fraction in an order", head + "order: [[1/1, 2], [2, 1]]\n", false},
		{"decimal in an order", head + "order: [[1.0, 2], [2, 1]]\n", false},
		{"huge order entry", head + "order: [[99999999999999999, 2], [2, 1]]\n", false},
		{"order", head + "order:\n- - 1\n  - 2\n- [2, +1]\n", true},
		{"inside a quoted name", head + "name: \"a\nutility: [[1, 2], [3, 4]]\n\"\n", false},
		{"inside a block scalar", head + "name: |\n  a\nutility: [[1, 2], [3, 4]]\n", true},
		{"root in flow", "{prior: [0.5, 0.5],\nutility: [[1, 2], [3, 4]]\n}\n", false},
		{"root in flow, key after", "{prior: [0.5, 0.5],\nutility: [[1, 2], [3, 4]]\nname: x}\n", false},
		{"indented root", "  prior: [0.5, 0.5]\n  utility: [[1, 2], [3, 4]]\n", false},
		{"key given twice", head + "utility: [[1, 2], [3, 4]]\nutility: [[1, 2], [3, 4]]\n", true},
		{"two documents", head + "utility: [[1, 2], [3, 4]]\n---\nname: x\n", false},
		{"syntax error after", head + "utility: [[1, 2], [3, 4]]\nname: [x\n", false},
		{"lone CR", head + "utility: [[1, 2], [3, 4]]\rname: x\n", false},
		{"line separator", head + "name: \"a\u2028b\"\nutility: [[1, 2], [3, 4]]\n", false},
		{"key without a space", head + "utility:[[1, 2], [3, 4]]\n", false},
		{"flow in column 1 on the next line", head + "utility:\n[[1, 2], [3, 4]]\n", false},
		{"comment with a lone CR before", "# a\rb\n" + head + "utility: [[1, 2], [3, 4]]\n", false},
		{"null value", head + "utility:\n", false},
		{"null value at the end", head + "utility:", false},
		{"document end", head + "utility: [[1, 2],\n...\n[3, 4]]\n", false},
		{"byte order mark", "\ufeff" + head + "utility: [[1, 2], [3, 4]]\n", true},
		{"dash in flow", head + "utility: [[1, 2],\n- [3, 4]]\n", false},
		{"ragged", head + "utility: [[1, 2], [3]]\n", true},
		{"comments everywhere", "# a problem\nprior: [0.5, # first\n  0.5]  # uniform\n# utility next\nutility: # distances\n  # row 1\n  - - 1 # one\n    # two next\n    - 2\n# row 2\n  - [3, 4]\n# end\n", true},
		{"comment in column 1 in a flow", head + "utility: [[1, 2],\n# c\n  [3, 4]]\n", true},
		{"comment after a comma without a space", head + "utility: [[1, 2],# c\n  [3, 4]]\n", false},
		{"comment without a space", head + "utility: [[1, 2], [3, 4]]# c\n", false},
		{"comment with a control character", head + "utility: [[1, 2], [3, 4]] # \x01\n", false},
		{"comment with invalid UTF-8", head + "utility: [[1, 2], [3, 4]] # \xff\n", false},
		{"comment with a tab", head + "utility: [[1, 2], [3, 4]] # a\tb\n", true},
		{"comment line with a tab before", head + "utility:\n  - [1, 2]\n\t# c\n  - [3, 4]\n", false},
		{"prior, flow", "prior: [0.25, '0.25', \"1/2\"]\n", true},
		{"prior, block", "prior:\n- 0.5\n-   1/2   # half\n", true},
		{"prior, nested", "prior: [[0.5], 0.5]\n", false},
		{"prior, null entry", "prior:\n- 0.5\n-\n", false},
		{"prior, NaN", "prior: [.nan, 1]\n", false},
		{"labels, flow", head + "inputs: [a b, \"c # d\", 'it''s', x_1.5+(2)/3, \"日本\", \"😀\", '']\n", true},
		{"labels, block", head + "inputs:\n  - \"a\"  # first\n  - b c\n", true},
		{"labels, null", head + "inputs: [a, null]\n", false},
		{"labels, Null", head + "inputs: [a, Null]\n", false},
		{"labels, tilde", head + "inputs: [a, ~]\n", false},
		{"labels, escape", head + "inputs: [a, \"b\\tc\"]\n", false},
		{"labels, tab", head + "inputs: [a, \"b\tc\"]\n", false},
		{"labels, control character", head + "inputs: [a, \"b\x01c\"]\n", false},
		{"labels, invalid UTF-8", head + "inputs: [a, \"b\xffc\"]\n", false},
		{"labels, byte order mark", head + "inputs: [a, \"b\ufeffc\"]\n", false},
		{"labels, quoted over two lines", head + "inputs: [a, \"b\n c\"]\n", false},
		{"labels, plain over two lines", head + "inputs: [a, b\n  c]\n", false},
		{"labels, colon", head + "inputs: [a, b:c]\n", false},
		{"labels, a mapping", head + "inputs: [a, b: c]\n", false},
		{"labels, a list", head + "inputs: [a, [b]]\n", false},
		{"labels, dash first", head + "inputs: [a, -b]\n", false},
		{"labels, block, plain with a comma", head + "inputs:\n- a, b\n- c\n", false},
		{"labels, numbers and booleans", head + "inputs: [1.50, yes]\n", true},
		{"labels, repeated", head + "inputs: [a, a]\n", true},
		{"labels, count", head + "inputs: [a]\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.fast, fastYAML([]byte(tt.doc)), "fast path taken")
			agree(t, []byte(tt.doc), YAML, tt.doc)
		})
	}
}

// A 400 × 400 utility and mechanism of full-precision numbers (150 × 150
// outside the long suites), in the layouts of the fast path and in JSON,
// read back bit for bit both ways.
func TestLargeMatrixBothWays(t *testing.T) {
	n := 400
	if testlong.Short() {
		n = 150
	}
	r := rand.New(rand.NewPCG(1, 2))
	p := &Problem{Prior: make([]float64, n), Utility: make([][]float64, n), Mechanism: make([][]float64, n)}
	for i := range p.Utility {
		p.Prior[i] = 1 / float64(n)
		p.Utility[i] = make([]float64, n)
		p.Mechanism[i] = make([]float64, n)
		for j := range p.Utility[i] {
			p.Utility[i][j] = (r.Float64() - 0.5) * 1e6 * r.ExpFloat64()
			p.Mechanism[i][j] = 1 / float64(n)
		}
		p.Utility[i][i%7] = -0.0
		p.Utility[i][1+i%5] = 5e-324
	}
	p.Prior[0] += 1 - sum(p.Prior)
	p.Order = p.Utility.Order()
	require.NoError(t, p.Validate())
	for _, l := range []layout{layouts[0], layouts[3], layouts[6]} {
		data := withLayout(t, p, l, false, false)
		require.True(t, fastYAML(data), l.name)
		got := agree(t, data, YAML, l.name)
		require.True(t, same(p, got), l.name)
	}
	data, err := Marshal(p, JSON)
	require.NoError(t, err)
	got := agree(t, data, JSON, "JSON")
	require.True(t, same(p, got), "JSON")
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// JSON rows that are not all numbers the decoder reads are read into
// nodes, so that the decoder names the entry.
func TestJSONRowsFallBack(t *testing.T) {
	const head = `{"prior": [0.5, 0.5], `
	for _, doc := range []string{
		`"utility": [[1, 2], [3, 4]]}`,
		`"utility": [[1, "2"], [3, 4]]}`,
		`"utility": [[1, "abc"], [3, 4]]}`,
		`"utility": [[1, null], [3, 4]]}`,
		`"utility": [[1, true], [3, 4]]}`,
		`"utility": [[1, [2]], [3, 4]]}`,
		`"utility": [[1, {"a": 2}], [3, 4]]}`,
		`"utility": [[1, 1e400], [3, 4]]}`,
		`"utility": [[1, 2], 3]}`,
		`"utility": [[1, 2], []]}`,
		`"utility": {"a": 1}}`,
		`"utility": 5}`,
		`"order": [[1, 2.0], [2, 1]]}`,
		`"order": [[1, 2e0], [2, 1]]}`,
		`"order": [[1, "2"], [2, 1]]}`,
		`"order": [[1, 99999999999999999999], [2, 1]]}`,
		`"order": [[1, -0], [2, 1]]}`,
		`"order": [[1, 2], [2, 1]]}`,
		`"mechanism": [[0.5, 0.5], [1, -0]], "utility": [[1, 2], [3, 4]], "utility": [[1, 2], [3, 4]]}`,
		`"privacy": {"utility": [[1, 2]]}}`,
	} {
		agree(t, []byte(head+doc), JSON, doc)
	}
}

// FuzzMatrixFastPath checks that the fast paths and the node tree read any
// document to the same problem or the same message.
//
//	go test -fuzz=FuzzMatrixFastPath ./problem
func FuzzMatrixFastPath(f *testing.F) {
	for _, pattern := range []string{"*.yaml", "*.json", "bad/*.*"} {
		files, err := filepath.Glob(filepath.Join("..", "testdata", pattern))
		if err != nil {
			f.Fatal(err)
		}
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("prior: [0.5, 0.5]\nutility: [[1, 2],\n  [3, 4]]\norder:\n- - 1\n  - 2\n- [2, 1]\n"))
	f.Add([]byte("# c\nprior: [0.5, # one\n  '1/2']  # two\ninputs: [a b, \"c # d\", 'e''f']\noutputs:\n- x\n  # c\n- \"y\"\nutility: # u\n  - - 1 # c\n    - 2\n# c\n  - [3, 4]\n"))
	f.Add([]byte(`{"prior": ["1/2", 0.5], "inputs": ["a", 1, true], "utility": [[1, "2"], [3, 4]], "order": [[1, 2], [2, 1]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{YAML, JSON} {
			want, wantErr := parseNodes(data, format)
			got, err := Parse(data, format)
			switch {
			case wantErr != nil && err == nil:
				t.Fatalf("%s: the fast path accepted what the node path refuses: %v", format, wantErr)
			case wantErr != nil && err.Error() != wantErr.Error():
				t.Fatalf("%s: messages differ:\n%v\n%v", format, err, wantErr)
			case wantErr == nil && err != nil:
				t.Fatalf("%s: the fast path refused what the node path reads: %v", format, err)
			case wantErr == nil && !same(want, got):
				t.Fatalf("%s: the fast path read another problem", format)
			}
		}
	})
}

// marshalYAMLNodes writes p as a yaml.v3 node tree, the matrices included:
// what Marshal writes must be this text, byte for byte.
func marshalYAMLNodes(t *testing.T, p *Problem) []byte {
	t.Helper()
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range entries(p) {
		var v *yaml.Node
		switch a := e.val.(type) {
		case [][]float64:
			v = &yaml.Node{Kind: yaml.SequenceNode}
			for _, row := range a {
				v.Content = append(v.Content, yamlValue(row))
			}
		case [][]int:
			v = &yaml.Node{Kind: yaml.SequenceNode}
			for _, row := range a {
				r := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
				for _, x := range row {
					r.Content = append(r.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.Itoa(x)})
				}
				v.Content = append(v.Content, r)
			}
		default:
			v = yamlValue(e.val)
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.key}, v)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	require.NoError(t, enc.Encode(m))
	require.NoError(t, enc.Close())
	return buf.Bytes()
}

// Marshal writes the rows of the matrices itself, as yaml.v3 writes them.
func TestMarshalYAMLWritesRowsAsYAMLv3(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.yaml"))
	require.NoError(t, err)
	var problems []*Problem
	for _, path := range files {
		p, err := Load(path)
		require.NoError(t, err, path)
		problems = append(problems, p)
	}
	tricky := &Problem{
		Name:    "utility: []\nmechanism: []",
		Inputs:  []string{"utility: []", "order: [] "},
		Prior:   []float64{0.25, 0.75},
		Order:   [][]int{{1, 2}, {2, 1}},
		Privacy: nil,
	}
	tiny := &Problem{
		Prior:     []float64{1},
		Utility:   [][]float64{{-0.0, 5e-324, 1e308, -1.5e-7}},
		Mechanism: [][]float64{{0.1, 0.2, 0.3, 0.4}},
	}
	r := rand.New(rand.NewPCG(3, 4))
	random := &Problem{Prior: make([]float64, 60), Utility: make([][]float64, 60)}
	for i := range random.Utility {
		random.Prior[i] = 1.0 / 60
		random.Utility[i] = make([]float64, 60)
		for j := range random.Utility[i] {
			random.Utility[i][j] = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(600)-300))
		}
	}
	random.Prior[0] += 1 - sum(random.Prior)
	problems = append(problems, tricky, tiny, random)
	for _, p := range problems {
		want := marshalYAMLNodes(t, p)
		got, err := Marshal(p, YAML)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}

// A rule's points and output points are read by the fast path in its
// layouts, to the same problem as the node tree reads, and a file of more
// points than the node tree can hold (its 3 nodes a point) is read.
func TestPointsReadFast(t *testing.T) {
	var flow, block strings.Builder
	for i := range 200 {
		if i > 0 {
			flow.WriteString(", ")
		}
		fmt.Fprintf(&flow, "[%d.5, %d]", i, i%7)
		fmt.Fprintf(&block, "  - [%d.5, %d]\n", i, i%7)
	}
	tail := "utility_rule: {metric: euclidean}\nprivacy: {measure: pml, epsilon: 1}\nobjective: expected-utility\n"
	for name, doc := range map[string]string{
		"flow":          "prior: uniform\npoints: [" + flow.String() + "]\n" + tail,
		"block":         "prior: uniform\npoints:\n" + block.String() + tail,
		"output points": "prior: [0.5, 0.5]\npoints: [[0, 0], [1, 1]]\noutput_points: [" + flow.String() + "]\n" + tail,
	} {
		require.True(t, fastYAML([]byte(doc)), name)
		p := agree(t, []byte(doc), YAML, name)
		require.NotNil(t, p, name)
		require.NotNil(t, p.Rule, name)
		pts := p.Rule.Inputs.Points
		if name == "output points" {
			pts = p.Rule.Outputs.Points
		}
		require.Len(t, pts, 200, name)
		assert.Equal(t, [2]float64{137.5, 137 % 7}, pts[137], name)
	}
	var many strings.Builder
	const n = maxTreeValues/3 + 1000
	for i := range n {
		fmt.Fprintf(&many, "- [%d, %d]\n", i%1000, i/1000)
	}
	p, err := Parse([]byte("prior: uniform\npoints:\n"+many.String()+tail), YAML)
	require.NoError(t, err)
	require.Len(t, p.Rule.Inputs.Points, n)
	assert.Equal(t, [2]float64{float64((n - 1) % 1000), float64((n - 1) / 1000)}, p.Rule.Inputs.Points[n-1])
}

// A document too large for the node tree names the key whose value the
// fast path declined and that makes it so, not a small one before it.
func TestTooLargeNamesTheLargestValue(t *testing.T) {
	var labels strings.Builder
	for i := range maxTreeValues {
		if i > 0 {
			labels.WriteString(", ")
		}
		fmt.Fprintf(&labels, "\"a\\tb%d\"", i) // an escape: no fast layout
	}
	doc := "prior: uniform\ninputs: [" + labels.String() + "]\nutility_rule: {metric: euclidean, grid: {width: 2, height: 2}}\n"
	_, err := Parse([]byte(doc), YAML)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "for the general YAML reader, which takes at most 262144: inputs (line 2) is not written as a list")
}

// A prior set's bounds in JSON are read straight into numbers, as the
// prior is: the same problem as the node tree reads on a small file, and
// a box over 40 000 letters (80 000 bounds, beyond the tree's 65 536
// values) is read.
func TestJSONPriorSetBoundsReadFast(t *testing.T) {
	small := `{"prior": [0.5, 0.3, 0.2], "order": [[3, 2, 1], [1, 3, 2], [2, 1, 3]], "prior_set": {"lower": [0.4, 0.2, 0.1], "upper": [0.6, 0.4, 0.3]}}`
	p := agree(t, []byte(small), JSON, "small box")
	require.NotNil(t, p)
	require.NotNil(t, p.PriorSet)
	bad := `{"prior": [0.5, 0.3, 0.2], "order": [[3, 2, 1], [1, 3, 2], [2, 1, 3]], "prior_set": {"lower": [0.4, "x", 0.1], "upper": [0.6, 0.4, 0.3]}}`
	agree(t, []byte(bad), JSON, "a bound that is no number")
	const n = 40000
	var pr, lo, hi strings.Builder
	for i := range n {
		sep := ", "
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&pr, "%s%g", sep, 1.0/n)
		fmt.Fprintf(&lo, "%s%g", sep, 0.5/n)
		fmt.Fprintf(&hi, "%s%g", sep, 2.0/n)
	}
	doc := `{"prior": [` + pr.String() + `], "utility_rule": {"metric": "euclidean", "grid": {"width": 200, "height": 200}}, "prior_set": {"lower": [` + lo.String() + `], "upper": [` + hi.String() + `]}}`
	big, err := Parse([]byte(doc), JSON)
	require.NoError(t, err)
	require.NotNil(t, big.PriorSet)
	assert.InDelta(t, 0.5/n, big.PriorSet.Lower[n-1], 1e-20)
	assert.InDelta(t, 2.0/n, big.PriorSet.Upper[0], 1e-20)
}
