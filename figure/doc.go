// Package figure draws the plots of pmlopt — privacy-utility trade-off
// curves, the paper's figures, comparisons as grouped bars (BarFigure) and
// mechanisms as heat maps (Heatmap) — with gonum/plot, and writes them as
// SVG, PNG, PDF or EPS. Axes carry about six labelled ticks at round values;
// an axis that counts (Figure.IntegerX, IntegerY) only integer ones, and a
// logarithmic axis its powers of ten written as 0.001, 10, 1e6. Legends sit
// beside the plot, or inside it only in a corner free of data (Legend
// "inside"). Heat maps use viridis, a perceptually uniform colour map. SVG
// text names fonts of Liberation's metrics and then a generic family, so a
// viewer without Liberation keeps the layout. In PDF, labels are spelt in
// ASCII (ε as eps): gonum's PDF backend writes text in code page 1252 only.
//
// A Figure is a title, two axis labels and a list of Series; each Series is a
// named set of (x, y) points drawn as a straight polyline or, when Step is set,
// as a staircase that holds each y until the next x (the shape of every
// h ↦ ε(h) or ε ↦ utility curve in pmlopt). Points whose x or y is NaN or
// infinite are not drawn and break the line there, so a curve with an
// unsolved point shows a gap instead of failing.
//
//	f := figure.Figure{
//		Title:  "Utility-safe PML",
//		XLabel: "threshold h",
//		YLabel: "ε (nats)",
//		Series: []figure.Series{{Name: "ε_S(h)", X: hs, Y: eps, Step: true}},
//	}
//	err := f.Save("curve.svg") // the format follows the extension
//
// Staircase is the one-call form used by the CLI. The package never panics on
// user data: malformed series (unequal lengths, nothing finite to draw, an
// unknown format) are reported as errors.
package figure
