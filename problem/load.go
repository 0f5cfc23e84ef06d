package problem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Format is the syntax of a problem file.
type Format string

// The formats of a problem file. Auto sniffs the content: a document that
// is a valid JSON object is read as JSON, anything else as YAML.
const (
	Auto Format = ""
	YAML Format = "yaml"
	JSON Format = "json"
)

// FormatOf returns the format a file name's extension names: YAML for .yaml
// and .yml, JSON for .json (in any letter case) and Auto otherwise.
func FormatOf(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return YAML
	case ".json":
		return JSON
	}
	return Auto
}

// Load reads and validates the problem file at path, in the format its
// extension names (see FormatOf). Errors name the file, as in
// "p.yaml: prior entry 2: is negative (-0.1)"; errors.As finds the
// *mech.FieldError inside.
func Load(path string) (*Problem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := Parse(data, FormatOf(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Parse reads and validates a problem document in the given format. When
// the document gives a utility and no order, the order is derived from the
// utility.
func Parse(data []byte, format Format) (*Problem, error) {
	var (
		root node
		err  error
	)
	switch format {
	case YAML:
		root, err = parseYAML(data)
	case JSON:
		root, err = parseJSON(data)
	case Auto:
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && json.Valid(t) {
			root, err = parseJSON(data)
		} else {
			root, err = parseYAML(data)
		}
	default:
		return nil, fmt.Errorf("unknown problem file format %q (want yaml or json)", string(format))
	}
	if err != nil {
		return nil, err
	}
	return decode(root)
}
