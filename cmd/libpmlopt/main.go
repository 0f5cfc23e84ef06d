// Command libpmlopt is pmlopt's C ABI, built with
//
//	go build -buildmode=c-shared -o _libpmlopt.so ./cmd/libpmlopt
//
// for the Python package in python/ (ctypes). It calls only the root
// facade and public packages. Matrices cross the boundary as raw float64
// buffers (row-major, the caller's memory, copied in; results copied out
// into buffers the caller allocates from the shapes the call reports), and
// the small scalar results as JSON in the keys of the CLI's --json
// (infinities as the strings "inf" and "-inf", NaN as null).
//
// A call returns a result handle; pml_result_json gives its JSON ({"error":
// "..."} on failure, the one-line message the CLI prints), pml_result_matrix
// copies its k-th matrix, pml_result_free releases it. Long calls take a
// cancellation token (pml_token_new) that another thread cancels with
// pml_token_cancel. No Go panic crosses the boundary: a panic becomes the
// call's error.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/pmlopt/pmlopt/internal/jsonout"
)

func main() {}

// result is what one call leaves for the caller to read.
type result struct {
	json     []byte
	matrices [][][]float64
}

var (
	mu      sync.Mutex
	next    int64
	results = map[int64]*result{}
	tokens  = map[int64]tokenEntry{}
)

type tokenEntry struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newID() int64 {
	next++
	return next
}

//export pml_token_new
func pml_token_new() C.int64_t {
	ctx, cancel := context.WithCancel(context.Background())
	mu.Lock()
	defer mu.Unlock()
	id := newID()
	tokens[id] = tokenEntry{ctx, cancel}
	return C.int64_t(id)
}

//export pml_token_cancel
func pml_token_cancel(t C.int64_t) {
	mu.Lock()
	e, ok := tokens[int64(t)]
	mu.Unlock()
	if ok {
		e.cancel()
	}
}

//export pml_token_free
func pml_token_free(t C.int64_t) {
	mu.Lock()
	e, ok := tokens[int64(t)]
	delete(tokens, int64(t))
	mu.Unlock()
	if ok {
		e.cancel()
	}
}

func tokenContext(t int64) context.Context {
	mu.Lock()
	defer mu.Unlock()
	if e, ok := tokens[t]; ok {
		return e.ctx
	}
	return context.Background()
}

// errorJSON is the JSON of a failed call.
func errorJSON(err error) []byte {
	b, _ := json.Marshal(map[string]string{"error": err.Error()})
	return b
}

func store(r *result) C.int64_t {
	mu.Lock()
	defer mu.Unlock()
	id := newID()
	results[id] = r
	return C.int64_t(id)
}

func lookup(h C.int64_t) *result {
	mu.Lock()
	defer mu.Unlock()
	return results[int64(h)]
}

//export pml_call
func pml_call(op *C.char, params *C.char, prior *C.double, n C.int64_t, utility, order, mechanism *C.double, m C.int64_t, token C.int64_t) C.int64_t {
	in := input{N: int(n), M: int(m),
		Prior: floats(prior, int(n)), Utility: floats(utility, int(n)*int(m)),
		Order: floats(order, int(n)*int(m)), Mechanism: floats(mechanism, int(n)*int(m))}
	r := run(tokenContext(int64(token)), C.GoString(op), []byte(C.GoString(params)), in)
	return store(r)
}

// run dispatches one call; a panic becomes its error.
func run(ctx context.Context, op string, params []byte, in input) (r *result) {
	defer func() {
		if v := recover(); v != nil {
			r = &result{json: errorJSON(fmt.Errorf("pmlopt: internal error in %s: %v", op, v))}
		}
	}()
	var p args
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return &result{json: errorJSON(fmt.Errorf("pmlopt: bad parameters for %s: %v", op, paramError(err)))}
		}
	}
	f, ok := ops[op]
	if !ok {
		return &result{json: errorJSON(fmt.Errorf("pmlopt: unknown operation %q", op))}
	}
	start := time.Now()
	out, mats, err := f(ctx, p, in)
	secs := time.Since(start).Seconds()
	if err != nil && ctx.Err() != nil {
		// Whatever failed, the cancellation is the reason: one error for
		// every operation and every step it was in.
		err = errInterrupted
	}
	if err != nil {
		return &result{json: errorJSON(err)}
	}
	shapes := make([][2]int, len(mats))
	for k, a := range mats {
		shapes[k][0], shapes[k][1] = dims(a)
	}
	// seconds is the time spent in Go on the operation (building the
	// problem from the buffers, the facade's call, the result), for
	// python/bench to set against the whole Python call.
	b, err := json.Marshal(map[string]any{"result": out, "shapes": shapes, "seconds": secs})
	if err != nil {
		return &result{json: errorJSON(err)}
	}
	return &result{json: b, matrices: mats}
}

// floats views n doubles at p (nil for a nil p); the view is copied before
// the call returns.
func floats(p *C.double, n int) []float64 {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(p)), n)
}

//export pml_result_json
func pml_result_json(h C.int64_t) *C.char {
	r := lookup(h)
	if r == nil {
		return C.CString(`{"error":"pmlopt: unknown result handle"}`)
	}
	return C.CString(string(r.json))
}

// pml_result_matrix copies the k-th matrix of the result, row-major, into
// dst, which holds size doubles; it returns 0, or -1 when k or size is
// wrong.
//
//export pml_result_matrix
func pml_result_matrix(h C.int64_t, k C.int64_t, dst *C.double, size C.int64_t) C.int {
	r := lookup(h)
	if r == nil || k < 0 || int(k) >= len(r.matrices) {
		return -1
	}
	a := r.matrices[k]
	rows, cols := dims(a)
	if int(size) != rows*cols {
		return -1
	}
	out := floats(dst, rows*cols)
	for i, row := range a {
		copy(out[i*cols:(i+1)*cols], row)
	}
	return 0
}

//export pml_result_free
func pml_result_free(h C.int64_t) {
	mu.Lock()
	delete(results, int64(h))
	mu.Unlock()
}

//export pml_free
func pml_free(p unsafe.Pointer) { C.free(p) }

func dims(a [][]float64) (int, int) {
	if len(a) == 0 {
		return 0, 0
	}
	return len(a), len(a[0])
}

// paramError says which parameter has the wrong type in the parameters'
// names ("workers: want an integer, got number 1.5"), not in the Go
// struct's.
func paramError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" {
		return err
	}
	// The documents' words, in Python's where its own differ.
	want := jsonout.KindWord(te.Type.Kind())
	switch te.Type.Kind() {
	case reflect.Bool:
		want = "True or False"
	case reflect.Map, reflect.Struct:
		want = "a dict"
	}
	if want == "" {
		want = "a " + te.Type.String()
	}
	return fmt.Errorf("%s: want %s, got %s", te.Field, want, te.Value)
}
