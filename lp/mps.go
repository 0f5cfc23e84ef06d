package lp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteMPS writes m in free MPS format, the exchange format every LP solver
// reads (e.g. `highs model.mps`, `clp model.mps`).
//
// The objective row is named "obj" (or "obj_", "obj__", … if a row already
// has that name); OBJSENSE MAX is written when m maximises and the offset
// is written as the right-hand side of the objective row with its sign
// flipped, as HiGHS and CPLEX read it. Rows are typed E (lower = upper),
// L (only an upper bound), G (only a lower bound), N (free) or G with a
// RANGES entry (two-sided). Only bounds that differ from the MPS default
// [0, +Inf) are written, using FR, MI, FX, LO and UP. Rows and columns
// without names are called R<i> and C<j> (0-based). The COLUMNS section is
// sorted by column then row, and every number is written in its shortest
// exact form, so the output is deterministic and ReadMPS recovers the model
// exactly (a ranged row's upper bound up to one rounding of lower + range).
//
// WriteMPS validates m first, and refuses names that are empty, contain
// white space or repeat another name.
func (m *Model) WriteMPS(w io.Writer) error {
	if w == nil {
		return errors.New("lp: WriteMPS needs a writer, got nil")
	}
	if err := m.Validate(); err != nil {
		return err
	}
	cols, err := mpsNames(m.ColNames, m.NumCols(), "C", "column")
	if err != nil {
		return err
	}
	rows, err := mpsNames(m.RowNames, m.NumRows(), "R", "row")
	if err != nil {
		return err
	}
	obj := "obj"
	taken := make(map[string]bool, len(rows))
	for _, r := range rows {
		taken[r] = true
	}
	for taken[obj] {
		obj += "_"
	}

	bw := bufio.NewWriter(w)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	fmt.Fprintln(bw, "NAME")
	if m.Maximize {
		fmt.Fprintln(bw, "OBJSENSE")
		fmt.Fprintln(bw, "    MAX")
	}
	fmt.Fprintln(bw, "ROWS")
	fmt.Fprintf(bw, " N  %s\n", obj)
	ranges := make([]float64, 0)
	rangeRows := make([]int, 0)
	rhs := make([]float64, m.NumRows())
	for i := range m.NumRows() {
		lo, up := m.RowLower[i], m.RowUpper[i]
		var typ string
		switch {
		case lo == up:
			typ, rhs[i] = "E", lo
		case math.IsInf(lo, -1) && math.IsInf(up, 1):
			typ = "N"
		case math.IsInf(lo, -1):
			typ, rhs[i] = "L", up
		case math.IsInf(up, 1):
			typ, rhs[i] = "G", lo
		default:
			typ, rhs[i] = "G", lo
			rangeRows = append(rangeRows, i)
			ranges = append(ranges, rangeFor(lo, up))
		}
		fmt.Fprintf(bw, " %s  %s\n", typ, rows[i])
	}

	fmt.Fprintln(bw, "COLUMNS")
	start, rowIdx, vals := m.CSC()
	for j := range m.NumCols() {
		// A writer that fails (a full disk, a caller's stop) ends the
		// write here: a large model's formatting takes seconds.
		if _, err := bw.Write(nil); err != nil {
			return err
		}
		if c := m.ColCosts[j]; c != 0 {
			fmt.Fprintf(bw, "    %s  %s  %s\n", cols[j], obj, num(c))
		}
		for k := start[j]; k < start[j+1]; k++ {
			fmt.Fprintf(bw, "    %s  %s  %s\n", cols[j], rows[rowIdx[k]], num(vals[k]))
		}
		if m.ColCosts[j] == 0 && start[j] == start[j+1] {
			// An empty column must still be declared.
			fmt.Fprintf(bw, "    %s  %s  0\n", cols[j], obj)
		}
	}

	fmt.Fprintln(bw, "RHS")
	if m.Offset != 0 {
		fmt.Fprintf(bw, "    RHS  %s  %s\n", obj, num(-m.Offset))
	}
	for i, v := range rhs {
		if v != 0 {
			fmt.Fprintf(bw, "    RHS  %s  %s\n", rows[i], num(v))
		}
	}
	if len(rangeRows) > 0 {
		fmt.Fprintln(bw, "RANGES")
		for k, i := range rangeRows {
			fmt.Fprintf(bw, "    RNG  %s  %s\n", rows[i], num(ranges[k]))
		}
	}

	fmt.Fprintln(bw, "BOUNDS")
	for j := range m.NumCols() {
		if _, err := bw.Write(nil); err != nil {
			return err
		}
		lo, up := m.ColLower[j], m.ColUpper[j]
		switch {
		case lo == 0 && math.IsInf(up, 1):
			// MPS default.
		case math.IsInf(lo, -1) && math.IsInf(up, 1):
			fmt.Fprintf(bw, " FR BND  %s\n", cols[j])
		case lo == up:
			fmt.Fprintf(bw, " FX BND  %s  %s\n", cols[j], num(lo))
		default:
			if math.IsInf(lo, -1) {
				fmt.Fprintf(bw, " MI BND  %s\n", cols[j])
			} else if lo != 0 {
				fmt.Fprintf(bw, " LO BND  %s  %s\n", cols[j], num(lo))
			}
			if !math.IsInf(up, 1) {
				fmt.Fprintf(bw, " UP BND  %s  %s\n", cols[j], num(up))
			}
		}
	}
	fmt.Fprintln(bw, "ENDATA")
	return bw.Flush()
}

