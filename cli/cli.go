package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// Exit codes of the bernstein command (documented in `bernstein help` and
// docs/cli.md).
const (
	exitOK       = 0 // success
	exitRuntime  = 1 // runtime error: unreadable file, bad data, failed write, …
	exitUsage    = 2 // usage error: unknown command or flag, missing or invalid argument
	exitVerify   = 3 // verification failed: invalid signature or malformed synopsis
	exitBudget   = 4 // privacy budget refused the release
	exitTrust    = 5 // valid signature by a key outside the allowed signers
	exitCodeHelp = `Exit codes:
  0  success
  1  runtime error (unreadable or invalid file, failed write, cancelled, …)
  2  usage error (unknown command or flag, missing or invalid argument)
  3  verification failed (invalid signature, malformed or unsupported synopsis)
  4  privacy budget refused the release (see --allow-over-budget, --budget)
  5  valid signature by an untrusted key (verify; eval, inspect without --allow-untrusted)
`
)

// env is everything a command touches outside its arguments, so that tests
// run commands in-process with buffers, a fake terminal and a fixed clock.
type env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable (BERNSTEIN_PASSPHRASE).
	Getenv func(string) string
	// Now is the clock written into ledger entries and synopses.
	Now func() time.Time
	// Terminal reports whether a passphrase can be prompted for without
	// echo; ReadPassword reads one line without echo.
	Terminal     func() bool
	ReadPassword func() ([]byte, error)
	// StderrTerminal reports whether standard error is a terminal: long
	// steps then show a progress line there (progress_line.go).
	StderrTerminal func() bool
	// GUI opens the graphical application (Options.GUI in production).
	GUI func(args []string) error
	// Version is the application version: printed by `bernstein version`
	// and written into every synopsis as app_version.
	Version string
}

// Options is what the program's main package gives the command line: the
// things that live outside it.
type Options struct {
	// Version is the application version (release builds set it with
	// -ldflags "-X main.version=...", in the main package).
	Version string
	// GUI opens the graphical application on args (nil: the curator
	// window; ["--open", FILE]; ["view", FILE.synopsis]). The cli package
	// never imports Fyne: the main package passes this in.
	GUI func(args []string) error
}

// Main runs the command line args (without the program name) in the real
// process environment — standard streams, clock, terminal — and returns the
// process exit code (the constants in `bernstein help`, docs/cli.md). Errors
// are written to standard error as "bernstein: CMD: message".
func Main(ctx context.Context, args []string, opts Options) int {
	e := newOSEnv()
	e.GUI = opts.GUI
	e.Version = opts.Version
	return run(ctx, args, e)
}

// newOSEnv returns the environment of the real process, without GUI and
// Version (Main sets them).
func newOSEnv() *env {
	fd := int(os.Stdin.Fd())
	return &env{
		Stdin:          os.Stdin,
		Stdout:         os.Stdout,
		Stderr:         os.Stderr,
		Getenv:         os.Getenv,
		Now:            time.Now,
		Terminal:       func() bool { return term.IsTerminal(fd) },
		ReadPassword:   func() ([]byte, error) { return term.ReadPassword(fd) },
		StderrTerminal: func() bool { return term.IsTerminal(int(os.Stderr.Fd())) },
	}
}

// usageError is a mistake in the command line; it exits with exitUsage and
// points at the command's help.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// verifyError marks a synopsis that failed verification even where the
// project package's sentinel errors are not involved.
type verifyError struct{ err error }

func (e *verifyError) Error() string { return e.err.Error() }
func (e *verifyError) Unwrap() error { return e.err }

// exitCode maps an error returned by a command to the documented exit code.
func exitCode(err error) int {
	var ue *usageError
	var ve *verifyError
	var be *ledger.BudgetError
	var re *release.RequestError
	var mpe *mechanism.ParamError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.As(err, &re), errors.As(err, &mpe),
		errors.Is(err, release.ErrProtectedPath):
		return exitUsage
	case errors.As(err, &be):
		return exitBudget
	case errors.Is(err, synopsis.ErrUntrusted):
		return exitTrust
	case errors.As(err, &ve),
		errors.Is(err, synopsis.ErrBadSignature),
		errors.Is(err, synopsis.ErrMalformed),
		errors.Is(err, synopsis.ErrUnsupportedFormat),
		errors.Is(err, synopsis.ErrTooLarge):
		return exitVerify
	}
	return exitRuntime
}

