package problem

import (
	"bytes"

	"gopkg.in/yaml.v3"
)

// The matrices of a YAML file are read here, straight into float64 rows,
// when they are written in one of the layouts that programs write:
//
//	utility: [[1, 2], [3, 4]]   a flow sequence of flow rows, on any number of lines
//	utility:
//	  - [1, 2]                  a block sequence of flow rows (as Marshal writes)
//	  - - 3                     or of block rows
//	    - 4
//
// yaml.v3 keeps a node of some hundred bytes per scalar, so that a
// 3000 × 3000 utility would cost gigabytes; a row of floats costs 8 bytes an
// entry.
//
// The algorithm:
//  1. Find the keys utility, mechanism and order at the start of a line,
//     with a value in one of the layouts above whose every entry the
//     decoder reads as a number (an integer for order). The layouts admit
//     spaces and line breaks between tokens, and nothing else: no tabs,
//     comments, anchors, tags, escapes or entries that the decoder refuses —
//     such a value is left to yaml.v3.
//  2. Replace each value found by "[]" and parse the rest with yaml.v3.
//  3. Check that each "[]" is, at the line and column where it was put, the
//     value of that key in the document's top-level block mapping: then the
//     replaced text was that value in the original document too, since the
//     text before it is the same and the value is complete and followed by
//     a line that starts a key or by the end of the document.
//  4. Put the rows in place of the empty sequences.
//
// Any failure of steps 2 and 3 (a syntax error in the rest, a key that is
// not where it seemed to be) falls back to yaml.v3 for the whole document,
// so that the result and every message are those of yaml.v3 alone.

// matrixKeys are the keys whose values the fast path reads, with whether
// their entries are integers.
var matrixKeys = []struct {
	name string
	ints bool
}{{"utility", false}, {"mechanism", false}, {"order", true}}

// A denseValue is a matrix value read by the fast path.
type denseValue struct {
	start, end int    // the value's bytes in the document, from just after the key's colon
	line       int    // the key's line in the document with the values replaced
	key        string // its key
	rows       []node // its rows, each with nums set
}

// parseYAMLMatrices parses a YAML document as parseYAML does, reading the
// matrices in the layouts above straight into floats. ok is false when it
// found none or could not confirm them; the caller then parses the whole
// document with yaml.v3.
func parseYAMLMatrices(data []byte) (root node, ok bool) {
	// YAML also breaks lines at a lone CR and at U+0085, U+2028 and U+2029;
	// the line count of step 3 knows only LF and CR LF.
	if unusualBreaks(data) {
		return node{}, false
	}

	// Step 1.
	var values []denseValue
	for ls := 0; ls < len(data); {
		v, ok := denseAt(data, ls)
		if ok {
			values = append(values, v)
			ls = v.end
		}
		nl := bytes.IndexByte(data[ls:], '\n')
		if nl < 0 {
			break
		}
		ls += nl + 1
	}
	if len(values) == 0 {
		return node{}, false
	}

	// Step 2.
	var rest []byte
	prev, line := 0, 1
	for k := range values {
		v := &values[k]
		line += bytes.Count(data[prev:v.start], []byte("\n"))
		v.line = line
		rest = append(rest, data[prev:v.start]...)
		rest = append(rest, " []"...)
		prev = v.end
	}
	rest = append(rest, data[prev:]...)
	doc, err := decodeYAML(rest)
	if err != nil || doc == nil || len(doc.Content) != 1 {
		return node{}, false
	}

	// Step 3.
	y := doc.Content[0]
	if y.Kind != yaml.MappingNode || y.Style&yaml.FlowStyle != 0 {
		return node{}, false
	}
	at := make([]int, len(values)) // the index of each value's key in the mapping
	for k, v := range values {
		at[k] = -1
		for i := 0; i+1 < len(y.Content); i += 2 {
			key, val := y.Content[i], y.Content[i+1]
			if key.Kind == yaml.ScalarNode && key.Style == 0 && key.Value == v.key &&
				key.Line == v.line && key.Column == 1 &&
				val.Kind == yaml.SequenceNode && val.Style == yaml.FlowStyle && len(val.Content) == 0 &&
				val.Line == v.line && val.Column == len(v.key)+3 {
				at[k] = i / 2
			}
		}
		if at[k] < 0 {
			return node{}, false
		}
	}

	// Step 4.
	root = fromYAML(doc, 0)
	for k, v := range values {
		root.kids[at[k]] = node{kind: seqNode, kids: v.rows}
	}
	return root, true
}

