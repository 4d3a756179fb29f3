package viewer

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"gonum.org/v1/plot/vg"

	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// Plot resolution: points of a curve (ℓ = 1) and per axis of a heatmap.
const (
	viewerCurvePoints = 241
	viewerGridPoints  = 81
)

// viewerLinspace returns n equally spaced values from lo to hi inclusive.
func viewerLinspace(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	out[n-1] = hi
	return out
}

// viewerPlotSpec says what to plot: for ℓ ≥ 2 the two plotted axes and the
// values of all others (data units).
type viewerPlotSpec struct {
	AX, AY int
	Fixed  []float64 // one per feature; entries AX and AY are ignored
	// Clamp shows the values clamped to the public output range
	// (post-processing; the title says so).
	Clamp bool
}

// viewerClampValues counts the values outside r's public output range and,
// if clamp, clamps them in place.
func viewerClampValues(r *viewerRelease, values []float64, clamp bool) (outside int) {
	for i, val := range values {
		if c, moved := r.clamp(val); moved {
			outside++
			if clamp {
				values[i] = c
			}
		}
	}
	return outside
}

// viewerFigure computes the figure of release r for spec: for ℓ = 1 the
// release on viewerCurvePoints points with its ±2 noise-std band (and the
// decision threshold for classifiers); for ℓ ≥ 2 a heatmap over features
// AX × AY on a viewerGridPoints² grid, other features fixed at spec.Fixed,
// with contour lines and, for classifiers, the decision boundary. It runs
// in the caller's goroutine (call it off the UI goroutine) and returns
// ctx.Err() if cancelled. outside counts the values drawn that lie outside
// the public output range (clamped when spec.Clamp).
func viewerFigure(ctx context.Context, r *viewerRelease, spec viewerPlotSpec) (fig plotting.ViewerFigure, outside int, err error) {
	title := "Released " + r.outputLabel()
	if spec.Clamp {
		title += ", clamped to " + r.rangeText()
	}
	if r.dim() == 1 {
		f := r.Features[0]
		xs := viewerLinspace(f.Lo, f.Hi, viewerCurvePoints)
		b, err := viewerEvalBatch(ctx, r, xs, nil)
		if err != nil {
			return nil, 0, err
		}
		outside = viewerClampValues(r, b.Value, spec.Clamp)
		c := &plotting.ViewerCurve{Title: title, XLabel: f.label(), YLabel: r.outputLabel(),
			X: xs, Value: b.Value, Std: b.NoiseStd, BandSigmas: 2}
		if r.classifier() {
			c.ThresholdOn, c.Threshold = true, r.threshold()
			c.ThresholdLabel = fmt.Sprintf("decision threshold (≥ → %s)", r.ClassLabels[1])
		}
		return c, outside, nil
	}
	fx, fy := r.Features[spec.AX], r.Features[spec.AY]
	xs := viewerLinspace(fx.Lo, fx.Hi, viewerGridPoints)
	ys := viewerLinspace(fy.Lo, fy.Hi, viewerGridPoints)
	dim := r.dim()
	q := make([]float64, 0, len(xs)*len(ys)*dim)
	for _, x := range xs {
		for _, y := range ys {
			for j := range dim {
				switch j {
				case spec.AX:
					q = append(q, x)
				case spec.AY:
					q = append(q, y)
				default:
					q = append(q, spec.Fixed[j])
				}
			}
		}
	}
	b, err := viewerEvalBatch(ctx, r, q, nil)
	if err != nil {
		return nil, 0, err
	}
	outside = viewerClampValues(r, b.Value, spec.Clamp)
	if dim > 2 {
		var at []string
		for j, f := range r.Features {
			if j != spec.AX && j != spec.AY {
				at = append(at, fmt.Sprintf("%s = %s", f.Name, viewerNum(spec.Fixed[j])))
			}
		}
		title += " — slice at " + strings.Join(at, ", ")
	}
	h := &plotting.ViewerHeatmap{Title: title, XLabel: fx.label(), YLabel: fy.label(), ColourLabel: r.OutputName,
		X: xs, Y: ys, Values: b.Value, Contours: 8}
	if r.classifier() {
		h.Boundary, h.BoundaryLevel = true, r.threshold()
		h.Diverging, h.Center = true, r.threshold()
	}
	return h, outside, nil
}

// viewerPlotTab shows the release as a plot, with sliders for the axes not
// plotted when ℓ ≥ 3, and exports it as PNG or SVG.
type viewerPlotTab struct {
	v *viewer
	r *viewerRelease

	spec    viewerPlotSpec
	fig     plotting.ViewerFigure // the figure shown (after it is drawn)
	img     image.Image           // its rendering, for tests
	mark    *viewerPoint
	gen     int
	cancel  context.CancelFunc
	started bool
	outside int  // values drawn outside the public output range
	clamped bool // the figure shows them clamped

	image    *canvas.Image
	status   *widget.Label
	sliders  []*widget.Slider
	values   []*widget.Label
	rows     []*fyne.Container
	xSel     *widget.Select
	ySel     *widget.Select
	pngBt    *widget.Button
	svgBt    *widget.Button
	controls *fyne.Container
	content  fyne.CanvasObject
}

