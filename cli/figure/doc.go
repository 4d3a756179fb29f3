// Package figure reproduces Figures 1 and 2 of Aldà & Rubinstein (2017) as
// configurations of the study engine (package study): figure 1, the private
// KDE's mean sup-norm error against ε (with the nearest-lattice baseline,
// three published peers and the Bernstein mechanism at the (ε, δ) of the
// (ε, δ)-DP peer, legend grouped by guarantee); figure 2, the private RBF SVM's agreement with the
// non-private classifier (docs/reproduction.md).
//
// Contract:
//
//   - Write1 and Write2 run a protocol and write its CSV and PNG into a
//     directory, atomically (fileio.WriteAtomic); an existing file is
//     refused unless overwrite. They return the paths written, also on
//     error.
//   - The CSVs are public outputs pinned byte for byte by
//     docs/reproduction/figure{1,2}.csv (TestFigureCSVGolden): same
//     configuration, same bytes.
//   - Every release here is SIMULATED with the seeded
//     mechanism.SimulationNoise: nothing is released and no privacy budget
//     is spent.
//   - Config1.Validate and Config2.Validate check the parameters the
//     command line may change; their messages name the flag, the value and
//     the rule. The `bernstein figure` command (package cli) owns the flags,
//     the help text and the exit codes, and validates before it calls
//     Write1 or Write2.
package figure
