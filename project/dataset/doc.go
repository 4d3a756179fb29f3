// Package dataset reads CSV files into a Table of numeric columns and maps
// them to what the learners take: points in the unit cube under public
// bounds, binary labels under declared classes, real labels. It also
// evaluates a verified synopsis at the points of a CSV file (EvalPointsCSV,
// streamed through the parser's chunks; ScanQueryPoints, EvalReleaseAt).
//
// Contract:
//
//   - Reading is bounded and strict: records are capped at MaxRecordBytes,
//     the file is streamed (ScanCSV keeps nothing but the chunk in hand) and
//     only the numeric columns in use are kept; every error is a *CSVError
//     naming the file, line, column and rule and quoting at most a few dozen
//     characters. Files are opened with project/fileio.OpenRegular (no
//     FIFOs, devices or folders).
//   - A file's layout is declared by ImportOptions (header row after a
//     preamble, delimiter or its detection from the header line alone,
//     decimal comma, comment character), validated by
//     ImportOptions.Validate; errors name the file's own lines, preamble
//     counted. PreviewImport parses the start of a file (at most
//     ImportPreviewBytes, ImportPreviewRows rows) for the curator's import
//     step, in time and memory independent of the file's size.
//   - Numbers people write have one syntax, ParseNumber and
//     ParseWholeNumber: plain decimal, finite; no "1_0", "0x1p-2", "Inf" or
//     "NaN" (ParseDecimalComma: the same with a comma for the point).
//   - No row is dropped: Rows is the number of data rows (public n);
//     invalid values are kept as missing (CSVOptions.KeepInvalid) and
//     replaced by public fill values (WithFilled, or read in place by
//     MappedRows and RealLabelsFilled), never skipped.
//   - Binary labels are declared (Classes), never read from the data.
//   - Private data stays with the curator: a Table's values, the counts of
//     invalid, filled and clipped values, and data-derived bounds
//     (SuggestBounds) are for the curator's screen only; nothing here is
//     published.
//   - Randomness is for demo data only (seeded math/rand/v2 in
//     demo_seeded.go).
//
// Package dataset imports project/fileio, project/synopsis (the text rule of
// class labels, synopsis.CheckText; the synopsis it evaluates) and learners
// (output kinds).
package dataset
