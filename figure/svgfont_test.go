package figure

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const serifList = "font-family:'Liberation Serif','Tinos','Times New Roman',Times,serif;"

// TestSVGFontFallback: every text element of every kind of figure names
// fonts of the same metrics and then a generic family, so that a viewer
// without Liberation Serif neither drops to a wider font nor cuts a legend.
func TestSVGFontFallback(t *testing.T) {
	line := Figure{Title: "curve", XLabel: "ε", YLabel: "h", Series: []Series{{Name: "utility-safe", X: []float64{0, 1}, Y: []float64{1, 2}}}}
	bars := BarFigure{Panels: []Bars{{Title: "privacy", Groups: []string{"PML"}, Series: []BarSeries{{Name: "optimum", Values: []float64{1}}}}}}
	heat := Heatmap{Title: "P(y|x)", Z: [][]float64{{1, 0}, {0, 1}}, ValueLabel: "P(y | x)"}
	style := regexp.MustCompile(`<text[^>]*style="([^"]*)"`)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"line":    func(b *bytes.Buffer) error { return line.Write(b, SVG) },
		"bars":    func(b *bytes.Buffer) error { return bars.Write(b, SVG) },
		"heatmap": func(b *bytes.Buffer) error { return heat.Write(b, SVG) },
	} {
		var buf bytes.Buffer
		require.NoError(t, write(&buf), name)
		texts := style.FindAllStringSubmatch(buf.String(), -1)
		require.NotEmpty(t, texts, name)
		for _, m := range texts {
			assert.Contains(t, m[1], serifList, name)
		}
		assert.NotContains(t, buf.String(), "font-family:Liberation Serif;", name)
	}
}

// TestFamilyWriterAcrossWrites: a font-family split between two writes at
// any byte is replaced all the same, and the rest passes through as is.
func TestFamilyWriterAcrossWrites(t *testing.T) {
	in := `<text style="font-family:Liberation Serif;font-size:10px">a</text>` +
		`<text style="font-family:Liberation Sans;">b</text><text style="font-family:Liberation Mono;">c</text>` +
		`font-family:Liberation Seri` // a prefix that never completes
	want := strings.NewReplacer(
		"font-family:Liberation Serif;", serifList,
		"font-family:Liberation Sans;", "font-family:'Liberation Sans','Arimo',Arial,Helvetica,sans-serif;",
		"font-family:Liberation Mono;", "font-family:'Liberation Mono','Cousine','Courier New',Courier,monospace;",
	).Replace(in)
	for cut := 0; cut <= len(in); cut++ {
		for _, size := range []int{1, 3, 7, len(in)} {
			var out bytes.Buffer
			fw := &familyWriter{w: &out}
			write := func(p string) {
				for len(p) > 0 {
					n := min(size, len(p))
					k, err := fw.Write([]byte(p[:n]))
					require.NoError(t, err)
					require.Equal(t, n, k)
					p = p[n:]
				}
			}
			write(in[:cut])
			write(in[cut:])
			require.NoError(t, fw.flush())
			require.Equal(t, want, out.String(), "cut %d, writes of %d", cut, size)
		}
	}
}
