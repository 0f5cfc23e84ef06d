// Command pmlopt designs and audits discrete privacy mechanisms under
// pointwise maximal leakage (PML) and its relatives.
//
// Usage:
//
//	pmlopt <command> [arguments]
//
// Run "pmlopt help" for the list of commands and "pmlopt <command> --help"
// for the flags of one.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pmlopt/pmlopt/internal/outfile"
)

// exit codes, as the standard library's tools use them.
const (
	exitOK    = 0
	exitError = 1 // the command ran and failed (bad input, infeasible request)
	exitUsage = 2 // the command line was wrong
	// exitBudget: the command ran, and the mechanism it examined breaks
	// the file's privacy budget (audit, sample).
	exitBudget = 3
	// exitStopped: a command stopped by SIGINT (Ctrl-C), SIGTERM or
	// SIGHUP, after writing what it had settled. One status for every
	// stop, the one a shell reports for Ctrl-C, so that a script tells a
	// stopped run from a failed one without knowing which signal came.
	exitStopped = 130
)

// command is one subcommand of pmlopt, a value in the manner of the Go
// tool's commands: the word that selects it, its usage line, its short and
// long help, its flags and its run function. commands lists them all.
type command struct {
	name string
	// usage is the usage line after "pmlopt name": the arguments and the
	// main flags.
	usage string
	// short is the command's line in "pmlopt help".
	short string
	// long is what --help prints above the flags: what the command does,
	// with a worked example.
	long string
	// nargs is the number of positional arguments (FILE), or -1 when the
	// command takes any number and checks them itself.
	nargs int
	// flags declares the command's flags on fs, a fresh set for each
	// command line, and returns the run function, which reads them once
	// they are parsed. Flags that several commands take are declared once,
	// in flags_shared.go, and attached here.
	flags func(fs *flagSet) runFunc
}

// runFunc is a command's work on its positional arguments.
type runFunc func(ctx context.Context, e *env, pos []string) error

// commands are pmlopt's commands in the order "pmlopt help" lists them.
var commands = []*command{
	cmdAudit,
	cmdBaseline,
	cmdCompare,
	cmdConvert,
	cmdCurve,
	cmdExport,
	cmdMerge,
	cmdNew,
	cmdPlot,
	cmdSafe,
	cmdSample,
	cmdSolve,
	cmdVerify,
}

// env is what a command writes to; tests substitute buffers.
type env struct {
	stdout io.Writer
	stderr io.Writer
	stdin  io.Reader
	// terminal reports that stderr is a terminal, where a progress line
	// is redrawn by a clock as well as by the work.
	terminal bool
	// ctx is the command's context, set by run: reads of the input (which
	// may block on a terminal, a pipe or a FIFO) stop when it is done.
	ctx context.Context
}

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go stopOnSignal(sigs, cancel, commandName(os.Args[1:]))
	// stdout and stderr are watched: a write that waits for a reader who
	// does not read tells the signal handler that the run is blocked.
	code := run(ctx, os.Args[1:], &env{
		stdout:   outfile.Watch(os.Stdout, "standard output"),
		stderr:   outfile.Watch(os.Stderr, "standard error"),
		stdin:    os.Stdin,
		terminal: isTerminal(os.Stderr),
	})
	exit(code)
}

// ending serialises the process's exit between the main flow and the
// signal handler: whichever comes first exits holding it.
var ending sync.Mutex

// exit removes every temporary file left and exits with code.
func exit(code int) {
	ending.Lock()
	outfile.RemoveTemps()
	os.Exit(code)
}

const (
	// stallGrace is how long an output call must have waited for its
	// reader, after a signal, for the run to count as blocked on it.
	stallGrace = time.Second
	// stopGrace bounds the wait for a run that is not writing to stop
	// after a signal: long enough for a curve to write what it settled,
	// short enough that a step that does not poll its context can not
	// hold a stopped run.
	stopGrace = 30 * time.Second
	stopPoll  = 50 * time.Millisecond
	// echoWindow is how soon after the first signal a second one is the
	// same stop delivered twice, not a user insisting: GNU timeout, and
	// kill of a process group from a shell that also signals the process,
	// send one signal to the process and to its group within microseconds.
	// Taking the echo for a second signal would abandon a curve that was
	// about to write the points it settled.
	echoWindow = 500 * time.Millisecond
)