func newViewerPlotTab(v *viewer, r *viewerRelease) *viewerPlotTab {
	t := &viewerPlotTab{v: v, r: r}
	t.spec = viewerPlotSpec{AX: 0, AY: min(1, r.dim()-1), Fixed: make([]float64, r.dim())}
	for j, f := range r.Features {
		t.spec.Fixed[j] = f.Lo/2 + f.Hi/2
	}
	t.image = canvas.NewImageFromImage(nil)
	t.image.FillMode = canvas.ImageFillContain
	t.image.SetMinSize(fyne.NewSize(480, 300)) // the window fits a 1024×700 screen
	t.status = widget.NewLabel("")
	t.status.Wrapping = fyne.TextWrapWord // a long note must not widen the window
	t.pngBt = widget.NewButtonWithIcon("Export PNG…", theme.DocumentSaveIcon(), func() { t.chooseExport(plotting.FormatPNG) })
	t.svgBt = widget.NewButtonWithIcon("Export SVG…", theme.DocumentSaveIcon(), func() { t.chooseExport(plotting.FormatSVG) })
	t.pngBt.Disable()
	t.svgBt.Disable()
	t.controls = container.NewVBox()
	if r.dim() >= 3 {
		names := make([]string, r.dim())
		for j, f := range r.Features {
			names[j] = f.Name
		}
		t.xSel = widget.NewSelect(names, nil)
		t.ySel = widget.NewSelect(names, nil)
		t.xSel.SetSelectedIndex(t.spec.AX)
		t.ySel.SetSelectedIndex(t.spec.AY)
		t.xSel.OnChanged = func(string) { t.setAxes(t.xSel.SelectedIndex(), t.spec.AY, true) }
		t.ySel.OnChanged = func(string) { t.setAxes(t.spec.AX, t.ySel.SelectedIndex(), false) }
		t.controls.Add(container.NewHBox(widget.NewLabel("Horizontal axis"), t.xSel, widget.NewLabel("Vertical axis"), t.ySel))
		for j, f := range r.Features {
			s := widget.NewSlider(f.Lo, f.Hi)
			s.Step = (f.Hi - f.Lo) / 200
			s.Value = t.spec.Fixed[j]
			val := widget.NewLabel("")
			s.OnChanged = func(x float64) {
				t.spec.Fixed[j] = x
				val.SetText(viewerNum(x) + viewerUnitSuffix(f.Unit))
				t.redraw()
			}
			val.SetText(viewerNum(s.Value) + viewerUnitSuffix(f.Unit))
			row := container.NewBorder(nil, nil, widget.NewLabel(f.Name), val, s)
			t.sliders = append(t.sliders, s)
			t.values = append(t.values, val)
			t.rows = append(t.rows, row)
			t.controls.Add(row)
		}
		t.showSliders()
	}
	help := "The shaded band is ±2 public noise standard deviations around the release."
	if r.dim() >= 2 {
		help = "Colours show the released value; thin lines are contours."
		if r.classifier() {
			help += " The thick black line is the decision boundary."
		}
	}
	if r.dim() >= 3 {
		help += " The other features are fixed at the slider values."
	}
	t.content = container.NewBorder(
		container.NewVBox(t.controls, widget.NewLabel(help)),
		container.NewBorder(nil, nil, nil, container.NewHBox(t.pngBt, t.svgBt), t.status),
		nil, nil, t.image)
	return t
}

// setAxes changes the plotted axes; choosing the same feature for both
// swaps them.
func (t *viewerPlotTab) setAxes(ax, ay int, xChanged bool) {
	if ax < 0 || ay < 0 {
		return
	}
	if ax == ay {
		if xChanged {
			ay = t.spec.AX
		} else {
			ax = t.spec.AY
		}
	}
	if ax == t.spec.AX && ay == t.spec.AY {
		return
	}
	t.spec.AX, t.spec.AY = ax, ay
	t.xSel.SetSelectedIndex(ax)
	t.ySel.SetSelectedIndex(ay)
	t.showSliders()
	t.redraw()
}

// showSliders shows the sliders of the features not plotted.
func (t *viewerPlotTab) showSliders() {
	for j, row := range t.rows {
		if j == t.spec.AX || j == t.spec.AY {
			row.Hide()
		} else {
			row.Show()
		}
	}
}

// ensure draws the plot the first time the tab is shown.
func (t *viewerPlotTab) ensure() {
	if !t.started {
		t.started = true
		t.redraw()
	}
}

// markQuery marks the analyst's last query on the plot (ℓ ≤ 2).
func (t *viewerPlotTab) markQuery(p viewerPoint) {
	t.mark = &p
	if t.started && t.fig != nil {
		t.render(t.fig)
	}
}

