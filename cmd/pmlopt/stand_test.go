package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/pmlopt/pmlopt/worstcase"
)

// The stand line on a terminal: nothing in its first second, then one
// line redrawn in place (blanking what a shorter line leaves), at most
// five times a second, notices on lines of their own, the line ended when
// the solve returns; nothing at all when quiet.
func TestStandLine(t *testing.T) {
	var buf bytes.Buffer
	l := newStandLine(context.Background(), &buf, "solve", false, false)
	l.terminal = true // a terminal's drawing, without its clock
	nan := math.NaN()
	l.update(worstcase.Stand{Decisions: 5, Lower: nan, Upper: nan})
	if buf.Len() != 0 {
		t.Fatalf("drawn in the first second: %q", buf.String())
	}
	l.start = l.start.Add(-2 * time.Second)
	l.update(worstcase.Stand{Decided: 1, Decisions: 5, Lower: nan, Upper: nan})
	first := buf.String()
	if !strings.HasPrefix(first, "\rsolve: deciding the worst case, 2 of at most 5  2.") {
		t.Fatalf("first line %q", first)
	}
	l.update(worstcase.Stand{Decided: 2, Decisions: 4, Lower: nan, Upper: nan})
	if buf.String() != first {
		t.Fatalf("redrawn within %v: %q", standEvery, buf.String())
	}
	l.last = l.last.Add(-standEvery)
	l.update(worstcase.Stand{Decided: 4, Decisions: 4, Lower: 0.5, Upper: 0.75})
	second := strings.TrimPrefix(buf.String(), first)
	if !strings.HasPrefix(second, "\rsolve: least ε in [0.5, 0.75], width 0.25  2.") {
		t.Fatalf("second line %q", second)
	}
	l.last = l.last.Add(-standEvery)
	buf.Reset()
	l.update(worstcase.Stand{Lower: 0.5, Upper: 0.5})
	short := "\rsolve: least ε in [0.5, 0.5], width 0  2."
	if got := buf.String(); !strings.HasPrefix(got, short) || !strings.HasSuffix(got, strings.Repeat(" ", 3)) {
		t.Fatalf("shorter line %q: not blanked", got)
	}
	buf.Reset()
	l.note("pmlopt solve: a notice")
	l.stop()
	if got := buf.String(); got != "\npmlopt solve: a notice\n" {
		t.Fatalf("notice and end %q", got)
	}

	quiet := newStandLine(context.Background(), &buf, "solve", true, true)
	if quiet != nil || quiet.stand() != nil {
		t.Fatal("a quiet line exists")
	}
	quiet.update(worstcase.Stand{})
	quiet.note("x")
	quiet.stop()
}

// The clock redraws the line with no news from the solve, and stops with
// the command's context, after which stderr stays quiet; a late tick
// after stop draws nothing.
func TestStandLineClock(t *testing.T) {
	var buf bytes.Buffer
	l := newStandLine(context.Background(), &buf, "solve", false, false)
	l.terminal = true
	l.start = l.start.Add(-2 * time.Second)
	l.update(worstcase.Stand{Decided: 0, Decisions: 3, Lower: math.NaN(), Upper: math.NaN()})
	drawn := buf.Len()
	ctx, cancel := context.WithCancel(context.Background())
	tick := make(chan time.Time)
	ended := make(chan struct{})
	go func() {
		l.clock(ctx, tick)
		close(ended)
	}()
	tick <- time.Now() // unbuffered: the clock has taken it
	tick <- time.Now() // and drawn the first before it takes the second
	l.mu.Lock()
	n := buf.Len()
	l.mu.Unlock()
	if n <= drawn {
		t.Fatalf("no redraw by the clock: %q", buf.String())
	}
	cancel()
	<-ended
	l.stop()
	buf.Reset()
	l.draw(time.Now(), true)
	if buf.Len() != 0 {
		t.Fatalf("drawn after stop: %q", buf.String())
	}
}

