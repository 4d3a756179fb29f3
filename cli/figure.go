package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/bernsteinrelease/bernstein/cli/figure"
	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
)

// figureCommand reproduces Figures 1 and 2 of Aldà & Rubinstein (2017),
// configurations of the study engine (package study) in package figure;
// this command owns their flags and messages.
func figureCommand() *command {
	return &command{
		Name:    "figure",
		Args:    "1|2 --out DIR [--repeats N] [--bandwidth B] [--seed S] [--force]",
		Summary: "Reproduce a figure of the paper (simulation study; figures 1 and 2).",
		Details: `figure 1: private KDE (Section 6, Figure 1). 5000 points from
0.4·N(0.5, 0.02) + 0.6·N(0.75, 0.005) (second parameter read as a VARIANCE;
the bundled demo data), Gaussian KDE with a fixed public bandwidth, k = 20,
h = 1..5 and the nearest-lattice baseline, ε ∈ {0.01, 0.03, 0.1, 0.3, 1, 3, 10},
mean sup-norm error on a 1001-point grid against the non-private KDE.
Two peer mechanisms are added as extra series (not in the paper): Wang et
al.'s trigonometric summary (21 moments) and Chaudhuri–Vinterbo's private
histogram (20 bins), and for ε ≤ 1 Hall, Rinaldo & Wasserman's
Gaussian-process release ((ε, δ)-DP with δ = 1e-6, on the 1001-point grid),
beside the Bernstein mechanism at the same (ε, δ) with Gaussian and
Laplace-approx noise (k = 20, h = 1..5). Releases are SIMULATED with seeded
noise (Laplace, scale S·21/ε for pure-ε Bernstein): this is a study of
utility, not a release. Writes DIR/` + figure.CSV1File + ` (columns method, h,
epsilon, mean_sup_error, delta; h empty for the baseline and the peers,
delta 0 for pure ε-DP) and DIR/` + figure.PNG1File + ` (log–log plot, legend grouped
by guarantee).

figure 2: private RBF SVM (Section 6, Figure 2). C = σ = 1 on the bundled
two-class demo data (1500 points per class, bounds [0,1]²); for (k, h) in
{(5,1), (10,1), (10,2), (20,2)} and ε ∈ {0.1, 0.3, 1, 3, 10}, the mean
fraction of a 200×200 grid where the released classifier agrees with the
non-private one (--repeats defaults to ` + strconv.Itoa(figure.DefaultRepeats2) + ` here; --bandwidth does not
apply). Releases are SIMULATED with seeded Laplace noise (scale
S·(k+1)²/ε): nothing is released, no budget is spent. Writes DIR/` + figure.CSV2File + `
(columns k, h, epsilon, mean_agreement) and DIR/` + figure.PNG2File + ` (non-private
and simulated released decision boundaries at ε = 10). See docs/reproduction.md.`,
		MinPos: 1,
		MaxPos: 1,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var out string
			var force bool
			cfg := figure.Config1{Repeats: figure.DefaultRepeats1, Bandwidth: figure.DefaultBandwidth1, Seed: figure.DefaultSeed1}
			fs.StringVar(&out, "out", "", "the directory `DIR` to write the CSV and PNG into, created if missing (required)")
			flagvalue.WholeVar(fs, &cfg.Repeats, "repeats", cfg.Repeats, "simulated releases `N` per method and ε (the paper: 1000)")
			flagvalue.NumberVar(fs, &cfg.Bandwidth, "bandwidth", cfg.Bandwidth, "KDE bandwidth `B` (kernel standard deviation on [0,1]); a fixed public value")
			flagvalue.WholeVar(fs, &cfg.Seed, "seed", cfg.Seed, "seed `S` of the simulation noise (same seed, same figure)")
			fs.BoolVar(&force, "force", false, "overwrite existing output files")
			return func(ctx context.Context, pos []string) error {
				if pos[0] != "1" && pos[0] != "2" {
					return usagef("figure %q: only figure 1 or 2 is implemented", pos[0])
				}
				if out == "" {
					return usagef("--out DIR is required")
				}
				if err := refuseDashOut(out, "its CSV and PNG files"); err != nil {
					return err
				}
				if err := checkOutputs(figure.Outputs(out)); err != nil {
					return err
				}
				if pos[0] == "2" {
					cfg2 := figure.Config2{Repeats: figure.DefaultRepeats2, Seed: cfg.Seed}
					var bwSet bool
					fs.Visit(func(f *flag.Flag) {
						switch f.Name {
						case "repeats":
							cfg2.Repeats = cfg.Repeats
						case "bandwidth":
							bwSet = true
						}
					})
					if bwSet {
						return usagef("--bandwidth: applies to figure 1 only")
					}
					if err := cfg2.Validate(); err != nil {
						return usagef("%v", err)
					}
					paths, err := figure.Write2(ctx, out, cfg2, force)
					for _, p := range paths {
						fmt.Fprintln(e.Stdout, p)
					}
					return err
				}
				if err := cfg.Validate(); err != nil {
					return usagef("%v", err)
				}
				paths, err := figure.Write1(ctx, out, cfg, force)
				for _, p := range paths {
					fmt.Fprintln(e.Stdout, p)
				}
				return err
			}
		},
	}
}
