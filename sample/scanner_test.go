package sample

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scanAll reads doc with the scanner: the records' values, the error that
// stopped it, and every byte it read, in order.
func scanAll(doc string) (recs [][]string, err error, raw string) {
	s := newScanner(strings.NewReader(doc))
	var b strings.Builder
	for {
		ok, err := s.next()
		b.Write(s.raw)
		if err != nil || !ok {
			return recs, err, b.String()
		}
		rec := make([]string, s.fields())
		for k := range rec {
			rec[k] = string(s.value(k))
		}
		recs = append(recs, rec)
	}
}

// csvAll reads doc with encoding/csv's Reader, set as the scanner claims
// to read: the reference.
func csvAll(doc string) (recs [][]string, err error) {
	r := csv.NewReader(strings.NewReader(doc))
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}

// checkLikeCSV asserts that the scanner reads doc as encoding/csv does
// (the same records, the same error with the same position) and that the
// bytes it keeps are the document's, complete.
func checkLikeCSV(t *testing.T, doc string) {
	t.Helper()
	want, wantErr := csvAll(doc)
	got, gotErr, raw := scanAll(doc)
	require.Equal(t, want, got, "%q", doc)
	if wantErr == nil {
		require.NoError(t, gotErr, "%q", doc)
		require.Equal(t, doc, raw, "the bytes read are the document")
		return
	}
	require.Error(t, gotErr, "%q: encoding/csv says %v", doc, wantErr)
	var we, ge *csv.ParseError
	require.ErrorAs(t, wantErr, &we)
	require.ErrorAs(t, gotErr, &ge, "%q", doc)
	assert.Equal(t, *we, *ge, "%q", doc)
}

func TestScannerReadsLikeEncodingCSV(t *testing.T) {
	for _, doc := range []string{
		"", "\n", "\r\n", "a", "a\n", "a\r\n", "a\r", "a\rb\n", "a\r\r\n",
		"a,b\n1,2\n", "a,b\r\n1,2\r\n", "a,b\n1,2", "a,b\n\n1,2\n\n\n", "a,b\n\r\n1,2\r\n\r\n",
		"a,b\n,\n", "a,b\n\"\",\"\"\n", "a\n\"\"\n",
		"a,b\n\"x,y\",2\n", "a,b\n\"x\"\"y\",2\n", "a,b\n\"x\ny\",2\n", "a,b\n\"x\r\ny\",2\r\n",
		"a,b\n\"x\n\n\ny\",\"\n\"\n", "a,b\n1,\"2\"\r", "a,b\n1,\"2\r\n",
		"a,\xff\xfe\n\x80,caf\xe9\n", "a,b\n\"\xff\",\"\"\"\xc3\"\n",
		// Errors.
		"a,b\n1,2,3\n", "a,b\n1\n", "a,b\n1,x\"y\n", "a,b\n1,\"x\"y\n", "a,b\n1,\"x\n",
		"a,b\n\"1\" ,2\n", "a,b\n1,\"2\"\r\r\n", "a,b\n\"x\ny\"z,2\n", "a\"\n", "\"a\nb\nc",
		"a,b\n\"x\ny\",2,3\n", "a,b\n1,2\n3,\"4\n5\n",
	} {
		checkLikeCSV(t, doc)
	}
}

// Random documents built from the characters that matter to CSV: the
// scanner agrees with encoding/csv on every one.
func TestScannerRandomDocuments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	parts := []string{",", "\"", "\n", "\r\n", "\r", "a", "b", "\xff", "é", " ", "\"\"", ",\"", "\",", "\"\n"}
	for trial := 0; trial < 6000; trial++ {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		checkLikeCSV(t, b.String())
	}
	// Well-formed documents, quoted at random: no error, and the bytes
	// come back whole.
	for trial := 0; trial < 600; trial++ {
		cols := 1 + rng.IntN(4)
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.UseCRLF = rng.IntN(2) == 0
		for range 1 + rng.IntN(5) {
			rec := make([]string, cols)
			for k := range rec {
				for range rng.IntN(5) {
					rec[k] += parts[rng.IntN(len(parts))]
				}
			}
			if cols == 1 && rec[0] == "" {
				rec[0] = "x" // encoding/csv writes it as a blank line
			}
			require.NoError(t, w.Write(rec))
		}
		w.Flush()
		checkLikeCSV(t, b.String())
		_, err, _ := scanAll(b.String())
		require.NoError(t, err, "%q", b.String())
	}
}

// A line longer than the reader's buffer is read whole.
func TestScannerLongLines(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	checkLikeCSV(t, "a,b\n"+long+",\""+long+"\n"+long+"\"\n1,2\n")
}

func FuzzScanner(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a,b\n\"x\ny\",2\r\n", "a\n\"\"\"\"\n", "a,b\n1,\"x\"y\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if strings.HasPrefix(doc, "\ufeff") {
			return // the scanner drops a byte order mark; encoding/csv keeps it
		}
		checkLikeCSV(t, doc)
	})
}
