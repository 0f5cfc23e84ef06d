package pmlopt

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExpectedOptionsWorkers: Options.Workers 0 means GOMAXPROCS for the
// expected-utility engine as for the curves (package expected reads 0 as
// one goroutine), and a count given is passed on as it is; the curves get
// the same count as given (package worstcase reads its 0 itself).
func TestExpectedOptionsWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	assert.Equal(t, 3, expectedOptions(Options{}).Workers)
	assert.Equal(t, 5, expectedOptions(Options{Workers: 5}).Workers)
	assert.Equal(t, 1, expectedOptions(Options{Workers: 1}).Workers)
	assert.Equal(t, 3, Options{}.workers())
	assert.Equal(t, 0, Options{}.worstCase().Workers)
}
