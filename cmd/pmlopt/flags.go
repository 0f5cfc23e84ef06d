package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pmlopt/pmlopt/problem"
)

// flagSet wraps flag.FlagSet with the conventions of pmlopt: flags may come
// before or after the positional arguments, and --help prints the usage of
// the command to stdout.
type flagSet struct {
	*flag.FlagSet
	cmd *command
	// env is what the command reads and writes: --help prints to its
	// stdout, and a problem FILE "-" is its stdin.
	env *env
	// budgets and infinite name the float flags that budgetFloat64 and
	// infiniteFloat64 defined (checkFloats).
	budgets, infinite map[string]bool
}

func newFlagSet(e *env, c *command) *flagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{FlagSet: fs, cmd: c, env: e}
}

func (fs *flagSet) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: pmlopt %s %s\n\n%s\n\nFlags:\n", fs.cmd.name, fs.cmd.usage, strings.TrimSpace(fs.cmd.long))
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	// NaN is how a number flag says "not given"; it is no default to show.
	io.WriteString(w, strings.ReplaceAll(b.String(), " (default NaN)", ""))
}

// helpAsked reports whether args ask for help with -h although the command
// has a flag named h (safe, export): a -h that ends the line or is not
// followed by a number is a request for help, as in every other command.
func (fs *flagSet) helpAsked(args []string) bool {
	if fs.Lookup("h") == nil {
		return false
	}
	for k, a := range args {
		if a == "--" {
			return false
		}
		if a != "-h" && a != "--h" {
			continue
		}
		if k+1 == len(args) {
			return true
		}
		if _, err := strconv.ParseFloat(args[k+1], 64); err != nil {
			return true
		}
	}
	return false
}

// parse parses args, allowing flags and positional arguments in any order,
// and returns the positional arguments. It checks their number against
// want (or at least min when want < 0).
func (fs *flagSet) parse(args []string, want int) ([]string, error) {
	if fs.helpAsked(args) {
		fs.printUsage(fs.env.stdout)
		return nil, errHelp
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				fs.printUsage(fs.env.stdout)
				return nil, errHelp
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if err := fs.checkFloats(); err != nil {
		return nil, err
	}
	if want >= 0 && len(pos) != want {
		if want == 1 && len(pos) == 0 {
			return nil, usagef("missing problem FILE")
		}
		return nil, usagef("want %d argument(s), got %d: %s", want, len(pos), strings.Join(pos, " "))
	}
	return pos, nil
}

// isSet reports whether the flag name was given on the command line.
func (fs *flagSet) isSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// budgetFloat64 defines a float flag that holds a privacy level in nats:
// parse refuses a value outside [0, problem.MaxEpsilon], the range a problem
// file's budget must lie in, naming the flag.
func (fs *flagSet) budgetFloat64(name string, value float64, usage string) *float64 {
	if fs.budgets == nil {
		fs.budgets = map[string]bool{}
	}
	fs.budgets[name] = true
	return fs.Float64(name, value, usage)
}

// infiniteFloat64 defines a float flag for which +Inf is a value (the
// orders α and β of audit); parse still refuses NaN and −Inf.
func (fs *flagSet) infiniteFloat64(name string, value float64, usage string) *float64 {
	if fs.infinite == nil {
		fs.infinite = map[string]bool{}
	}
	fs.infinite[name] = true
	return fs.Float64(name, value, usage)
}

// checkFloats refuses, with the flag's name, a float flag given as NaN (a
// number flag's NaN default means "not given", so a NaN typed on the
// command line would silently be taken as no value at all) or ±Inf (except
// +Inf for infiniteFloat64), and a budget outside [0, problem.MaxEpsilon].
func (fs *flagSet) checkFloats() error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if err != nil || !ok {
			return
		}
		x, ok := g.Get().(float64)
		switch {
		case !ok:
		case math.IsNaN(x):
			err = usagef("--%s must be a number, got NaN", f.Name)
		case fs.infinite[f.Name] && math.IsInf(x, -1):
			err = usagef("--%s must be a number or +Inf, got %v", f.Name, x)
		case math.IsInf(x, 0) && !fs.infinite[f.Name]:
			err = usagef("--%s must be a finite number, got %v", f.Name, x)
		case fs.budgets[f.Name]:
			err = checkBudgetFlag(f.Name, x)
		}
	})
	return err
}

// checkBudgetFlag refuses a privacy level of flag name outside
// [0, problem.MaxEpsilon] (e^ε must stay far from overflow, as in a
// problem file's budget).
func checkBudgetFlag(name string, x float64) error {
	if !(x >= 0 && x <= problem.MaxEpsilon) {
		return usagef("--%s must be a number in [0, %g], got %v", name, float64(problem.MaxEpsilon), x)
	}
	return nil
}
