// Package viewer is the analyst's synopsis viewer of Bernstein Release
// (Fyne): it verifies a signed .synopsis file against the analyst's trusted
// curator keys, says in words who signed it and what its ε and δ mean, and
// evaluates the released function (plots, single queries, batches of
// points from a CSV file, exports).
//
// # Contract
//
// The viewer is read-only: it never writes the synopsis file. It verifies
// before it parses (synopsis.Open with keys.LoadTrust, the one trust
// policy: a missing allowed_signers file trusts nobody) and evaluates only
// a synopsis.Verified. It writes only what the analyst asks for through
// the save form (files.ShowSaveForm: batch results, plot exports; never a
// .synopsis file, the open synopsis or a protected file) and the analyst's
// trusted-keys file (ui/internal/trust).
//
// Entry points: Run (`bernstein view FILE.synopsis`, on the main
// goroutine) and Open (a viewer window in a running app; the curator's
// File ▸ Open Synopsis… through curator.Options.OpenViewer). The viewer
// does not import the curator.
//
// # Threads
//
// Verification, batches and plots run on background goroutines
// (cancelled when the window closes or another file opens); widgets are
// touched only through widgets.Do.
//
// # Files
//
//   - viewer.go: the window, menus, banner, trust prompts, drag and drop;
//   - document.go: loading and verifying a file into the text the window
//     shows; details.go: the file's details;
//   - plot.go, query.go, eval.go: the plot tab, single queries, evaluation;
//   - batch.go, batchtab.go: batch evaluation of a CSV of points;
//   - save.go, export.go, protect.go: save targets, exports, the files no
//     export may be.
package viewer
