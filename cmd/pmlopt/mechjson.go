package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/pmlopt/pmlopt/mech"
)

// jmech is a mechanism in --json output. A small or dense one is its N
// rows of M numbers, as jfloat writes them. A large sparse one
// (mech.Mechanism.WriteSparse: at least mech.SparseMinEntries entries,
// fewer than a quarter non-zero) is the object
//
//	{"shape": [N, M], "sparse_rows": [[j₁, p₁, j₂, p₂, ...], ...]}
//
// with row i's non-zero entries as in a problem file's mechanism_sparse:
// the dense form of a 100×100 grid's optimum is 10⁸ numbers, its sparse
// rows a few hundred thousand. The values are written as jfloat writes them
// and read back bit for bit.
type jmech [][]jfloat

// MarshalJSON writes m dense or as sparse rows (see jmech).
func (m jmech) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	n, cols, nnz := len(m), 0, 0
	if n > 0 {
		cols = len(m[0])
	}
	for _, row := range m {
		for _, v := range row {
			if v != 0 {
				nnz++
			}
		}
	}
	if !mech.SparseForm(n, cols, nnz) {
		return json.Marshal([][]jfloat(m))
	}
	buf := fmt.Appendf(nil, `{"shape":[%d,%d],"sparse_rows":[`, n, cols)
	for i, row := range m {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		first := true
		for j, v := range row {
			if v == 0 {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = strconv.AppendInt(buf, int64(j), 10)
			buf = append(buf, ',')
			b, err := v.MarshalJSON()
			if err != nil {
				return nil, err
			}
			buf = append(buf, b...)
		}
		buf = append(buf, ']')
	}
	return append(buf, "]}"...), nil
}

// UnmarshalJSON reads either form of jmech.
func (m *jmech) UnmarshalJSON(b []byte) error {
	var q mech.JSONMatrix
	if err := q.UnmarshalJSON(b); err != nil {
		return err
	}
	*m = jmatrix(q)
	return nil
}

// mechanism is m in float64.
func (m jmech) mechanism() mech.Mechanism {
	q := make(mech.Mechanism, len(m))
	for i, row := range m {
		q[i] = make([]float64, len(row))
		for j, x := range row {
			q[i][j] = float64(x)
		}
	}
	return q
}

// decodedMechanism converts a mechanism decoded from JSON or YAML into an
// any (a matrix of numbers, or jmech's sparse object) to [][]float64. With
// n > 0, a sparse form whose shape is not n×m (the problem's) is refused
// before its dense matrix is built: the problem's own size bounds it.
func decodedMechanism(v any, n, m int) ([][]float64, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return floatMatrix(v)
	}
	var shape [2]int
	sh, ok := obj["shape"].([]any)
	if !ok || len(sh) != 2 {
		return nil, fmt.Errorf("neither a matrix of numbers nor {shape: [N, M], sparse_rows: [...]}")
	}
	for k, x := range sh {
		switch x := x.(type) {
		case float64:
			if x != math.Trunc(x) || math.Abs(x) > 1<<31 {
				return nil, fmt.Errorf("shape entry %d is not an integer", k+1)
			}
			shape[k] = int(x)
		case int:
			shape[k] = x
		default:
			return nil, fmt.Errorf("shape entry %d is not an integer", k+1)
		}
	}
	if n > 0 && (shape[0] != n || shape[1] != m) {
		return nil, fmt.Errorf("shape [%d, %d], but the problem is %d×%d", shape[0], shape[1], n, m)
	}
	rows, err := floatMatrix(obj["sparse_rows"])
	if err != nil {
		return nil, fmt.Errorf("sparse_rows: %v", err)
	}
	for k := range obj {
		if k != "shape" && k != "sparse_rows" {
			return nil, fmt.Errorf("unknown key %q beside shape and sparse_rows", k)
		}
	}
	return mech.SparseJSON{Shape: shape, SparseRows: rows}.Dense()
}

// sparseRowsKey opens the sparse rows of a jmech in writeJSON's indented
// output.
var sparseRowsKey = []byte(`"sparse_rows": [`)

// compactSparseRows puts each sparse row of writeJSON's indented output on
// one line, "[j, p, j, p]", where the indentation would give every number
// a line of its own (about half the size of a large mechanism). Only a key
// that starts its line is one: a label holding the same text is a JSON
// string, whose quotes are escaped and which never spans a line. Output
// without sparse rows is returned as it is.
func compactSparseRows(b []byte) []byte {
	var out []byte
	for {
		k := bytes.Index(b, sparseRowsKey)
		if k < 0 {
			if out == nil {
				return b
			}
			return append(out, b...)
		}
		line := bytes.LastIndexByte(b[:k], '\n') + 1
		end := k + len(sparseRowsKey)
		if len(bytes.Trim(b[line:k], " ")) != 0 {
			out = append(out, b[:end]...)
			b = b[end:]
			continue
		}
		out = append(out, b[:end]...)
		b = b[end:]
		// Inside the rows' array: depth 1 between rows, 2 inside a row,
		// whose whitespace goes; the array holds numbers only.
		depth := 1
		i := 0
		for ; i < len(b) && depth > 0; i++ {
			c := b[i]
			switch {
			case c == '[':
				depth++
			case c == ']':
				depth--
			case depth == 2 && (c == ' ' || c == '\n'):
				continue
			}
			out = append(out, c)
			if depth == 2 && c == ',' {
				out = append(out, ' ')
			}
		}
		b = b[i:]
	}
}
