package main

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"github.com/pmlopt/pmlopt/solver"
)

// Machine describes where a report was computed.
type Machine struct {
	GOOS, GOARCH string
	CPUs         int    // runtime.NumCPU
	MaxProcs     int    // runtime.GOMAXPROCS(0)
	CPUModel     string // from /proc/cpuinfo, or "unknown"
	GoVersion    string
	Backends     []string // solver.Names
	Auto         string   // solver.Auto().Name()
}

func machine() Machine {
	return Machine{
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		CPUs: runtime.NumCPU(), MaxProcs: runtime.GOMAXPROCS(0),
		CPUModel:  cpuModel("/proc/cpuinfo"),
		GoVersion: runtime.Version(),
		Backends:  solver.Names(),
		Auto:      solver.Auto().Name(),
	}
}

// cpuModel returns the first "model name" of a /proc/cpuinfo-style file, or
// "unknown" if the file cannot be read or has none.
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		}
	}
	return "unknown"
}