// redraw recomputes the figure in the background; a newer redraw cancels
// an older one.
func (t *viewerPlotTab) redraw() {
	t.started = true
	if t.cancel != nil {
		t.cancel()
	}
	t.gen++
	gen := t.gen
	spec := viewerPlotSpec{AX: t.spec.AX, AY: t.spec.AY, Fixed: append([]float64(nil), t.spec.Fixed...), Clamp: t.v.clampOn()}
	r := t.r
	t.status.SetText("Drawing…")
	th, size := t.theme()
	mark := t.mark
	t.cancel = t.v.runCtx(func(ctx context.Context) {
		fig, outside, err := viewerFigure(ctx, r, spec)
		var img image.Image
		if err == nil {
			fig = viewerWithMark(fig, mark, r.dim())
			img, err = plotting.RenderViewer(fig, th, size)
		}
		if ctx.Err() != nil {
			return
		}
		widgets.Do(func() {
			if gen != t.gen {
				return
			}
			t.outside, t.clamped = outside, spec.Clamp
			t.show(fig, img, err)
		})
	})
}

// rangeNote says how many drawn values lie outside the public output
// range, and whether they are shown clamped; "" if none.
func (t *viewerPlotTab) rangeNote() string {
	switch {
	case t.outside == 0:
		return ""
	case t.clamped:
		return fmt.Sprintf("%d values drawn lay outside the public output range %s and are shown clamped.", t.outside, t.r.rangeText())
	}
	return fmt.Sprintf("%d values drawn lie outside the public output range %s: the privacy noise can carry values there. Tick \"%s\" to clamp them.", t.outside, t.r.rangeText(), viewerClampLabel)
}

// render re-renders a computed figure (e.g. with a new mark).
func (t *viewerPlotTab) render(fig plotting.ViewerFigure) {
	t.gen++
	gen := t.gen
	th, size := t.theme()
	fig = viewerWithMark(fig, t.mark, t.r.dim())
	t.v.goJob(func() {
		img, err := plotting.RenderViewer(fig, th, size)
		widgets.Do(func() {
			if gen == t.gen {
				t.show(fig, img, err)
			}
		})
	})
}

func (t *viewerPlotTab) show(fig plotting.ViewerFigure, img image.Image, err error) {
	if err != nil {
		t.status.SetText("Cannot draw the plot: " + err.Error())
		return
	}
	t.fig, t.img = fig, img
	t.image.Image = img
	t.image.Refresh()
	t.status.SetText(t.rangeNote())
	t.pngBt.Enable()
	t.svgBt.Enable()
}

// viewerWithMark returns a copy of fig marking the query p (ℓ ≤ 2 only;
// with ℓ ≥ 3 a point is generally not on the slice shown).
func viewerWithMark(fig plotting.ViewerFigure, p *viewerPoint, dim int) plotting.ViewerFigure {
	switch f := fig.(type) {
	case *plotting.ViewerCurve:
		c := *f
		c.MarkOn = p != nil && dim == 1
		if c.MarkOn {
			c.MarkX, c.MarkY = p.X[0], p.Value
		}
		return &c
	case *plotting.ViewerHeatmap:
		h := *f
		h.MarkOn = p != nil && dim == 2
		if h.MarkOn {
			h.MarkX, h.MarkY = p.X[0], p.X[1]
		}
		return &h
	}
	return fig
}

// theme returns the plot colours matching the app's theme and the render
// size for the window's scale.
func (t *viewerPlotTab) theme() (plotting.Theme, plotting.Size) {
	th := plotting.Light()
	if t.v.app.Settings().ThemeVariant() == theme.VariantDark {
		th = plotting.Dark()
	}
	scale := t.v.win.Canvas().Scale()
	if !(scale > 0) {
		scale = 1
	}
	return th, plotting.Size{W: 960, H: 600, Scale: scale}
}

func (t *viewerPlotTab) chooseExport(format string) {
	if t.fig == nil {
		return
	}
	t.v.saveAs("Export plot as "+strings.ToUpper(format), "release-plot."+format, "."+format,
		func(path string) { t.export(path, format) })
}

// export writes the shown figure to path as PNG or SVG (light theme, 8×5
// inches) in the background.
func (t *viewerPlotTab) export(path, format string) {
	fig := t.fig
	if fig == nil {
		return
	}
	t.status.SetText("Exporting…")
	t.v.goJob(func() {
		var buf bytes.Buffer
		err := plotting.ExportViewer(&buf, fig, plotting.Light(), format, 8*vg.Inch, 5*vg.Inch)
		if err == nil {
			err = fileio.WriteAtomic(path, buf.Bytes(), 0o644, true)
		}
		widgets.Do(func() {
			if err != nil {
				t.status.SetText("Export failed: " + err.Error())
				return
			}
			t.status.SetText("Exported " + path)
		})
	})
}
