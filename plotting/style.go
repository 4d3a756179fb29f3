package plotting

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Theme holds the colours of a plot. Use Light or Dark.
type Theme struct {
	Dark       bool
	Background color.Color // plot background
	Foreground color.Color // text, axes, ticks
	Grid       color.Color // grid lines
	Band       color.Color // fill of noise bands
	// Series colours, used in order (for example one per order h; the
	// tradeoff plot uses 0–5 for the Bernstein curves and the baseline and
	// 6 on for the published peers).
	Series []color.Color
	// Accent is used for markers and the current setting.
	Accent color.Color
	// Muted is used for reference lines (bounds, baselines).
	Muted color.Color
}

// Light is a theme for light backgrounds.
func Light() Theme {
	return Theme{
		Background: color.RGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff},
		Foreground: color.RGBA{R: 0x21, G: 0x21, B: 0x21, A: 0xff},
		Grid:       color.RGBA{R: 0xe0, G: 0xe0, B: 0xe0, A: 0xff},
		Band:       color.NRGBA{R: 0x1e, G: 0x88, B: 0xe5, A: 0x40},
		Series: []color.Color{
			color.RGBA{R: 0x1e, G: 0x88, B: 0xe5, A: 0xff}, // blue
			color.RGBA{R: 0xe5, G: 0x39, B: 0x35, A: 0xff}, // red
			color.RGBA{R: 0x43, G: 0xa0, B: 0x47, A: 0xff}, // green
			color.RGBA{R: 0x8e, G: 0x24, B: 0xaa, A: 0xff}, // purple
			color.RGBA{R: 0xfb, G: 0x8c, B: 0x00, A: 0xff}, // orange
			color.RGBA{R: 0x00, G: 0x89, B: 0x7b, A: 0xff}, // teal
			color.RGBA{R: 0xf4, G: 0x51, B: 0x1e, A: 0xff}, // deep orange
			color.RGBA{R: 0x82, G: 0x77, B: 0x17, A: 0xff}, // olive
			color.RGBA{R: 0x00, G: 0xac, B: 0xc1, A: 0xff}, // cyan
			color.RGBA{R: 0x37, G: 0x47, B: 0x4f, A: 0xff}, // slate
			color.RGBA{R: 0x8d, G: 0x6e, B: 0x63, A: 0xff}, // brown
		},
		Accent: color.RGBA{R: 0xd8, G: 0x1b, B: 0x60, A: 0xff},
		Muted:  color.RGBA{R: 0x61, G: 0x61, B: 0x61, A: 0xff},
	}
}

// Dark is a theme for dark backgrounds.
func Dark() Theme {
	return Theme{
		Dark:       true,
		Background: color.RGBA{R: 0x1e, G: 0x1e, B: 0x22, A: 0xff},
		Foreground: color.RGBA{R: 0xee, G: 0xee, B: 0xee, A: 0xff},
		Grid:       color.RGBA{R: 0x3a, G: 0x3a, B: 0x40, A: 0xff},
		Band:       color.NRGBA{R: 0x64, G: 0xb5, B: 0xf6, A: 0x50},
		Series: []color.Color{
			color.RGBA{R: 0x64, G: 0xb5, B: 0xf6, A: 0xff},
			color.RGBA{R: 0xef, G: 0x53, B: 0x50, A: 0xff},
			color.RGBA{R: 0x81, G: 0xc7, B: 0x84, A: 0xff},
			color.RGBA{R: 0xce, G: 0x93, B: 0xd8, A: 0xff},
			color.RGBA{R: 0xff, G: 0xb7, B: 0x4d, A: 0xff},
			color.RGBA{R: 0x4d, G: 0xb6, B: 0xac, A: 0xff},
			color.RGBA{R: 0xff, G: 0x8a, B: 0x65, A: 0xff},
			color.RGBA{R: 0xd4, G: 0xe1, B: 0x57, A: 0xff},
			color.RGBA{R: 0x4d, G: 0xd0, B: 0xe1, A: 0xff},
			color.RGBA{R: 0x90, G: 0xa4, B: 0xae, A: 0xff},
			color.RGBA{R: 0xbc, G: 0xaa, B: 0xa4, A: 0xff},
		},
		Accent: color.RGBA{R: 0xff, G: 0x40, B: 0x81, A: 0xff},
		Muted:  color.RGBA{R: 0xb0, G: 0xb0, B: 0xb0, A: 0xff},
	}
}

