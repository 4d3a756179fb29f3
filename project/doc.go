// Package project holds every file the app reads or writes: CSV datasets,
// the privacy-budget ledger, the curator's project file (workspace) and the
// released synopsis with its signature.
//
// Contract:
//
//   - Every write that publishes a file goes through WriteFileAtomic (or, for
//     the ledger, an fsynced single append per entry), so a crash leaves the
//     old file or the new one, never a torn file.
//   - User input and files never cause a panic: they return errors that name
//     the file, the line and column where relevant, and the rule broken.
//     Only programmer misuse panics, and the function's doc says so.
//   - Budget is recorded before it is spent: callers must call
//     (*Ledger).Reserve and get nil before writing a synopsis.
//
// Package project imports learners and mechanism, never ui.
package project
