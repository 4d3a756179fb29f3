package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// Output file names of `bernstein figure 1`.
const (
	figure1CSVFile = "figure1.csv"
	figure1PNGFile = "figure1.png"
)

// figureCommand reproduces Figures 1 and 2 of Aldà & Rubinstein (2017),
// configurations of the study engine (package study).
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
Gaussian-process release ((ε, δ)-DP with δ = 1e-6, on the 1001-point grid).
Releases are SIMULATED with seeded noise (Laplace,
scale S·21/ε for Bernstein): this is a study of utility, not a release. Writes DIR/` + figure1CSVFile + ` (columns method, h,
epsilon, mean_sup_error; h empty except for bernstein) and DIR/` + figure1PNGFile + `
(log–log plot).

figure 2: private RBF SVM (Section 6, Figure 2). C = σ = 1 on the bundled
two-class demo data (1500 points per class, bounds [0,1]²); for (k, h) in
{(5,1), (10,1), (10,2), (20,2)} and ε ∈ {0.1, 0.3, 1, 3, 10}, the mean
fraction of a 200×200 grid where the released classifier agrees with the
non-private one (--repeats defaults to ` + strconv.Itoa(figure2DefaultRepeats) + ` here; --bandwidth does not
apply). Releases are SIMULATED with seeded Laplace noise (scale
S·(k+1)²/ε): nothing is released, no budget is spent. Writes DIR/` + figure2CSVFile + `
(columns k, h, epsilon, mean_agreement) and DIR/` + figure2PNGFile + ` (non-private
and simulated released decision boundaries at ε = 10). See docs/reproduction.md.`,
		MinPos: 1,
		MaxPos: 1,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var out string
			var force bool
			cfg := figure1Config{Repeats: figure1DefaultRepeats, Bandwidth: figure1DefaultBW, Seed: figure1DefaultSeed}
			fs.StringVar(&out, "out", "", "the directory `DIR` to write the CSV and PNG into, created if missing (required)")
			wholeVar(fs, &cfg.Repeats, "repeats", cfg.Repeats, "simulated releases `N` per method and ε (the paper: 1000)")
			numberVar(fs, &cfg.Bandwidth, "bandwidth", cfg.Bandwidth, "KDE bandwidth `B` (kernel standard deviation on [0,1]); a fixed public value")
			wholeVar(fs, &cfg.Seed, "seed", cfg.Seed, "seed `S` of the simulation noise (same seed, same figure)")
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
				if err := checkOutputs(figureOutputs(out)); err != nil {
					return err
				}
				if pos[0] == "2" {
					cfg2 := figure2Config{Repeats: figure2DefaultRepeats, Seed: cfg.Seed}
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
					paths, err := writeFigure2(ctx, out, cfg2, force)
					for _, p := range paths {
						fmt.Fprintln(e.Stdout, p)
					}
					return err
				}
				paths, err := writeFigure1(ctx, out, cfg, force)
				for _, p := range paths {
					fmt.Fprintln(e.Stdout, p)
				}
				return err
			}
		},
	}
}

// writeFigure1 runs the Figure 1 protocol and writes the CSV and the PNG
// into dir (atomically; existing files are refused unless overwrite). It
// returns the paths written.
func writeFigure1(ctx context.Context, dir string, cfg figure1Config, overwrite bool) ([]string, error) {
	rows, err := runFigure1(ctx, cfg)
	if err != nil {
		return nil, err
	}
	img, err := renderFigure1(rows, cfg)
	if err != nil {
		return nil, err
	}
	return writeFigureFiles(dir, overwrite, figureFile{figure1CSVFile, figure1CSV(rows)}, figureFile{figure1PNGFile, img})
}

// figureFile is one output file of a figure: its name in the output
// directory and its bytes.
type figureFile struct {
	name string
	data []byte
}

// writeFigureFiles creates dir if missing and writes the files into it in
// order, atomically (fileio.WriteAtomic; existing files are refused
// unless overwrite). It returns the paths written, also on error.
func writeFigureFiles(dir string, overwrite bool, files ...figureFile) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := fileio.WriteAtomic(p, f.data, 0o644, overwrite); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// renderFigure1 draws the rows as a log–log tradeoff plot (PNG bytes).
func renderFigure1(rows []figure1Row, cfg figure1Config) ([]byte, error) {
	t := &plotting.Tradeoff{
		Title: fmt.Sprintf("Figure 1: private KDE, k = %d, bandwidth %s, %d simulated repeats",
			figure1K, strconv.FormatFloat(cfg.Bandwidth, 'g', -1, 64), cfg.Repeats),
		Epsilons: figure1Epsilons,
		YLabel:   "mean sup-norm error (log scale)",
	}
	byKey := map[string][]float64{}
	var order []string
	for _, r := range rows {
		key := r.Method
		if r.H > 0 {
			key = "h = " + strconv.Itoa(r.H)
		}
		if _, ok := byKey[key]; !ok {
			order = append(order, key)
		}
		byKey[key] = append(byKey[key], r.MeanSupError)
	}
	for key, ys := range byKey { // hall-gp stops at ε = 1: no point above
		for len(ys) < len(figure1Epsilons) {
			ys = append(ys, math.NaN())
		}
		byKey[key] = ys
	}
	// The baseline gets the theme's muted grey as an extra series colour
	// (Colour −1 would leave it out of the y range).
	th := plotting.Light()
	grey := len(th.Series)
	th.Series = append(slices.Clone(th.Series), th.Muted,
		color.RGBA{R: 0x00, G: 0x89, B: 0x7b, A: 0xff}, // peer: teal
		color.RGBA{R: 0x8d, G: 0x6e, B: 0x63, A: 0xff}, // peer: brown
		color.RGBA{R: 0x6a, G: 0x1b, B: 0x9a, A: 0xff}) // peer: purple
	for i, key := range order {
		c := plotting.Curve{Label: key, Y: byKey[key], Colour: i % grey}
		switch key {
		case figure1MethodNearest:
			c.Label, c.Colour, c.Width = "nearest lattice point (baseline)", grey, 2.5
		case figure1MethodTrig:
			c.Label, c.Colour, c.Dashed = "Wang et al. trigonometric, t = 21 (peer)", grey+1, true
		case figure1MethodHistogram:
			c.Label, c.Colour, c.Dashed = "Chaudhuri–Vinterbo histogram, 20 bins (peer)", grey+2, true
		case figure1MethodGP:
			c.Label, c.Colour, c.Dashed = "Hall et al. Gaussian process, (ε, δ = 1e-6)-DP, ε ≤ 1 (peer)", grey+3, true
		}
		t.Curves = append(t.Curves, c)
	}
	im, err := plotting.RenderTradeoff(t, th, plotting.Size{W: 900, H: 600, Scale: 1})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, im); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
