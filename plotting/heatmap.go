package plotting

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap is one panel of a Heatmaps figure.
type Heatmap struct {
	Title string
	// Values on the figure's grid in lattice order: the X index is outer,
	// the Y index varies fastest, so Values[i*len(Y)+j] = f(X[i], Y[j]).
	Values []float64
}

// Heatmaps draws one to three functions of two variables side by side on
// a shared colour scale and a shared y axis, with a colour bar under them
// and an optional contour at BoundaryLevel on every panel (a classifier's
// decision boundary, as in Figure 2 of Aldà & Rubinstein 2017).
type Heatmaps struct {
	XLabel, YLabel string
	X, Y           []float64 // grid coordinates (data units), increasing
	Maps           []Heatmap
	// Boundary enables the contour at BoundaryLevel.
	Boundary      bool
	BoundaryLevel float64
	// Min and Max fix the colour scale; if Min ≥ Max the scale spans the
	// finite values of all panels.
	Min, Max float64
	// Diverging uses a blue–red scale symmetric about Center (for class
	// scores); otherwise a sequential scale (for densities and regression).
	Diverging   bool
	Center      float64
	ColourLabel string
	// Marker, if MarkerOn, is drawn at (MarkerX, MarkerY) on every panel.
	MarkerOn         bool
	MarkerX, MarkerY float64
}

// Validate checks the grid and panel shapes.
func (h *Heatmaps) Validate() error {
	if len(h.Maps) < 1 || len(h.Maps) > 3 {
		return fmt.Errorf("plotting: heatmaps: %d panels: want 1 to 3", len(h.Maps))
	}
	for name, ax := range map[string][]float64{"x": h.X, "y": h.Y} {
		if len(ax) < 2 {
			return fmt.Errorf("plotting: heatmaps: %s axis has %d values: need at least 2", name, len(ax))
		}
		for i, v := range ax {
			if !finite(v) || (i > 0 && v <= ax[i-1]) {
				return fmt.Errorf("plotting: heatmaps: %s[%d] = %g: must be finite and increasing", name, i, v)
			}
		}
	}
	for _, m := range h.Maps {
		if len(m.Values) != len(h.X)*len(h.Y) {
			return fmt.Errorf("plotting: heatmaps: panel %q has %d values: want %d×%d", m.Title, len(m.Values), len(h.X), len(h.Y))
		}
	}
	return nil
}

// colourRange returns the colour scale of h.
func (h *Heatmaps) colourRange() (lo, hi float64) {
	lo, hi = h.Min, h.Max
	if !(lo < hi) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, m := range h.Maps {
			for _, v := range m.Values {
				if finite(v) {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	return colourScale(lo, hi, h.Diverging, h.Center)
}

// colourScale finishes a colour range: [0, 1] when no finite value was
// seen, symmetric about center for a diverging scale, and never empty.
func colourScale(lo, hi float64, diverging bool, center float64) (float64, float64) {
	if !finite(lo) || !finite(hi) {
		lo, hi = 0, 1
	}
	if diverging {
		r := math.Max(math.Abs(hi-center), math.Abs(center-lo))
		lo, hi = center-r, center+r
	}
	if !(lo < hi) {
		lo, hi = lo-0.5, hi+0.5
	}
	return lo, hi
}

// grid adapts one panel to plotter.GridXYZ.
type grid struct {
	x, y, v []float64
}

func (g grid) Dims() (c, r int)   { return len(g.x), len(g.y) }
func (g grid) Z(c, r int) float64 { return g.v[c*len(g.y)+r] }
func (g grid) X(c int) float64    { return g.x[c] }
func (g grid) Y(r int) float64    { return g.y[r] }

// RenderHeatmaps draws h.
func RenderHeatmaps(h *Heatmaps, th Theme, s Size) (image.Image, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	c := newCanvas(s, th)
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("plotting: heatmaps: %v", r)
			}
		}()
		fig := layoutHeatmaps(h, th, draw.New(c))
		for i, p := range fig.panels {
			p.Draw(fig.tiles[i])
		}
		fig.bar.Draw(fig.barArea)
	}()
	if err != nil {
		return nil, err
	}
	return c.Image(), nil
}

// heatmapBarHeight is the height of the colour bar's row under the
// panels (points): a stripe, its tick labels and its axis label.
const heatmapBarHeight = 50

// heatmapFigure is a laid out Heatmaps figure: one plot per panel with the
// canvas it is drawn on, and the colour bar with its canvas.
type heatmapFigure struct {
	panels  []*plot.Plot
	tiles   []draw.Canvas
	bar     *plot.Plot
	barArea draw.Canvas
}

