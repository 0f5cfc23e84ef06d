package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt/internal/outfile"
	"github.com/pmlopt/pmlopt/mech"
)

// checkMechanismOut refuses, before the work, a --mechanism-out path of
// another kind than .npy or .csv, or one checkOutput refuses.
func checkMechanismOut(path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy", ".csv":
	default:
		return usagef("--mechanism-out %s: want a .npy or .csv file", path)
	}
	return checkOutput("mechanism-out", path, inputs...)
}

// writeMechanismFile writes m to path as .npy or .csv, by the extension,
// replacing the file only once it is complete.
func writeMechanismFile(path string, m mech.Mechanism) error {
	return outfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		var err error
		if strings.EqualFold(filepath.Ext(path), ".npy") {
			err = writeNPY(bw, m)
		} else {
			err = writeMatrixCSV(bw, m)
		}
		if err != nil {
			return err
		}
		return bw.Flush()
	})
}

// writeNPY writes m in the NumPy .npy format, version 1.0: the magic
// "\x93NUMPY", the version bytes 1 0, the header's length as a
// little-endian uint16, the header — a Python dict literal giving the
// dtype '<f8' (little-endian float64), C (row-major) order and the shape —
// padded with spaces and ended by a newline so that the data starts at a
// multiple of 64 bytes, then the N·M entries row by row.
func writeNPY(w io.Writer, m mech.Mechanism) error {
	n, cols := m.Dims()
	header := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", n, cols)
	const prefix = 10 // magic (6), version (2), header length (2)
	total := prefix + len(header) + 1
	total += (64 - total%64) % 64
	header += strings.Repeat(" ", total-prefix-len(header)-1) + "\n"
	if len(header) > math.MaxUint16 {
		return fmt.Errorf("npy header of %d bytes", len(header)) // unreachable: the shape is two integers
	}
	buf := []byte("\x93NUMPY\x01\x00")
	buf = binary.LittleEndian.AppendUint16(buf, uint16(len(header)))
	buf = append(buf, header...)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	row := make([]byte, 8*cols)
	for _, r := range m {
		for j, v := range r {
			binary.LittleEndian.PutUint64(row[8*j:], math.Float64bits(v))
		}
		if _, err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}

// writeMatrixCSV writes m as N lines of M comma-separated numbers, each in
// the shortest form that reads back exactly; the labels are those of the
// problem file. A large sparse m (mech.Mechanism.WriteSparse) is written as
// its non-zero entries instead, one "row,col,value" line each (0-based
// row and column) under that header, row by row and column by column:
// the header tells a reader which form it has.
func writeMatrixCSV(w io.Writer, m mech.Mechanism) error {
	if m.WriteSparse() {
		return writeSparseCSV(w, m)
	}
	var line []byte
	for _, r := range m {
		line = line[:0]
		for j, v := range r {
			if j > 0 {
				line = append(line, ',')
			}
			line = strconv.AppendFloat(line, v, 'g', -1, 64)
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// writeSparseCSV writes m's non-zero entries as "row,col,value" lines
// under that header.
func writeSparseCSV(w io.Writer, m mech.Mechanism) error {
	line := []byte("row,col,value\n")
	for i, r := range m {
		for j, v := range r {
			if v == 0 {
				continue
			}
			line = strconv.AppendInt(line, int64(i), 10)
			line = append(line, ',')
			line = strconv.AppendInt(line, int64(j), 10)
			line = append(line, ',')
			line = strconv.AppendFloat(line, v, 'g', -1, 64)
			line = append(line, '\n')
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
		line = line[:0]
	}
	return nil
}
