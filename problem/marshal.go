package problem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/pmlopt/pmlopt/mech"
)

// Marshal writes a valid problem as a YAML or JSON problem file (Auto means
// YAML). Numbers are written in the shortest form that reads back exactly,
// so Parse(Marshal(p)) gives back p. When p has a utility the order is left
// out: it is derived from the utility on reading. Marshal refuses a problem
// that Validate refuses.
func Marshal(p *Problem, format Format) ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	fields := entries(p)
	switch format {
	case Auto, YAML:
		return marshalYAML(fields)
	case JSON:
		return marshalJSON(fields), nil
	}
	return nil, fmt.Errorf("unknown problem file format %q (want yaml or json)", string(format))
}

// A word is a string written without quotes: a measure or an objective.
type word string

// An entry is one key of the file and its value: a string, word, int
// (a count, written in digits: a float's shortest form of 10⁶ is 1e+06,
// which the reader's integers refuse), float64, []string, []float64,
// [][]float64, [][]int or []entry (a mapping).
type entry struct {
	key string
	val any
}

func entries(p *Problem) []entry {
	var es []entry
	if p.Name != "" {
		es = append(es, entry{"name", p.Name})
	}
	if p.Rule != nil {
		es = append(es, ruleEntries(p)...)
	} else {
		es = append(es, denseEntries(p)...)
	}
	es = append(es, priorSetEntry(p)...)
	if p.Mechanism != nil {
		es = append(es, mechanismEntry(p.Mechanism))
	}
	if b := p.Privacy; b != nil {
		priv := []entry{{"measure", word(b.Measure)}}
		if b.Measure == mech.ALIP {
			priv = append(priv, entry{"epsilon_lower", b.EpsilonLower}, entry{"epsilon_upper", b.EpsilonUpper})
		} else {
			priv = append(priv, entry{"epsilon", b.Epsilon})
		}
		es = append(es, entry{"privacy", priv})
	}
	if p.Objective != "" {
		es = append(es, entry{"objective", word(p.Objective)})
	}
	return es
}

// denseEntries are the labels, the prior and the utility (or order) of a
// problem without a rule.
func denseEntries(p *Problem) []entry {
	var es []entry
	if p.Inputs != nil {
		es = append(es, entry{"inputs", p.Inputs})
	}
	if p.Outputs != nil {
		es = append(es, entry{"outputs", p.Outputs})
	}
	es = append(es, entry{"prior", []float64(p.Prior)})
	if p.Utility != nil {
		es = append(es, entry{"utility", [][]float64(p.Utility)})
	} else if p.Order != nil {
		es = append(es, entry{"order", [][]int(p.Order)})
	}
	return es
}

func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// marshalYAML writes the entries with yaml.v3, except the rows of the
// matrices: yaml.v3 would hold a node of some hundred bytes per entry. Each
// matrix is given to yaml.v3 as an empty flow sequence, which it writes as
// the line "key: []", and the rows are written in its place as yaml.v3
// writes them, "  - [a, b, ...]" (step 2 of yamlmatrix.go in reverse).
func marshalYAML(es []entry) ([]byte, error) {
	matrices := map[string]any{}
	kept := make([]entry, len(es))
	for k, e := range es {
		kept[k] = e
		switch e.val.(type) {
		case [][]float64, [][]int:
			matrices[e.key] = e.val
			kept[k].val = []float64{} // written as "[]"
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(yamlMap(kept)); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if len(matrices) == 0 {
		return buf.Bytes(), nil
	}
	// The keys are plain and every string is double-quoted, with its line
	// breaks escaped, so "key: []" can only be the matrix's own line.
	var out []byte
	for _, line := range bytes.SplitAfter(buf.Bytes(), []byte("\n")) {
		key, ok := bytes.CutSuffix(line, []byte(": []\n"))
		m, matrix := matrices[string(key)]
		if !ok || !matrix {
			out = append(out, line...)
			continue
		}
		out = append(append(out, key...), ":\n"...)
		switch m := m.(type) {
		case [][]float64:
			for _, row := range m {
				out = appendRow(out, len(row), func(b []byte, j int) []byte { return strconv.AppendFloat(b, row[j], 'g', -1, 64) })
			}
		case [][]int:
			for _, row := range m {
				out = appendRow(out, len(row), func(b []byte, j int) []byte { return strconv.AppendInt(b, int64(row[j]), 10) })
			}
		}
	}
	return out, nil
}

// appendRow appends a row as yaml.v3 writes it at indent 2, the line
// "  - [a, b, ...]", with the texts of formatFloat and strconv.Itoa.
func appendRow(b []byte, n int, entry func(b []byte, j int) []byte) []byte {
	b = append(b, "  - ["...)
	for j := 0; j < n; j++ {
		if j > 0 {
			b = append(b, ", "...)
		}
		b = entry(b, j)
	}
	return append(b, "]\n"...)
}

func yamlMap(es []entry) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range es {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.key}, yamlValue(e.val))
	}
	return m
}

