// Package cli holds the tambua subcommands. Each subcommand lives in its own
// file and registers itself from init, so adding one touches no other file.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// Env is what a subcommand may touch of the process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// Exit statuses.
const (
	ExitOK       = 0
	ExitFailure  = 1 // the command could not do its work (internal error)
	ExitBadInput = 2 // the input was refused; one line on stderr says why
)

// Command is one subcommand. Path is its words ("docdefs list").
type Command struct {
	Path    string
	Summary string
	Run     func(ctx context.Context, env *Env, args []string) error
}

var commands = map[string]*Command{}

// Register adds a subcommand; it panics on a duplicate path.
func Register(c *Command) {
	if _, dup := commands[c.Path]; dup {
		panic("cli: duplicate command " + c.Path)
	}
	commands[c.Path] = c
}

// UsageError is an error in how the command was called or in its input:
// exit status 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Main runs the command named by args and returns the exit status.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	return Run(ctx, env, args)
}

// Run dispatches args (without the program name) to the longest matching
// command path.
func Run(ctx context.Context, env *Env, args []string) int {
	var cmd *Command
	n := 0
	for i := len(args); i > 0; i-- {
		if c, ok := commands[strings.Join(args[:i], " ")]; ok {
			cmd, n = c, i
			break
		}
	}
	if cmd == nil {
		if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
			usage(env.Stdout)
			return ExitOK
		}
		fmt.Fprintf(env.Stderr, "tambua: unknown command %q (try tambua help)\n", strings.Join(args, " "))
		return ExitBadInput
	}
	err := cmd.Run(ctx, env, args[n:])
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "tambua %s: %s\n", cmd.Path, oneLine(err.Error()))
		var ue *UsageError
		if errors.As(err, &ue) {
			return ExitBadInput
		}
		return ExitFailure
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tambua <command> [flags]")
	fmt.Fprintln(w)
	paths := make([]string, 0, len(commands))
	for p := range commands {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(w, "  %-24s %s\n", p, commands[p].Summary)
	}
}

// NewFlags returns a flag set whose errors are usage errors and whose output
// goes to env.Stderr.
func NewFlags(env *Env, path string) *flag.FlagSet {
	fs := flag.NewFlagSet("tambua "+path, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

// Parse parses flags, mapping flag errors to usage errors.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &UsageError{Err: err}
	}
	return nil
}
