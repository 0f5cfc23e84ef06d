package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/pmlopt/pmlopt/worstcase"
)

// The stand line: nothing in its first second, then one line redrawn in
// place (blanking what a shorter line leaves), at most five times a
// second, notices on lines of their own, the line ended when the solve
// returns; nothing at all when quiet.
func TestStandLine(t *testing.T) {
	var buf bytes.Buffer
	l := newStandLine(&buf, "solve", false, false)
	nan := math.NaN()
	l.update(worstcase.Stand{Decisions: 5, Lower: nan, Upper: nan})
	if buf.Len() != 0 {
		t.Fatalf("drawn in the first second: %q", buf.String())
	}
	l.start = l.start.Add(-2 * time.Second)
	l.update(worstcase.Stand{Decided: 1, Decisions: 5, Lower: nan, Upper: nan})
	first := buf.String()
	if !strings.HasPrefix(first, "\rsolve: deciding the strongest worst case, 2 of at most 5 decisions  2.") {
		t.Fatalf("first line %q", first)
	}
	l.update(worstcase.Stand{Decided: 2, Decisions: 4, Lower: nan, Upper: nan})
	if buf.String() != first {
		t.Fatalf("redrawn within %v: %q", standEvery, buf.String())
	}
	l.last = l.last.Add(-standEvery)
	l.update(worstcase.Stand{Decided: 4, Decisions: 4, Lower: 0.5, Upper: 0.75})
	second := strings.TrimPrefix(buf.String(), first)
	if !strings.HasPrefix(second, "\rsolve: least ε in [0.5, 0.75], width 0.25 (after 4 decisions)  2.") {
		t.Fatalf("second line %q", second)
	}
	l.last = l.last.Add(-standEvery)
	buf.Reset()
	l.update(worstcase.Stand{Lower: 0.5, Upper: 0.5})
	short := "\rsolve: least ε in [0.5, 0.5], width 0  2."
	if got := buf.String(); !strings.HasPrefix(got, short) || !strings.HasSuffix(got, strings.Repeat(" ", 10)) {
		t.Fatalf("shorter line %q: not blanked", got)
	}
	buf.Reset()
	l.note("pmlopt solve: a notice")
	l.stop()
	if got := buf.String(); got != "\npmlopt solve: a notice\n" {
		t.Fatalf("notice and end %q", got)
	}

	quiet := newStandLine(&buf, "solve", true, true)
	if quiet != nil || quiet.stand() != nil {
		t.Fatal("a quiet line exists")
	}
	quiet.update(worstcase.Stand{})
	quiet.note("x")
	quiet.stop()
}
