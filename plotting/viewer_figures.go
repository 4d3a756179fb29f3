package plotting

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The analyst's viewer figures. Unlike the curator's Render functions they
// draw onto any gonum canvas, so the same figure is shown on screen
// (RenderViewer, an image) and exported (ExportViewer, PNG or SVG) without a
// second code path. There is no "true F_D" here: the analyst only has the
// release.

// ViewerFigure is a figure of the analyst's viewer: *ViewerCurve or
// *ViewerHeatmap.
type ViewerFigure interface {
	// Validate checks the figure's shapes; errors name the field.
	Validate() error
	drawViewer(dc draw.Canvas, th Theme) error
}

// ViewerCurve is a one-dimensional release (ℓ = 1): the released function
// with its public noise band Value ± BandSigmas·Std, and for classifiers the
// decision threshold.
type ViewerCurve struct {
	Title, XLabel, YLabel string
	X                     []float64 // increasing query points (data units)
	Value                 []float64 // released value at X
	Std                   []float64 // public noise standard deviation at X
	BandSigmas            float64   // half-width of the band in Std units; 0 draws no band
	// Threshold, if ThresholdOn, is drawn as a horizontal line (a
	// classifier's decision threshold) labelled ThresholdLabel.
	ThresholdOn    bool
	Threshold      float64
	ThresholdLabel string
	// MarkX, MarkY optionally mark the analyst's last query.
	MarkOn       bool
	MarkX, MarkY float64
}

// Validate checks that X is finite and increasing with at least two points,
// that Value and Std have one entry per x, and that Std is finite and ≥ 0.
func (c *ViewerCurve) Validate() error {
	n := len(c.X)
	if n < 2 {
		return fmt.Errorf("plotting: viewer curve: %d x values: need at least 2", n)
	}
	for i, x := range c.X {
		if !finite(x) || (i > 0 && x <= c.X[i-1]) {
			return fmt.Errorf("plotting: viewer curve: x[%d] = %g: must be finite and increasing", i, x)
		}
	}
	if len(c.Value) != n || len(c.Std) != n {
		return fmt.Errorf("plotting: viewer curve: %d values and %d noise std values: want %d (one per x)", len(c.Value), len(c.Std), n)
	}
	for i, s := range c.Std {
		if !(s >= 0) || !finite(s) {
			return fmt.Errorf("plotting: viewer curve: std[%d] = %g: must be finite and ≥ 0", i, s)
		}
	}
	if !(c.BandSigmas >= 0) || !finite(c.BandSigmas) {
		return fmt.Errorf("plotting: viewer curve: band sigmas = %g: must be finite and ≥ 0", c.BandSigmas)
	}
	return nil
}

