// Package project is the curator's project file, a .bernstein workspace:
// LoadWorkspace, ParseWorkspace and SaveWorkspace read and write it,
// CheckDataset checks that its dataset is still the one it recorded, and
// BoundsFor and the fields hand its settings to the release. Everything else of the curator's files and of the release
// lives in the sub-packages: project/dataset (CSV files), project/synopsis
// (the signed synopsis format), project/keys (curator keys and trusted
// signers), project/ledger (the privacy-budget ledger), project/release (the
// release pipeline and the private choice) and project/fileio (crash-safe
// writes, non-blocking reads).
//
// Contract:
//
//   - Writes are crash-safe: the workspace is published through
//     fileio.WriteAtomic, so a crash leaves the old file or the new one, and
//     without overwrite an existing file is never replaced
//     (fileio.ErrExists).
//   - Reading is bounded and never panics on any file: project files are
//     capped at 16 MiB and opened with fileio.OpenRegular; errors are
//     *WorkspaceError naming the file, line, column or JSON field and the
//     rule, or *DatasetChangedError when the dataset no longer matches the
//     hash the workspace recorded.
//   - Private data stays with the curator: data-derived bounds need the
//     curator's recorded acknowledgement in the workspace, and the
//     workspace records declared values only (bounds, classes, fill rules,
//     units, text under synopsis.CheckText).
//
// Package project imports project/ledger, project/dataset,
// project/synopsis, project/fileio, learners and mechanism; never ui, cli
// or project/release.
package project
