package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pmlopt/pmlopt/bisect"
	"github.com/pmlopt/pmlopt/problem"
)

func checkPlotPath(path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".svg", ".png":
		return nil
	}
	return usagef("--plot: %q must end in .svg or .png", path)
}

func plotCurve(path, title string, obj problem.Objective, pts []bisect.Point) error {
	return fmt.Errorf("--plot: not available yet")
}
