// Command bernstein is Bernstein Release: it releases functions learned from
// sensitive data under differential privacy with the Bernstein mechanism
// (Aldà & Rubinstein, AAAI 2017).
//
// Without arguments it opens the curator window; `bernstein view
// FILE.synopsis` and `bernstein --open FILE.csv|FILE.bernstein` open the GUI
// on a file. Every other first argument names a command-line subcommand
// (release, eval, verify, inspect, keygen, ledger, demo-data, version,
// help); `bernstein help` lists them with their flags and the exit codes,
// which docs/cli.md documents as well. The commands live in package cli;
// this package is the thin shell that starts them or the GUI.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/bernsteinrelease/bernstein/cli"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// version is the application version; release builds override it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	ledger.SetLockWaitNotice(func() {
		fmt.Fprintln(os.Stderr, "bernstein: waiting for the ledger lock (another release is running)…")
	})
	code := cli.Main(ctx, os.Args[1:], cli.Options{Version: version, GUI: runGUI})
	stop()
	os.Exit(code)
}
