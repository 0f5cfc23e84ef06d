package sample

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CSV privatizes one column of a CSV file with a header line: Privatize
// replaces every value of Column by an output drawn through a Sampler.
type CSV struct {
	// Column is the header name of the column that holds the secret.
	Column string
	// Inputs names the mechanism's inputs: the column's values are these
	// labels, or, when Inputs is empty, the indices "0".."N−1" (any
	// spelling strconv.Atoi accepts, such as "+3", is taken as an index).
	Inputs []string
	// Outputs names the outputs written in place of the values; when it is
	// empty the output index j is written.
	Outputs []string
	// Drop names columns left out of the output, such as one that holds the
	// raw secret beside the privatized column. Every column of a name is
	// dropped; a name the header lacks, or Column itself, is a *DropError.
	Drop []string
}

// A DropError is a name in CSV.Drop that can not be dropped: the header
// has no column of that name, or it is the privatized column.
type DropError struct {
	Name string
	// Header is the header line (its names joined by commas); empty when
	// Name is the privatized column.
	Header string
}

func (e *DropError) Error() string {
	if e.Header == "" {
		return fmt.Sprintf("column %q is the one privatized; it can not be dropped", brief(e.Name))
	}
	return fmt.Sprintf("no column %q in the header %s", brief(e.Name), brief(e.Header))
}

// PrivatizeCSV is CSV{Column: column, Inputs: inputs, Outputs:
// outputs}.Privatize(r, w, s).
func PrivatizeCSV(r io.Reader, w io.Writer, column string, inputs, outputs []string, s *Sampler) error {
	return CSV{Column: column, Inputs: inputs, Outputs: outputs}.Privatize(r, w, s)
}

// Privatize reads a CSV file with a header line from r, replaces every
// value of c.Column by an output drawn through s, leaves out the columns
// of c.Drop, and writes the result to w, one record at a time: memory stays
// that of one record whatever the file's length. Label lists must have N
// and M entries and no duplicates.
//
// Everything but the privatized column is copied byte for byte: other
// fields keep their quotes, bytes that are not UTF-8, and line endings
// ("\r\n" stays "\r\n"); blank lines are copied too. A drawn output is
// quoted only when it must be (it is empty, holds a comma, a quote or a
// line break, or starts with a space). A UTF-8 byte order mark before the header is
// dropped. The input is read as encoding/csv reads it (RFC 4180: fields
// separated by commas, quoted with '"', '""' for a quote inside quotes; a
// quote elsewhere in a field is an error; every record has the header's
// number of fields).
//
// A bad record (a value that is not an input label, a record with the
// wrong number of fields, a CSV syntax error) stops the run with an error
// naming its line, such as
//
//	line 7: value "9" of column count is not an input label
//
// The records before it have been written and drawn: a caller that wants
// all or nothing writes to a temporary file and keeps it only on success
// (the sample command does). Errors quote at most 64 bytes of the input.
func (c CSV) Privatize(r io.Reader, w io.Writer, s *Sampler) error {
	switch {
	case s == nil:
		return errors.New("PrivatizeCSV needs a Sampler, got nil")
	case s.src == nil:
		return errors.New("PrivatizeCSV needs a Sampler made by NewSampler")
	case r == nil:
		return errors.New("PrivatizeCSV needs a reader, got nil")
	case w == nil:
		return errors.New("PrivatizeCSV needs a writer, got nil")
	}
	n, m := s.Dims()
	index, err := labelIndex("input", c.Inputs, n)
	if err != nil {
		return err
	}
	if _, err := labelIndex("output", c.Outputs, m); err != nil {
		return err
	}
	for _, d := range c.Drop {
		if d == c.Column {
			return &DropError{Name: d}
		}
	}
	enc := make([][]byte, m)
	for j := range enc {
		if len(c.Outputs) > 0 {
			enc[j] = quoteField(c.Outputs[j])
		} else {
			enc[j] = strconv.AppendInt(nil, int64(j), 10)
		}
	}

	sc := newScanner(r)
	ok, err := sc.next()
	if err != nil {
		return err // a *csv.ParseError says "record on line L: ..."
	}
	if !ok {
		return errors.New("the CSV input is empty; it needs a header line")
	}
	header := make([]string, sc.fields())
	for k := range header {
		header[k] = string(sc.value(k))
	}
	col := -1
	for k, name := range header {
		if name != c.Column {
			continue
		}
		if col >= 0 {
			return fmt.Errorf("column %q appears twice in the header", brief(c.Column))
		}
		col = k
	}
	if col < 0 {
		return fmt.Errorf("no column %q in the header %s", brief(c.Column), brief(strings.Join(header, ",")))
	}
	var keep []bool // nil: every column is kept
	if len(c.Drop) > 0 {
		var err error
		if keep, err = keepMask(header, c.Drop); err != nil {
			return err
		}
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	fail := func(err error) error {
		if ferr := bw.Flush(); ferr != nil {
			return fmt.Errorf("writing CSV: %w", ferr)
		}
		return err
	}
	if err := sc.write(bw, keep, col, nil); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	for {
		ok, err := sc.next()
		if err != nil {
			return fail(err)
		}
		if !ok {
			break
		}
		v := sc.value(col)
		i, found := lookup(index, v, n)
		if !found {
			return fail(fmt.Errorf("line %d: value %q of column %s is not an input label%s",
				sc.line[col], brief(string(v)), brief(c.Column), labelHint(c.Inputs, n)))
		}
		if err := sc.write(bw, keep, col, enc[s.Sample(i)]); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
	}
	return sc.finish(bw)
}

// quoteField returns s as a CSV field, quoted when encoding/csv's writer
// would quote it, and when it is empty: a record of one empty field would
// otherwise be a blank line, which readers skip.
func quoteField(s string) []byte {
	r, _ := utf8.DecodeRuneInString(s)
	if s != "" && s != `\.` && !strings.ContainsAny(s, ",\"\r\n") && !unicode.IsSpace(r) {
		return []byte(s)
	}
	return []byte(`"` + strings.ReplaceAll(s, `"`, `""`) + `"`)
}

// scanner reads a CSV file one record at a time and keeps each record's
// bytes as read, so that fields can be copied unchanged. It accepts what
// encoding/csv's Reader accepts with its default settings, and reports the
// same *csv.ParseError.
type scanner struct {
	r        *bufio.Reader
	eof      bool // the last line has been read
	lines    int  // physical lines read
	want     int  // fields per record, set by the header
	raw      []byte
	lead     int   // raw[:lead]: blank lines before the record
	body     int   // raw[body:]: the record's line terminator
	start    []int // field k is raw[start[k]:end[k]], quotes included
	end      []int
	line     []int // line[k]: the line on which field k starts
	unquoted []byte
}

func newScanner(r io.Reader) *scanner {
	br := bufio.NewReaderSize(r, 1<<16)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
	}
	return &scanner{r: br}
}

