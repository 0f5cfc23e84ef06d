package main

import "runtime"

// limitCores lowers GOMAXPROCS to n when n is positive and below it, and
// returns the function that sets it back.
func limitCores(n int) func() {
	old := runtime.GOMAXPROCS(0)
	if n <= 0 || n >= old {
		return func() {}
	}
	runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(old) }
}
