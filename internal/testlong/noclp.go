//go:build !clp

package testlong

// clp: built without -tags clp.
const clp = false
