//go:build !unix

package main

import "time"

// cpuTime reports the process's CPU time as unknown on this system: CPU
// budgets are not enforced, wall budgets are.
func cpuTime() (time.Duration, bool) { return 0, false }