// more appends the next physical line, with its '\n' if it has one, to
// s.raw, and reports false at the end of the input.
func (s *scanner) more() (bool, error) {
	if s.eof {
		return false, nil
	}
	before := len(s.raw)
	for {
		chunk, err := s.r.ReadSlice('\n')
		s.raw = append(s.raw, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			s.eof = true
		} else if err != nil {
			return false, err
		}
		break
	}
	if len(s.raw) == before {
		return false, nil
	}
	s.lines++
	return true, nil
}

// content returns the length of line without its terminator: "\n" or
// "\r\n", or a "\r" that ends the input (encoding/csv drops it too).
func (s *scanner) content(line []byte) int {
	n := len(line)
	switch {
	case n > 0 && line[n-1] == '\n':
		if n > 1 && line[n-2] == '\r' {
			return n - 2
		}
		return n - 1
	case n > 0 && s.eof && line[n-1] == '\r':
		return n - 1
	}
	return n
}

// next reads the next record, and reports false at the end of the input;
// s.raw then holds the blank lines after the last record.
func (s *scanner) next() (bool, error) {
	s.raw = s.raw[:0]
	s.start, s.end, s.line = s.start[:0], s.end[:0], s.line[:0]
	var from, to int // the current physical line's content is raw[from:to]
	for {
		from = len(s.raw)
		ok, err := s.more()
		if err != nil || !ok {
			return false, err
		}
		if to = from + s.content(s.raw[from:]); to > from {
			break
		}
	}
	s.lead = from
	first := s.lines
	parseError := func(pos int, err error) error {
		return &csv.ParseError{StartLine: first, Line: s.lines, Column: pos - from + 1, Err: err}
	}
	pos := from
fields:
	for {
		fstart, fline := pos, s.lines
		if pos == to || s.raw[pos] != '"' {
			fend := to
			if i := bytes.IndexByte(s.raw[pos:to], ','); i >= 0 {
				fend = pos + i
			}
			if j := bytes.IndexByte(s.raw[pos:fend], '"'); j >= 0 {
				return false, parseError(pos+j, csv.ErrBareQuote)
			}
			s.add(fstart, fend, fline)
			if fend == to {
				break fields
			}
			pos = fend + 1
			continue
		}
		for pos++; ; {
			i := bytes.IndexByte(s.raw[pos:to], '"')
			if i < 0 {
				// The quoted field goes on in the next line.
				pos = len(s.raw)
				ok, err := s.more()
				if err != nil {
					return false, err
				}
				if !ok || (s.eof && s.content(s.raw[pos:]) == 0) {
					// The input ends in the quotes (a last line of
					// a lone "\r" is no line to encoding/csv), which
					// places the end after the last line's "\n".
					line := s.lines
					if ok {
						line--
					}
					if s.raw[pos-1] == '\n' {
						to++
					}
					return false, &csv.ParseError{StartLine: first, Line: line, Column: to - from + 1, Err: csv.ErrQuote}
				}
				from, to = pos, pos+s.content(s.raw[pos:])
				continue
			}
			pos += i + 1
			switch {
			case pos < to && s.raw[pos] == '"': // "" stands for a quote
				pos++
			case pos < to && s.raw[pos] == ',':
				s.add(fstart, pos, fline)
				pos++
				continue fields
			case pos == to:
				s.add(fstart, pos, fline)
				break fields
			default:
				return false, parseError(pos-1, csv.ErrQuote)
			}
		}
	}
	s.body = to
	if s.want == 0 {
		s.want = len(s.start)
	} else if len(s.start) != s.want {
		return false, &csv.ParseError{StartLine: first, Line: first, Column: 1, Err: csv.ErrFieldCount}
	}
	return true, nil
}

