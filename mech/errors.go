package mech

import "fmt"

// FieldError reports what is wrong with one field of user data. Row and Col
// are 0-based indices, or -1 when they do not apply.
type FieldError struct {
	Field string // e.g. "prior", "utility", "mechanism"
	Row   int
	Col   int
	Msg   string
}

// Error formats the error as "field row R, column C: message" with 1-based
// row and column numbers, as a user counts them in a problem file.
func (e *FieldError) Error() string {
	switch {
	case e.Row >= 0 && e.Col >= 0:
		return fmt.Sprintf("%s row %d, column %d: %s", e.Field, e.Row+1, e.Col+1, e.Msg)
	case e.Row >= 0:
		return fmt.Sprintf("%s row %d: %s", e.Field, e.Row+1, e.Msg)
	case e.Col >= 0:
		return fmt.Sprintf("%s entry %d: %s", e.Field, e.Col+1, e.Msg)
	default:
		return fmt.Sprintf("%s: %s", e.Field, e.Msg)
	}
}

func errorf(field string, row, col int, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Row: row, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// checkMatrix verifies that a is a non-empty rectangular matrix of finite
// numbers and returns its dimensions.
func checkMatrix(field string, a [][]float64) (n, m int, err error) {
	if len(a) == 0 {
		return 0, 0, errorf(field, -1, -1, "has no rows")
	}
	m = len(a[0])
	if m == 0 {
		return 0, 0, errorf(field, 0, -1, "has no columns")
	}
	for i, row := range a {
		if len(row) != m {
			return 0, 0, errorf(field, i, -1, "has %d entries, row 1 has %d", len(row), m)
		}
		for j, v := range row {
			if v != v {
				return 0, 0, errorf(field, i, j, "is NaN")
			}
			if v > maxFinite || v < -maxFinite {
				return 0, 0, errorf(field, i, j, "is infinite")
			}
		}
	}
	return len(a), m, nil
}

const maxFinite = 1.7976931348623157e308