func (c *ViewerCurve) drawViewer(dc draw.Canvas, th Theme) error {
	p := newPlot(th, c.Title, c.XLabel, c.YLabel)
	addGrid(p, th)
	p.Legend.Top = true
	lo, hi := math.Inf(1), math.Inf(-1)
	if c.BandSigmas > 0 {
		poly := make(plotter.XYs, 0, 2*len(c.X))
		for i, x := range c.X {
			if finite(c.Value[i]) {
				poly = append(poly, plotter.XY{X: x, Y: c.Value[i] + c.BandSigmas*c.Std[i]})
			}
		}
		for i := len(c.X) - 1; i >= 0; i-- {
			if finite(c.Value[i]) {
				poly = append(poly, plotter.XY{X: c.X[i], Y: c.Value[i] - c.BandSigmas*c.Std[i]})
			}
		}
		if len(poly) >= 3 {
			pg, err := plotter.NewPolygon(poly)
			if err != nil {
				return fmt.Errorf("plotting: viewer curve: band: %w", err)
			}
			pg.Color = th.Band
			pg.LineStyle.Width = 0
			p.Add(pg)
			p.Legend.Add(fmt.Sprintf("±%g public noise std", c.BandSigmas), pg)
			for _, xy := range poly {
				lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
			}
		}
	}
	label := "release"
	for _, seg := range segments(c.X, c.Value) {
		l, err := plotter.NewLine(seg)
		if err != nil {
			return fmt.Errorf("plotting: viewer curve: %w", err)
		}
		l.LineStyle = lineStyle(th.Foreground, 1.8, false)
		if len(th.Series) > 0 {
			l.LineStyle.Color = th.Series[0]
		}
		p.Add(l)
		if label != "" {
			p.Legend.Add(label, l)
			label = ""
		}
		for _, xy := range seg {
			lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
		}
	}
	if c.ThresholdOn && finite(c.Threshold) {
		l, err := plotter.NewLine(plotter.XYs{{X: c.X[0], Y: c.Threshold}, {X: c.X[len(c.X)-1], Y: c.Threshold}})
		if err != nil {
			return fmt.Errorf("plotting: viewer curve: threshold: %w", err)
		}
		l.LineStyle = lineStyle(th.Muted, 1.2, true)
		p.Add(l)
		if c.ThresholdLabel != "" {
			p.Legend.Add(c.ThresholdLabel, l)
		}
		lo, hi = math.Min(lo, c.Threshold), math.Max(hi, c.Threshold)
	}
	if c.MarkOn && finite(c.MarkX) && finite(c.MarkY) {
		sc, err := plotter.NewScatter(plotter.XYs{{X: c.MarkX, Y: c.MarkY}})
		if err != nil {
			return fmt.Errorf("plotting: viewer curve: mark: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: th.Accent, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
	if finite(lo) && finite(hi) {
		if hi == lo {
			lo, hi = lo-1, hi+1
		}
		p.Y.Min, p.Y.Max = lo-0.05*(hi-lo), hi+0.3*(hi-lo) // head room for the legend
	}
	p.X.Min, p.X.Max = c.X[0], c.X[len(c.X)-1]
	p.Draw(dc)
	return nil
}

// ViewerHeatmap is a function of two query axes (ℓ = 2, or a 2-D slice of
// a release with ℓ ≥ 3): a heatmap with contour lines, a colour bar and, for
// classifiers, the decision boundary (the contour at BoundaryLevel, as in
// Figure 2 of Aldà & Rubinstein 2017).
type ViewerHeatmap struct {
	Title, XLabel, YLabel, ColourLabel string
	X, Y                               []float64 // grid coordinates (data units), increasing
	// Values on the grid, X index outer, Y index fastest:
	// Values[i*len(Y)+j] = f(X[i], Y[j]) (as Heatmap.Values).
	Values []float64
	// Contours is the approximate number of contour lines (at "nice"
	// levels); 0 draws none.
	Contours int
	// Boundary draws the contour at BoundaryLevel as a thick black line.
	Boundary      bool
	BoundaryLevel float64
	// Diverging uses a blue–red scale symmetric about Center (class
	// scores, probabilities); otherwise a sequential scale.
	Diverging bool
	Center    float64
	// Mark, if MarkOn, is drawn at (MarkX, MarkY).
	MarkOn       bool
	MarkX, MarkY float64
}

// Validate checks the grid: at least 2×2 finite increasing coordinates and
// one value per grid point.
func (h *ViewerHeatmap) Validate() error {
	for _, ax := range []struct {
		name string
		v    []float64
	}{{"x", h.X}, {"y", h.Y}} {
		if len(ax.v) < 2 {
			return fmt.Errorf("plotting: viewer heatmap: %s axis has %d values: need at least 2", ax.name, len(ax.v))
		}
		for i, v := range ax.v {
			if !finite(v) || (i > 0 && v <= ax.v[i-1]) {
				return fmt.Errorf("plotting: viewer heatmap: %s[%d] = %g: must be finite and increasing", ax.name, i, v)
			}
		}
	}
	if len(h.Values) != len(h.X)*len(h.Y) {
		return fmt.Errorf("plotting: viewer heatmap: %d values: want %d×%d", len(h.Values), len(h.X), len(h.Y))
	}
	if h.Contours < 0 || h.Contours > 50 {
		return fmt.Errorf("plotting: viewer heatmap: contours = %d: must be between 0 and 50", h.Contours)
	}
	return nil
}

// viewerRange returns the colour scale: the finite values' range, made
// symmetric about Center for a diverging scale.
func (h *ViewerHeatmap) viewerRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range h.Values {
		if finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return colourScale(lo, hi, h.Diverging, h.Center)
}

// ContourLevels returns the contour levels of h: "nice" round values
// strictly inside the colour range, about h.Contours of them.
func (h *ViewerHeatmap) ContourLevels() []float64 {
	if h.Contours == 0 {
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range h.Values {
		if finite(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if !(lo < hi) {
		return nil
	}
	step := niceStep((hi - lo) / float64(h.Contours+1))
	var levels []float64
	for v := math.Ceil(lo/step) * step; v < hi && len(levels) < 2*h.Contours+2; v += step {
		if v > lo {
			levels = append(levels, v)
		}
	}
	return levels
}

// niceStep rounds x > 0 to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	switch m := x / p; {
	case m < 1.5:
		return p
	case m < 3.5:
		return 2 * p
	case m < 7.5:
		return 5 * p
	}
	return 10 * p
}

// viewerGridXYZ adapts the heatmap to plotter.GridXYZ.
type viewerGridXYZ struct{ x, y, v []float64 }

func (g viewerGridXYZ) Dims() (c, r int)   { return len(g.x), len(g.y) }
func (g viewerGridXYZ) Z(c, r int) float64 { return g.v[c*len(g.y)+r] }
func (g viewerGridXYZ) X(c int) float64    { return g.x[c] }
func (g viewerGridXYZ) Y(r int) float64    { return g.y[r] }

func (h *ViewerHeatmap) drawViewer(dc draw.Canvas, th Theme) error {
	lo, hi := h.viewerRange()
	var cm palette.ColorMap
	if h.Diverging {
		cm = moreland.SmoothBlueRed()
	} else {
		cm = viewerSequential()
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	colours := cm.Palette(256).Colors()

	p := newPlot(th, h.Title, h.XLabel, h.YLabel)
	nx, ny := len(h.X), len(h.Y)
	img := heatImage(h.Values, nx, ny, colours, lo, hi)
	// Each pixel is centred on its grid point: extend the image by half a
	// cell on each side.
	dx, dy := (h.X[nx-1]-h.X[0])/float64(2*(nx-1)), (h.Y[ny-1]-h.Y[0])/float64(2*(ny-1))
	p.Add(plotter.NewImage(img, h.X[0]-dx, h.Y[0]-dy, h.X[nx-1]+dx, h.Y[ny-1]+dy))
	g := viewerGridXYZ{x: h.X, y: h.Y, v: h.Values}
	if levels := h.ContourLevels(); len(levels) > 0 {
		ct := plotter.NewContour(g, levels, nil)
		// The map's colours do not depend on the theme, so neither do
		// the lines drawn on it.
		ct.LineStyles = []draw.LineStyle{lineStyle(color.NRGBA{A: 0x60}, 0.7, false)}
		p.Add(ct)
	}
	if h.Boundary {
		ct := plotter.NewContour(g, []float64{h.BoundaryLevel}, nil)
		ct.LineStyles = []draw.LineStyle{lineStyle(color.Black, 2.4, false)}
		p.Add(ct)
	}
	if h.MarkOn && finite(h.MarkX) && finite(h.MarkY) {
		sc, err := plotter.NewScatter(plotter.XYs{{X: h.MarkX, Y: h.MarkY}})
		if err != nil {
			return fmt.Errorf("plotting: viewer heatmap: mark: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: th.Accent, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
		p.Add(sc)
	}
	p.X.Min, p.X.Max = h.X[0]-dx, h.X[nx-1]+dx
	p.Y.Min, p.Y.Max = h.Y[0]-dy, h.Y[ny-1]+dy

	barW := vg.Points(84)
	p.Draw(draw.Crop(dc, 0, -barW, 0, 0))
	bar := newPlot(th, "", "", h.ColourLabel)
	bar.HideX()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	barArea := draw.Crop(dc, dc.Max.X-dc.Min.X-barW, 0, 0, 0)
	bar.Draw(draw.Crop(barArea, vg.Points(4), vg.Points(-4), vg.Points(30), vg.Points(-24)))
	return nil
}

// viewerViridis are control colours of matplotlib's viridis map (CC0), in
// increasing luminance: a sequential scale that stays legible in grey and
// for colour-blind readers.
var viewerViridis = []color.Color{
	color.NRGBA{0x44, 0x01, 0x54, 0xff}, color.NRGBA{0x3b, 0x52, 0x8b, 0xff},
	color.NRGBA{0x21, 0x91, 0x8c, 0xff}, color.NRGBA{0x5e, 0xc9, 0x62, 0xff},
	color.NRGBA{0xfd, 0xe7, 0x25, 0xff},
}

// viewerSequential returns the sequential colour map of viewer heatmaps
// (viridis interpolated at constant luminance steps), or moreland's
// Kindlmann map should the controls ever fail its luminance check.
func viewerSequential() palette.ColorMap {
	cm, err := moreland.NewLuminance(viewerViridis)
	if err != nil {
		return moreland.Kindlmann()
	}
	return cm
}

// RenderViewer draws f for the screen: an image of s.W×s.H pixels at the
// display scale s.Scale. It is safe to call from any goroutine.
func RenderViewer(f ViewerFigure, th Theme, s Size) (image.Image, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if s.W < 16 || s.H < 16 || s.W*s.H > 64<<20 || !(s.Scale > 0 && s.Scale <= 8) {
		return nil, fmt.Errorf("plotting: viewer size %d×%d at scale %v: sides must be ≥ 16 pixels, the area ≤ 64 Mpixels and the scale in (0, 8]", s.W, s.H, s.Scale)
	}
	dpi := float64(96 * s.Scale)
	w := vg.Length(float64(s.W) / dpi * float64(vg.Inch))
	h := vg.Length(float64(s.H) / dpi * float64(vg.Inch))
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(int(math.Round(dpi))), vgimg.UseBackgroundColor(th.Background))
	if err := viewerDraw(f, draw.New(c), th); err != nil {
		return nil, err
	}
	return c.Image(), nil
}

// Export formats of ExportViewer.
const (
	FormatPNG = "png"
	FormatSVG = "svg"
)

// ExportViewer writes f to w as a PNG (at 144 dpi) or an SVG of
// width×height points (1 pt = 1/72 in). width and height must be between
// 1 and 20 inches (72 and 1440 points).
func ExportViewer(w io.Writer, f ViewerFigure, th Theme, format string, width, height vg.Length) error {
	if err := f.Validate(); err != nil {
		return err
	}
	for _, l := range []vg.Length{width, height} {
		if !(l >= vg.Inch && l <= 20*vg.Inch) {
			return fmt.Errorf("plotting: export size %.0f×%.0f pt: each side must be between 72 and 1440 points", float64(width), float64(height))
		}
	}
	switch format {
	case FormatPNG:
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(144), vgimg.UseBackgroundColor(th.Background))
		if err := viewerDraw(f, draw.New(c), th); err != nil {
			return err
		}
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	case FormatSVG:
		c := vgsvg.New(width, height)
		dc := draw.New(c)
		dc.SetColor(th.Background)
		dc.Fill(dc.Rectangle.Path())
		if err := viewerDraw(f, dc, th); err != nil {
			return err
		}
		_, err := c.WriteTo(w)
		return err
	}
	return fmt.Errorf("plotting: export format %q: must be %q or %q", format, FormatPNG, FormatSVG)
}

// viewerDraw draws f, turning a gonum/plot panic on degenerate input into
// an error.
func viewerDraw(f ViewerFigure, dc draw.Canvas, th Theme) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plotting: %v", r)
		}
	}()
	return f.drawViewer(dc, th)
}
