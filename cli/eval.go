package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

func evalCommand() *command {
	return &command{
		Name:    "eval",
		Args:    "FILE.synopsis (--at V1,V2,… | --points Q.csv) [--out R.csv] [--allow-untrusted]",
		Summary: "Evaluate a verified synopsis at query points given in data units; write CSV.",
		Details: `Query points are in data units and must lie within the synopsis's public
bounds; they are mapped to [0,1]^ℓ by those bounds. --points reads a CSV file
whose columns are matched to the features by name (other columns are
ignored). The result CSV has the feature columns, then value (the released
function in data units), noise_std (the public standard deviation of the
release noise at that point) and, for classifiers, class.

The signature is checked first: an invalid file exits 3 and evaluates
nothing; a valid file by a key outside your allowed signers is refused (exit
5) unless --allow-untrusted is given (then evaluated with a warning on
standard error). Evaluation is post-processing of the release and
spends no privacy budget.`,
		MinPos: 1,
		MaxPos: 1,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var at pointFlag
			var points, out, allowed string
			var force, allowUntrusted bool
			fs.Var(&at, "at", "one query point `V1,V2,…` in data units, one value per feature")
			fs.StringVar(&points, "points", "", "a CSV file `Q.csv` of query points, columns named like the features")
			fs.StringVar(&out, "out", "", "write the results to `R.csv` instead of standard output (- is standard output)")
			fs.BoolVar(&force, "force", false, "overwrite an existing --out file")
			trustFlag(fs, &allowed)
			allowUntrustedFlag(fs, &allowUntrusted)
			return func(ctx context.Context, pos []string) error {
				switch {
				case (len(at) == 0) == (points == ""):
					return usagef("give exactly one of --at V1,V2,… and --points Q.csv")
				}
				if out == "-" { // standard output, as without --out
					out = ""
				}
				if out != "" {
					if err := checkOutputs([]string{out}, evalProtected(pos[0], points, allowed)); err != nil {
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
				// --points streams (project.EvalPointsCSV).
				var write func(w io.Writer) (int, error)
				if len(at) > 0 {
					if d := len(v.File.Domain.Features); len(at) != d {
						return usagef("--at has %d value(s); the synopsis has %d feature(s) (%s)", len(at), d, featureNames(v))
					}
					if err := v.ToUnit(at, make([]float64, len(at))); err != nil {
						return usagef("--at: %v", err)
					}
					write = func(w io.Writer) (int, error) {
						res, err := project.EvalReleaseAt(ctx, v, at)
						if err != nil {
							return 0, err
						}
						return res.Len(), res.WriteCSV(w)
					}
				} else {
					write = func(w io.Writer) (int, error) { return project.EvalPointsCSV(ctx, v, points, w) }
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
