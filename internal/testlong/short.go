//go:build !long

package testlong

// long: built without -tags long, so the long suites are left out.
const long = false
