package problem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// parseJSON parses one JSON value into a node tree. encoding/json checks the
// syntax first; the tree is then built by a small parser that trusts it, so
// that a large file costs about one node per value and no per-token
// allocations, and the values of listKeys cost 8 bytes a number (see
// jsonReader.list).
func parseJSON(data []byte) (node, error) {
	return parseJSONRows(data, true)
}

// parseJSONRows is parseJSON, reading the values of listKeys straight into
// Go values, and refusing more than maxJSONTreeValues other values, only
// when dense is true.
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
	root := r.value(0)
	if r.over {
		return node{}, fieldErr("problem", -1, -1, "holds more than %d values besides the lists of prior, inputs, outputs, utility, order, mechanism, points and prior_set's bounds; they were not read", maxJSONTreeValues)
	}
	return root, nil
}

// maxTreeValues bounds the values of a YAML document outside the lists
// read straight into Go values (see parseYAML): yaml.v3 keeps some hundred
// bytes a value, so that its tree stays below some hundred megabytes, and
// a file written by hand in another layout (anchors, tags) may still be
// large. maxJSONTreeValues is the bound for JSON, where every list that may
// be large is read straight into Go values and a node costs some ten
// megabytes at the bound, with the growth of its list.
const (
	maxTreeValues     = 1 << 18
	maxJSONTreeValues = 1 << 16
)

