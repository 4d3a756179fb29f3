package plotting

import (
	"fmt"
	"image"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Function1D is a one-dimensional function plot: the true function, a
// release and the release's public noise band, all over the same x values.
type Function1D struct {
	Title          string
	XLabel, YLabel string
	X              []float64 // increasing x values (data units)
	True           []float64 // F_D(x); may be nil (the analyst's viewer has no true function)
	Release        []float64 // the released (or simulated) function
	// Band is the half-width of the noise band around Release at each x
	// (for example 2·noise std); nil draws no band.
	Band      []float64
	BandLabel string // legend text for the band, e.g. "±2 noise std"
	TrueLabel string // default "true F_D (private)"
	RelLabel  string // default "simulated release"
	// Points optionally marks evaluated points (e.g. the analyst's queries).
	PointsX, PointsY []float64
	// ScatterX, ScatterY optionally draw data beneath the curves (the
	// curator's records under a regression: curator only), labelled
	// ScatterLabel; the y range covers them.
	ScatterX, ScatterY []float64
	ScatterLabel       string
}

// Validate checks that every series has one value per x, that x is finite
// and increasing, and that the band is non-negative.
func (f *Function1D) Validate() error {
	n := len(f.X)
	if n < 2 {
		return fmt.Errorf("plotting: function: %d x values: need at least 2", n)
	}
	for i, x := range f.X {
		if !finite(x) || (i > 0 && x <= f.X[i-1]) {
			return fmt.Errorf("plotting: function: x[%d] = %g: must be finite and increasing", i, x)
		}
	}
	check := func(name string, v []float64, optional bool) error {
		if v == nil && optional {
			return nil
		}
		if len(v) != n {
			return fmt.Errorf("plotting: function: %s has %d values: want %d (one per x)", name, len(v), n)
		}
		return nil
	}
	if err := check("true", f.True, true); err != nil {
		return err
	}
	if err := check("release", f.Release, true); err != nil {
		return err
	}
	if err := check("band", f.Band, true); err != nil {
		return err
	}
	for i, b := range f.Band {
		if !(b >= 0) || !finite(b) {
			return fmt.Errorf("plotting: function: band[%d] = %g: must be finite and ≥ 0", i, b)
		}
	}
	if len(f.PointsX) != len(f.PointsY) {
		return fmt.Errorf("plotting: function: %d point x values but %d y values", len(f.PointsX), len(f.PointsY))
	}
	if len(f.ScatterX) != len(f.ScatterY) {
		return fmt.Errorf("plotting: function: %d scatter x values but %d y values", len(f.ScatterX), len(f.ScatterY))
	}
	return nil
}

// RenderFunction1D draws f. Non-finite values break the line.
func RenderFunction1D(f *Function1D, th Theme, s Size) (image.Image, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	p := newPlot(th, f.Title, f.XLabel, f.YLabel)
	addGrid(p, th)
	leg := newLegend(th)

	if f.Band != nil && f.Release != nil {
		poly := make(plotter.XYs, 0, 2*len(f.X))
		for i, x := range f.X {
			if finite(f.Release[i]) {
				poly = append(poly, plotter.XY{X: x, Y: f.Release[i] + f.Band[i]})
			}
		}
		for i := len(f.X) - 1; i >= 0; i-- {
			if finite(f.Release[i]) {
				poly = append(poly, plotter.XY{X: f.X[i], Y: f.Release[i] - f.Band[i]})
			}
		}
		if len(poly) >= 3 {
			pg, err := plotter.NewPolygon(poly)
			if err != nil {
				return nil, fmt.Errorf("plotting: function: band: %w", err)
			}
			pg.Color = th.Band
			pg.LineStyle.Width = 0
			p.Add(pg)
			if f.BandLabel != "" {
				leg.Add(f.BandLabel, pg)
			}
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	if len(f.ScatterX) > 0 {
		var xys plotter.XYs
		for i := range f.ScatterX {
			if finite(f.ScatterX[i]) && finite(f.ScatterY[i]) {
				xys = append(xys, plotter.XY{X: f.ScatterX[i], Y: f.ScatterY[i]})
				lo, hi = math.Min(lo, f.ScatterY[i]), math.Max(hi, f.ScatterY[i])
			}
		}
		if len(xys) > 0 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("plotting: function: scatter: %w", err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: th.Muted, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			if f.ScatterLabel != "" {
				leg.Add(f.ScatterLabel, sc)
			}
		}
	}
	addLine := func(y []float64, label string, colour int, width float64, dashed bool) error {
		if y == nil {
			return nil
		}
		for _, seg := range segments(f.X, y) {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return fmt.Errorf("plotting: function: %s: %w", label, err)
			}
			l.LineStyle = lineStyle(th.series(colour), width, dashed)
			p.Add(l)
			if label != "" {
				leg.Add(label, l)
				label = ""
			}
		}
		return nil
	}
	tl := f.TrueLabel
	if tl == "" {
		tl = "true F_D (private)"
	}
	rl := f.RelLabel
	if rl == "" {
		rl = "simulated release"
	}
	if err := addLine(f.True, tl, 1, 2, true); err != nil {
		return nil, err
	}
	if err := addLine(f.Release, rl, 0, 1.8, false); err != nil {
		return nil, err
	}
	if len(f.PointsX) > 0 {
		var xys plotter.XYs
		for i := range f.PointsX {
			if finite(f.PointsX[i]) && finite(f.PointsY[i]) {
				xys = append(xys, plotter.XY{X: f.PointsX[i], Y: f.PointsY[i]})
			}
		}
		if len(xys) > 0 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("plotting: function: points: %w", err)
			}
			sc.GlyphStyle.Color = th.Accent
			p.Add(sc)
		}
	}
	// Leave head room for the legend.
	for _, y := range f.True {
		if finite(y) {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	for i, y := range f.Release {
		if finite(y) {
			b := 0.0
			if f.Band != nil {
				b = f.Band[i]
			}
			lo, hi = math.Min(lo, y-b), math.Max(hi, y+b)
		}
	}
	if finite(lo) && finite(hi) {
		if hi == lo {
			hi, lo = hi+1, lo-1
		}
		p.Y.Min = lo - 0.05*(hi-lo)
		p.Y.Max = hi + 0.05*(hi-lo)
	}
	p.X.Min, p.X.Max = f.X[0], f.X[len(f.X)-1]
	return renderWithLegend(p, leg, s, th)
}

// segments splits (x, y) into runs of finite y.
func segments(x, y []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range x {
		if finite(y[i]) {
			cur = append(cur, plotter.XY{X: x[i], Y: y[i]})
			continue
		}
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