// rangeFor returns the range R > 0 of a G row with right-hand side lo such
// that lo + R rounds to up, when a nearby float does; else up − lo.
func rangeFor(lo, up float64) float64 {
	r := up - lo
	lo1, hi1 := r, r
	for range 8 {
		if lo+lo1 == up {
			return lo1
		}
		if lo+hi1 == up {
			return hi1
		}
		lo1, hi1 = math.Nextafter(lo1, 0), math.Nextafter(hi1, Inf)
	}
	return r
}

// mpsNames returns the names to write: the model's, checked, or generated.
func mpsNames(names []string, n int, prefix, kind string) ([]string, error) {
	out := make([]string, n)
	if names == nil {
		for k := range out {
			out[k] = prefix + strconv.Itoa(k)
		}
		return out, nil
	}
	seen := make(map[string]int, n)
	for k, s := range names {
		switch {
		case s == "":
			return nil, fmt.Errorf("lp: %s %d has an empty name", kind, k)
		case strings.ContainsFunc(s, isSpace):
			return nil, fmt.Errorf("lp: %s %d name %q contains white space", kind, k, s)
		}
		if prev, ok := seen[s]; ok {
			return nil, fmt.Errorf("lp: %s %d and %s %d are both named %q", kind, prev, kind, k, s)
		}
		seen[s] = k
		out[k] = s
	}
	return out, nil
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '\v' || r == '\f'
}

