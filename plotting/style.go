package plotting

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strings"

	xfont "golang.org/x/image/font"
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
// renderWithLegend can lay them out by group, in columns, or cut them
// when the plot is short.
type legend struct {
	th    Theme
	items []legendItem
}

type legendItem struct {
	text    string
	thumbs  []plot.Thumbnailer
	heading bool // a group heading: drawn bold above its entries
}

// Add adds an entry (a group heading when thumbs is empty: the entries
// after it, up to the next heading, are its group).
func (l *legend) Add(text string, thumbs ...plot.Thumbnailer) {
	l.items = append(l.items, legendItem{text: text, thumbs: thumbs, heading: len(thumbs) == 0})
}

// newLegend returns an empty legend styled by th, drawn outside the plot
// area by renderWithLegend.
func newLegend(th Theme) *legend { return &legend{th: th} }

// legendFont is the legend's text size in points.
const legendFont = 9

// column returns a gonum legend of items (entries one under another).
func (l *legend) column(items []legendItem) *plot.Legend {
	g := plot.NewLegend()
	g.TextStyle.Font = font.From(uiFont, legendFont)
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

// headingLegend returns a group heading as a one-entry legend in bold,
// without a thumbnail, so it starts where its block starts.
func (l *legend) headingLegend(text string) *plot.Legend {
	g := l.column([]legendItem{{text: text}})
	bold := uiFont
	bold.Weight = xfont.WeightBold
	g.TextStyle.Font = font.From(bold, legendFont)
	g.ThumbnailWidth = 0
	return g
}

// legendBlock is one group of the legend: its heading ("" for the
// entries before the first heading) and its entries.
type legendBlock struct {
	heading string
	items   []legendItem
}

// blocks splits items into groups; a heading without entries is left out.
func blocks(items []legendItem) []legendBlock {
	var bs []legendBlock
	for _, it := range items {
		if it.heading {
			bs = append(bs, legendBlock{heading: it.text})
			continue
		}
		if len(bs) == 0 {
			bs = append(bs, legendBlock{})
		}
		bs[len(bs)-1].items = append(bs[len(bs)-1].items, it)
	}
	return slices.DeleteFunc(bs, func(b legendBlock) bool { return len(b.items) == 0 })
}

// legendPiece is a column of entries or a heading, placed at (x, y) from
// the legend area's top-left corner.
type legendPiece struct {
	leg   *plot.Legend
	items []legendItem // what leg lists (a heading: one item)
	x, y  vg.Length
}

// legendLayout is the legend laid out: its pieces and the size they take.
type legendLayout struct {
	pieces []legendPiece
	w, h   vg.Length
	fits   bool // every group is at most the width it was laid out in
}

// legendGap is the space between columns, and twice it between groups.
var legendGap = vg.Points(8)

// arrange lays items out in width maxW with at most rows entries per
// column: each group is a block, its bold heading on top and its entries
// in columns under it; blocks go left to right and wrap to a new line of
// blocks when the next does not fit, so a heading is always above its own
// entries (walkthrough: headings sat at the foot of a column, and entries
// were cut as "… 1 more").
func (l *legend) arrange(dc draw.Canvas, items []legendItem, rows int, maxW vg.Length) legendLayout {
	width := func(g *plot.Legend) vg.Length { r := g.Rectangle(dc); return r.Max.X - r.Min.X }
	one := l.column(items[:1])
	pitch := one.Rectangle(dc).Max.Y - one.Rectangle(dc).Min.Y + one.Padding // one line
	out := legendLayout{fits: true}
	var x, y, lineH vg.Length
	for _, b := range blocks(items) {
		var bp []legendPiece
		var bw, top vg.Length
		if b.heading != "" {
			hl := l.headingLegend(b.heading)
			bp = append(bp, legendPiece{leg: hl, items: []legendItem{{text: b.heading, heading: true}}})
			bw, top = width(hl), pitch
		}
		cx := vg.Length(0)
		for i := 0; i < len(b.items); i += rows {
			its := b.items[i:min(i+rows, len(b.items))]
			col := l.column(its)
			bp = append(bp, legendPiece{leg: col, items: its, x: cx, y: top})
			cx += width(col) + legendGap
		}
		bw = max(bw, cx-legendGap)
		bh := top + vg.Length(min(rows, len(b.items)))*pitch
		if bw > maxW {
			out.fits = false
		}
		if x > 0 && x+bw > maxW {
			x, y, lineH = 0, y+lineH+pitch/2, 0
		}
		for _, p := range bp {
			p.x += x
			p.y += y
			out.pieces = append(out.pieces, p)
		}
		out.w = max(out.w, x+bw)
		x += bw + 2*legendGap
		lineH = max(lineH, bh)
	}
	out.h = y + lineH
	return out
}

// compact is the least tall layout of items in width maxW (every group
// within the width when any layout has that), trying every number of
// entries per column.
func (l *legend) compact(dc draw.Canvas, items []legendItem, maxW vg.Length) legendLayout {
	var best legendLayout
	for rows := 1; rows <= len(items); rows++ {
		lo := l.arrange(dc, items, rows, maxW)
		if rows == 1 || lo.fits && (!best.fits || lo.h < best.h) {
			best = lo
		}
	}
	return best
}

// draw draws lo with its top-left corner at (x, y) from dc's top-left.
func (lo legendLayout) draw(dc draw.Canvas, x, y vg.Length) {
	for _, p := range lo.pieces {
		p.leg.Draw(draw.Crop(dc, x+p.x, 0, 0, -(y + p.y)))
	}
}

// legendMaxShare is the most of a plot's height a legend below it takes
// when the plot is at most plotMinHeight plus that share: the data area
// keeps about half the height (walkthrough: at 1024×700 a 10-line legend
// left the data 30 px and overprinted tick labels). A taller image (see
// TradeoffHeight) gives the legend everything above plotMinHeight.
const legendMaxShare = 0.25

// plotMinHeight is the height the plot itself (title, axes, data) keeps
// under a legend in a tall image.
var plotMinHeight = vg.Points(200)

// drawnLayout, when set (tests), receives the heights of the image, the
// plot's data area and the legend as drawn; drawnLegend the legend's
// layout and the room it had (width, height).
var (
	drawnLayout func(image, data, legend vg.Length)
	drawnLegend func(lo legendLayout, w, h vg.Length)
)

// legendBelow is the layout of the legend below a plot of size w×h: the
// most compact, cut to "… n more" entries only when even that is taller
// than the legend's room (max(legendMaxShare·h, h − plotMinHeight)).
func (l *legend) legendBelow(dc draw.Canvas, w, h vg.Length) legendLayout {
	room := max(legendMaxShare*h, h-plotMinHeight)
	items := l.items
	for keep := len(l.items); ; {
		lo := l.compact(dc, items, w-2*legendGap)
		if lo.h <= room || keep <= 1 {
			return lo
		}
		// Drop one entry more and say how many are left out.
		keep--
		for keep > 1 && l.items[keep-1].heading {
			keep--
		}
		items = append(slices.Clone(l.items[:keep]), legendItem{text: fmt.Sprintf("… %d more", len(l.items)-keep)})
	}
}

// renderWithLegend draws p with leg beside it (on the right when the
// legend, one column per group, takes at most 40% of the width and fits
// the height, else below the plot, laid out by legendBelow), so the
// legend never covers data. A title wider than the plot is wrapped to it.
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
		pad := legendGap
		w, h := dc.Max.X-dc.Min.X, dc.Max.Y-dc.Min.Y
		top := vg.Points(24) // below the title
		var pc draw.Canvas
		var lh vg.Length
		var side legendLayout
		if len(leg.items) > 0 {
			side = leg.arrange(dc, leg.items, len(leg.items), 0.4*w-pad)
		}
		switch {
		case len(leg.items) == 0:
			pc = dc
		case side.fits && side.h <= h-top-pad:
			pc = draw.Crop(dc, 0, -(side.w + 2*pad), 0, 0)
			side.draw(dc, w-side.w-pad, top)
			if drawnLegend != nil {
				drawnLegend(side, 0.4*w-pad, h-top-pad)
			}
		default:
			below := leg.legendBelow(dc, w, h)
			lh = below.h
			below.draw(dc, pad, h-lh-pad/2)
			pc = draw.Crop(dc, 0, 0, lh+pad, 0)
			if drawnLegend != nil {
				drawnLegend(below, w-2*pad, max(legendMaxShare*h, h-plotMinHeight))
			}
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

// legendHeight is the least image height, in points, at which leg fits
// whole below a plot of width s.W (plotMinHeight for the plot and the
// legend's compact layout), or 0 when it fits beside the plot at s.
func legendHeight(leg *legend, s Size, th Theme) vg.Length {
	if len(leg.items) == 0 {
		return 0
	}
	dc := draw.New(newCanvas(s, th))
	w, h := dc.Max.X-dc.Min.X, dc.Max.Y-dc.Min.Y
	if side := leg.arrange(dc, leg.items, len(leg.items), 0.4*w-legendGap); side.fits && side.h <= h-vg.Points(24)-legendGap {
		return 0
	}
	return plotMinHeight + leg.compact(dc, leg.items, w-2*legendGap).h + legendGap
}

// wrapTitle breaks p's title into lines no wider than w (at spaces; a
// word wider than w is cut with "…"), so that a centred title is not cut
// at both ends (walkthrough: "Error against k" read "ainst k…"). A
// parenthesised group that fits on a line stays on one ("simulated
// release (ε = 1, h = 1)" broke as "… h =" and "1)").
func wrapTitle(p *plot.Plot, w vg.Length) {
	sty := p.Title.TextStyle
	if p.Title.Text == "" || sty.Width(p.Title.Text) <= w {
		return
	}
	var lines []string
	cur := ""
	for _, word := range titleWords(p.Title.Text, func(s string) bool { return sty.Width(s) <= w }) {
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

// titleWords splits a title at spaces, keeping each parenthesised group
// as one word when it fits (fits reports whether a line fits).
func titleWords(title string, fits func(string) bool) []string {
	var words []string
	fields := strings.Fields(title)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.HasPrefix(f, "(") && !strings.Contains(f, ")") {
			for j := i + 1; j < len(fields); j++ {
				if strings.Contains(fields[j], ")") {
					if group := strings.Join(fields[i:j+1], " "); fits(group) {
						f, i = group, j
					}
					break
				}
			}
		}
		words = append(words, f)
	}
	return words
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
