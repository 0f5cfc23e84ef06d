package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pmlopt/pmlopt/worstcase"
)

// standLine shows on stderr where a worst-case solve stands once it has
// run for a second: the decisions of its search for the strongest worst
// case, then the bracket of the least ε as it narrows.
//
// On a terminal it is one line of at most 80 columns, redrawn in place
// when the solve moves (at most five times a second) and by a clock in
// between, so that a decision that takes minutes still shows its time.
// The clock stops with the command's context: after a signal, stderr
// falls quiet, which is how the signal handler tells a run that no
// longer moves. Elsewhere (a log, a pipe) it writes whole lines, at most
// one every standLogEvery, and only when the solve moves.
type standLine struct {
	mu       sync.Mutex
	w        io.Writer
	what     string
	terminal bool
	start    time.Time
	last     time.Time
	at       worstcase.Stand
	told     bool // the solve has told a stand
	shown    bool // a line is on the terminal, not yet ended
	width    int  // the shown line's length, to blank what a shorter one leaves
	done     chan struct{}
}

// standDelay is how long a solve (or a curve, progress) runs before its
// line shows; standEvery how often a terminal's line is redrawn at most,
// standLogEvery how often a log gets a line at most.
const (
	standDelay    = time.Second
	standEvery    = 200 * time.Millisecond
	standLogEvery = 10 * time.Second
)

// newStandLine starts a line for the command what on w, a terminal or
// not; nil when quiet (its methods do nothing on nil). On a terminal its
// clock runs until stop or until ctx is done.
func newStandLine(ctx context.Context, w io.Writer, what string, quiet, terminal bool) *standLine {
	if quiet {
		return nil
	}
	l := &standLine{w: w, what: what, terminal: terminal, start: time.Now(), done: make(chan struct{})}
	if terminal {
		ticker := time.NewTicker(standEvery)
		go func() {
			defer ticker.Stop()
			l.clock(ctx, ticker.C)
		}()
	}
	return l
}

// clock redraws the line at each tick until stop or ctx's end.
func (l *standLine) clock(ctx context.Context, tick <-chan time.Time) {
	for {
		select {
		case <-l.done:
			return
		case <-ctx.Done():
			return
		case now := <-tick:
			l.mu.Lock()
			l.draw(now, true)
			l.mu.Unlock()
		}
	}
}

// stand is the function a solve tells its stand (pmlopt.Options.Stand):
// nil for a nil line.
func (l *standLine) stand() func(worstcase.Stand) {
	if l == nil {
		return nil
	}
	return l.update
}

// update is the solve's report (worstcase.Options.Stand).
func (l *standLine) update(s worstcase.Stand) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.at, l.told = s, true
	l.draw(time.Now(), false)
}

// text is the line for the stand s at elapsed.
func (l *standLine) text(s worstcase.Stand, elapsed time.Duration) string {
	secs := fmt.Sprintf("  %.1fs", elapsed.Seconds())
	switch {
	case !math.IsNaN(s.Lower) && !math.IsNaN(s.Upper):
		return fmt.Sprintf("%s: least ε in [%.10g, %.10g], width %.2g", l.what, s.Lower, s.Upper, s.Upper-s.Lower) + secs
	case s.Decided < s.Decisions:
		return fmt.Sprintf("%s: deciding the worst case, %d of at most %d", l.what, s.Decided+1, s.Decisions) + secs
	default:
		return fmt.Sprintf("%s: the least ε of the worst case found", l.what) + secs
	}
}

// draw writes the line at now, unless it is too early or, unless forced
// by the clock, too soon after the last one.
func (l *standLine) draw(now time.Time, clock bool) {
	every := standEvery
	if !l.terminal {
		every = standLogEvery
	}
	if !l.told || now.Sub(l.start) < standDelay || (!clock && !l.last.IsZero() && now.Sub(l.last) < every) {
		return
	}
	l.last = now
	text := l.text(l.at, now.Sub(l.start))
	if !l.terminal {
		fmt.Fprintln(l.w, text)
		return
	}
	n := utf8.RuneCountInString(text)
	fmt.Fprintf(l.w, "\r%s%s", text, strings.Repeat(" ", max(0, l.width-n)))
	l.width, l.shown = n, true
}

// note writes msg on a line of its own, below the line if one is shown.
func (l *standLine) note(msg string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.end()
	fmt.Fprintln(l.w, msg)
}

// end ends a shown line, so that what follows starts on the next.
func (l *standLine) end() {
	if l.shown {
		fmt.Fprintln(l.w)
		l.shown, l.width = false, 0
	}
}

// stop stops the clock and ends the line; the solve has returned.
func (l *standLine) stop() {
	if l == nil {
		return
	}
	close(l.done)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.end()
	l.told = false // a late tick draws nothing
}
