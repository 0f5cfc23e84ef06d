//go:build amd64 && !purego

package colgen_test

// pureKernels reports internal/vec built without its assembly kernels,
// whose sums round differently.
const pureKernels = false