// ReadMPS reads a linear program in free MPS format: the sections NAME,
// OBJSENSE (MAX/MAXIMIZE/MIN/MINIMIZE, on the header line or the next),
// ROWS, COLUMNS, RHS, RANGES, BOUNDS (FR, MI, PL, LO, UP, FX) and ENDATA.
// Lines starting with '*' are comments. The first N row is the objective;
// later N rows are kept as free rows. A right-hand side on the objective
// row is the negated objective offset. Set names in RHS, RANGES and BOUNDS
// may be omitted. Integer markers and integer bound types are refused, as
// are duplicate names, unknown rows or columns, a (row, column) given
// twice, and numbers that are NaN. Names are kept in the returned model.
// Errors give the line number.
func ReadMPS(r io.Reader) (*Model, error) {
	if r == nil {
		return nil, errors.New("lp: ReadMPS needs a reader, got nil")
	}
	p := mpsReader{
		m:      &Model{RowNames: []string{}, ColNames: []string{}},
		rowIdx: map[string]int{},
		colIdx: map[string]int{},
		seen:   map[[2]int]bool{},
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	section := ""
	ended := false
	for sc.Scan() {
		p.line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "*") {
			continue
		}
		if ended {
			return nil, p.errorf("text after ENDATA")
		}
		f := strings.Fields(text)
		if !isSpace(rune(text[0])) {
			// A section header.
			head := strings.ToUpper(f[0])
			switch head {
			case "NAME", "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS":
				if head == "NAME" && p.sections > 0 {
					return nil, p.errorf("NAME must come first")
				}
				if head != "NAME" && len(f) > 1 {
					return nil, p.errorf("unexpected fields after %s", head)
				}
			case "OBJSENSE":
				if len(f) > 2 {
					return nil, p.errorf("unexpected fields after OBJSENSE")
				}
				if len(f) == 2 {
					if err := p.sense(f[1]); err != nil {
						return nil, err
					}
				}
			case "ENDATA":
				ended = true
			case "MAX", "MAXIMIZE", "MIN", "MINIMIZE":
				if section != "OBJSENSE" || len(f) != 1 {
					return nil, p.errorf("unknown section %q", f[0])
				}
				_ = p.sense(f[0])
				continue
			default:
				return nil, p.errorf("unknown section %q", f[0])
			}
			section = head
			p.sections++
			continue
		}
		var err error
		switch section {
		case "OBJSENSE":
			if len(f) != 1 {
				return nil, p.errorf("want MAX or MIN")
			}
			err = p.sense(f[0])
		case "ROWS":
			err = p.row(f)
		case "COLUMNS":
			err = p.column(f)
		case "RHS":
			err = p.pairs(f, p.rhs)
		case "RANGES":
			err = p.pairs(f, p.rng)
		case "BOUNDS":
			err = p.bound(f)
		default:
			err = p.errorf("data outside a section")
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("lp: reading MPS: %w", err)
	}
	if !ended {
		return nil, fmt.Errorf("lp: MPS: no ENDATA")
	}
	p.finish()
	if err := p.m.Validate(); err != nil {
		return nil, err
	}
	return p.m, nil
}

// mpsReader is the state of ReadMPS.
type mpsReader struct {
	m        *Model
	line     int
	sections int
	obj      string // name of the objective row, "" until seen
	rowIdx   map[string]int
	colIdx   map[string]int
	rowType  []byte
	rhsVal   []float64
	rngVal   []float64
	hasRng   []bool
	seen     map[[2]int]bool
	lastCol  string
}

func (p *mpsReader) errorf(format string, args ...any) error {
	return fmt.Errorf("lp: MPS line %d: %s", p.line, fmt.Sprintf(format, args...))
}

func (p *mpsReader) sense(s string) error {
	switch strings.ToUpper(s) {
	case "MAX", "MAXIMIZE":
		p.m.Maximize = true
	case "MIN", "MINIMIZE":
		p.m.Maximize = false
	default:
		return p.errorf("unknown objective sense %q", s)
	}
	return nil
}

func (p *mpsReader) number(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, p.errorf("%q is not a number", s)
	}
	if math.IsNaN(v) {
		return 0, p.errorf("number is NaN")
	}
	return v, nil
}

func (p *mpsReader) row(f []string) error {
	if len(f) != 2 {
		return p.errorf("a row needs a type and a name")
	}
	typ, name := strings.ToUpper(f[0]), f[1]
	if len(typ) != 1 || !strings.Contains("NLGE", typ) {
		return p.errorf("unknown row type %q", f[0])
	}
	if _, dup := p.rowIdx[name]; dup || name == p.obj {
		return p.errorf("row %q declared twice", name)
	}
	if typ == "N" && p.obj == "" {
		p.obj = name
		return nil
	}
	p.rowIdx[name] = len(p.m.RowNames)
	p.m.RowNames = append(p.m.RowNames, name)
	p.rowType = append(p.rowType, typ[0])
	p.rhsVal = append(p.rhsVal, 0)
	p.rngVal = append(p.rngVal, 0)
	p.hasRng = append(p.hasRng, false)
	return nil
}

func (p *mpsReader) column(f []string) error {
	if len(f) >= 3 && strings.EqualFold(strings.Trim(f[1], "'"), "MARKER") {
		return p.errorf("integer markers are not supported")
	}
	if len(f) != 3 && len(f) != 5 {
		return p.errorf("a column line needs a name and one or two (row, value) pairs")
	}
	name := f[0]
	j, ok := p.colIdx[name]
	if !ok {
		j = p.m.AddCol(0, 0, Inf, name)
		p.colIdx[name] = j
	} else if name != p.lastCol {
		return p.errorf("column %q is not contiguous", name)
	}
	p.lastCol = name
	for k := 1; k < len(f); k += 2 {
		v, err := p.number(f[k+1])
		if err != nil {
			return err
		}
		if f[k] == p.obj && p.obj != "" {
			if p.seen[[2]int{-1, j}] {
				return p.errorf("column %q has two objective coefficients", name)
			}
			p.seen[[2]int{-1, j}] = true
			p.m.ColCosts[j] = v
			continue
		}
		i, ok := p.rowIdx[f[k]]
		if !ok {
			return p.errorf("unknown row %q", f[k])
		}
		if p.seen[[2]int{i, j}] {
			return p.errorf("column %q has two coefficients in row %q", name, f[k])
		}
		p.seen[[2]int{i, j}] = true
		p.m.ConstMatrix = append(p.m.ConstMatrix, Nonzero{Row: i, Col: j, Val: v})
	}
	return nil
}

