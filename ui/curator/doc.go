// Package ui is the graphical application of Bernstein Release (Fyne): the
// curator's window, which prepares and publishes releases, and the analyst's
// viewer (files viewer*.go), which verifies and evaluates them.
//
// # Contract
//
// The package implements no privacy logic. Every release goes through the
// one pipeline shared with the command line, release.Prepare and
// (*release.Prepared).Release (ledger entry first, secure noise from the
// mechanism package, signed synopsis last); budgets come from the project
// ledger; bounds, columns and parameters are validated by project and the
// learners' specs. The curator's preview only simulates releases with seeded
// simulation noise (mechanism.SimulationNoise, mechanism.Simulate), a type
// that can never be published.
//
// Entry points: Run (the curator window, from `bernstein` and
// `bernstein --open FILE`), RunViewer and OpenViewer (the analyst's viewer).
// They must run on the main goroutine.
//
// # Threads
//
// Heavy work (reading CSV files, fitting, the preview simulation, drawing
// plots with plotting, releasing) runs on background goroutines; widgets
// are touched only on the UI goroutine, through fyne.Do (uiDo in the curator,
// which also serialises callbacks under Fyne's headless test driver). Stale
// preview work is cancelled through its context when a setting changes.
//
// # Files of the curator
//
//   - curator.go: the window, menus, shortcuts, dataset loading, budget,
//     and derive, the one update path: after every change every page's
//     derived views (marks, messages, summaries, enabled buttons) are
//     recomputed from the state, so none keeps a stale or last-valid value;
//     pages' refresh fills their inputs from the state;
//   - curator_state.go: the settings as plain data (text that does not
//     parse is kept as typed and blocks the request with its rule) and
//     their conversion to a release.Request; curator_project.go:
//     project files, recent projects;
//   - curator_modal.go: the curator's dialogs (Enter runs the default
//     action, Escape cancels); file_open.go: the Open dialog (a typed path,
//     or Browse…);
//   - curator_start.go, curator_data.go, curator_bounds.go,
//     curator_learner.go, curator_privacy.go, curator_release.go: the wizard
//     steps and the release flow;
//   - curator_preview.go: the preview panel and its worker;
//     preview_engine.go: the preview computation and its caches;
//     preview_tradeoff.go, preview_tensor.go: the tradeoff simulation;
//   - privacy_text.go: the plain-language reading of ε and the budget line.
//
// Errors from user input and files are shown in the window; only programmer
// misuse panics (documented where it can happen).
package curator
