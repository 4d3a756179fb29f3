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
		case MethodNearest:
			c.Label, c.Colour, c.Width = "nearest lattice point (baseline)", grey, 2.5
		case MethodTrig:
			c.Label, c.Colour, c.Dashed = "Wang et al. trigonometric, t = 21 (peer)", grey+1, true
		case MethodHistogram:
			c.Label, c.Colour, c.Dashed = "Chaudhuri–Vinterbo histogram, 20 bins (peer)", grey+2, true
		case MethodGP:
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