// unusualBreaks reports whether data holds a line break other than LF and
// CR LF.
func unusualBreaks(data []byte) bool {
	for i := bytes.IndexByte(data, '\r'); i >= 0; {
		if i+1 >= len(data) || data[i+1] != '\n' {
			return true
		}
		j := bytes.IndexByte(data[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) ||
		bytes.Contains(data, []byte("\u2029"))
}

// denseAt reads the matrix value of the key that starts the line at ls, if
// the line starts with one of matrixKeys and its value is in a fast layout.
func denseAt(data []byte, ls int) (denseValue, bool) {
	for _, mk := range matrixKeys {
		end := ls + len(mk.name)
		if end >= len(data) || string(data[ls:end]) != mk.name || data[end] != ':' {
			continue
		}
		s := &scanner{b: data, i: end + 1, ints: mk.ints}
		start := s.i
		if !s.atBreak() && s.peek() != ' ' {
			return denseValue{}, false // "utility:x" is a plain scalar, not a key
		}
		rows, ok := s.matrix()
		if !ok || !s.followedByKey() {
			return denseValue{}, false
		}
		return denseValue{start: start, end: s.i, key: mk.name, rows: rows}, true
	}
	return denseValue{}, false
}

// scanner reads the layouts of the fast path from b at i.
type scanner struct {
	b    []byte
	i    int
	ints bool // the entries are order entries
}

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// atBreak reports whether a line break (LF or CR LF) or the end of the
// document is at i.
func (s *scanner) atBreak() bool {
	return s.i >= len(s.b) || s.b[s.i] == '\n' || s.b[s.i] == '\r' && s.i+1 < len(s.b) && s.b[s.i+1] == '\n'
}

// skipBreak passes the line break at i.
func (s *scanner) skipBreak() {
	if s.b[s.i] == '\r' {
		s.i++
	}
	s.i++
}

// blanks passes spaces and returns how many.
func (s *scanner) blanks() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] == ' ' {
		s.i, n = s.i+1, n+1
	}
	return n
}

// space passes spaces and line breaks, the separators inside a flow
// collection.
func (s *scanner) space() {
	for s.i < len(s.b) {
		switch {
		case s.b[s.i] == ' ':
			s.i++
		case s.atBreak():
			s.skipBreak()
		default:
			return
		}
	}
}

// lineEnd passes spaces up to a line break or the end of the document and
// reports whether there was nothing else.
func (s *scanner) lineEnd() bool {
	s.blanks()
	return s.atBreak()
}

// nextLine returns the start of the first line after the break at i that
// holds more than spaces, and its indentation; at the end of the document
// it returns len(b).
func (s *scanner) nextLine() (start, indent int) {
	t := scanner{b: s.b, i: s.i}
	for !(t.i >= len(t.b)) {
		t.skipBreak()
		start = t.i
		indent = t.blanks()
		if !t.atBreak() {
			return start, indent
		}
	}
	return len(t.b), 0
}

// matrix reads a value from just after its key's colon: a flow sequence of
// flow rows, on this line or indented on a later one, or a block sequence
// of rows. It stops at the end of the value's last line.
func (s *scanner) matrix() ([]node, bool) {
	if !s.lineEnd() {
		if s.peek() != '[' {
			return nil, false // a scalar, anchor, tag, comment or mapping
		}
		return s.flowMatrix()
	}
	start, indent := s.nextLine()
	if start >= len(s.b) {
		return nil, false // a null value
	}
	s.i = start + indent
	switch {
	case s.peek() == '[' && indent > 0:
		return s.flowMatrix()
	case s.dash():
		return s.blockMatrix(indent)
	}
	return nil, false
}

// dash reports whether a block sequence entry, "-" and a space, is at i.
func (s *scanner) dash() bool {
	return s.i+1 < len(s.b) && s.b[s.i] == '-' && s.b[s.i+1] == ' '
}

