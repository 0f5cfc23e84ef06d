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
// syntax first; the tree is then built by a small parser that trusts it and
// takes the text of scalars as substrings of one copy of the input, so a
// large file costs about one node per value and no per-token allocations.
func parseJSON(data []byte) (node, error) {
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
	r := jsonReader{s: string(data)}
	return r.value(0), nil
}

// jsonReader reads a JSON text known to be valid.
type jsonReader struct {
	s string
	i int
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
				n.keys = append(n.keys, r.str())
				r.space()
				r.i++ // ':'
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
	start := r.i
	for r.i < len(r.s) && bytes.IndexByte([]byte("+-.0123456789eE"), r.s[r.i]) >= 0 {
		r.i++
	}
	return node{kind: scalarNode, text: r.s[start:r.i]}
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
	if v := r.s[start+1 : r.i-1]; !escaped && utf8.ValidString(v) {
		return v
	}
	var v string                                   // invalid UTF-8 becomes U+FFFD, as encoding/json does
	_ = json.Unmarshal([]byte(r.s[start:r.i]), &v) // valid by construction
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
