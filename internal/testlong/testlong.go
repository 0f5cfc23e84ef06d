// Package testlong decides whether a test run includes the long suites: the
// instances that take more than a few seconds (large grids, budgets to 50
// nats, every family's curves, the bench's whole report).
//
// The README's test command, plain `go test ./...`, leaves them out so that it
// finishes in under two minutes on two cores; CI (.ci/run) adds them with the
// build tag long:
//
//	go test ./...             // the long suites left out
//	go test -tags long ./...  // the long suites too
//
// -short leaves them out with or without the tag, so `go test -short` means
// what plain `go test` does. A test consults Short where it would consult
// testing.Short.
package testlong

import "testing"

// Short reports whether the long suites are left out: always, unless the test
// binary was built with -tags long and runs without -short.
func Short() bool {
	return !long || testing.Short()
}

// Clp reports whether the test binary was built with -tags clp. CI runs
// the long suites with and without the tag; a long test that names the
// pure-Go backend itself and asks no LP of any other runs the same either
// way, and skips under the tag so that its minutes are spent once.
func Clp() bool { return clp }
