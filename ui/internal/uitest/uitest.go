package uitest

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// EntryMark is the validation mark an entry shows: "error", "ok" or ""
// (after the refresh a frame would draw).
func EntryMark(e fyne.Widget) string {
	e.Refresh()
	for _, o := range RenderedObjects(e) {
		img, ok := o.(*canvas.Image)
		if !ok || !img.Visible() || img.Resource == nil {
			continue
		}
		switch n := img.Resource.Name(); {
		case strings.Contains(n, "error"):
			return "error"
		case n == theme.ConfirmIcon().Name() || strings.Contains(n, "check") || strings.Contains(n, "confirm"):
			return "ok"
		}
	}
	return ""
}

// RenderedObjects lists o and what its cached renderers hold (unlike
// test.LaidOutObjects, which builds new renderers).
func RenderedObjects(o fyne.CanvasObject) []fyne.CanvasObject {
	out := []fyne.CanvasObject{o}
	switch v := o.(type) {
	case fyne.Widget:
		for _, ch := range test.WidgetRenderer(v).Objects() {
			out = append(out, RenderedObjects(ch)...)
		}
	case *fyne.Container:
		for _, ch := range v.Objects {
			out = append(out, RenderedObjects(ch)...)
		}
	}
	return out
}

// PathTo returns the objects from root down to target (both included) in
// the tree RenderedObjects walks, or nil when target is not below root.
func PathTo(root, target fyne.CanvasObject) []fyne.CanvasObject {
	if root == target {
		return []fyne.CanvasObject{root}
	}
	var children []fyne.CanvasObject
	switch v := root.(type) {
	case fyne.Widget:
		children = test.WidgetRenderer(v).Objects()
	case *fyne.Container:
		children = v.Objects
	}
	for _, ch := range children {
		if p := PathTo(ch, target); p != nil {
			return append([]fyne.CanvasObject{root}, p...)
		}
	}
	return nil
}