// flowMatrix reads [row, row, ...] from the '[' at i, and the end of its
// last line.
func (s *scanner) flowMatrix() ([]node, bool) {
	s.i++
	s.space()
	rows := []node{}
	if s.peek() == ']' {
		s.i++
		return rows, s.lineEnd()
	}
	for {
		if s.peek() != '[' {
			return nil, false
		}
		row, ok := s.flowRow(rowHint(rows))
		if !ok {
			return nil, false
		}
		rows = append(rows, node{kind: seqNode, nums: row})
		s.space()
		switch s.peek() {
		case ',':
			s.i++
			s.space()
		case ']':
			s.i++
			return rows, s.lineEnd()
		default:
			return nil, false
		}
	}
}

// rowHint is the capacity for the next row: the length of the last one.
func rowHint(rows []node) int {
	if len(rows) == 0 {
		return 0
	}
	return len(rows[len(rows)-1].nums)
}

// flowRow reads [entry, entry, ...] from the '[' at i.
func (s *scanner) flowRow(hint int) ([]float64, bool) {
	s.i++
	s.space()
	row := make([]float64, 0, hint)
	if s.peek() == ']' {
		s.i++
		return row, true
	}
	for {
		x, ok := s.entry()
		if !ok {
			return nil, false
		}
		row = append(row, x)
		s.space()
		switch s.peek() {
		case ',':
			s.i++
			s.space()
		case ']':
			s.i++
			return row, true
		default:
			return nil, false
		}
	}
}

// blockMatrix reads the block sequence whose first entry is at i, with its
// dashes at column indent: rows "- [..]" or "- - entry" continued by
// "  - entry" lines.
func (s *scanner) blockMatrix(indent int) ([]node, bool) {
	var rows []node
	for {
		s.i++ // the row's dash
		col := indent + 1 + s.blanks()
		var row []float64
		switch {
		case s.peek() == '[':
			var ok bool
			if row, ok = s.flowRow(rowHint(rows)); !ok || !s.lineEnd() {
				return nil, false
			}
		case s.dash():
			row = make([]float64, 0, rowHint(rows))
			for {
				s.i++ // the entry's dash
				s.blanks()
				x, ok := s.entry()
				if !ok || !s.lineEnd() {
					return nil, false
				}
				row = append(row, x)
				if !s.nextDash(col) {
					break
				}
			}
		default:
			return nil, false
		}
		rows = append(rows, node{kind: seqNode, nums: row})
		if !s.nextDash(indent) {
			return rows, true
		}
	}
}

// nextDash moves from the line break at i to the dash of the next entry
// and reports true when the next line that holds more than spaces is an
// entry "- " at column indent; otherwise it stays at the break.
func (s *scanner) nextDash(indent int) bool {
	start, n := s.nextLine()
	if n != indent || start >= len(s.b) {
		return false
	}
	t := scanner{b: s.b, i: start + n}
	if !t.dash() {
		return false
	}
	s.i = t.i
	return true
}

// entry reads a matrix entry: a plain scalar, or a quoted one without
// escapes for a utility or mechanism. Its characters are those of a
// decimal number or a fraction, so that the scalar's text is the token
// itself; the decoder must read it as a number (or an integer).
func (s *scanner) entry() (float64, bool) {
	quote := s.peek()
	if quote == '"' || quote == '\'' {
		if s.ints {
			return 0, false // the decoder refuses a string in an order
		}
		s.i++
	}
	start := s.i
	for s.i < len(s.b) && numberByte(s.b[s.i]) {
		s.i++
	}
	text := s.b[start:s.i]
	if quote == '"' || quote == '\'' {
		if s.peek() != quote {
			return 0, false
		}
		s.i++
	}
	if s.ints {
		return denseInteger(text)
	}
	return denseNumber(text)
}

// numberByte reports whether c may be part of an entry: the characters of
// a decimal number and of a fraction.
func numberByte(c byte) bool {
	return isDigit(c) || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '/'
}

// followedByKey reports whether the line break or end of the document at i
// is followed, after lines of spaces, by the end of the document or by a
// line that starts with a character that can start a key. Anything else —
// an indented line, a comment, a dash — might continue the value.
func (s *scanner) followedByKey() bool {
	if !s.atBreak() {
		return false
	}
	start, indent := s.nextLine()
	if start >= len(s.b) {
		return true
	}
	if indent > 0 {
		return false
	}
	c := s.b[start]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '"' || c == '\''
}
