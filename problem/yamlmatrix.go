package problem

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The lists of a YAML file — the matrices utility, mechanism and order, the
// prior and the labels inputs and outputs — are read here, straight into Go
// values, when they are written in one of the layouts that programs and
// people write:
//
//	prior: [0.5, 0.5]           a flow sequence, on any number of lines
//	inputs:
//	  - "a"                     or a block sequence
//	  - b
//	utility: [[1, 2], [3, 4]]   a flow sequence of flow rows
//	utility:
//	  - [1, 2]                  a block sequence of flow rows (as Marshal writes)
//	  - - 3                     or of block rows
//	    - 4
//
// with comments ("# ...") at the ends of lines and on lines of their own.
// yaml.v3 keeps a node of some hundred bytes per scalar, so that a
// 3000 × 3000 utility would cost gigabytes; a row of floats costs 8 bytes an
// entry.
//
// The algorithm:
//  1. Find the keys of listKeys at the start of a line, with a value in one
//     of the layouts above whose every entry the decoder reads as a number
//     (an integer for order), or for labels a plain scalar of letters,
//     digits and "_.+-/()" that is not a null, or a quoted one on one line
//     without escapes or tabs. The layouts admit spaces, line breaks and
//     comments between tokens, and nothing else: no tabs, anchors, tags,
//     escapes or entries that the decoder refuses — such a value is left to
//     yaml.v3.
//  2. Replace each value found by "[]" and parse the rest with yaml.v3.
//  3. Check that each "[]" is, at the line and column where it was put, the
//     value of that key in the document's top-level block mapping: then the
//     replaced text was that value in the original document too, since the
//     text before it is the same and the value is complete and followed by
//     a line that starts a key or by the end of the document.
//  4. Put the lists in place of the empty sequences.
//
// Any failure of steps 2 and 3 (a syntax error in the rest, a key that is
// not where it seemed to be) falls back to yaml.v3 for the whole document,
// so that the result and every message are those of yaml.v3 alone — for a
// document of at most maxTreeValues values; a larger one is refused before
// yaml.v3 builds its tree (see parseYAML).

// A denseValue is a list value read by the fast path.
type denseValue struct {
	start, end int    // the value's bytes in the document, from just after the key's colon
	line       int    // the key's line in the document with the values replaced
	key        string // its key
	list       *list  // its items
}

// parseYAMLLists parses a YAML document as parseYAML does, reading the
// lists in the layouts above straight into Go values. ok is false when it
// found none or could not confirm them; the caller then parses the whole
// document with yaml.v3. declined are the offsets of the lines that start
// with a key of listKeys whose value is in none of the layouts.
func parseYAMLLists(data []byte) (root node, ok bool, declined []int) {
	// YAML also breaks lines at a lone CR and at U+0085, U+2028 and U+2029;
	// the line count of step 3 knows only LF and CR LF.
	if unusualBreaks(data) {
		return node{}, false, declined
	}

	// Step 1.
	var values []denseValue
	for ls := 0; ls < len(data); {
		v, key, ok := denseAt(data, ls)
		if ok {
			values = append(values, v)
			ls = v.end
		} else if key {
			declined = append(declined, ls)
		}
		nl := bytes.IndexByte(data[ls:], '\n')
		if nl < 0 {
			break
		}
		ls += nl + 1
	}
	if len(values) == 0 {
		return node{}, false, declined
	}

	// Step 2.
	n := treeValues(data)
	for _, v := range values {
		n += 1 - treeValues(data[v.start:v.end])
	}
	if n > maxTreeValues {
		return node{}, false, declined
	}
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
		return node{}, false, declined
	}

	// Step 3.
	y := doc.Content[0]
	if y.Kind != yaml.MappingNode || y.Style&yaml.FlowStyle != 0 {
		return node{}, false, declined
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
			return node{}, false, declined
		}
	}

	// Step 4.
	root = fromYAML(doc, 0)
	for k, v := range values {
		root.kids[at[k]] = node{kind: seqNode, list: v.list}
	}
	return root, true, declined
}

