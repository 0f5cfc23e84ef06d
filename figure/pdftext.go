package figure

import "strings"

// pdfWords spells in ASCII, for PDF output, the characters of pmlopt's
// labels: gonum's PDF backend writes a string's UTF-8 bytes as if each were
// a character of code page 1252, so "ε" would print as "Îµ".
var pdfWords = strings.NewReplacer(
	"ε̄", "eps-bar", "ε", "eps", "π", "pi", "∞", "inf", "−", "-", "≤", "<=", "≥", ">=", "∈", "in", "→", "->",
	"·", "*", "×", "x", "–", "-", "—", "-",
)

// pdfText rewrites s in ASCII: the words of pdfWords, and "?" for any other
// character beyond ASCII.
func pdfText(s string) string {
	s = pdfWords.Replace(s)
	return strings.Map(func(r rune) rune {
		if r < 0x80 {
			return r
		}
		return '?'
	}, s)
}

// forFormat returns f with its text rewritten by pdfText when ft is PDF.
func (f Figure) forFormat(ft Format) Figure {
	if ft != PDF {
		return f
	}
	f.Title, f.XLabel, f.YLabel = pdfText(f.Title), pdfText(f.XLabel), pdfText(f.YLabel)
	f.Series = append([]Series(nil), f.Series...)
	for k := range f.Series {
		f.Series[k].Name = pdfText(f.Series[k].Name)
	}
	return f
}

func (f BarFigure) forFormat(ft Format) BarFigure {
	if ft != PDF {
		return f
	}
	f.Panels = append([]Bars(nil), f.Panels...)
	for k, b := range f.Panels {
		b.Title, b.YLabel = pdfText(b.Title), pdfText(b.YLabel)
		b.Groups = pdfTexts(b.Groups)
		b.Series = append([]BarSeries(nil), b.Series...)
		for s := range b.Series {
			b.Series[s].Name = pdfText(b.Series[s].Name)
		}
		f.Panels[k] = b
	}
	return f
}

func (h Heatmap) forFormat(ft Format) Heatmap {
	if ft != PDF {
		return h
	}
	h.Title, h.XLabel, h.YLabel, h.ValueLabel = pdfText(h.Title), pdfText(h.XLabel), pdfText(h.YLabel), pdfText(h.ValueLabel)
	h.RowLabels, h.ColLabels = pdfTexts(h.RowLabels), pdfTexts(h.ColLabels)
	return h
}

func pdfTexts(v []string) []string {
	if v == nil {
		return nil
	}
	out := make([]string, len(v))
	for k, s := range v {
		out[k] = pdfText(s)
	}
	return out
}
