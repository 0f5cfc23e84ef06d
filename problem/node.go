package problem

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// A node is one value of a parsed document, in a form shared by YAML and
// JSON so that both formats are checked by the same code and give the same
// messages.
type node struct {
	kind   kind
	str    bool     // a scalar written as a string (quoted in YAML, a JSON string)
	pruned bool     // a collection below maxDepth whose content was not kept
	text   string   // the text of a scalar
	keys   []string // the keys of a mapping, in document order
	kids   []node   // the items of a sequence, or the values of a mapping
	// list holds the value of a key of listKeys read straight into Go
	// values (see yamlmatrix.go and json.go), kids then being nil.
	list *list
}

// A list is the value of a key of listKeys read without a node per entry:
// a node costs some ten times the 8 bytes of a number.
type list struct {
	rows [][]float64 // a matrix: utility and mechanism as number reads them, order as integer does
	nums []float64   // the prior, as number reads it
	strs []string    // labels, the texts of their scalars
	// bad is the first item that is not read this way, as a node: the row
	// len(rows), entry len(nums) or label len(strs). The items after it are
	// not kept: the decoder refuses bad, and so never reaches them.
	bad *node
}

// newList returns an empty list of the kind k reads.
func newList(k listKind) *list {
	switch k {
	case numbers:
		return &list{nums: []float64{}}
	case texts:
		return &list{strs: []string{}}
	}
	return &list{rows: [][]float64{}}
}

// items returns the number of items read.
func (l *list) items() int { return len(l.rows) + len(l.nums) + len(l.strs) }

// A listKind says how a key's value is read into a list.
type listKind uint8

const (
	floatRows listKind = iota // rows of numbers: utility, mechanism
	intRows                   // rows of integers: order
	numbers                   // a list of numbers: prior
	texts                     // a list of labels: inputs, outputs
)

// listKeys are the keys of the document whose values are read into lists
// where they are written as programs write them.
var listKeys = []struct {
	name string
	kind listKind
}{
	{"utility", floatRows}, {"mechanism", floatRows}, {"order", intRows}, {"mechanism_sparse", floatRows},
	{"prior", numbers}, {"inputs", texts}, {"outputs", texts}, {"points", floatRows}, {"output_points", floatRows},
}

// listKey returns how the value of key is read, and false when it is not
// one of listKeys.
func listKey(key string) (listKind, bool) {
	for _, k := range listKeys {
		if k.name == key {
			return k.kind, true
		}
	}
	return 0, false
}

type kind uint8

const (
	nullNode kind = iota
	scalarNode
	seqNode
	mapNode
	aliasNode // a YAML alias, refused wherever it appears
)

// maxDepth is the deepest level the schema looks at: the document mapping is
// at depth 0, a matrix at 1, its rows at 2 and their entries at 3, and
// utility_rule.grid.origin's numbers at 4. Content below is replaced by an
// empty node of the same kind, which the decoder refuses by kind, so deeply
// nested input costs no memory.
const maxDepth = 4

func (n *node) describe() string {
	switch n.kind {
	case nullNode:
		return "empty (null)"
	case seqNode:
		return "a list"
	case mapNode:
		return "a mapping"
	case aliasNode:
		return "a YAML alias"
	}
	return quote(n.text)
}

// quote quotes s for an error message, shortened so that the message stays
// one readable line.
func quote(s string) string {
	const max = 40
	r := []rune(s)
	if len(r) > max {
		return fmt.Sprintf("%q", string(r[:max])+"…")
	}
	return fmt.Sprintf("%q", s)
}

// parseYAML parses one YAML document into a node tree, the values of
// listKeys read straight into Go values where parseYAMLLists can (see
// yamlmatrix.go).
// A document that it can not read so and that holds more than
// maxTreeValues values is refused before yaml.v3 reads it.
func parseYAML(data []byte) (node, error) {
	root, ok, declined := parseYAMLLists(data)
	if ok {
		return root, nil
	}
	if n := treeValues(data); n > maxTreeValues {
		return node{}, tooManyValues(data, n, declined)
	}
	return parseYAMLNodes(data)
}

// parseYAMLNodes parses one YAML document into a node tree through
// yaml.v3's node tree.
func parseYAMLNodes(data []byte) (node, error) {
	doc, err := decodeYAML(data)
	if err != nil {
		return node{}, err
	}
	if doc == nil {
		return node{kind: nullNode}, nil
	}
	return fromYAML(doc, 0), nil
}

// decodeYAML parses one YAML document with yaml.v3; it returns nil for an
// empty one.
func decodeYAML(data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, syntaxError("YAML", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, syntaxError("YAML", err)
		}
		return nil, fieldErr("problem", -1, -1, "the file holds more than one YAML document")
	}
	return &doc, nil
}

func fromYAML(y *yaml.Node, depth int) node {
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return node{kind: nullNode}
		}
		return fromYAML(y.Content[0], depth)
	case yaml.AliasNode:
		return node{kind: aliasNode}
	case yaml.SequenceNode:
		n := node{kind: seqNode}
		if depth >= maxDepth {
			n.pruned = true
			return n
		}
		n.kids = make([]node, len(y.Content))
		for i, c := range y.Content {
			n.kids[i] = fromYAML(c, depth+1)
		}
		return n
	case yaml.MappingNode:
		n := node{kind: mapNode}
		if depth >= maxDepth {
			n.pruned = true
			return n
		}
		k := len(y.Content) / 2
		n.keys = make([]string, k)
		n.kids = make([]node, k)
		for i := 0; i < k; i++ {
			key := y.Content[2*i]
			switch key.Kind {
			case yaml.ScalarNode:
				n.keys[i] = key.Value
			case yaml.AliasNode:
				n.keys[i] = "*" + key.Value
			default:
				n.keys[i] = "?" // a complex key, which no schema key matches
			}
			n.kids[i] = fromYAML(y.Content[2*i+1], depth+1)
		}
		return n
	}
	// A scalar.
	if y.Tag == "!!null" {
		return node{kind: nullNode}
	}
	str := y.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 ||
		(y.Style&yaml.TaggedStyle != 0 && y.Tag == "!!str")
	return node{kind: scalarNode, str: str, text: y.Value}
}

// syntaxError turns a parser error into one line.
func syntaxError(format string, err error) error {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	return fieldErr("problem", -1, -1, "not valid %s: %s", format, msg)
}

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