// series returns the i-th series colour, cycling.
func (t Theme) series(i int) color.Color {
	if len(t.Series) == 0 {
		return t.Foreground
	}
	return t.Series[((i%len(t.Series))+len(t.Series))%len(t.Series)]
}

// Size is an image size in device pixels and the display scale (1 on a
// normal screen, 2 on HiDPI); text is sized for the scale.
type Size struct {
	W, H  int
	Scale float32
}

// maxPixels caps an image at 64 megapixels (a 8k×8k image), far above any
// screen; beyond it Render refuses rather than allocate unbounded memory.
const maxPixels = 64 << 20

func (s Size) validate() error {
	if s.W < 16 || s.H < 16 || s.W*s.H > maxPixels {
		return fmt.Errorf("plotting: size %d×%d: width and height must be ≥ 16 pixels and the area ≤ %d pixels", s.W, s.H, maxPixels)
	}
	if !(s.Scale > 0) || s.Scale > 8 || math.IsInf(float64(s.Scale), 0) {
		return fmt.Errorf("plotting: scale %v: must be in (0, 8]", s.Scale)
	}
	return nil
}

// dpi returns the canvas resolution for the size: 96 dots per inch at scale 1.
func (s Size) dpi() int { return int(math.Round(96 * float64(s.Scale))) }

// newCanvas returns an image canvas of exactly s.W×s.H pixels.
func newCanvas(s Size, th Theme) *vgimg.Canvas {
	dpi := float64(s.dpi())
	w := vg.Length(float64(s.W) / dpi * float64(vg.Inch))
	h := vg.Length(float64(s.H) / dpi * float64(vg.Inch))
	return vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(s.dpi()), vgimg.UseBackgroundColor(th.Background))
}

// uiFont is the plot font: Liberation Sans (bundled with gonum/plot).
var uiFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot returns a plot styled by th with the given title and axis labels.
func newPlot(th Theme, title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.BackgroundColor = th.Background
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(uiFont, 12)
	p.Title.TextStyle.Color = th.Foreground
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Color = th.Foreground
		a.Label.TextStyle.Font = font.From(uiFont, 10)
		a.Label.TextStyle.Color = th.Foreground
		a.Tick.Label.Font = font.From(uiFont, 9)
		a.Tick.Label.Color = th.Foreground
		a.Tick.Color = th.Foreground
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.TextStyle.Font = font.From(uiFont, 9)
	p.Legend.TextStyle.Color = th.Foreground
	p.Legend.ThumbnailWidth = vg.Points(18)
	return p
}

// addGrid adds light grid lines behind the data.
func addGrid(p *plot.Plot, th Theme) {
	g := plotter.NewGrid()
	g.Vertical.Color = th.Grid
	g.Horizontal.Color = th.Grid
	g.Vertical.Width = vg.Points(0.5)
	g.Horizontal.Width = vg.Points(0.5)
	p.Add(g)
}

// legend is a plot legend that remembers its entries, so that
// renderWithLegend can lay them out in columns or cut them when the plot
// is short.
type legend struct {
	th    Theme
	items []legendItem
}

type legendItem struct {
	text   string
	thumbs []plot.Thumbnailer
}

// Add adds an entry (a heading when thumbs is empty).
func (l *legend) Add(text string, thumbs ...plot.Thumbnailer) {
	l.items = append(l.items, legendItem{text, thumbs})
}

// newLegend returns an empty legend styled by th, drawn outside the plot
// area by renderWithLegend.
func newLegend(th Theme) *legend { return &legend{th: th} }

// column returns a gonum legend of items.
func (l *legend) column(items []legendItem) *plot.Legend {
	g := plot.NewLegend()
	g.TextStyle.Font = font.From(uiFont, 9)
	g.TextStyle.Color = l.th.Foreground
	g.ThumbnailWidth = vg.Points(18)
	g.Padding = vg.Points(2)
	g.Left = true
	g.Top = true
	for _, it := range items {
		g.Add(it.text, it.thumbs...)
	}
	return &g
}

// legendMaxShare is the most of a plot's height a legend below it takes:
// the data area keeps about half the height (walkthrough: at 1024×700 a
// 10-line legend left the data 30 px and overprinted tick labels).
const legendMaxShare = 0.25

// drawnLayout, when set (tests), receives the heights of the image, the
// plot's data area and the legend as drawn.
var drawnLayout func(image, data, legend vg.Length)

