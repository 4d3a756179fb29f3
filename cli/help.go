package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
)

func helpCommand() *command {
	return &command{
		Name:    "help",
		Args:    "[COMMAND]",
		Summary: "Describe the commands, or one command and every flag it takes.",
		MaxPos:  1,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			return func(_ context.Context, pos []string) error {
				if len(pos) == 0 {
					writeHelp(e.Stdout)
					return nil
				}
				c := lookupCommand(pos[0])
				if c == nil {
					return usagef("unknown command %q; run 'bernstein help' for the list", pos[0])
				}
				writeCommandHelp(e.Stdout, c)
				return nil
			}
		},
	}
}

// writeHelp prints the overview: GUI entry points, commands, exit codes.
func writeHelp(w io.Writer) {
	fmt.Fprint(w, `Bernstein Release: release functions learned from sensitive data under
differential privacy with the Bernstein mechanism (Aldà & Rubinstein, 2017).

Usage:
  bernstein                          open the curator window
  bernstein --open FILE.csv          open the curator window on a dataset
  bernstein --open FILE.bernstein    open the curator window on a saved project
  bernstein view FILE.synopsis       open the analyst viewer on a synopsis
  bernstein COMMAND [ARGS] [FLAGS]   run a command-line command

Commands:
`)
	width := 0
	for _, c := range commands() {
		width = max(width, len(c.Name))
	}
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.Name, c.Summary)
	}
	fmt.Fprint(w, `
Run 'bernstein help COMMAND' or 'bernstein COMMAND --help' for every flag of a
command. Flags may come before or after the positional arguments and may be
written with one or two dashes. Errors go to standard error.

`+exitCodeHelp)
}

func versionCommand() *command {
	return &command{
		Name:    "version",
		Summary: "Print the application version.",
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			return func(context.Context, []string) error {
				fmt.Fprintln(e.Stdout, "bernstein", e.Version)
				return nil
			}
		},
	}
}

func viewCommand() *command {
	return &command{
		Name:    "view",
		Args:    "FILE.synopsis",
		Summary: "Open the analyst viewer (GUI) on a synopsis file.",
		Details: `The viewer verifies the signature first and shows nothing of an invalid file.
Use 'bernstein verify' and 'bernstein eval' for the same checks without a window.`,
		MinPos: 1,
		MaxPos: 1,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			return func(_ context.Context, pos []string) error {
				return e.GUI([]string{"view", pos[0]})
			}
		},
	}
}
