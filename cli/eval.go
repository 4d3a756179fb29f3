package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

func evalCommand() *command {
	return &command{
		Name:    "eval",
		Args:    "FILE.synopsis (--at V1,V2,… | --points Q.csv) [--skip-invalid] [--clamp] [--out R.csv] [--allow-untrusted]",
		Summary: "Evaluate a verified synopsis at query points given in data units; write CSV.",
		Details: `Query points are in data units and must lie within the synopsis's public
bounds; they are mapped to [0,1]^ℓ by those bounds. --points reads a CSV file
whose columns are matched to the features by name (other columns are
ignored); --points - reads it from standard input. The result CSV has the
feature columns, then value (the released function in data units),
noise_std (the public standard deviation of the release noise at that
point) and, for classifiers, class.

A row of the points file that cannot be evaluated (a value missing, not a
number, or outside its feature's public bounds) is named by its line in the
file; by default such a file is refused and nothing is written.
--skip-invalid evaluates the other rows instead and reports on standard
error how many rows it skipped and their first lines.

Noise can carry a released value outside the output's public range (the
"range" of the synopsis, e.g. a label's bounds). --clamp moves such values
to the nearer end of the range and adds the column clamped (true where a
value was moved). Clamping is post-processing: the privacy guarantee holds.

The signature is checked first: an invalid file exits 3 and evaluates
nothing; a valid file by a key outside your allowed signers is refused (exit
5) unless --allow-untrusted is given (then evaluated with a warning on
standard error). Evaluation is post-processing of the release and
spends no privacy budget.`,
		MinPos: 1,
		MaxPos: 1,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var at flagvalue.Point
			var points, out, allowed string
			var force, allowUntrusted, skipInvalid, clamp bool
			var layout importFlags
			fs.Var(&at, "at", "one query point `V1,V2,…` in data units, one value per feature")
			fs.StringVar(&points, "points", "", "a CSV file `Q.csv` of query points, columns named like the features (- is standard input)")
			fs.BoolVar(&skipInvalid, "skip-invalid", false, "with --points: leave out rows that cannot be evaluated (reported on standard error by line) instead of refusing the file")
			layout.register(fs, "--points")
			fs.BoolVar(&clamp, "clamp", false, "clamp released values to the output's public range (adds the column clamped)")
			fs.StringVar(&out, "out", "", "write the results to `R.csv` instead of standard output (- is standard output)")
			fs.BoolVar(&force, "force", false, "overwrite an existing --out file")
			trustFlag(fs, &allowed)
			allowUntrustedFlag(fs, &allowUntrusted)
			return func(ctx context.Context, pos []string) error {
				switch {
				case (len(at) == 0) == (points == ""):
					return usagef("give exactly one of --at V1,V2,… and --points Q.csv")
				case skipInvalid && points == "":
					return usagef("--skip-invalid applies to --points only")
				}
				imp, err := layout.options()
				if err != nil {
					return err
				}
				if points == "" && imp != (dataset.ImportOptions{HeaderRow: 1}) {
					return usagef("--header-row, --delimiter, --decimal-comma and --comment apply to --points only")
				}
				if out == "-" { // standard output, as without --out
					out = ""
				}
				protectedPoints := points
				if points == "-" {
					protectedPoints = ""
				}
				if out != "" {
					if err := checkOutputs([]string{out}, evalProtected(pos[0], protectedPoints, allowed)); err != nil {
						return err
					}
				}
				v, err := openVerified(pos[0], allowed)
				if err != nil {
					return err
				}
				if err := requireTrust(v, allowUntrusted, e.Stderr); err != nil {
					return err
				}
				// write writes the result CSV and returns its number of rows;
				// --points streams (dataset.EvalPointsCSV).
				var write func(w io.Writer) (int, error)
				if len(at) > 0 {
					if d := len(v.File.Domain.Features); len(at) != d {
						return usagef("--at has %d value(s); the synopsis has %d feature(s) (%s)", len(at), d, featureNames(v))
					}
					if err := v.ToUnit(at, make([]float64, len(at))); err != nil {
						return usagef("--at: %v", err)
					}
					write = func(w io.Writer) (int, error) {
						res, err := dataset.EvalReleaseAt(ctx, v, at)
						if err != nil {
							return 0, err
						}
						if clamp && res.Clamp(v.File.Output.Range[0], v.File.Output.Range[1]) > 0 {
							fmt.Fprintf(e.Stderr, "clamped the value to the public output range [%g, %g]\n", v.File.Output.Range[0], v.File.Output.Range[1])
						}
						return res.Len(), res.WriteCSV(w)
					}
				} else {
					write = func(w io.Writer) (int, error) {
						sum, err := dataset.EvalPointsCSV(ctx, v, points, w, dataset.EvalPointsOptions{
							QueryOptions: dataset.QueryOptions{SkipInvalid: skipInvalid, Import: imp}, Clamp: clamp, Stdin: e.Stdin})
						var bad *dataset.InvalidPointsError
						if errors.As(err, &bad) {
							return 0, fmt.Errorf("%w; fix the file, or give --skip-invalid to evaluate the other rows", err)
						}
						if errors.Is(err, fileio.ErrNotRegular) {
							return 0, fmt.Errorf("%w; to read query points from a pipe, give --points - and send them to standard input", err)
						}
						if err != nil {
							return 0, withHeaderRowFlag(err)
						}
						if s := sum.Skipped.Skipped(); s != "" {
							fmt.Fprintln(e.Stderr, s)
						}
						if sum.Clamped > 0 {
							fmt.Fprintf(e.Stderr, "clamped %d value(s) to the public output range [%g, %g]\n", sum.Clamped, v.File.Output.Range[0], v.File.Output.Range[1])
						}
						return sum.Rows, nil
					}
				}
				if out == "" {
					_, err := write(e.Stdout)
					return err
				}
				var rows int
				if err := fileio.WriteAtomicFunc(out, 0o644, force, func(w io.Writer) (err error) {
					rows, err = write(w)
					return err
				}); err != nil {
					return err
				}
				fmt.Fprintf(e.Stderr, "wrote %d row(s) to %s\n", rows, out)
				return nil
			}
		},
	}
}

func featureNames(v *synopsis.Verified) string {
	s := ""
	for i, b := range v.File.Domain.Features {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s in [%g, %g]", b.Name, b.Lo, b.Hi)
	}
	return s
}