// renderWithLegend draws p with leg beside it (on the right when the
// legend takes at most 40% of the width, else below the plot in as many
// columns as fit, at most legendMaxShare of the height, entries that do
// not fit replaced by "… n more"), so the legend never covers data. A
// title wider than the plot is wrapped to it.
func renderWithLegend(p *plot.Plot, leg *legend, s Size, th Theme) (image.Image, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	c := newCanvas(s, th)
	dc := draw.New(c)
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("plotting: %v", r)
			}
		}()
		full := leg.column(leg.items)
		r := full.Rectangle(dc)
		lw, lh := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
		pad := vg.Points(8)
		w, h := dc.Max.X-dc.Min.X, dc.Max.Y-dc.Min.Y
		var pc draw.Canvas
		switch {
		case len(leg.items) == 0:
			pc, lh = dc, 0
		case lw+pad <= 0.4*w:
			pc = draw.Crop(dc, 0, -(lw + 2*pad), 0, 0)
			top := vg.Points(24) // below the title
			full.Draw(draw.Crop(dc, w-lw-pad, -pad, 0, -top))
		default:
			lh = leg.drawBelow(dc, pad)
			pc = draw.Crop(dc, 0, 0, lh+pad, 0)
		}
		wrapTitle(p, pc.Max.X-pc.Min.X)
		p.Draw(pc)
		if drawnLayout != nil {
			da := p.DataCanvas(pc)
			drawnLayout(h, da.Max.Y-da.Min.Y, lh)
		}
	}()
	if err != nil {
		return nil, err
	}
	return c.Image(), nil
}

// drawBelow draws the legend below the plot in columns, at most
// legendMaxShare of dc's height, and returns the height it took.
func (l *legend) drawBelow(dc draw.Canvas, pad vg.Length) vg.Length {
	w, h := dc.Max.X-dc.Min.X, dc.Max.Y-dc.Min.Y
	one := l.column(l.items[:1]).Rectangle(dc)
	entry := one.Max.Y - one.Min.Y
	rows := max(1, int(legendMaxShare*h/entry))
	items, keep := l.items, len(l.items)
	// Columns of rows entries, as many as fit side by side; what does
	// not fit is counted in a last entry.
	for {
		var cols [][]legendItem
		for i := 0; i < len(items); i += rows {
			cols = append(cols, items[i:min(i+rows, len(items))])
		}
		var total vg.Length
		widths := make([]vg.Length, len(cols))
		for i, col := range cols {
			r := l.column(col).Rectangle(dc)
			widths[i] = r.Max.X - r.Min.X + pad
			total += widths[i]
		}
		if total <= w-pad || keep <= 1 {
			x := pad
			lh := vg.Length(min(rows, len(items))) * entry
			for i, col := range cols {
				l.column(col).Draw(draw.Crop(dc, x, 0, 0, -(h - lh - pad/2)))
				x += widths[i]
			}
			return lh
		}
		// Drop one entry more and say how many are left out.
		keep--
		items = append(slices.Clone(l.items[:keep]), legendItem{text: fmt.Sprintf("… %d more", len(l.items)-keep)})
	}
}

// wrapTitle breaks p's title into lines no wider than w (at spaces; a
// word wider than w is cut with "…"), so that a centred title is not cut
// at both ends (walkthrough: "Error against k" read "ainst k…").
func wrapTitle(p *plot.Plot, w vg.Length) {
	sty := p.Title.TextStyle
	if p.Title.Text == "" || sty.Width(p.Title.Text) <= w {
		return
	}
	var lines []string
	cur := ""
	for _, word := range strings.Fields(p.Title.Text) {
		try := word
		if cur != "" {
			try = cur + " " + word
		}
		if sty.Width(try) <= w || cur == "" {
			cur = try
			continue
		}
		lines = append(lines, cur)
		cur = word
	}
	lines = append(lines, cur)
	for i, l := range lines {
		for sty.Width(l) > w && len([]rune(l)) > 1 {
			r := []rune(strings.TrimSuffix(l, "…"))
			l = string(r[:len(r)-1]) + "…"
		}
		lines[i] = l
	}
	p.Title.Text = strings.Join(lines, "\n")
}

// finite reports whether x is a finite number.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// lineStyle returns a solid or dashed line of the colour and width (points).
func lineStyle(c color.Color, width float64, dashed bool) draw.LineStyle {
	ls := draw.LineStyle{Color: c, Width: vg.Points(width)}
	if dashed {
		ls.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return ls
}
