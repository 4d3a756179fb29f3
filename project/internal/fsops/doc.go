// Package fsops is the file-system seam of the project packages: every step
// of an atomic write, a key-pair write or a ledger append that changes the
// file system goes through Current (an FS), so that fault-injection tests can
// fail or "crash" the operation at each step in turn (Faults, ForEach) and
// prove that an interrupted write never leaves a torn file or an
// under-counted ledger.
//
// Contract: production code never replaces Current; tests replace it only
// through Install, which restores it when the test ends. Faults and ForEach
// are test support (they import testing) kept in this internal package so
// that the tests of project/fileio, project/synopsis and the ledger share one
// implementation.
package fsops
