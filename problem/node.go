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
	text   string   // the text of a scalar
	keys   []string // the keys of a mapping, in document order
	kids   []node   // the items of a sequence, or the values of a mapping
	pruned bool     // a collection below maxDepth whose content was not kept
	// nums holds a matrix row read straight into floats (see yamlmatrix.go
	// and json.go), kids then being nil: the entries of a utility or
	// mechanism row as number reads them, of an order row as integer does.
	nums []float64
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
// at depth 0, a matrix at 1, its rows at 2 and their entries at 3. Content
// below is replaced by an empty node of the same kind, which the decoder
// refuses by kind, so deeply nested input costs no memory.
const maxDepth = 3

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

// parseYAML parses one YAML document into a node tree, its matrices read
// straight into floats where parseYAMLMatrices can (see yamlmatrix.go).
func parseYAML(data []byte) (node, error) {
	if root, ok := parseYAMLMatrices(data); ok {
		return root, nil
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