func (s *scanner) add(start, end, line int) {
	s.start = append(s.start, start)
	s.end = append(s.end, end)
	s.line = append(s.line, line)
}

func (s *scanner) fields() int { return len(s.start) }

// value returns field k as encoding/csv reads it: without its quotes, ""
// read as ", and line breaks in quotes as "\n". It is valid until the next
// call.
func (s *scanner) value(k int) []byte {
	f := s.raw[s.start[k]:s.end[k]]
	if len(f) == 0 || f[0] != '"' {
		return f
	}
	f = f[1 : len(f)-1]
	if bytes.IndexByte(f, '"') < 0 && bytes.IndexByte(f, '\r') < 0 {
		return f
	}
	u := s.unquoted[:0]
	for len(f) > 0 {
		switch {
		case f[0] == '"': // the first of ""
			u = append(u, '"')
			f = f[2:]
		case f[0] == '\r' && len(f) > 1 && f[1] == '\n':
			u = append(u, '\n')
			f = f[2:]
		default:
			u = append(u, f[0])
			f = f[1:]
		}
	}
	s.unquoted = u
	return u
}

// write writes the record to w: the fields that keep marks (all when keep
// is nil) as read, except field col, written as out unless out is nil.
func (s *scanner) write(w *bufio.Writer, keep []bool, col int, out []byte) error {
	if keep == nil {
		if out == nil {
			_, err := w.Write(s.raw)
			return err
		}
		w.Write(s.raw[:s.start[col]])
		w.Write(out)
		_, err := w.Write(s.raw[s.end[col]:])
		return err
	}
	return s.writeKept(w, keep, col, out, nil)
}

// writeKept writes the record to w: the fields that keep marks, each as
// read except field col, written as out unless out is nil, and field k,
// written as outs[k] where outs is not nil and outs[k] is not nil.
func (s *scanner) writeKept(w *bufio.Writer, keep []bool, col int, out []byte, outs [][]byte) error {
	w.Write(s.raw[:s.lead])
	sep := false
	for k, kept := range keep {
		if !kept {
			continue
		}
		if sep {
			w.WriteByte(',')
		}
		sep = true
		switch {
		case k == col && out != nil:
			w.Write(out)
		case outs != nil && outs[k] != nil:
			w.Write(outs[k])
		default:
			w.Write(s.raw[s.start[k]:s.end[k]])
		}
	}
	_, err := w.Write(s.raw[s.body:])
	return err
}

// finish writes the blank lines after the last record to w and flushes w.
func (s *scanner) finish(w *bufio.Writer) error {
	if _, err := w.Write(s.raw); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

// keepMask marks the columns of header that stay in the output: all but
// every column named in drop (a name the header repeats is dropped
// wherever it stands). A name the header lacks is a *DropError.
func keepMask(header, drop []string) ([]bool, error) {
	keep := make([]bool, len(header))
	for k := range keep {
		keep[k] = true
	}
	for _, d := range drop {
		found := false
		for k, name := range header {
			if name == d {
				keep[k], found = false, true
			}
		}
		if !found {
			return nil, &DropError{Name: d, Header: strings.Join(header, ",")}
		}
	}
	return keep, nil
}

// brief returns s, cut to 64 bytes (at a rune boundary) with "…" when longer,
// so that an error never echoes a megabyte-long field.
func brief(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	k := max
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…"
}

// labelIndex maps labels to indices; nil labels mean indices 0..want−1 and
// give a nil map.
func labelIndex(kind string, labels []string, want int) (map[string]int, error) {
	if len(labels) == 0 {
		return nil, nil
	}
	if len(labels) != want {
		return nil, fmt.Errorf("%d %s labels for a mechanism with %d %ss", len(labels), kind, want, kind)
	}
	index := make(map[string]int, len(labels))
	for k, l := range labels {
		if prev, dup := index[l]; dup {
			return nil, fmt.Errorf("%s label %q is used twice (%s %d and %d)", kind, brief(l), kind, prev+1, k+1)
		}
		index[l] = k
	}
	return index, nil
}

// lookup returns the input index of value v.
func lookup(index map[string]int, v []byte, n int) (int, bool) {
	if index != nil {
		i, ok := index[string(v)]
		return i, ok
	}
	i, err := strconv.Atoi(string(v))
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// labelHint says which labels are valid, briefly.
func labelHint(inputs []string, n int) string {
	switch {
	case len(inputs) == 0:
		return fmt.Sprintf(" (the inputs are the indices 0..%d)", n-1)
	case len(inputs) <= 10:
		return fmt.Sprintf(" (the inputs are %q)", inputs)
	}
	return fmt.Sprintf(" (the inputs are %q, … %d labels)", inputs[:10], n)
}
