package jsonout

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlTypeLine is one line of a yaml.TypeError: the line, the node's
// tag, its text (absent for a list or a mapping) and the Go type it did
// not fit.
var yamlTypeLine = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")

// KindWord names what a value of a Go kind is to a reader of a document
// ("a number", "an integer", "a list", ...), "" for a kind no document
// holds.
func KindWord(k reflect.Kind) string {
	switch {
	case k == reflect.Float64 || k == reflect.Float32:
		return "a number"
	case k >= reflect.Int && k <= reflect.Uint64:
		return "an integer"
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "true or false"
	case k == reflect.Slice || k == reflect.Array:
		return "a list"
	case k == reflect.Map || k == reflect.Struct:
		return "a mapping"
	}
	return ""
}

// goKinds are the Go types a yaml.TypeError names, by kind.
var goKinds = map[string]reflect.Kind{"float64": reflect.Float64, "float32": reflect.Float32, "int": reflect.Int,
	"int64": reflect.Int64, "uint": reflect.Uint, "uint64": reflect.Uint64, "string": reflect.String, "bool": reflect.Bool}

// DecodeMessage words a decoding error of an answer or certificate by
// line or field and the value that does not fit, not by the decoder's
// Go types.
func DecodeMessage(err error) string {
	if err == nil {
		return ""
	}
	var ye *yaml.TypeError
	if errors.As(err, &ye) {
		var parts []string
		for _, l := range ye.Errors {
			m := yamlTypeLine.FindStringSubmatch(l)
			if m == nil {
				parts = append(parts, l)
				continue
			}
			what := KindWord(reflect.Map)
			switch {
			case strings.HasPrefix(m[4], "[]"):
				what = KindWord(reflect.Slice)
			case goKinds[m[4]] != reflect.Invalid:
				what = KindWord(goKinds[m[4]])
			}
			got := map[string]string{"seq": "a list", "map": "a mapping"}[m[2]]
			if got == "" {
				got = strconv.Quote(m[3])
				if _, perr := strconv.ParseFloat(m[3], 64); errors.Is(perr, strconv.ErrRange) {
					got += ", beyond the float64 range,"
				}
			}
			parts = append(parts, fmt.Sprintf("line %s: %s where %s belongs", m[1], got, what))
		}
		return strings.Join(parts, "; ")
	}
	var je *json.UnmarshalTypeError
	if errors.As(err, &je) {
		field := strings.TrimPrefix(je.Field, "Reported.")
		what := KindWord(je.Type.Kind())
		if what == "" {
			what = KindWord(reflect.Map)
		}
		return fmt.Sprintf("field %s: a JSON %s where %s belongs", field, je.Value, what)
	}
	return err.Error()
}
