package widgets

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// DialogBody asks for size as its minimum (a dialog sizes itself from it)
// but lays its content out in a vertical scroll filling whatever it gets:
// when a window is too short for the dialog, the content scrolls instead
// of running under the dialog's buttons (issue 17 item 3).
func DialogBody(size fyne.Size, content fyne.CanvasObject) fyne.CanvasObject {
	return container.New(fixedMin{size}, VScroll(content))
}

// VScroll is a vertical scroll whose content leaves room on its right for
// the scroll bar, which Fyne draws over the content: a button at the right
// edge ("Set total budget") had its end hidden under the bar.
func VScroll(content fyne.CanvasObject) *container.Scroll {
	gutter := canvas.NewRectangle(color.Transparent)
	gutter.SetMinSize(fyne.NewSize(theme.ScrollBarSize()-theme.Padding(), 0))
	return container.NewVScroll(container.NewBorder(nil, nil, nil, gutter, content))
}

// fixedMin is a layout whose minimum size is fixed and which stretches
// every object over the container.
type fixedMin struct{ size fyne.Size }

func (l fixedMin) MinSize([]fyne.CanvasObject) fyne.Size { return l.size }

func (l fixedMin) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}
