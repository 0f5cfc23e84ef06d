package figure_test

import (
	"bytes"
	"fmt"
	"log"
	"math"
	"strings"

	"github.com/pmlopt/pmlopt/figure"
)

// A staircase curve h ↦ ε(h), written as SVG.
func ExampleStaircase() {
	h := []float64{1, 2, 3, 4}
	eps := []float64{0, math.Log(4.0 / 3), math.Log(2), math.Log(4)}
	var buf bytes.Buffer
	err := figure.Staircase(&buf, figure.SVG, "Utility-safe mechanism", "threshold h", "ε (nats)",
		figure.Series{Name: "ε_S(h)", X: h, Y: eps})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.Contains(buf.String(), "ε_S(h)"))
	// Output: true
}

// Several curves in one figure, one of them dashed; the NaN leaves a gap.
func ExampleFigure_Write() {
	f := figure.Figure{
		Title:  "Least PML",
		XLabel: "p_min",
		YLabel: "ε (nats)",
		Legend: "top-left",
		Series: []figure.Series{
			{Name: "utility-safe", X: []float64{0.1, 0.2, 0.3}, Y: []float64{1.0, 0.8, 0.6}, Marks: true},
			{Name: "optimal", X: []float64{0.1, 0.2, 0.3}, Y: []float64{0.9, math.NaN(), 0.6}, Dashed: true},
		},
	}
	var buf bytes.Buffer
	if err := f.Write(&buf, figure.PNG); err != nil {
		log.Fatal(err)
	}
	fmt.Println(bytes.HasPrefix(buf.Bytes(), []byte("\x89PNG")))
	// Output: true
}
