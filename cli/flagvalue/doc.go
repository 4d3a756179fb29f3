// Package flagvalue holds the value types of bernstein's command-line flags
// (flag.Value implementations): lists of names, finite numbers, whole
// numbers, --bounds, --param, --k, --at, --fill, --classes and
// --bounds-quantiles.
//
// Contract:
//
//   - Each type parses and validates its own syntax once, where the text
//     comes in, with messages naming the value and the rule broken; the
//     flag package adds the flag's name ("invalid value … for flag -NAME"),
//     and the command exits with a usage error (exit code 2).
//   - Numbers follow the one number syntax of CSV values
//     (dataset.ParseNumber, dataset.ParseWholeNumber): plain decimal with an
//     optional exponent; no "1_0", "0x1p-2", "Inf" or "NaN", and no number
//     that underflows to 0 (ParseFinite).
//   - Only syntax is checked here. Meaning (bounds order against the data,
//     parameter ranges, ε, δ, h and k limits) is validated by mechanism,
//     learners and project, once.
//   - String renders the value as the help's default (flag.PrintDefaults
//     convention); a zero value renders as "" except K, which is "auto".
package flagvalue
