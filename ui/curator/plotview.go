package curator

import (
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/plotting"
)

// plotView shows a rendered plot image and reports its size in device
// pixels, so plots are drawn at the resolution they are shown at. The image
// is rendered elsewhere (off the UI goroutine); SetImage must be called on
// the UI goroutine.
type plotView struct {
	widget.BaseWidget
	img      *canvas.Image
	msg      *widget.Label
	onResize func()
	minSize  fyne.Size
	baseMin  fyne.Size // minSize before growTo
}

// newPlotView returns a plot area with the given minimum size (in Fyne
// units); onResize (may be nil) is called on the UI goroutine when the
// size changes.
func newPlotView(min fyne.Size, onResize func()) *plotView {
	p := &plotView{img: canvas.NewImageFromImage(nil), msg: widget.NewLabel(""), onResize: onResize, minSize: min, baseMin: min}
	p.img.FillMode = canvas.ImageFillContain
	p.img.ScaleMode = canvas.ImageScaleSmooth
	p.msg.Wrapping = fyne.TextWrapWord
	p.msg.Alignment = fyne.TextAlignCenter
	p.ExtendBaseWidget(p)
	return p
}

// SetImage shows img (nil clears it).
func (p *plotView) SetImage(img image.Image) {
	p.img.Image = img
	p.msg.SetText("")
	p.img.Refresh()
}

// SetMessage shows a message instead of a plot.
func (p *plotView) SetMessage(s string) {
	p.img.Image = nil
	p.img.Refresh()
	p.msg.SetText(s)
}

// pixelSize returns the plot size in device pixels for rendering.
func (p *plotView) pixelSize() plotting.Size {
	scale := float32(1)
	if c := fyne.CurrentApp().Driver().CanvasForObject(p); c != nil && c.Scale() > 0 {
		scale = c.Scale()
	}
	sz := p.Size()
	if sz.Width < p.minSize.Width || sz.Height < p.minSize.Height {
		sz = sz.Max(p.minSize)
	}
	return plotting.Size{W: int(sz.Width * scale), H: int(sz.Height * scale), Scale: scale}
}

func (p *plotView) MinSize() fyne.Size { return p.minSize }

// heightFor is the height (Fyne units) the tradeoff plot t needs at the
// width and scale of s so that its legend lists every series
// (plotting.TradeoffHeight), at least the view's own minimum. It reads
// nothing that changes, so the preview worker may call it.
func (p *plotView) heightFor(t *plotting.Tradeoff, th plotting.Theme, s plotting.Size) float32 {
	s.H = int(p.baseMin.Height * s.Scale)
	h, err := plotting.TradeoffHeight(t, th, s)
	if err != nil {
		return p.baseMin.Height
	}
	return max(p.baseMin.Height, float32(h)/s.Scale)
}

// growTo sets the view's minimum height to h (at least its own minimum)
// and reports whether it changed; the caller lays the view's parents out
// again (UI goroutine).
func (p *plotView) growTo(h float32) bool {
	h = max(h, p.baseMin.Height)
	if abs32(h-p.minSize.Height) < 1 {
		return false
	}
	p.minSize.Height = h
	return true
}

// sharedRows lays objects out one under another, each at its minimum
// height plus an equal share of the height left over (a grid of equal
// rows made every row as tall as the tallest: a plot grown for its
// legend grew the one under it too).
type sharedRows struct{}

func (sharedRows) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for i, o := range objs {
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		s.Height += m.Height
		if i > 0 {
			s.Height += theme.Padding()
		}
	}
	return s
}

func (l sharedRows) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if len(objs) == 0 {
		return
	}
	extra := max(0, size.Height-l.MinSize(objs).Height) / float32(len(objs))
	y := float32(0)
	for _, o := range objs {
		h := o.MinSize().Height + extra
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h))
		y += h + theme.Padding()
	}
}

func (p *plotView) Resize(s fyne.Size) {
	old := p.Size()
	p.BaseWidget.Resize(s)
	if p.onResize != nil && (abs32(old.Width-s.Width) > 4 || abs32(old.Height-s.Height) > 4) {
		p.onResize()
	}
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func (p *plotView) CreateRenderer() fyne.WidgetRenderer {
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	// The message gets the plot's full width and wraps within it (centred
	// in a Center layout, a wrapping label kept its one-line width and
	// ran over the neighbouring pane).
	msg := container.NewVBox(layout.NewSpacer(), container.NewPadded(p.msg), layout.NewSpacer())
	return &plotViewRenderer{p: p, bg: bg, objects: []fyne.CanvasObject{bg, p.img, msg}}
}

type plotViewRenderer struct {
	p       *plotView
	bg      *canvas.Rectangle
	objects []fyne.CanvasObject
}

func (r *plotViewRenderer) Layout(s fyne.Size) {
	for _, o := range r.objects {
		o.Resize(s)
		o.Move(fyne.NewPos(0, 0))
	}
}
func (r *plotViewRenderer) MinSize() fyne.Size           { return r.p.minSize }
func (r *plotViewRenderer) Objects() []fyne.CanvasObject { return r.objects }
func (r *plotViewRenderer) Destroy()                     {}
func (r *plotViewRenderer) Refresh() {
	r.bg.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.bg.Refresh()
	r.p.img.Refresh()
}
