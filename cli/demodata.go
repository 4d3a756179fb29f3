package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

func demoDataCommand() *command {
	return &command{
		Name:    "demo-data",
		Args:    "--out DIR [--force]",
		Summary: "Write the bundled demo datasets (the paper's Figure 1 and 2 data) as CSV files.",
		Details: `Writes DIR/` + dataset.DemoKDE1DFile + ` (5000 points, column x, from 0.4·N(0.5, 0.02) +
0.6·N(0.75, 0.005), variances) and DIR/` + dataset.DemoTwoClass2DFile + ` (1500 points per class,
columns x1, x2, label ∈ {0, 1}). The data are synthetic and deterministic
(fixed seeds), so their ledger identity is the same on every machine.`,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var out string
			var force bool
			fs.StringVar(&out, "out", "", "the directory `DIR` to write the CSV files into, created if missing (required)")
			fs.BoolVar(&force, "force", false, "overwrite existing files")
			return func(context.Context, []string) error {
				if out == "" {
					return usagef("--out DIR is required")
				}
				if err := refuseDashOut(out, "its CSV files"); err != nil {
					return err
				}
				if err := checkOutputs(demoOutputs(out)); err != nil {
					return err
				}
				paths, err := dataset.WriteDemoData(out, force)
				for _, p := range paths {
					fmt.Fprintln(e.Stdout, p)
				}
				return err
			}
		},
	}
}