// command is one subcommand. setup registers the command's flags on fs and
// returns the function that runs it with the positional arguments.
type command struct {
	Name    string
	Args    string // synopsis of the arguments after the name
	Summary string // one line for `bernstein help`
	Details string // paragraphs for `bernstein help NAME`
	MinPos  int    // positional arguments accepted
	MaxPos  int
	Setup   func(fs *flag.FlagSet, e *env) func(ctx context.Context, pos []string) error
}

// commands lists the subcommands in the order `bernstein help` shows them.
func commands() []*command {
	return []*command{
		releaseCommand(),
		chooseCommand(),
		aggregateSQLCommand(),
		evalCommand(),
		verifyCommand(),
		inspectCommand(),
		keygenCommand(),
		ledgerCommand(),
		demoDataCommand(),
		figureCommand(),
		viewCommand(),
		versionCommand(),
		helpCommand(),
	}
}

func lookupCommand(name string) *command {
	for _, c := range commands() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// run executes the command line args (without the program name) and returns
// the process exit code. Errors go to e.Stderr as "bernstein: CMD: message".
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		return reportError(e, "", e.GUI(nil))
	}
	if gui := openedFileArgs(args); gui != nil {
		return reportError(e, "", e.GUI(gui))
	}
	name := args[0]
	switch name {
	case "--open", "-open":
		if len(args) != 2 {
			return reportError(e, "", usagef("--open takes exactly one FILE.csv or FILE.bernstein"))
		}
		return reportError(e, "", e.GUI(args))
	case "-h", "--help", "-help":
		name = "help"
	case "--version", "-version":
		name = "version"
	}
	c := lookupCommand(name)
	if c == nil {
		return reportError(e, "", usagef("unknown command %q; run 'bernstein help' for the list", name))
	}
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	runner := c.Setup(fs, e)
	pos, err := parseInterleaved(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		writeCommandHelp(e.Stdout, c)
		return exitOK
	}
	if err != nil {
		return reportError(e, c.Name, usagef("%v", err))
	}
	if len(pos) < c.MinPos || len(pos) > c.MaxPos {
		return reportError(e, c.Name, usagef("%s", positionalRule(c, len(pos))))
	}
	return reportError(e, c.Name, runner(ctx, pos))
}

func positionalRule(c *command, got int) string {
	switch {
	case c.MinPos == c.MaxPos && c.MaxPos == 0:
		return fmt.Sprintf("takes no arguments besides flags, got %d", got)
	case c.MinPos == 1 && c.MaxPos == 1:
		return fmt.Sprintf("needs exactly one argument, %s; got %d", strings.Fields(c.Args)[0], got)
	default:
		return fmt.Sprintf("takes %d to %d arguments (%s), got %d", c.MinPos, c.MaxPos, c.Args, got)
	}
}

// reportError prints err (if any) to stderr and returns its exit code.
func reportError(e *env, cmd string, err error) int {
	if err == nil {
		return exitOK
	}
	prefix := "bernstein: "
	if cmd != "" {
		prefix += cmd + ": "
	}
	fmt.Fprintf(e.Stderr, "%s%v\n", prefix, err)
	code := exitCode(err)
	if code == exitUsage {
		if cmd != "" {
			fmt.Fprintf(e.Stderr, "run 'bernstein help %s' for its flags\n", cmd)
		} else {
			fmt.Fprintln(e.Stderr, "run 'bernstein help' for the commands")
		}
	}
	return code
}

// parseInterleaved parses flags that may come before and after positional
// arguments (`eval FILE.synopsis --at 1,2`). Everything after a bare "--" is
// positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		consumed := len(args) - len(fs.Args())
		rest := fs.Args()
		if consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return pos, nil
}

// writeCommandHelp prints a command's usage, details and every flag.
func writeCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "Usage: bernstein %s %s\n\n%s\n", c.Name, c.Args, c.Summary)
	if c.Details != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.Details, "\n"))
	}
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	c.Setup(fs, &env{})
	var flags []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f) })
	if len(flags) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		sort.Slice(flags, func(i, j int) bool { return flags[i].Name < flags[j].Name })
		for _, f := range flags {
			writeFlag(w, f)
		}
	}
	fmt.Fprintf(w, "\n%s", exitCodeHelp)
}

func writeFlag(w io.Writer, f *flag.Flag) {
	arg, usage := flag.UnquoteUsage(f)
	if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
		arg = ""
	}
	line := "  --" + f.Name
	if arg != "" {
		line += " " + arg
	}
	fmt.Fprintln(w, line)
	for _, l := range strings.Split(usage, "\n") {
		fmt.Fprintf(w, "        %s\n", l)
	}
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" {
		fmt.Fprintf(w, "        (default %s)\n", f.DefValue)
	}
}
