// Package cli is the bernstein command line: every subcommand (release,
// choose, eval, verify, inspect, keygen, ledger, demo-data, figure, version,
// help), its flags, its exit codes and its messages. The main package is a
// thin shell that calls Main with the application version and a function
// that opens the GUI; cli itself never imports Fyne or the ui packages.
//
// Contract:
//
//   - Main(ctx, args, opts) runs one command line and returns the process
//     exit code: 0 success, 1 runtime error, 2 usage error, 3 verification
//     failed, 4 privacy budget refused the release, 5 valid signature by an
//     untrusted key (docs/cli.md; `bernstein help` prints the same table).
//   - Public results go to standard output; everything that depends on the
//     private records outside the mechanism (clip and fill counts) goes to
//     standard error, labelled private (docs/security.md).
//   - Flags are parsed and validated where they enter (the value types of
//     package flagvalue and each command's Setup); the rules themselves live
//     in mechanism, learners and project, once.
//   - Commands read the outside world only through env (streams, clock,
//     terminal, environment variables), so tests run them in process.
//
// One file per command (release.go, eval.go, …). figure.go is the command
// that reproduces the paper's figures; the protocols themselves are in
// package figure (docs/reproduction.md).
package cli