// pairs handles an RHS or RANGES line: [set] row value [row value].
func (p *mpsReader) pairs(f []string, set func(name string, v float64) error) error {
	if len(f)%2 == 1 {
		f = f[1:] // a set name
	}
	if len(f) != 2 && len(f) != 4 {
		return p.errorf("want one or two (row, value) pairs")
	}
	for k := 0; k < len(f); k += 2 {
		v, err := p.number(f[k+1])
		if err != nil {
			return err
		}
		if err := set(f[k], v); err != nil {
			return err
		}
	}
	return nil
}

func (p *mpsReader) rhs(name string, v float64) error {
	if name == p.obj && p.obj != "" {
		p.m.Offset = -v
		return nil
	}
	i, ok := p.rowIdx[name]
	if !ok {
		return p.errorf("unknown row %q", name)
	}
	if math.IsInf(v, 0) {
		return p.errorf("right-hand side of row %q is infinite", name)
	}
	p.rhsVal[i] = v
	return nil
}

func (p *mpsReader) rng(name string, v float64) error {
	i, ok := p.rowIdx[name]
	if !ok {
		return p.errorf("unknown row %q", name)
	}
	if math.IsInf(v, 0) {
		return p.errorf("range of row %q is infinite", name)
	}
	p.rngVal[i], p.hasRng[i] = v, true
	return nil
}

func (p *mpsReader) bound(f []string) error {
	if len(f) == 0 {
		return p.errorf("empty bound")
	}
	typ := strings.ToUpper(f[0])
	var valued bool
	switch typ {
	case "FR", "MI", "PL":
	case "LO", "UP", "FX":
		valued = true
	case "BV", "LI", "UI", "SC":
		return p.errorf("integer bound type %s is not supported", typ)
	default:
		return p.errorf("unknown bound type %q", f[0])
	}
	want := 2 // type, column
	if valued {
		want = 3
	}
	switch len(f) {
	case want:
	case want + 1:
		f = append(f[:1], f[2:]...) // drop the set name
	default:
		return p.errorf("bound %s has %d fields", typ, len(f))
	}
	j, ok := p.colIdx[f[1]]
	if !ok {
		return p.errorf("unknown column %q", f[1])
	}
	var v float64
	if valued {
		var err error
		if v, err = p.number(f[2]); err != nil {
			return err
		}
	}
	m := p.m
	switch typ {
	case "FR":
		m.ColLower[j], m.ColUpper[j] = math.Inf(-1), Inf
	case "MI":
		m.ColLower[j] = math.Inf(-1)
	case "PL":
		m.ColUpper[j] = Inf
	case "LO":
		m.ColLower[j] = v
	case "UP":
		m.ColUpper[j] = v
	case "FX":
		m.ColLower[j], m.ColUpper[j] = v, v
	}
	return nil
}

// finish turns row types, right-hand sides and ranges into row bounds.
func (p *mpsReader) finish() {
	m := p.m
	n := len(m.RowNames)
	m.RowLower = make([]float64, n)
	m.RowUpper = make([]float64, n)
	for i := range n {
		b, r := p.rhsVal[i], math.Abs(p.rngVal[i])
		lo, up := math.Inf(-1), Inf
		switch p.rowType[i] {
		case 'L':
			up = b
			if p.hasRng[i] {
				lo = b - r
			}
		case 'G':
			lo = b
			if p.hasRng[i] {
				up = b + r
			}
		case 'E':
			lo, up = b, b
			if p.hasRng[i] {
				if p.rngVal[i] > 0 {
					up = b + r
				} else {
					lo = b - r
				}
			}
		}
		m.RowLower[i], m.RowUpper[i] = lo, up
	}
	if len(m.RowNames) == 0 {
		m.RowNames = nil
	}
	if len(m.ColNames) == 0 {
		m.ColNames = nil
	}
}
