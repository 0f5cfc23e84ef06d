package problem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// parseJSON parses one JSON value into a node tree. encoding/json checks the
// syntax first; the tree is then built by a small parser that trusts it, so
// that a large file costs about one node per value and no per-token
// allocations, and the rows of the matrices cost 8 bytes an entry (see
// jsonReader.matrix).
func parseJSON(data []byte) (node, error) {
	return parseJSONRows(data, true)
}

// parseJSONRows is parseJSON, reading matrix rows straight into floats
// only when dense is true.
func parseJSONRows(data []byte, dense bool) (node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return node{kind: nullNode}, nil
	}
	if !json.Valid(data) {
		dec := json.NewDecoder(bytes.NewReader(data))
		var first json.RawMessage
		if err := dec.Decode(&first); err != nil {
			off := dec.InputOffset()
			var se *json.SyntaxError
			if errors.As(err, &se) {
				off = se.Offset
			} else if errors.Is(err, io.ErrUnexpectedEOF) {
				off = int64(len(data))
			}
			return node{}, syntaxError("JSON", fmt.Errorf("line %d: %w", lineAt(data, off), err))
		}
		return node{}, fieldErr("problem", -1, -1, "the file holds more than one JSON value")
	}
	r := jsonReader{s: data, dense: dense}
	return r.value(0), nil
}

// jsonReader reads a JSON text known to be valid.
type jsonReader struct {
	s     []byte
	i     int
	dense bool // read matrix rows straight into floats
}

func (r *jsonReader) space() {
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *jsonReader) value(depth int) node {
	r.space()
	switch c := r.s[r.i]; c {
	case '{', '[':
		k := seqNode
		if c == '{' {
			k = mapNode
		}
		if depth >= maxDepth {
			r.skip()
			return node{kind: k, pruned: true}
		}
		r.i++
		n := node{kind: k}
		if k == seqNode {
			n.kids = []node{}
		}
		for {
			r.space()
			if r.s[r.i] == ']' || r.s[r.i] == '}' {
				r.i++
				return n
			}
			if r.s[r.i] == ',' {
				r.i++
				r.space()
			}
			if k == mapNode {
				key := r.str()
				n.keys = append(n.keys, key)
				r.space()
				r.i++ // ':'
				if ints, ok := matrixKey(key); ok && depth == 0 && r.dense {
					n.kids = append(n.kids, r.matrix(ints))
					continue
				}
			}
			n.kids = append(n.kids, r.value(depth+1))
		}
	case '"':
		return node{kind: scalarNode, str: true, text: r.str()}
	case 'n':
		r.i += len("null")
		return node{kind: nullNode}
	case 't':
		r.i += len("true")
		return node{kind: scalarNode, text: "true"}
	case 'f':
		r.i += len("false")
		return node{kind: scalarNode, text: "false"}
	}
	return node{kind: scalarNode, text: string(r.number())}
}

// number reads the text of a number.
func (r *jsonReader) number() []byte {
	start := r.i
	for r.i < len(r.s) && (isDigit(r.s[r.i]) || r.s[r.i] == '-' || r.s[r.i] == '+' || r.s[r.i] == '.' || r.s[r.i] == 'e' || r.s[r.i] == 'E') {
		r.i++
	}
	return r.s[start:r.i]
}

// matrix reads the value of a matrix key of the document. A row of numbers
// that the decoder reads (denseNumber, or denseInteger when ints) is read
// straight into floats; any other row, and a value that is not a list,
// into nodes as value does, so that the decoder meets it and says what is
// wrong with it.
func (r *jsonReader) matrix(ints bool) node {
	r.space()
	if r.s[r.i] != '[' {
		return r.value(1)
	}
	r.i++
	n := node{kind: seqNode, kids: []node{}}
	for {
		r.space()
		if r.s[r.i] == ']' {
			r.i++
			return n
		}
		if r.s[r.i] == ',' {
			r.i++
			r.space()
		}
		start := r.i
		if row, ok := r.row(ints, rowHint(n.kids)); ok {
			n.kids = append(n.kids, node{kind: seqNode, nums: row})
			continue
		}
		r.i = start
		n.kids = append(n.kids, r.value(2))
	}
}

// row reads a list of numbers that the decoder reads into floats; it
// reports false, anywhere in the text, when the value is something else.
func (r *jsonReader) row(ints bool, hint int) ([]float64, bool) {
	if r.s[r.i] != '[' {
		return nil, false
	}
	r.i++
	row := make([]float64, 0, hint)
	for {
		r.space()
		switch r.s[r.i] {
		case ']':
			r.i++
			return row, true
		case ',':
			r.i++
			r.space()
		}
		read := denseNumber
		if ints {
			read = denseInteger
		}
		x, ok := read(r.number())
		if !ok {
			return nil, false
		}
		row = append(row, x)
	}
}

// matrixKey reports whether key names a matrix of the schema, and whether
// its entries are integers.
func matrixKey(key string) (ints, ok bool) {
	for _, mk := range matrixKeys {
		if mk.name == key {
			return mk.ints, true
		}
	}
	return false, false
}

// str reads a string literal and returns its value.
func (r *jsonReader) str() string {
	start := r.i
	r.i++
	escaped := false
	for r.s[r.i] != '"' {
		if r.s[r.i] == '\\' {
			escaped = true
			r.i++
		}
		r.i++
	}
	r.i++
	if v := r.s[start+1 : r.i-1]; !escaped && utf8.Valid(v) {
		return string(v)
	}
	var v string                           // invalid UTF-8 becomes U+FFFD, as encoding/json does
	_ = json.Unmarshal(r.s[start:r.i], &v) // valid by construction
	return v
}

// skip passes over a collection without recursion.
func (r *jsonReader) skip() {
	for open := 0; ; {
		switch r.s[r.i] {
		case '"':
			r.str()
			continue
		case '[', '{':
			open++
		case ']', '}':
			open--
		}
		r.i++
		if open == 0 {
			return
		}
	}
}
