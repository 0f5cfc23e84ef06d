//go:build clp

package testlong

// clp: built with -tags clp, the Clp backend linked in.
const clp = true
