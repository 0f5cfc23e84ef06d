package problem

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pmlopt/pmlopt/mech"
)

// The keys of the schema, in the order Marshal writes them. certificate,
// which solve --out writes for 'pmlopt verify', is read by package verify
// and ignored here.
var (
	topKeys     = []string{"name", "inputs", "outputs", "prior", "utility", "order", "mechanism", "privacy", "objective", "utility_rule", "points", "output_points", "mechanism_sparse", "prior_set", "certificate"}
	privacyKeys = []string{"measure", "epsilon", "epsilon_lower", "epsilon_upper"}
)

// decode builds a Problem from a document tree and validates it.
func decode(root node) (*Problem, error) { return decodeMemory(root, 0) }

// decodeMemory is decode where a dense matrix built from a compact key
// (mechanism_sparse) may take at most maxMemory bytes (0: MemoryLimit,
// else the memory available).
func decodeMemory(root node, maxMemory int64) (*Problem, error) {
	switch root.kind {
	case nullNode:
		return nil, fieldErr("problem", -1, -1, "the file is empty")
	case mapNode:
	default:
		return nil, fieldErr("problem", -1, -1, "the file must hold a mapping of keys (%s), not %s", strings.Join(topKeys, ", "), root.describe())
	}
	p := &Problem{}
	if err := checkKeys("", root, topKeys); err != nil {
		return nil, err
	}
	rs := ruleSource{memoryLimit: maxMemory} // the keys of a utility given by a rule (rule.go)
	var ps *priorSetSpec
	for i, key := range root.keys {
		v := &root.kids[i]
		if ok, err := rs.decodeRuleKey(key, v); ok || err != nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		rs.note(key, v)
		var err error
		switch key {
		case "name":
			p.Name, err = scalarText("name", -1, v, "a name")
			if err == nil {
				err = checkName(p.Name)
			}
		case "inputs":
			p.Inputs, err = labels("inputs", v)
		case "outputs":
			p.Outputs, err = labels("outputs", v)
		case "prior":
			if !rs.uniformPrior {
				p.Prior, err = vector("prior", v)
			}
		case "utility":
			var a [][]float64
			a, err = matrix("utility", v)
			p.Utility = a
		case "order":
			p.Order, err = intMatrix("order", v)
		case "mechanism":
			var a [][]float64
			a, err = matrix("mechanism", v)
			p.Mechanism = a
		case "privacy":
			p.Privacy, err = budget(v)
		case "prior_set":
			ps, err = decodePriorSet(v)
		case "objective":
			var s string
			s, err = scalarText("objective", -1, v, "an objective")
			if err == nil {
				if _, perr := ParseObjective(s); perr != nil {
					err = fieldErr("objective", -1, -1, "%s is not one of worst-case-order, worst-case-value, expected-utility", quote(s))
				}
				p.Objective = Objective(s)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if err := rs.finish(p); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if ps != nil {
		set, err := ps.build(p.Prior)
		if err != nil {
			return nil, err
		}
		p.PriorSet, p.PriorSetSource = set, ps.src
	}
	if p.Order == nil && p.Utility != nil {
		p.Order = p.Utility.Order()
	}
	return p, nil
}

// checkKeys refuses unknown, repeated and missing-valued keys of a mapping.
// prefix is "" for the document and "privacy." inside the privacy block.
func checkKeys(prefix string, m node, allowed []string) error {
	seen := make(map[string]bool, len(m.keys))
	for _, k := range m.keys {
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			field := strings.TrimSuffix(prefix, ".")
			if field == "" {
				field = "problem"
			}
			return fieldErr(field, -1, -1, "unknown key %s; allowed keys are %s", quote(k), strings.Join(allowed, ", "))
		}
		if seen[k] {
			return fieldErr(prefix+k, -1, -1, "is given twice")
		}
		seen[k] = true
	}
	return nil
}

// scalarText returns the text of a scalar field.
func scalarText(field string, col int, v *node, what string) (string, error) {
	if v.kind != scalarNode {
		return "", fieldErr(field, -1, col, "is %s, not %s", v.describe(), what)
	}
	if !utf8.ValidString(v.text) {
		// YAML refuses such a file as a whole; JSON's decoder would put
		// U+FFFD in place of the bytes.
		return "", fieldErr(field, -1, col, "%s is not valid UTF-8", quote(v.text))
	}
	return v.text, nil
}

// unreadable is the message for an item that a list's reader did not read
// and that the decoder read after all, which the list's readers rule out:
// the items after it are lost, so the value is refused rather than cut.
const unreadable = "could not be read"

func labels(field string, v *node) ([]string, error) {
	if v.kind != seqNode {
		return nil, fieldErr(field, -1, -1, "is %s, not a list of labels", v.describe())
	}
	if l := v.list; l != nil {
		for i, s := range l.strs {
			if err := checkLabel(field, i, s); err != nil {
				return nil, err
			}
		}
		if l.bad != nil {
			i := len(l.strs)
			s, err := scalarText(field, i, l.bad, "a label")
			if err == nil {
				err = checkLabel(field, i, s)
			}
			if err == nil {
				err = fieldErr(field, -1, i, unreadable)
			}
			return nil, err
		}
		return l.strs, nil
	}
	out := make([]string, len(v.kids))
	for i := range v.kids {
		s, err := scalarText(field, i, &v.kids[i], "a label")
		if err == nil {
			err = checkLabel(field, i, s)
		}
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// checkLabel refuses a label that is not valid UTF-8 or that holds a
// control character (a line break, a tab, U+0000..U+001F, U+007F..U+009F)
// or U+FFFE or U+FFFF: labels are printed in one-line messages, tables, CSV
// and the text of SVG pictures, where XML allows none of U+0000..U+0008.
func checkLabel(field string, i int, s string) error {
	if !utf8.ValidString(s) {
		return fieldErr(field, -1, i, "%s is not valid UTF-8", quote(s))
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF {
			return fieldErr(field, -1, i, "%s holds the control character %U; a label is one line of printable text", quote(s), r)
		}
	}
	return nil
}

// checkName refuses a name that holds a character XML does not allow (the
// name is the title of pictures): a control character other than a tab or
// a line break, U+FFFE or U+FFFF.
func checkName(s string) error {
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7F || r == 0xFFFE || r == 0xFFFF {
			return fieldErr("name", -1, -1, "%s holds the control character %U", quote(s), r)
		}
	}
	return nil
}

func vector(field string, v *node) ([]float64, error) {
	if v.kind != seqNode {
		return nil, fieldErr(field, -1, -1, "is %s, not a list of numbers", v.describe())
	}
	if l := v.list; l != nil {
		if l.bad != nil {
			_, msg := number(l.bad)
			if msg == "" {
				msg = unreadable
			}
			return nil, fieldErr(field, -1, len(l.nums), "%s", msg)
		}
		return l.nums, nil
	}
	out := make([]float64, len(v.kids))
	for i := range v.kids {
		x, msg := number(&v.kids[i])
		if msg != "" {
			return nil, fieldErr(field, -1, i, "%s", msg)
		}
		out[i] = x
	}
	return out, nil
}

func matrix(field string, v *node) ([][]float64, error) {
	if v.kind != seqNode {
		return nil, fieldErr(field, -1, -1, "is %s, not a list of rows", v.describe())
	}
	if l := v.list; l != nil {
		if l.bad != nil {
			if _, err := matrixRow(field, len(l.rows), l.bad); err != nil {
				return nil, err
			}
			return nil, fieldErr(field, len(l.rows), -1, unreadable)
		}
		return l.rows, nil
	}
	out := make([][]float64, len(v.kids))
	for i := range v.kids {
		row, err := matrixRow(field, i, &v.kids[i])
		if err != nil {
			return nil, err
		}
		out[i] = row
	}
	return out, nil
}

// matrixRow reads row i of a matrix from its node.
func matrixRow(field string, i int, row *node) ([]float64, error) {
	if row.kind != seqNode {
		return nil, fieldErr(field, i, -1, "is %s, not a list of numbers", row.describe())
	}
	out := make([]float64, len(row.kids))
	for j := range row.kids {
		x, msg := number(&row.kids[j])
		if msg != "" {
			return nil, fieldErr(field, i, j, "%s", msg)
		}
		out[j] = x
	}
	return out, nil
}

func intMatrix(field string, v *node) ([][]int, error) {
	if v.kind != seqNode {
		return nil, fieldErr(field, -1, -1, "is %s, not a list of rows", v.describe())
	}
	if l := v.list; l != nil {
		out := make([][]int, len(l.rows), len(l.rows)+btoi(l.bad != nil))
		for i, row := range l.rows {
			out[i] = make([]int, len(row))
			for j, x := range row {
				out[i][j] = int(x) // exact: denseInteger reads only |x| ≤ 2^53
			}
		}
		if l.bad != nil {
			// Only a row that the order check refuses is read into a node
			// (one with an entry beyond 2^53, outside 1..M, or one that
			// integer refuses): the rows after it are not needed.
			row, err := intRow(field, len(l.rows), l.bad)
			if err != nil {
				return nil, err
			}
			if !slices.ContainsFunc(row, func(x int) bool { return x > 1<<53 || x < -(1<<53) }) {
				return nil, fieldErr(field, len(l.rows), -1, unreadable)
			}
			out = append(out, row)
		}
		return out, nil
	}
	out := make([][]int, len(v.kids))
	for i := range v.kids {
		row, err := intRow(field, i, &v.kids[i])
		if err != nil {
			return nil, err
		}
		out[i] = row
	}
	return out, nil
}

// intRow reads row i of an order from its node.
func intRow(field string, i int, row *node) ([]int, error) {
	if row.kind != seqNode {
		return nil, fieldErr(field, i, -1, "is %s, not a list of integers", row.describe())
	}
	out := make([]int, len(row.kids))
	for j := range row.kids {
		x, msg := integer(&row.kids[j])
		if msg != "" {
			return nil, fieldErr(field, i, j, "%s", msg)
		}
		out[j] = x
	}
	return out, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func budget(v *node) (*mech.Budget, error) {
	if v.kind != mapNode {
		return nil, fieldErr("privacy", -1, -1, "is %s, not a mapping with measure and epsilon", v.describe())
	}
	if err := checkKeys("privacy.", *v, privacyKeys); err != nil {
		return nil, err
	}
	b := &mech.Budget{}
	given := map[string]bool{}
	for i, k := range v.keys {
		kid := &v.kids[i]
		given[k] = true
		if k == "measure" {
			s, err := scalarText("privacy.measure", -1, kid, "a measure")
			if err != nil {
				return nil, err
			}
			m, err := mech.ParseMeasure(s)
			if err != nil {
				return nil, fieldErr("privacy.measure", -1, -1, "%s is not one of pml, alip, lip, ldp", quote(s))
			}
			b.Measure = m
			continue
		}
		x, msg := number(kid)
		if msg == "" {
			msg = checkEpsilon(x)
		}
		if msg != "" {
			return nil, fieldErr("privacy."+k, -1, -1, "%s", msg)
		}
		switch k {
		case "epsilon":
			b.Epsilon = x
		case "epsilon_lower":
			b.EpsilonLower = x
		case "epsilon_upper":
			b.EpsilonUpper = x
		}
	}
	if b.Measure == "" {
		return nil, missing("privacy.measure", "want pml, alip, lip or ldp")
	}
	for _, k := range privacyKeys[1:] {
		used := (b.Measure == mech.ALIP) != (k == "epsilon")
		switch {
		case used && !given[k]:
			return nil, missing("privacy."+k, "measure "+string(b.Measure)+" needs it")
		case !used && given[k]:
			return nil, fieldErr("privacy."+k, -1, -1, "is not used by measure %s (%s)", b.Measure, usesOf(b.Measure))
		}
	}
	return b, nil
}

// number reads a real number: a YAML or JSON number, or a string holding a
// decimal number or a fraction a/b. It returns a message for the user when v
// is not one.
func number(v *node) (float64, string) {
	if v.kind != scalarNode {
		return 0, "is " + v.describe() + ", not a number"
	}
	return numberText(v.text)
}

// numberText is number for the text of a scalar.
func numberText(text string) (float64, string) {
	x, k := parseNumber(text)
	return x, k.message(text)
}

// A numberKind says whether a text is a number and, when not, why.
type numberKind uint8

const (
	isNumber numberKind = iota
	isNaN
	isInfinite
	notDecimal
	notFraction
	zeroDenominator
	outOfRange
	underflow
)

// message is the user's message for a text of kind k, "" for a number.
func (k numberKind) message(text string) string {
	switch k {
	case isNumber:
		return ""
	case isNaN:
		return "is NaN"
	case isInfinite:
		return "is infinite"
	case notDecimal:
		return quote(text) + " is not a number"
	case notFraction:
		return quote(text) + " is not a number (a fraction is written a/b)"
	case zeroDenominator:
		return quote(text) + " has a zero denominator"
	case underflow:
		return quote(text) + " is out of range (a magnitude below the least positive float64, 4.9e-324, would be read as 0)"
	}
	return quote(text) + " is out of range"
}

// parseNumber reads a decimal number or a fraction a/b. It keeps no
// reference to text, so that a caller may pass a temporary string.
func parseNumber(text string) (float64, numberKind) {
	s := strings.TrimSpace(text)
	if k := special(s); k != isNumber {
		return 0, k
	}
	num, den, frac := strings.Cut(s, "/")
	a, ok := decimal(strings.TrimSpace(num))
	if !ok {
		return 0, notDecimal
	}
	if !frac {
		if math.IsInf(a, 0) {
			return 0, outOfRange
		}
		if a == 0 && nonzeroMantissa(num) {
			return 0, underflow
		}
		return a, isNumber
	}
	b, ok := decimal(strings.TrimSpace(den))
	if !ok {
		return 0, notFraction
	}
	if b == 0 && nonzeroMantissa(den) {
		return 0, underflow
	}
	if b == 0 {
		return 0, zeroDenominator
	}
	x := a / b
	if math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsInf(x, 0) {
		return 0, outOfRange
	}
	if x == 0 && nonzeroMantissa(num) {
		return 0, underflow
	}
	return x, isNumber
}

// nonzeroMantissa reports whether the decimal s has a digit other than 0
// before its exponent: a number that is not zero, even when it parses as 0.
func nonzeroMantissa(s string) bool {
	for i := 0; i < len(s) && s[i] != 'e' && s[i] != 'E'; i++ {
		if '1' <= s[i] && s[i] <= '9' {
			return true
		}
	}
	return false
}

// special recognises the spellings of NaN and infinity that YAML and Go
// accept, so that they are refused with a clear message; it returns
// isNumber for any other text.
func special(s string) numberKind {
	t := strings.ToLower(strings.TrimLeft(s, "+-"))
	switch t {
	case "nan", ".nan":
		return isNaN
	case "inf", ".inf", "infinity":
		return isInfinite
	}
	return isNumber
}

// decimal parses [+-]digits[.digits][e[+-]digits] (with digits on at least
// one side of the point). Overflow gives ±Inf and ok.
func decimal(s string) (float64, bool) {
	if !isDecimal(s) {
		return 0, false
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(x, 0) {
		return 0, false
	}
	return x, true
}

func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// integer reads an order entry: an integer written as a number.
func integer(v *node) (int, string) {
	if v.kind != scalarNode {
		return 0, "is " + v.describe() + ", not an integer"
	}
	if v.str {
		return 0, quote(v.text) + " is a string, not an integer"
	}
	s := strings.TrimSpace(v.text)
	x, err := strconv.Atoi(s)
	if err != nil {
		if k := special(s); k != isNumber {
			return 0, k.message(v.text)
		}
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f == math.Trunc(f) {
			switch {
			case math.Abs(f) >= 0x1p63:
				return 0, quote(v.text) + " is beyond the integers a file can hold (|n| ≤ 9223372036854775807)"
			case math.Abs(f) <= 0x1p53:
				// Exactly the integer the text names: give it as digits.
				return 0, quote(v.text) + " is not an integer as written: give its digits alone (" + strconv.FormatInt(int64(f), 10) + ")"
			}
			return 0, quote(v.text) + " is not an integer as written: give its digits alone"
		}
		return 0, quote(v.text) + " is not an integer"
	}
	return x, ""
}

// denseNumber reads the text of a plain or string scalar of a utility or
// mechanism row as number does, and reports false where number would
// refuse it, so that a row read straight into floats holds exactly the
// values the node tree would give and refuses nothing itself.
func denseNumber(text []byte) (float64, bool) {
	x, k := parseNumber(string(text))
	return x, k == isNumber
}

// denseInteger reads the text of a plain scalar of an order row as integer
// does, as a float64; it reports false where integer would refuse the text
// and beyond 2^53, where a float64 would not hold the integer exactly.
func denseInteger(text []byte) (float64, bool) {
	x, err := strconv.Atoi(strings.TrimSpace(string(text)))
	if err != nil || x > 1<<53 || x < -(1<<53) {
		return 0, false
	}
	return float64(x), true
}
