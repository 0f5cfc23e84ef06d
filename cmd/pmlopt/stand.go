package main

import (
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
// case, then the bracket of the least ε as it narrows. One line, redrawn
// when the solve moves (at most five times a second) and by a clock in
// between, so that a decision that takes minutes still shows its time.
type standLine struct {
	mu     sync.Mutex
	w      io.Writer
	what   string
	start  time.Time
	last   time.Time
	at     worstcase.Stand
	told   bool // the solve has told a stand
	shown  bool // a line is on the terminal, not yet ended
	width  int  // the shown line's length, to blank what a shorter one leaves
	ticker *time.Ticker
	done   chan struct{}
}

// standDelay is how long a solve runs before its line shows; standEvery
// how often the line is redrawn at most.
const (
	standDelay = time.Second
	standEvery = 200 * time.Millisecond
)

// newStandLine starts a line for the command what, with a clock when
// clock is set (stderr is a terminal: elsewhere, a log, the line is
// written only when the solve moves); nil when quiet (its methods do
// nothing on nil).
func newStandLine(w io.Writer, what string, quiet, clock bool) *standLine {
	if quiet {
		return nil
	}
	now := time.Now()
	l := &standLine{w: w, what: what, start: now, done: make(chan struct{})}
	if !clock {
		return l
	}
	l.ticker = time.NewTicker(standEvery)
	go func() {
		for {
			select {
			case <-l.done:
				return
			case <-l.ticker.C:
				l.mu.Lock()
				l.draw(time.Now(), true)
				l.mu.Unlock()
			}
		}
	}()
	return l
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

// draw writes the line at now, unless it is too early or, unless forced
// by the clock, too soon after the last one.
func (l *standLine) draw(now time.Time, clock bool) {
	if !l.told || now.Sub(l.start) < standDelay || (!clock && now.Sub(l.last) < standEvery) {
		return
	}
	l.last = now
	s := l.at
	var text string
	switch {
	case !math.IsNaN(s.Lower) && !math.IsNaN(s.Upper):
		text = fmt.Sprintf("%s: least ε in [%.10g, %.10g], width %.2g", l.what, s.Lower, s.Upper, s.Upper-s.Lower)
		if s.Decisions > 0 {
			text += fmt.Sprintf(" (after %d decisions)", s.Decided)
		}
	case s.Decided < s.Decisions:
		text = fmt.Sprintf("%s: deciding the strongest worst case, %d of at most %d decisions", l.what, s.Decided+1, s.Decisions)
	default:
		text = fmt.Sprintf("%s: the least ε of the worst case found (after %d decisions)", l.what, s.Decided)
	}
	text += fmt.Sprintf("  %.1fs", now.Sub(l.start).Seconds())
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
	if l.ticker != nil {
		l.ticker.Stop()
	}
	close(l.done)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.end()
	l.told = false // a late tick draws nothing
}
