package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"

	"github.com/pmlopt/pmlopt"
	"github.com/pmlopt/pmlopt/problem"
	"github.com/pmlopt/pmlopt/solver"
	"github.com/pmlopt/pmlopt/worstcase"
)

// shardRecord is one line of curve --shard K/N --jsonl: a threshold's
// point as curve --jsonl writes it, with what merge needs to check that
// the parts belong together (the problem's fingerprint, the objective,
// backend and tolerance, the shard) and to place it (index, the 1-based
// position of the threshold in the curve: h for worst-case-order).
type shardRecord struct {
	Problem   string `json:"problem"`
	Objective string `json:"objective"`
	Solver    string `json:"solver"`
	Tol       jfloat `json:"tol"`
	Shard     string `json:"shard"`
	Index     int    `json:"index"`
	curvePointJSON
}

// shardWriter makes the records of one shard; nil writes curve's plain
// --jsonl points.
type shardWriter struct {
	head shardRecord
}

// parseShardFlag reads --shard: empty for the whole curve.
func parseShardFlag(spec string, jsonl bool, plot string) (worstcase.Shard, error) {
	if spec == "" {
		return worstcase.Shard{}, nil
	}
	sh, err := worstcase.ParseShard(spec)
	if err != nil {
		return sh, usagef("--shard: %v", err)
	}
	if !jsonl {
		return sh, usagef("--shard writes its thresholds for merge: add --jsonl")
	}
	if plot != "" {
		return sh, usagef("--shard draws no --plot: give --plot to merge")
	}
	return sh, nil
}

// newShardWriter returns the writer of shard sh's records (nil without a
// shard), refusing the objectives that are not sharded.
func newShardWriter(sh worstcase.Shard, obj problem.Objective, p *problem.Problem, slv solver.Solver, tol float64) (*shardWriter, error) {
	if sh.N == 0 {
		return nil, nil
	}
	if obj != problem.WorstCaseOrder && obj != problem.WorstCaseValue {
		return nil, usagef("--shard is for the worst-case curves (worst-case-order, worst-case-value), not %s", obj)
	}
	return &shardWriter{head: shardRecord{Problem: problemFingerprint(p), Objective: string(obj), Solver: worstCurveSolver(slv, p).Name(),
		Tol: jfloat(tol), Shard: sh.String()}}, nil
}

// record is what curve --jsonl writes for pt, whose point is c.
func (w *shardWriter) record(pt pmlopt.Point, c curvePointJSON) any {
	if w == nil {
		return c
	}
	r := w.head
	r.Index, r.curvePointJSON = pt.H, c
	return r
}

// problemFingerprint is the SHA-256 of what a curve depends on in p: the
// prior, the order, the utility and, when p has one, its prior set, as
// exact float64 bits (labels, name and budget do not change a curve). A
// file without a set keeps the fingerprint it had before sets existed.
func problemFingerprint(p *problem.Problem) string {
	h := sha256.New()
	fmt.Fprintf(h, "pmlopt problem v1\nprior %d\n", len(p.Prior))
	putFloats(h, p.Prior)
	fmt.Fprintf(h, "order %d\n", len(p.Order))
	for _, row := range p.Order {
		fmt.Fprintf(h, "%d:", len(row))
		for _, v := range row {
			binary.Write(h, binary.LittleEndian, int64(v))
		}
	}
	fmt.Fprintf(h, "utility %d\n", len(p.Utility))
	for _, row := range p.Utility {
		fmt.Fprintf(h, "%d:", len(row))
		putFloats(h, row)
	}
	if s := p.PriorSet; s != nil {
		if s.IsBox() {
			fmt.Fprintf(h, "box %d\n", len(s.Lower))
			putFloats(h, s.Lower)
			putFloats(h, s.Upper)
		} else {
			fmt.Fprintf(h, "ball\n")
			putFloats(h, []float64{s.Radius})
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func putFloats(h hash.Hash, v []float64) {
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
}
