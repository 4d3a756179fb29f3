package plotting

import (
	"fmt"
	"image"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Curve is one labelled line over the tradeoff plot's ε values.
type Curve struct {
	Label  string
	Y      []float64 // one value per ε; NaN or ≤ 0 values are skipped
	Dashed bool
	// Colour index into Theme.Series; −1 selects Theme.Muted.
	Colour int
	Width  float64 // line width in points; 0 means 1.5
	// Group is the legend heading the curve is listed under (e.g. the
	// privacy guarantee, "pure ε-DP" or "(ε, δ)-DP"); "" lists it first,
	// without a heading. See Tradeoff.Legend.
	Group string
}

// Tradeoff is the privacy/utility tradeoff plot: the sup-norm error of a
// release against ε on log–log axes (Figure 1 of Aldà & Rubinstein 2017),
// with reference lines and a marker at the current setting. The same plot
// draws the error against the cover size k (XLabel) and, with Share, a
// share such as a classifier's agreement on a linear axis from 0 to 1.
type Tradeoff struct {
	Title    string
	Epsilons []float64 // x values, all > 0, increasing
	Curves   []Curve   // one per order h and the baseline, bounds, …
	// Marker, if MarkerErr > 0, is drawn at (MarkerEps, MarkerErr).
	MarkerEps, MarkerErr float64
	MarkerLabel          string
	YLabel               string // default "sup-norm error"
	XLabel               string // default "ε (privacy loss, log scale)"
	// Share draws the y values (shares in [0, 1], e.g. agreement) on a
	// linear axis that ends at 1; values outside [0, 1] are skipped.
	Share bool
}

// Validate checks the shapes: at least two ε values, all positive, finite
// and increasing; every curve has one value per ε.
func (t *Tradeoff) Validate() error {
	if len(t.Epsilons) < 2 {
		return fmt.Errorf("plotting: tradeoff: %d epsilon values: need at least 2", len(t.Epsilons))
	}
	for i, e := range t.Epsilons {
		if !(e > 0) || !finite(e) || (i > 0 && e <= t.Epsilons[i-1]) {
			return fmt.Errorf("plotting: tradeoff: epsilon[%d] = %g: must be > 0, finite and increasing", i, e)
		}
	}
	for _, c := range t.Curves {
		if len(c.Y) != len(t.Epsilons) {
			return fmt.Errorf("plotting: tradeoff: curve %q has %d values: want one per epsilon (%d)", c.Label, len(c.Y), len(t.Epsilons))
		}
	}
	return nil
}

// RenderTradeoff draws t. Points that are NaN or ≤ 0 are left out of their
// curve (a log axis cannot show them); with t.Share, points outside
// [0, 1].
func RenderTradeoff(t *Tradeoff, th Theme, s Size) (image.Image, error) {
	p, leg, err := t.build(th)
	if err != nil {
		return nil, err
	}
	return renderWithLegend(p, leg, s, th)
}

// TradeoffHeight is the least height in pixels at which t's legend is
// drawn whole, every series under its guarantee heading, below the plot
// at s's width and scale (the plot keeps its own height above it), or
// s.H when the legend fits beside the plot or s.H is already enough. A
// caller that shows the plot in a scrolling pane renders it at this
// height, so no series is cut from the legend.
func TradeoffHeight(t *Tradeoff, th Theme, s Size) (int, error) {
	if err := s.validate(); err != nil {
		return 0, err
	}
	_, leg, err := t.build(th)
	if err != nil {
		return 0, err
	}
	px := int(math.Ceil(float64(legendHeight(leg, s, th)) / 72 * float64(s.dpi())))
	return max(s.H, px), nil
}

// build assembles t's plot and legend.
func (t *Tradeoff) build(th Theme) (*plot.Plot, *legend, error) {
	if err := t.Validate(); err != nil {
		return nil, nil, err
	}
	ylabel := t.YLabel
	if ylabel == "" {
		ylabel = "sup-norm error"
	}
	xlabel := t.XLabel
	if xlabel == "" {
		xlabel = "ε (privacy loss, log scale)"
	}
	p := newPlot(th, t.Title, xlabel, ylabel)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	drawable := func(y float64) bool { return y > 0 && finite(y) }
	if t.Share {
		drawable = func(y float64) bool { return y >= 0 && y <= 1 }
	} else {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	addGrid(p, th)
	leg := newLegend(th)
	lines := make([]plot.Thumbnailer, len(t.Curves)) // legend thumbnails by curve index

	ymin, ymax := math.Inf(1), math.Inf(-1)
	for ci, c := range t.Curves {
		var xys plotter.XYs
		for i, y := range c.Y {
			if drawable(y) {
				xys = append(xys, plotter.XY{X: t.Epsilons[i], Y: y})
				if c.Colour >= 0 {
					ymin = math.Min(ymin, y)
					ymax = math.Max(ymax, y)
				}
			}
		}
		if len(xys) == 0 {
			continue
		}
		col := th.Muted
		if c.Colour >= 0 {
			col = th.series(c.Colour)
		}
		w := c.Width
		if w == 0 {
			w = 1.5
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, nil, fmt.Errorf("plotting: tradeoff: curve %q: %w", c.Label, err)
		}
		l.LineStyle = lineStyle(col, w, c.Dashed)
		p.Add(l)
		if !c.Dashed {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, nil, fmt.Errorf("plotting: tradeoff: curve %q: %w", c.Label, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		lines[ci] = l
	}
	var marker plot.Thumbnailer
	if drawable(t.MarkerErr) && t.MarkerEps > 0 && finite(t.MarkerEps) {
		m, err := plotter.NewScatter(plotter.XYs{{X: t.MarkerEps, Y: t.MarkerErr}})
		if err == nil {
			m.GlyphStyle = draw.GlyphStyle{Color: th.Accent, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
			p.Add(m)
			if t.MarkerLabel != "" {
				marker = m
			}
			ymin = math.Min(ymin, t.MarkerErr)
			ymax = math.Max(ymax, t.MarkerErr)
		}
	}
	// The marker's entry comes last, or before the first group heading (it
	// belongs to no guarantee group).
	for _, e := range t.Legend() {
		if e.Heading && marker != nil {
			leg.Add(t.MarkerLabel, marker)
			marker = nil
		}
		if e.Heading {
			leg.Add(e.Text) // a heading: text without a thumbnail
		} else if lines[e.Curve] != nil {
			leg.Add(e.Text, lines[e.Curve])
		}
	}
	if marker != nil {
		leg.Add(t.MarkerLabel, marker)
	}
	p.X.Min = t.Epsilons[0]
	p.X.Max = t.Epsilons[len(t.Epsilons)-1]
	if t.Share {
		// A linear axis ending at 1, starting a little below the least
		// share (at most at 0).
		p.Y.Max = 1.02
		p.Y.Min = 0
		if !math.IsInf(ymin, 1) {
			p.Y.Min = math.Max(0, math.Floor((ymin-0.05)*10)/10)
		}
		return p, leg, nil
	}
	if math.IsInf(ymin, 1) {
		// Nothing drawable: keep a sensible empty log range.
		ymin, ymax = 1e-3, 1
	}
	if ymax <= ymin {
		ymax = ymin * 10
	}
	// The range follows the data curves and the marker (reference lines
	// are clipped), snapped outwards to decades so LogTicks always has
	// labelled ticks.
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(ymin)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(ymax)))
	if p.Y.Max/p.Y.Min < 100 {
		p.Y.Min /= 10 // at least two decades, so the curves are not squeezed flat
	}
	return p, leg, nil
}

// LegendEntry is one line of a tradeoff plot's legend: a group heading
// (Heading, Text = the group) or a curve (Text = its label, Curve = its
// index in Tradeoff.Curves).
type LegendEntry struct {
	Heading bool
	Text    string
	Curve   int
}

// String is the entry as a line of text: the text, or "# " and the text for
// a heading.
func (e LegendEntry) String() string {
	if e.Heading {
		return "# " + e.Text
	}
	return e.Text
}

// Legend returns the legend of t in drawing order (the marker is not
// listed: RenderTradeoff puts it after the ungrouped curves): first the labelled curves without a Group in their
// order, then for every Group in order of first appearance its heading and
// its labelled curves in their order. Curves with no drawable point (all
// NaN or ≤ 0) are listed but RenderTradeoff leaves them out; a group whose
// curves are all unlabelled gets no heading.
func (t *Tradeoff) Legend() []LegendEntry {
	var out []LegendEntry
	var groups []string
	for i, c := range t.Curves {
		if c.Label == "" {
			continue
		}
		if c.Group == "" {
			out = append(out, LegendEntry{Text: c.Label, Curve: i})
		} else if !slices.Contains(groups, c.Group) {
			groups = append(groups, c.Group)
		}
	}
	for _, g := range groups {
		out = append(out, LegendEntry{Heading: true, Text: g, Curve: -1})
		for i, c := range t.Curves {
			if c.Label != "" && c.Group == g {
				out = append(out, LegendEntry{Text: c.Label, Curve: i})
			}
		}
	}
	return out
}
