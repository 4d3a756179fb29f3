// Package project holds every file the app reads or writes: CSV datasets
// (ReadCSV), the privacy-budget ledger (OpenLedger), the curator's project
// file (LoadWorkspace, SaveWorkspace), the seeded demo data (WriteDemoData)
// and the released synopsis with its signature and keys.
//
// Contract:
//
//   - Writes are crash-safe. Every file is published through
//     fileio.WriteAtomic (temporary file, fsync, link or rename, fsync of the
//     directory), so a crash leaves the old file or the new one, never a
//     torn file; without overwrite an existing file is never replaced
//     (ErrExists). The ledger instead appends one entry per write(2) and
//     fsyncs it; a torn last line is detected, counted and repaired, never
//     dropped (docs/ledger.md). All writes go through the unexported fsops.FS
//     seam (atomic.go), which tests replace to fail or "crash" at every
//     write step. On file systems without hard links no-clobber writes
//     fall back to an exclusive create and a rename (atomic_nolink.go);
//     key pairs are replaced only once all new files are complete
//     (keys_write.go); stale temporary files are cleared (atomic_stale.go).
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
//     rule broken (*CSVError, *LedgerError, *TornError, *BudgetError,
//     *SketchStoreError,
//     *WorkspaceError, *DatasetChangedError). Only programmer misuse panics,
//     and the function's documentation says so.
//   - Reading is bounded: CSV records are capped at MaxRecordBytes and the
//     file is streamed, keeping only the numeric columns in use; project
//     files are capped at 16 MiB. Every file read by path is opened with
//     OpenRegular, which refuses directories, FIFOs and devices instead of
//     blocking on them (ErrNotRegular). Error messages quote at most a few
//     dozen characters of a file.
//   - Numbers people write (CSV values, command-line flags, the windows'
//     number fields) have one syntax, ParseNumber and ParseWholeNumber:
//     plain decimal, finite; no "1_0", "0x1p-2", "Inf" or "NaN".
//   - Private data stays with the curator: Dataset values, the counts of
//     invalid, filled and clipped values and data-derived bounds
//     (SuggestBounds) are for the curator's screen only; data-derived bounds
//     need the curator's recorded acknowledgement in the workspace. No row
//     is dropped: n is the number of data rows, and invalid values are
//     replaced by public fill rules (FillRule); binary labels are declared
//     (Classes), never read from the data.
//   - Randomness here is for demo data only (seeded math/rand/v2 in
//     demo_seeded.go); release noise comes from the mechanism package.
//
// Package project imports learners and mechanism, never ui.
package project