// Away from a terminal (a log, a pipe) the line is a whole line, at most
// one every standLogEvery; on a terminal no line is wider than 80
// columns, even with long numbers.
func TestStandLineLogAndWidth(t *testing.T) {
	var buf bytes.Buffer
	l := newStandLine(context.Background(), &buf, "solve", false, false)
	l.start = l.start.Add(-2 * time.Second)
	l.update(worstcase.Stand{Decided: 2, Decisions: 9, Lower: math.NaN(), Upper: math.NaN()})
	l.update(worstcase.Stand{Decided: 3, Decisions: 9, Lower: math.NaN(), Upper: math.NaN()})
	if got := buf.String(); strings.Contains(got, "\r") || strings.Count(got, "\n") != 1 || !strings.Contains(got, "3 of at most 9") {
		t.Fatalf("log lines %q", got)
	}
	l.last = l.last.Add(-standLogEvery)
	l.update(worstcase.Stand{Decided: 9, Decisions: 9, Lower: 1.2345678901234e-5, Upper: 0.98765432109876})
	if got := buf.String(); strings.Count(got, "\n") != 2 {
		t.Fatalf("log lines %q", got)
	}
	l.stop()
	long := l.text(worstcase.Stand{Lower: 1.2345678901234e-5, Upper: 0.98765432109876}, 12345*time.Second)
	if n := utf8.RuneCountInString(long); n > 80 {
		t.Errorf("a line of %d columns: %q", n, long)
	}
}

// The curve's progress on a terminal is one bar redrawn in place at most
// five times a second and ended when the curve is done; on a log it is
// whole lines with no carriage return, at most one every standLogEvery,
// none for a count already written, and one for the last count.
func TestCurveProgress(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, "curve", false, true)
	p.update(1, 8)
	if buf.Len() != 0 {
		t.Fatalf("drawn in the first second: %q", buf.String())
	}
	p.start = p.start.Add(-2 * time.Second)
	p.update(2, 8)
	if got := buf.String(); !strings.HasPrefix(got, "\rcurve [#######.......................] 2/8  2.") {
		t.Fatalf("bar %q", got)
	}
	drawn := buf.Len()
	p.update(3, 8)
	if buf.Len() != drawn {
		t.Fatalf("redrawn within %v: %q", standEvery, buf.String())
	}
	p.update(8, 8) // the last count is always drawn
	if got := buf.String()[drawn:]; !strings.HasPrefix(got, "\rcurve [##############################] 8/8") {
		t.Fatalf("last bar %q", got)
	}
	p.done()
	if !strings.HasSuffix(buf.String(), "\n") {
		t.Fatalf("bar not ended: %q", buf.String())
	}

	buf.Reset()
	p = newProgress(&buf, "curve", false, false)
	p.start = p.start.Add(-2 * time.Second)
	p.update(2, 8)
	p.update(3, 8) // within standLogEvery of the first line
	p.last = p.last.Add(-standLogEvery)
	p.update(3, 8)
	p.last = p.last.Add(-standLogEvery)
	p.update(3, 8) // the same count: no line
	p.update(5, 8) // within standLogEvery again
	p.done()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{"curve: 2/8 settled  2.", "curve: 3/8 settled  2.", "curve: 5/8 settled  2."}
	if strings.Contains(buf.String(), "\r") || len(lines) != len(want) {
		t.Fatalf("log lines %q", buf.String())
	}
	for k, w := range want {
		if !strings.HasPrefix(lines[k], w) {
			t.Fatalf("line %d %q, want %q…", k, lines[k], w)
		}
	}

	buf.Reset()
	p = newProgress(&buf, "curve", true, false)
	p.start = p.start.Add(-2 * time.Second)
	p.update(8, 8)
	p.done()
	if buf.Len() != 0 {
		t.Fatalf("quiet progress wrote %q", buf.String())
	}
}