// stopOnSignal makes the first SIGINT, SIGTERM or SIGHUP end the run. It
// cancels the run's context; a run that is working then writes what it has
// settled and returns, and main exits 130 with the reason. A run blocked
// in a system call that no context reaches (the open of a FIFO nobody
// reads, a write to a full pipe) would never return, so the handler exits
// itself, with status 130, its own message and every temporary file
// removed, when an output call has waited stallGrace for its reader, when
// the run has neither returned nor written for stopGrace, or at a second
// signal (one that comes later than echoWindow after the first).
func stopOnSignal(sigs <-chan os.Signal, cancel context.CancelCauseFunc, name string) {
	s := <-sigs
	cancel(&stopped{sig: s})
	start := time.Now()
	tick := time.NewTicker(stopPoll)
	defer tick.Stop()
	for {
		select {
		case s2 := <-sigs:
			if time.Since(start) < echoWindow {
				continue
			}
			abandon(name, s, "a second signal ("+signalName(s2)+") came")
		case <-tick.C:
			if what, ok := outfile.Stalled(stallGrace); ok {
				abandon(name, s, "nobody reads "+what)
			}
			if time.Since(start) >= stopGrace && outfile.Idle(stallGrace) {
				abandon(name, s, "the work did not stop within "+stopGrace.String())
			}
		}
	}
}

// abandon ends a run that did not return after a signal: it removes the
// temporary files, says why on stderr and exits 130, whatever the main
// flow is doing. The message is given a second: stderr may be a pipe
// nobody reads too.
func abandon(name string, s os.Signal, why string) {
	ending.Lock()
	outfile.RemoveTemps()
	done := make(chan struct{})
	go func() {
		fmt.Fprintf(os.Stderr, "%s: stopped by %s: %s; nothing more is written\n", name, signalName(s), why)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	os.Exit(exitStopped)
}

// commandName is how the messages of the signal handler start: "pmlopt
// curve" for a known command, "pmlopt" otherwise.
func commandName(args []string) string {
	if len(args) > 0 {
		for _, c := range commands {
			if c.name == args[0] {
				return "pmlopt " + c.name
			}
		}
	}
	return "pmlopt"
}

// stopped is the cause of a context cancelled by a signal.
type stopped struct{ sig os.Signal }

func (s *stopped) Error() string { return "stopped by " + signalName(s.sig) }

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// run executes one pmlopt command line and returns the exit status.
func run(ctx context.Context, args []string, e *env) int {
	e.ctx = ctx
	if len(args) == 0 {
		usage(e.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		// "help help" (or "--help --help") is the usage itself, not
		// the help of a command: it must not ask for itself again.
		if len(args) > 1 && !isHelpWord(args[1]) {
			return run(ctx, []string{args[1], "--help"}, e)
		}
		usage(e.stdout)
		return exitOK
	case "version", "-version", "--version":
		printVersion(e.stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.name == name {
			err := c.run(ctx, e, args[1:])
			if err != nil && ctx.Err() != nil {
				// Whatever failed, the signal is the reason.
				var st *stopped
				if errors.As(context.Cause(ctx), &st) {
					fmt.Fprintf(e.stderr, "pmlopt %s: %s: %s\n", name, st, strings.TrimSpace(err.Error()))
					return exitStopped
				}
			}
			return report(e, name, err)
		}
	}
	fmt.Fprintf(e.stderr, "pmlopt: unknown command %q\nRun 'pmlopt help' for usage.\n", name)
	return exitUsage
}

// run parses the command line args of c and runs c on its positional
// arguments.
func (c *command) run(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet(e, c)
	do := c.flags(fs)
	pos, err := fs.parse(args, c.nargs)
	if err != nil {
		return err
	}
	return do(ctx, e, pos)
}

// isHelpWord reports whether a first argument asks for the usage.
func isHelpWord(s string) bool {
	switch s {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}

// usageError marks an error in the command line rather than in the data.
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// errHelp is returned when --help was asked for and printed.
var errHelp = errors.New("help requested")

// report prints err as one line and maps it to an exit status.
func report(e *env, name string, err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return exitOK
	}
	msg := strings.TrimSpace(strings.ReplaceAll(err.Error(), "\n", "; "))
	fmt.Fprintf(e.stderr, "pmlopt %s: %s\n", name, msg)
	var over *overBudget
	if errors.As(err, &over) {
		return exitBudget
	}
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintf(e.stderr, "Run 'pmlopt %s --help' for usage.\n", name)
		return exitUsage
	}
	return exitError
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `pmlopt designs and audits discrete privacy mechanisms under pointwise maximal
leakage (PML), ALIP, LIP and LDP.

Usage:

	pmlopt <command> [arguments]

Commands:`)
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.short)
	}
	fmt.Fprintln(w, `
Problem files are YAML or JSON (see docs/problem-files.md; the mathematics is in
docs/theory.md). Every command but verify takes --json for machine-readable
output and "-" for a problem on standard input; verify reads its FILE by name.
Use "pmlopt <command> --help" for more, with a worked example, and
"pmlopt --version" for the version. Exit status: 0 success, 1 failure, 2 wrong
command line, 3 mechanism over its budget, 130 stopped by Ctrl-C, SIGTERM or
SIGHUP.

Start with: pmlopt new --help`)
}
