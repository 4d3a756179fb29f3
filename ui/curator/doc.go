// Package curator is the curator's window of Bernstein Release (Fyne): the
// wizard that loads a dataset, declares its bounds and classes, chooses a
// learner and the privacy parameters, previews simulated releases and
// publishes a signed synopsis.
//
// # Contract
//
// The package implements no privacy logic. Every release goes through the
// one pipeline shared with the command line, release.Prepare and
// (*release.Prepared).Release (ledger entry first, secure noise from the
// mechanism package, signed synopsis last); budgets come from the project
// ledger; bounds, columns and parameters are validated by project and the
// learners' specs. The preview only simulates releases with seeded
// simulation noise (study, mechanism.SimulationNoise), a type that can
// never be published.
//
// Entry point: Run (from `bernstein` and `bernstein --open FILE`), on the
// main goroutine. The curator does not import the analyst's viewer
// (ui/viewer): Options.OpenViewer opens a synopsis in it.
//
// # Threads
//
// Heavy work (reading CSV files, fitting, the preview simulation, drawing
// plots with plotting, releasing) runs on background goroutines; widgets
// are touched only on the UI goroutine, through widgets.Do (fyne.Do, also
// serialised under Fyne's headless test driver). Stale preview work is
// cancelled through its context when a setting changes.
//
// # Files
//
//   - curator.go: the window, menus, shortcuts, dataset loading, budget,
//     and derive, the one update path: after every change every page's
//     derived views (marks, messages, summaries, enabled buttons) are
//     recomputed from the state, so none keeps a stale or last-valid value;
//     pages' refresh fills their inputs from the state;
//   - state.go: the settings as plain data (text that does not parse is
//     kept as typed and blocks the request with its rule) and their
//     conversion to a release.Request; project.go: project files, recent
//     projects; protect.go: the files no output may be;
//   - import.go: the import step (header row, delimiter, decimal comma,
//     comment character, with a live preview of the parsed start of the
//     file, dataset.PreviewImport), shown by File ▸ Open, a dropped CSV,
//     a file the current options cannot read, and the Data page;
//   - start.go, data.go, classes.go, fill.go, bounds.go,
//     bounds_provenance.go, private_bounds.go, learner.go, choose.go,
//     privacy.go, release.go, release_key.go, identity.go: the wizard steps
//     and the release flow; about.go, about_paths.go: the About dialog;
//   - preview.go, plotview.go, preview_standin.go: the preview panel, its
//     worker, plot area and public stand-in; the computation is package
//     ui/curator/preview;
//   - privacy_text.go: the budget line and the budget sentences of the
//     dialogs (the wording of ε itself is in privacywords).
//
// The shared dialogs, theme and file forms are in ui/internal/widgets and
// ui/internal/files. Errors from user input and files are shown in the
// window; only programmer misuse panics (documented where it can happen).
package curator
