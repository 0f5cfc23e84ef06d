package main

/*
#include <stdint.h>
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/sample"
)

// pml_sample draws one output of the n×m mechanism for each of the k input
// indices at inputs, into out (k int64s): from the operating system's
// cryptographic source (sample.NewSampler), or, when seeded is not 0, from
// the stream of seed (sample.NewSeededSampler, for tests). It returns NULL,
// or an error message the caller frees with pml_free.
//
//export pml_sample
func pml_sample(mechanism *C.double, n, m C.int64_t, inputs *C.int64_t, k C.int64_t, out *C.int64_t, seeded C.int, seed C.uint64_t) (msg *C.char) {
	defer func() {
		if v := recover(); v != nil {
			msg = C.CString(fmt.Sprintf("pmlopt: internal error in sample: %v", v))
		}
	}()
	p := mech.Mechanism(rows(floats(mechanism, int(n)*int(m)), int(n), int(m)))
	if p == nil {
		return C.CString("mechanism: is missing; sample needs a mechanism")
	}
	if _, err := mech.NewMechanism(p); err != nil {
		return C.CString(err.Error())
	}
	var s *sample.Sampler
	var err error
	if seeded != 0 {
		s, err = sample.NewSeededSampler(p, uint64(seed))
	} else {
		s, err = sample.NewSampler(p)
	}
	if err != nil {
		return C.CString(err.Error())
	}
	var idx []int
	if k > 0 {
		src := unsafe.Slice((*int64)(unsafe.Pointer(inputs)), int(k))
		idx = make([]int, k)
		for j, v := range src {
			idx[j] = int(v)
		}
	}
	drawn, err := s.SampleAll(idx)
	if err != nil {
		return C.CString(err.Error())
	}
	if k > 0 {
		dst := unsafe.Slice((*int64)(unsafe.Pointer(out)), int(k))
		for j, v := range drawn {
			dst[j] = int64(v)
		}
	}
	return nil
}
