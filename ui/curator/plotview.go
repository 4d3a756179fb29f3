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
}

// newPlotView returns a plot area with the given minimum size (in Fyne
// units); onResize (may be nil) is called on the UI goroutine when the
// size changes.
func newPlotView(min fyne.Size, onResize func()) *plotView {
	p := &plotView{img: canvas.NewImageFromImage(nil), msg: widget.NewLabel(""), onResize: onResize, minSize: min}
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
