// Package ledger is the curator's privacy-budget ledger: an append-only
// JSON-lines file of every ε and δ spent, per dataset, with the keyed
// MinHash sketch store beside it that recognises a dataset again under
// another format, order or column set.
//
// Contract:
//
//   - The ledger never under-counts. Budget is recorded before it is spent:
//     Reserve (and ReserveByIdentity, which first finds the dataset the
//     records belong to) appends the entry under an exclusive lock and
//     fsyncs it before returning nil, and only then may a release write its
//     synopsis. Spending composes sequentially per dataset (Σε, Σδ) and is
//     refused over the dataset's budget (*BudgetError) unless the curator
//     explicitly allows it.
//   - Any doubt fails closed. Every line carries the running ε/δ totals of
//     its dataset; a torn last line (*TornError), a damaged or unknown line
//     or a gap in the totals is counted conservatively, reported, and kept
//     counted by Repair (docs/ledger.md); lines cut from the end show
//     against the tip file (TipPath, written after every append under
//     the lock) and are charged to every dataset; missing lines that held
//     or may have held a budget entry (the totals' budget count) set the
//     budgets they may have lowered aside until the curator sets them
//     again; a ledger file with another hard link (whose own tip would
//     lag) refuses every write (*HardLinkError); a damaged sketch store
//     (*SketchStoreError) refuses releases rather than forgetting a
//     dataset.
//   - A dataset is identified by its records in the used columns
//     (IdentifyDataset: format, row order and unused columns do not
//     matter), and a near-duplicate (≥ 50 % of rows in common, estimated
//     from sketches keyed by a secret in the store) is charged to the
//     dataset it duplicates unless the curator declares a different
//     population. Identities and sketches are private: they stay in the
//     curator's files and are never published.
//   - Reading is bounded and never panics on any file: errors name the
//     file, line and rule (*Error). Every write goes through the
//     project/internal/fsops seam, which tests fail or "crash" at every
//     step (TestLedgerReserveFaults).
//
// The file format is docs/ledger.md. Package ledger imports
// project/dataset (to identify a dataset's records), project/fileio and
// project/internal/fsops.
package ledger
