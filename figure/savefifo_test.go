package figure

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/outfile"
)

// A heat map or a bar figure saved into a FIFO that nobody reads waits in
// open(2) where package outfile sees it (Stalled names the FIFO), as a
// curve's Figure does: pmlopt's signal handler then ends plot --heatmap and
// compare --plot at once instead of after its 30 s grace. The bytes that
// come out once a reader opens it are the whole picture.
func TestSaveIntoAFIFOIsWatched(t *testing.T) {
	for _, c := range []struct {
		name string
		save func(path string) error
	}{
		{"heatmap", Heatmap{Title: "h", Z: [][]float64{{1, 0}, {0.5, 0.5}}}.Save},
		{"bars", BarFigure{Panels: []Bars{{Title: "b", Groups: []string{"x", "y"}, Series: []BarSeries{{Name: "s", Values: []float64{1, 2}}}}}}.Save},
	} {
		t.Run(c.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "out.png")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			done := make(chan error, 1)
			go func() { done <- c.save(fifo) }()
			seen := false
			for range 2000 { // up to 10 s for the goroutine to reach open(2)
				if what, ok := outfile.Stalled(0); ok && what == fifo {
					seen = true
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			r, err := os.Open(fifo) // releases the writer either way
			require.NoError(t, err)
			b, err := io.ReadAll(r)
			require.NoError(t, err)
			r.Close()
			require.NoError(t, <-done)
			assert.True(t, seen, "the open of the FIFO is not watched")
			assert.True(t, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")), "a PNG comes out")
		})
	}
}
