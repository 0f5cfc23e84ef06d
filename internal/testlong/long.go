//go:build long

package testlong

// long: built with -tags long, so the long suites run (unless -short).
const long = true
