package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A measure named twice in curve --measure is a wrong command line: its
// second curve would repeat the first, at the cost of solving it again.
func TestExpectedCurveRefusesARepeatedMeasure(t *testing.T) {
	for _, list := range []string{"pml,pml", "pml,lip, pml", "ldp,ldp"} {
		out, stderr, code := cli(t, "curve", td+"expected-utility.yaml", "--measure", list, "--epsilons", "1")
		assert.Equal(t, exitUsage, code, "%s: %s", list, stderr)
		assert.Empty(t, out, list)
		assert.Regexp(t, `^pmlopt curve: --measure: (pml|ldp) is given twice\n`, stderr, list)
	}
}