// jsonReader reads a JSON text known to be valid.
type jsonReader struct {
	s     []byte
	i     int
	dense bool   // read the values of listKeys straight into Go values
	nodes int    // the nodes value made (counted when dense)
	over  bool   // more than maxJSONTreeValues: the rest is passed over
	top   string // the top-level key whose value is being read
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
	if r.dense {
		r.nodes++
		r.over = r.over || r.nodes > maxJSONTreeValues
	}
	if r.over {
		r.skipValue()
		return node{kind: nullNode}
	}
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
			if r.over {
				r.skipRest()
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
				if lk, ok := listKey(key); ok && depth == 0 && r.dense {
					n.kids = append(n.kids, r.list(lk))
					continue
				}
				if depth == 0 {
					r.top = key
				}
				// A prior set's bounds have a number a letter, like the
				// prior.
				if depth == 1 && r.dense && r.top == "prior_set" && (key == "lower" || key == "upper") {
					n.kids = append(n.kids, r.list(numbers))
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

// list reads the value of a key of listKeys of the document. A list of
// items that the decoder reads — rows of numbers (denseNumber, or
// denseInteger for intRows), numbers, labels — is read straight into Go
// values; the first other item is read into a node as value does, so that
// the decoder meets it and says what is wrong with it, and the items after
// it are passed over. A value that is not a list is read by value.
func (r *jsonReader) list(k listKind) node {
	r.space()
	if r.s[r.i] != '[' {
		return r.value(1)
	}
	r.i++
	l := newList(k)
	for {
		r.space()
		if r.s[r.i] == ']' {
			r.i++
			return node{kind: seqNode, list: l}
		}
		if r.s[r.i] == ',' {
			r.i++
			r.space()
		}
		start := r.i
		if !r.item(l, k) {
			r.i = start
			bad := r.value(2)
			l.bad = &bad
			r.skipRest()
			return node{kind: seqNode, list: l}
		}
	}
}

// item reads one item of a list of kind k into l, and reports false,
// anywhere in the text, when it is not one that the decoder reads.
func (r *jsonReader) item(l *list, k listKind) bool {
	switch k {
	case numbers:
		x, ok := r.entry(false)
		if ok {
			l.nums = append(l.nums, x)
		}
		return ok
	case texts:
		switch r.s[r.i] {
		case '"':
			l.strs = append(l.strs, r.str())
		case 't':
			r.i += len("true")
			l.strs = append(l.strs, "true")
		case 'f':
			r.i += len("false")
			l.strs = append(l.strs, "false")
		case 'n', '[', '{':
			return false
		default:
			l.strs = append(l.strs, string(r.number()))
		}
		return true
	}
	hint := 0
	if n := len(l.rows); n > 0 {
		hint = len(l.rows[n-1])
	}
	row, ok := r.row(k == intRows, hint)
	if ok {
		l.rows = append(l.rows, row)
	}
	return ok
}

// row reads a list of entries (see entry) into floats; it reports false,
// anywhere in the text, when the value is something else.
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
		x, ok := r.entry(ints)
		if !ok {
			return nil, false
		}
		row = append(row, x)
	}
}

// entry reads a number as the decoder does: a number, or for a utility,
// mechanism or prior a string holding one (a fraction "1/7", say), as
// number reads it (denseNumber); an order entry as integer does
// (denseInteger). It reports false where the decoder would refuse the
// entry or read it otherwise.
func (r *jsonReader) entry(ints bool) (float64, bool) {
	if r.s[r.i] != '"' {
		if ints {
			return denseInteger(r.number())
		}
		return denseNumber(r.number())
	}
	if ints {
		return 0, false // integer refuses a string
	}
	start := r.i
	if r.skipStr() {
		r.i = start
		return denseNumber([]byte(r.str()))
	}
	return denseNumber(r.s[start+1 : r.i-1])
}

// str reads a string literal and returns its value. A string that is not
// valid UTF-8 is returned as it is written, escapes and all, for the
// decoder to refuse: encoding/json would put U+FFFD in place of the bytes.
// So is one with an escaped surrogate that is not half of a pair
// ("\ud800"), which no UTF-8 text can hold: its escape is written as the
// three bytes that would encode the surrogate, which are not UTF-8.
func (r *jsonReader) str() string {
	start := r.i
	escaped := r.skipStr()
	v := r.s[start+1 : r.i-1]
	if !escaped || !utf8.Valid(v) {
		return string(v)
	}
	if at, c, ok := loneSurrogate(v); ok {
		b := []byte{0xE0 | byte(c>>12), 0x80 | byte(c>>6&0x3F), 0x80 | byte(c&0x3F)}
		return string(v[:at]) + string(b) + string(v[at+6:])
	}
	var s string
	_ = json.Unmarshal(r.s[start:r.i], &s) // valid by construction
	return s
}

// skipStr passes over a string literal and reports whether it holds an
// escape.
func (r *jsonReader) skipStr() (escaped bool) {
	r.i++
	for r.s[r.i] != '"' {
		if r.s[r.i] == '\\' {
			escaped = true
			r.i++
		}
		r.i++
	}
	r.i++
	return escaped
}

// skipValue passes over one value.
func (r *jsonReader) skipValue() {
	switch r.s[r.i] {
	case '{', '[':
		r.skip()
	case '"':
		r.skipStr()
	case 'n', 't':
		r.i += 4
	case 'f':
		r.i += 5
	default:
		r.number()
	}
}

// skip passes over a collection without recursion.
func (r *jsonReader) skip() {
	r.i++
	r.skipRest()
}

// skipRest passes over the rest of the collection whose opening bracket
// is behind, up to and with its closing one.
func (r *jsonReader) skipRest() {
	for open := 1; ; {
		switch r.s[r.i] {
		case '"':
			r.skipStr()
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

// loneSurrogate finds the first \uXXXX escape in the body v of a JSON string
// literal that names a surrogate (U+D800..U+DFFF) outside a high-low pair,
// and returns its offset and code.
func loneSurrogate(v []byte) (at int, c rune, ok bool) {
	hex4 := func(i int) rune {
		if i+6 > len(v) || v[i] != '\\' || v[i+1] != 'u' {
			return -1
		}
		x, err := strconv.ParseUint(string(v[i+2:i+6]), 16, 16)
		if err != nil {
			return -1
		}
		return rune(x)
	}
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		c := hex4(i)
		switch {
		case c >= 0xD800 && c < 0xDC00:
			if lo := hex4(i + 6); lo >= 0xDC00 && lo < 0xE000 {
				i += 11
				continue
			}
			return i, c, true
		case c >= 0xDC00 && c < 0xE000:
			return i, c, true
		case c >= 0:
			i += 5
		default:
			i++ // a one-letter escape: pass over its letter
		}
	}
	return 0, 0, false
}
