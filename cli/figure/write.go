package figure

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/study"
)

// Output file names of `bernstein figure 1` and `bernstein figure 2`.
const (
	CSV1File = "figure1.csv"
	PNG1File = "figure1.png"
	CSV2File = "figure2.csv"
	PNG2File = "figure2.png"
)

// Outputs are the files figures 1 and 2 write into dir (the command
// refuses an --out whose files would replace a protected file).
func Outputs(dir string) []string {
	var out []string
	for _, name := range []string{CSV1File, PNG1File, CSV2File, PNG2File} {
		out = append(out, filepath.Join(dir, name))
	}
	return out
}

// Write1 runs the Figure 1 protocol and writes the CSV and the PNG
// into dir (atomically; existing files are refused unless overwrite). It
// returns the paths written.
func Write1(ctx context.Context, dir string, cfg Config1, overwrite bool) ([]string, error) {
	rows, err := runFigure1(ctx, cfg)
	if err != nil {
		return nil, err
	}
	img, err := renderFigure1(rows, cfg)
	if err != nil {
		return nil, err
	}
	return fileio.WriteInto(dir, overwrite, fileio.Named{Name: CSV1File, Data: figure1CSV(rows)}, fileio.Named{Name: PNG1File, Data: img})
}

// renderFigure1 draws the rows as a log–log tradeoff plot (PNG bytes).
func renderFigure1(rows []figure1Row, cfg Config1) ([]byte, error) {
	t, th := figure1Tradeoff(rows, cfg)
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

// figure1Tradeoff is Figure 1's plot and theme. The legend groups the
// series by guarantee (plotting.Curve.Group, study.GuaranteeGroup): pure
// ε-DP (h = 1..5, the baseline, Wang et al., the histogram), then (ε, δ)-DP
// at the GP's δ (the Bernstein Gaussian and Laplace-approx series, then
// Hall et al.'s GP). The two Bernstein (ε, δ) series are drawn as their
// best order at each ε (the lower envelope of h = 1..5, all of which are
// in the CSV), like the eye reads the pure-ε orders as a family.
func figure1Tradeoff(rows []figure1Row, cfg Config1) (*plotting.Tradeoff, plotting.Theme) {
	t := &plotting.Tradeoff{
		Title: fmt.Sprintf("Figure 1: private KDE, k = %d, bandwidth %s, %d simulated repeats",
			figure1K, strconv.FormatFloat(cfg.Bandwidth, 'g', -1, 64), cfg.Repeats),
		Epsilons: figure1Epsilons,
		YLabel:   "mean sup-norm error (log scale)",
	}
	nan := func() []float64 {
		ys := make([]float64, len(figure1Epsilons))
		for i := range ys {
			ys[i] = math.NaN()
		}
		return ys
	}
	byKey := map[string][]float64{}
	deltaOf := map[string]float64{}
	var order []string
	for _, r := range rows {
		key := r.Method
		if r.H > 0 && r.Method == MethodBernstein {
			key = "h = " + strconv.Itoa(r.H)
		}
		if _, ok := byKey[key]; !ok {
			order = append(order, key)
			byKey[key] = nan()
			deltaOf[key] = r.Delta
		}
		// hall-gp stops at ε = 1: no point above; the (ε, δ) Bernstein
		// series keep their best order per ε.
		i := slices.Index(figure1Epsilons, r.Epsilon)
		if y := byKey[key][i]; math.IsNaN(y) || r.MeanSupError < y {
			byKey[key][i] = r.MeanSupError
		}
	}
	// The baseline gets the theme's muted grey as an extra series colour
	// (Colour −1 would leave it out of the y range).
	th := plotting.Light()
	grey := len(th.Series)
	th.Series = append(slices.Clone(th.Series), th.Muted,
		color.RGBA{R: 0x00, G: 0x89, B: 0x7b, A: 0xff}, // peer: teal
		color.RGBA{R: 0x8d, G: 0x6e, B: 0x63, A: 0xff}, // peer: brown
		color.RGBA{R: 0x6a, G: 0x1b, B: 0x9a, A: 0xff}, // peer: purple
		color.RGBA{R: 0xd8, G: 0x1b, B: 0x60, A: 0xff}, // Bernstein Gaussian: magenta
		color.RGBA{R: 0xf9, G: 0xa8, B: 0x25, A: 0xff}) // Bernstein Laplace-approx: amber
	// Within the (ε, δ) group the Bernstein series come before the peer,
	// as h = 1..5 come before the peers in the pure-ε group.
	if i := slices.Index(order, MethodGP); i >= 0 {
		order = append(slices.Delete(order, i, i+1), MethodGP)
	}
	for i, key := range order {
		c := plotting.Curve{Label: "Bernstein, " + key, Y: byKey[key], Colour: i % grey, Group: study.GuaranteeGroup(deltaOf[key])}
		switch key {
		case MethodNearest:
			c.Label, c.Colour, c.Width = "nearest lattice point (baseline)", grey, 2.5
		case MethodTrig:
			c.Label, c.Colour, c.Dashed = "Wang et al. trigonometric, t = 21 (peer)", grey+1, true
		case MethodHistogram:
			c.Label, c.Colour, c.Dashed = "Chaudhuri–Vinterbo histogram, 20 bins (peer)", grey+2, true
		case MethodGP:
			c.Label, c.Colour, c.Dashed = "Hall et al. Gaussian process, ε ≤ 1 (peer)", grey+3, true
		case MethodGaussian:
			c.Label, c.Colour, c.Width = "Bernstein Gaussian, best of h = 1..5", grey+4, 2.5
		case MethodLaplaceApprox:
			c.Label, c.Colour, c.Width = "Bernstein Laplace-approx (§4.2), best of h = 1..5", grey+5, 2.5
		}
		t.Curves = append(t.Curves, c)
	}
	return t, th
}
