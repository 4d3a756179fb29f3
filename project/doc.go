// Package project is the curator's side of a release, where everything
// meets: the project file (LoadWorkspace, SaveWorkspace), the release
// pipeline (Prepare, then (*Prepared).Release), privately estimated bounds
// (EstimatePrivateBounds), the private choice of settings (ChooseSettings,
// choose.go), the preview's stand-in data, and the privacy-budget ledger
// (OpenLedger) with dataset identity and charging. The concepts it builds on have packages of
// their own: project/dataset (CSV files), project/synopsis (the signed
// synopsis format), project/keys (curator keys and trusted signers),
// project/fileio (crash-safe writes, non-blocking reads).
//
// Contract:
//
//   - Writes are crash-safe: files are published through fileio.WriteAtomic,
//     so a crash leaves the old file or the new one, never a torn file, and
//     without overwrite an existing file is never replaced
//     (fileio.ErrExists). The ledger instead appends one entry per write(2)
//     and fsyncs it; a torn last line is detected, counted and repaired,
//     never dropped (docs/ledger.md). Every step goes through the
//     project/internal/fsops seam, which tests replace to fail or "crash" at
//     every write step.
//   - No output is ever a protected file — the dataset, the ledger or its
//     lock, a key or an allowed_signers file — by name, symbolic link or
//     hard link (CheckOutputPath, protected_paths.go).
//   - Budget is recorded before it is spent: a release must call
//     (*Ledger).Reserve and get a nil error before it writes its synopsis.
//     Spending composes sequentially per dataset (Σε, Σδ), the dataset being
//     identified by its records in the used columns (IdentifyDataset: format,
//     row order and other columns do not matter), and a near-duplicate (≥ 50 %
//     of rows in common, from keyed MinHash sketches in the sketch store
//     beside the ledger) being charged to the dataset it duplicates unless
//     the curator declares a different population (docs/ledger.md).
//   - Files and user input never cause a panic: they return errors that name
//     the file, the line and column (or JSON field) where relevant, and the
//     rule broken (*LedgerError, *TornError, *BudgetError, *SketchStoreError,
//     *WorkspaceError, *DatasetChangedError, *RequestError). Only programmer
//     misuse panics, and the function's documentation says so. Project files
//     are capped at 16 MiB and opened with fileio.OpenRegular.
//   - Private data stays with the curator: data-derived bounds need the
//     curator's recorded acknowledgement in the workspace; no row is
//     dropped (n is the number of data rows) and invalid values are replaced
//     by public fill rules (synopsis.FillRule); binary labels are declared
//     (dataset.Classes), never read from the data.
//   - Release noise comes only from the mechanism package (crypto-seeded);
//     the private choice's non-noise randomness is crypto-seeded too
//     (choose_seed.go).
//
// Package project imports its sub-packages, learners and mechanism, never
// ui or cli.
package project