// layoutHeatmaps builds h's panels and colour bar and places them on dc:
// the panels side by side with data areas of equal size, the colour bar
// under them, as wide as they are together. The panels share their y axis
// (the same Y grid), so only the first draws it. Both give the panels the
// figure's width: with a y axis on every panel and the bar in a column of
// its own on the right, a classifier's panels took under half the width
// of a 1024×700 preview and were tall and narrow. It may panic on
// plotting errors (RenderHeatmaps recovers).
func layoutHeatmaps(h *Heatmaps, th Theme, dc draw.Canvas) heatmapFigure {
	lo, hi := h.colourRange()
	var cm palette.ColorMap
	if h.Diverging {
		cm = moreland.SmoothBlueRed()
	} else {
		cm = moreland.ExtendedKindlmann()
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	colours := cm.Palette(256).Colors()

	barH := vg.Points(heatmapBarHeight)
	mapsArea := draw.Crop(dc, 0, 0, barH, 0)

	plots := make([][]*plot.Plot, 1)
	for panel, m := range h.Maps {
		p := newPlot(th, m.Title, h.XLabel, h.YLabel)
		ny := len(h.Y)
		img := heatImage(m.Values, len(h.X), ny, colours, lo, hi)
		p.Add(plotter.NewImage(img, h.X[0], h.Y[0], h.X[len(h.X)-1], h.Y[ny-1]))
		if h.Boundary {
			g := grid{x: h.X, y: h.Y, v: m.Values}
			ct := plotter.NewContour(g, []float64{h.BoundaryLevel}, nil)
			ct.LineStyles = []draw.LineStyle{lineStyle(th.Foreground, 2, false)}
			p.Add(ct)
		}
		if h.MarkerOn {
			sc, e := plotter.NewScatter(plotter.XYs{{X: h.MarkerX, Y: h.MarkerY}})
			if e == nil {
				sc.GlyphStyle = draw.GlyphStyle{Color: th.Accent, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
				p.Add(sc)
			}
		}
		p.X.Min, p.X.Max = h.X[0], h.X[len(h.X)-1]
		p.Y.Min, p.Y.Max = h.Y[0], h.Y[ny-1]
		if panel > 0 {
			p.HideY()
			p.Y.Label.Text = ""
		}
		plots[0] = append(plots[0], p)
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(plots[0]), PadX: vg.Points(10), PadTop: vg.Points(2), PadBottom: vg.Points(2), PadLeft: vg.Points(2)}
	canvases := plot.Align(plots, tiles, mapsArea)
	// A title wider than its panel wraps (the second panel has no y axis
	// to widen it, and its title ran off the figure's right edge); the
	// panels are aligned again for the titles' new heights.
	for i, p := range plots[0] {
		wrapTitle(p, canvases[0][i].Max.X-canvases[0][i].Min.X)
	}
	canvases = plot.Align(plots, tiles, mapsArea)
	// Align lowers a panel without y tick labels (none reach over its
	// data's top): its title sat lower than the first's. Each title
	// starts at the row's top, its padding taking up the difference, so
	// the data areas stay aligned.
	top := mapsArea.Min.Y
	for _, c := range canvases[0] {
		top = max(top, c.Max.Y)
	}
	for i, p := range plots[0] {
		if d := top - canvases[0][i].Max.Y; d > 0 {
			p.Title.Padding += d
			canvases[0][i].Max.Y = top
		}
	}

	// The bar spans the panels' data areas, from the first's left edge
	// to the last's right edge.
	n := len(plots[0])
	left := plots[0][0].DataCanvas(canvases[0][0]).Min.X
	right := plots[0][n-1].DataCanvas(canvases[0][n-1]).Max.X
	barArea := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: left, Y: dc.Min.Y}, Max: vg.Point{X: right, Y: dc.Min.Y + barH - vg.Points(8)}}}
	bar := newPlot(th, "", h.ColourLabel, "")
	bar.HideY()
	bar.X.Padding, bar.Y.Padding = 0, 0
	bar.Add(&plotter.ColorBar{ColorMap: cm})
	return heatmapFigure{panels: plots[0], tiles: canvases[0], bar: bar, barArea: barArea}
}

// nanColour is the colour of a value that is not finite on a heatmap.
var nanColour = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}

// heatImage colours the values of an nx×ny grid (X index outer, Y index
// fastest: values[i*ny+j] = f(X[i], Y[j])) with colours spanning lo to hi,
// one pixel per grid point, the largest Y in the top row; a value that is
// not finite is grey.
func heatImage(values []float64, nx, ny int, colours []color.Color, lo, hi float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, nx, ny))
	for i := range nx {
		for j := range ny {
			v := values[i*ny+j]
			col := color.Color(nanColour)
			if finite(v) {
				k := int(math.Round((v - lo) / (hi - lo) * 255))
				col = colours[max(0, min(255, k))]
			}
			img.Set(i, ny-1-j, col)
		}
	}
	return img
}