// topLevelEnd returns the offset of the first line after the one at ls
// that starts a top-level key (a character other than a space, a tab, "-",
// "#" or a line break in its first column), or len(data): the end of the
// value of the key at ls.
func topLevelEnd(data []byte, ls int) int {
	for {
		nl := bytes.IndexByte(data[ls:], '\n')
		if nl < 0 {
			return len(data)
		}
		ls += nl + 1
		if ls < len(data) {
			switch data[ls] {
			case ' ', '\t', '-', '#', '\n', '\r':
				continue
			}
			return ls
		}
	}
}

// treeValues bounds the number of nodes of yaml.v3's tree of data, less
// two: every node but the document and the first is announced by one of
// the bytes ", - : [ { ?" or a line break (a mapping's key and value by
// their ":", counted with the line break or comma that ends the pair).
func treeValues(data []byte) int {
	n := 0
	for _, c := range data {
		switch c {
		case ',', '-', ':', '[', '{', '?', '\n':
			n++
		}
	}
	return n
}

// tooManyValues is the message for a YAML document that parseYAMLLists
// could not read and that is too large for yaml.v3's tree. It names the
// declined key whose value is the largest (by treeValues, up to the next
// top-level key): the one to write otherwise.
func tooManyValues(data []byte, n int, declined []int) error {
	where, most := "the lists are", -1
	for _, ls := range declined {
		if v := treeValues(data[ls:topLevelEnd(data, ls)]); v > most {
			key, _, _ := bytes.Cut(data[ls:], []byte(":"))
			where, most = fmt.Sprintf("%s (line %d) is", string(key), lineAt(data, int64(ls))), v
		}
	}
	return fieldErr("problem", -1, -1, "up to %d values for the general YAML reader, which takes at most %d: %s not written as a list that is read straight into numbers or labels (\"key: [a, b]\", or one \"- a\" or \"- [a, b]\" item a line, comments allowed); write it so, or as JSON", n, maxTreeValues, where)
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

// denseAt reads the list value of the key that starts the line at ls, if
// the line starts with one of listKeys and its value is in a fast layout.
// key reports whether the line starts with one of listKeys.
func denseAt(data []byte, ls int) (v denseValue, key, ok bool) {
	for _, lk := range listKeys {
		end := ls + len(lk.name)
		if end >= len(data) || string(data[ls:end]) != lk.name || data[end] != ':' {
			continue
		}
		s := &scanner{b: data, i: end + 1, kind: lk.kind}
		start := s.i
		if !s.atBreak() && s.peek() != ' ' {
			return denseValue{}, false, false // "utility:x" is a plain scalar, not a key
		}
		l, ok := s.list()
		if !ok || !s.followedByKey() {
			return denseValue{}, true, false
		}
		return denseValue{start: start, end: s.i, key: lk.name, list: l}, true, true
	}
	return denseValue{}, false, false
}

// scanner reads the layouts of the fast path from b at i.
type scanner struct {
	b    []byte
	i    int
	kind listKind // what the list holds
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

// comment passes the comment at i, a '#' at the start of a line or after a
// space, up to the line break, and reports true; it reports false and
// stays when there is none, or when the comment holds a character that
// yaml.v3 refuses in a document.
func (s *scanner) comment() bool {
	if s.peek() != '#' || s.i > 0 && s.b[s.i-1] != ' ' && s.b[s.i-1] != '\n' {
		return false
	}
	t := scanner{b: s.b, i: s.i}
	for !t.atBreak() {
		r, n := utf8.DecodeRune(t.b[t.i:])
		if !(r == '\t' || printable(r, n)) {
			return false
		}
		t.i += n
	}
	s.i = t.i
	return true
}

// printable reports whether the rune r, n bytes long, is a character that
// yaml.v3 reads in a document, other than a tab or a line break.
func printable(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n <= 1:
		return false // not UTF-8
	case r >= 0x20 && r <= 0x7E:
		return true
	}
	return r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// space passes spaces, line breaks and comments, the separators inside a
// flow collection.
func (s *scanner) space() {
	for s.i < len(s.b) {
		switch {
		case s.b[s.i] == ' ':
			s.i++
		case s.atBreak():
			s.skipBreak()
		case s.comment():
		default:
			return
		}
	}
}

// lineEnd passes spaces and a comment up to a line break or the end of the
// document and reports whether there was nothing else.
func (s *scanner) lineEnd() bool {
	s.blanks()
	s.comment()
	return s.atBreak()
}

// nextLine returns the start of the first line after the break at i that
// holds more than spaces and a comment, and its indentation; at the end of
// the document it returns len(b).
func (s *scanner) nextLine() (start, indent int) {
	t := scanner{b: s.b, i: s.i}
	for !(t.i >= len(t.b)) {
		t.skipBreak()
		start = t.i
		indent = t.blanks()
		t.comment()
		if !t.atBreak() {
			return start, indent
		}
	}
	return len(t.b), 0
}

// list reads a value from just after its key's colon: a flow sequence, on
// this line or indented on a later one, or a block sequence. It stops at
// the end of the value's last line.
func (s *scanner) list() (*list, bool) {
	if !s.lineEnd() {
		if s.peek() != '[' {
			return nil, false // a scalar, anchor, tag or mapping
		}
		return s.flowList()
	}
	start, indent := s.nextLine()
	if start >= len(s.b) {
		return nil, false // a null value
	}
	s.i = start + indent
	switch {
	case s.peek() == '[' && indent > 0:
		return s.flowList()
	case s.dash():
		return s.blockList(indent)
	}
	return nil, false
}

// dash reports whether a block sequence entry, "-" and a space, is at i.
func (s *scanner) dash() bool {
	return s.i+1 < len(s.b) && s.b[s.i] == '-' && s.b[s.i+1] == ' '
}

// flowList reads [item, item, ...] from the '[' at i, and the end of its
// last line.
func (s *scanner) flowList() (*list, bool) {
	s.i++
	s.space()
	l := newList(s.kind)
	if s.peek() == ']' {
		s.i++
		return l, s.lineEnd()
	}
	for {
		if !s.flowItem(l) {
			return nil, false
		}
		s.space()
		switch s.peek() {
		case ',':
			s.i++
			s.space()
		case ']':
			s.i++
			return l, s.lineEnd()
		default:
			return nil, false
		}
	}
}

// flowItem reads an item of a flow list at i into l.
func (s *scanner) flowItem(l *list) bool {
	switch s.kind {
	case numbers:
		x, ok := s.entry()
		l.nums = append(l.nums, x)
		return ok
	case texts:
		t, ok := s.label()
		l.strs = append(l.strs, t)
		return ok
	}
	if s.peek() != '[' {
		return false
	}
	row, ok := s.flowRow(rowHint(l.rows))
	l.rows = append(l.rows, row)
	return ok
}

// rowHint is the capacity for the next row: the length of the last one.
func rowHint(rows [][]float64) int {
	if len(rows) == 0 {
		return 0
	}
	return len(rows[len(rows)-1])
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

// blockList reads the block sequence whose first entry is at i, with its
// dashes at column indent: items "- x", and for a matrix rows "- [..]" or
// "- - entry" continued by "  - entry" lines.
func (s *scanner) blockList(indent int) (*list, bool) {
	l := newList(s.kind)
	for {
		s.i++ // the item's dash
		col := indent + 1 + s.blanks()
		switch s.kind {
		case numbers:
			x, ok := s.entry()
			if !ok || !s.lineEnd() {
				return nil, false
			}
			l.nums = append(l.nums, x)
		case texts:
			t, ok := s.label()
			if !ok || !s.lineEnd() {
				return nil, false
			}
			l.strs = append(l.strs, t)
		default:
			row, ok := s.blockRow(col, rowHint(l.rows))
			if !ok {
				return nil, false
			}
			l.rows = append(l.rows, row)
		}
		if !s.nextDash(indent) {
			return l, true
		}
	}
}

// blockRow reads a matrix row of a block sequence from just after its
// dash and the spaces after it, at column col: "[..]" or "- entry"
// continued by lines "- entry" at col.
func (s *scanner) blockRow(col, hint int) ([]float64, bool) {
	switch {
	case s.peek() == '[':
		row, ok := s.flowRow(hint)
		return row, ok && s.lineEnd()
	case s.dash():
		row := make([]float64, 0, hint)
		for {
			s.i++ // the entry's dash
			s.blanks()
			x, ok := s.entry()
			if !ok || !s.lineEnd() {
				return nil, false
			}
			row = append(row, x)
			if !s.nextDash(col) {
				return row, true
			}
		}
	}
	return nil, false
}

// nextDash moves from the line break at i to the dash of the next entry
// and reports true when the next line that holds more than spaces and a
// comment is an entry "- " at column indent; otherwise it stays at the
// break.
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

// entry reads a number: a plain scalar, or a quoted one without escapes
// for a utility, mechanism or prior. Its characters are those of a decimal
// number or a fraction, so that the scalar's text is the token itself; the
// decoder must read it as a number (or an integer for an order).
func (s *scanner) entry() (float64, bool) {
	quote := s.peek()
	if quote == '"' || quote == '\'' {
		if s.kind == intRows {
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
	if s.kind == intRows {
		return denseInteger(text)
	}
	return denseNumber(text)
}

// numberByte reports whether c may be part of an entry: the characters of
// a decimal number and of a fraction.
func numberByte(c byte) bool {
	return isDigit(c) || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E' || c == '/'
}

// label reads a label: a quoted scalar on one line without escapes or
// tabs, or a plain one (see plainLabel). Its text is then the scalar's
// value.
func (s *scanner) label() (string, bool) {
	quote := s.peek()
	if quote != '"' && quote != '\'' {
		return s.plainLabel()
	}
	s.i++
	var text []byte // with "''" in single quotes, the value differs from the bytes
	start := s.i
	for {
		if s.i >= len(s.b) {
			return "", false
		}
		c := s.b[s.i]
		switch {
		case c == quote && quote == '\'' && s.i+1 < len(s.b) && s.b[s.i+1] == '\'':
			text = append(text, s.b[start:s.i+1]...)
			s.i += 2
			start = s.i
			continue
		case c == quote && text == nil:
			s.i++
			return string(s.b[start : s.i-1]), true
		case c == quote:
			text = append(text, s.b[start:s.i]...)
			s.i++
			return string(text), true
		case c == '\\' && quote == '"':
			return "", false // an escape
		}
		r, n := utf8.DecodeRune(s.b[s.i:])
		if !printable(r, n) || r == 0xFEFF {
			return "", false // a line break, a tab, or what yaml.v3 refuses or may skip
		}
		s.i += n
	}
}

// plainLabel reads a plain label: letters, digits and "_.+-/()", with
// single spaces inside. The first character is not "-", so that the label
// is no block entry; "null" in its spellings is no label.
func (s *scanner) plainLabel() (string, bool) {
	start := s.i
	if !plainByte(s.peek()) || s.peek() == '-' {
		return "", false
	}
	for {
		for s.i < len(s.b) && plainByte(s.b[s.i]) {
			s.i++
		}
		// Spaces belong to the label only when more of it follows.
		t := s.i
		for t < len(s.b) && s.b[t] == ' ' {
			t++
		}
		if t == s.i || t >= len(s.b) || !plainByte(s.b[t]) {
			break
		}
		s.i = t
	}
	text := string(s.b[start:s.i])
	switch text {
	case "null", "Null", "NULL":
		return "", false
	}
	return text, true
}

// plainByte reports whether c may be part of a plain label.
func plainByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) ||
		c == '_' || c == '.' || c == '+' || c == '-' || c == '/' || c == '(' || c == ')'
}

// followedByKey reports whether the line break or end of the document at i
// is followed, after lines of spaces and comments, by the end of the
// document or by a line that starts with a character that can start a key.
// Anything else — an indented line, a dash — might continue the value.
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
