package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// version is the module version pmlopt was built from: the tag for
// "go install …@v1.2.3", "devel" for a build from a checkout.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "devel"
	}
	return info.Main.Version
}

func printVersion(w io.Writer) {
	fmt.Fprintf(w, "pmlopt %s\n", version())
}
