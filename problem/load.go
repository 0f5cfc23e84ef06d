package problem

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
//
// A file larger than DefaultMaxBytes is refused; LoadLimit sets another
// limit.
func Load(path string) (*Problem, error) {
	return LoadLimit(path, DefaultMaxBytes)
}

// DefaultMaxBytes is the size limit of Load: 256 MiB, a 3000 × 3000 matrix
// written with 17 digits a number is about 170 MB.
const DefaultMaxBytes = 256 << 20

// ErrTooLarge is returned (wrapped, with the path) by LoadLimit for a file
// beyond its limit.
var ErrTooLarge = errors.New("file too large")

// LoadLimit is Load with a size limit of maxBytes: a larger file, or a
// device or pipe that yields more (/dev/zero), is refused before it is
// parsed, so that parsing can not exhaust memory: a YAML matrix outside the
// layouts of yamlmatrix.go costs yaml.v3 some hundred bytes a scalar.
func LoadLimit(path string, maxBytes int64) (*Problem, error) {
	return LoadMemory(path, maxBytes, 0)
}

// LoadMemory is LoadLimit for a problem whose dense matrices may take at
// most maxMemory bytes (0: MemoryLimit, else the memory available): a
// mechanism_sparse whose dense matrix would take more is refused before it
// is allocated, saying the size needed, and the problem's Materialize keeps
// to the same limit (SetMemoryLimit).
func LoadMemory(path string, maxBytes, maxMemory int64) (*Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooLarge := fmt.Errorf("%s: %w: more than %d bytes", path, ErrTooLarge, maxBytes)
	size := int64(0)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > maxBytes {
			return nil, tooLarge
		}
		size = fi.Size()
	}
	// A buffer of the file's size, with the room bytes.Buffer wants for its
	// last read, is allocated once; io.ReadAll would grow one by copies.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxBytes+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > maxBytes {
		return nil, tooLarge
	}
	return ParseSourceMemory(data, FormatOf(path), path, maxMemory)
}

// ParseSource is Parse for a document read from source (a file's path, or
// "standard input"): its errors start with source, as in "p.yaml: prior
// entry 2: is negative (-0.1)", and so do those of the problem's Require
// methods.
func ParseSource(data []byte, format Format, source string) (*Problem, error) {
	return ParseSourceMemory(data, format, source, 0)
}

// ParseSourceMemory is ParseSource with the memory limit maxMemory of
// LoadMemory.
func ParseSourceMemory(data []byte, format Format, source string, maxMemory int64) (*Problem, error) {
	p, err := parse(data, format, maxMemory)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	p.source = source
	p.memoryLimit = maxMemory
	return p, nil
}

// Parse reads and validates a problem document in the given format. When
// the document gives a utility and no order, the order is derived from the
// utility.
func Parse(data []byte, format Format) (*Problem, error) {
	return parse(data, format, 0)
}

// parse is Parse with the memory limit of LoadMemory (0: MemoryLimit, else
// the memory available).
func parse(data []byte, format Format, maxMemory int64) (*Problem, error) {
	var (
		root node
		err  error
	)
	// A UTF-8 byte order mark, which some editors write, is no content.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
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
	return decodeMemory(root, maxMemory)
}
