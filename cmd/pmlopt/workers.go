package main

import "runtime"

// workersHelp is the help of --workers, the same for every command that
// runs a search.
const workersHelp = "use at most `N` cores: the thresholds a curve solves at once, and the goroutines of a single solve's passes over the mechanism (0 = every CPU); the result is the same for any N"

// workersFlag adds --workers to fs and returns a function that checks it
// and applies it: pmlopt.Options.Workers gets the number (0: every CPU),
// and for N > 0 the process runs on at most N cores while the command
// runs (runtime.GOMAXPROCS), so that the passes of engines without a
// workers option of their own (the expected-utility active set) keep to
// it too. restore gives the cores back; call it when the command ends.
func workersFlag(fs *flagSet) func() (n int, restore func(), err error) {
	w := fs.Int("workers", 0, workersHelp)
	return func() (int, func(), error) {
		if *w < 0 {
			return 0, nil, usagef("--workers must be ≥ 0, got %d", *w)
		}
		return *w, limitCores(*w), nil
	}
}

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