func yamlValue(v any) *yaml.Node {
	str := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: s}
	}
	num := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }
	flow := func() *yaml.Node { return &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle} }
	switch v := v.(type) {
	case string:
		return str(v)
	case word:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: string(v)}
	case int:
		return num(strconv.Itoa(v))
	case float64:
		return num(formatFloat(v))
	case []string:
		s := flow()
		for _, x := range v {
			s.Content = append(s.Content, str(x))
		}
		return s
	case []float64:
		s := flow()
		for _, x := range v {
			s.Content = append(s.Content, num(formatFloat(x)))
		}
		return s
	case []entry:
		return yamlMap(v)
	}
	panic(fmt.Sprintf("problem: unexpected value %T", v)) // unreachable: entries builds only the types above, marshalYAML writes the matrices
}

func marshalJSON(es []entry) []byte {
	var buf bytes.Buffer
	writeJSONMap(&buf, es, "")
	buf.WriteByte('\n')
	return buf.Bytes()
}

func writeJSONMap(buf *bytes.Buffer, es []entry, indent string) {
	buf.WriteString("{\n")
	for k, e := range es {
		buf.WriteString(indent + "  ")
		writeJSONString(buf, e.key)
		buf.WriteString(": ")
		writeJSONValue(buf, e.val, indent+"  ")
		if k < len(es)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString(indent + "}")
}

func writeJSONString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s) // a string always marshals
	buf.Write(b)
}

func writeJSONValue(buf *bytes.Buffer, v any, indent string) {
	list := func(n int, item func(int)) {
		buf.WriteByte('[')
		for i := 0; i < n; i++ {
			if i > 0 {
				buf.WriteString(", ")
			}
			item(i)
		}
		buf.WriteByte(']')
	}
	rows := func(n int, row func(int)) {
		buf.WriteString("[\n")
		for i := 0; i < n; i++ {
			buf.WriteString(indent + "  ")
			row(i)
			if i < n-1 {
				buf.WriteByte(',')
			}
			buf.WriteByte('\n')
		}
		buf.WriteString(indent + "]")
	}
	switch v := v.(type) {
	case string:
		writeJSONString(buf, v)
	case word:
		writeJSONString(buf, string(v))
	case int:
		buf.WriteString(strconv.Itoa(v))
	case float64:
		buf.WriteString(formatFloat(v))
	case []string:
		list(len(v), func(i int) { writeJSONString(buf, v[i]) })
	case []float64:
		list(len(v), func(i int) { buf.WriteString(formatFloat(v[i])) })
	case [][]float64:
		rows(len(v), func(i int) { writeJSONValue(buf, v[i], indent) })
	case [][]int:
		rows(len(v), func(i int) { list(len(v[i]), func(j int) { buf.WriteString(strconv.Itoa(v[i][j])) }) })
	case []entry:
		writeJSONMap(buf, v, indent)
	}
}
