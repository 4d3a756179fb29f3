package widgets

import (
	"image/color"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/bernsteinrelease/bernstein/plotting"
)

// Theme choices of the View menu, stored in the app preferences.
const (
	ThemeSystem = "system"
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// fixedVariantTheme is the default Fyne theme forced to one variant (light
// or dark), whatever the system prefers.
type fixedVariantTheme struct {
	variant fyne.ThemeVariant
}

func (t fixedVariantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return theme.DefaultTheme().Color(n, t.variant)
}
func (t fixedVariantTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }
func (t fixedVariantTheme) Icon(n fyne.ThemeIconName) fyne.Resource {
	return theme.DefaultTheme().Icon(n)
}
func (t fixedVariantTheme) Size(n fyne.ThemeSizeName) float32 { return theme.DefaultTheme().Size(n) }

// ApplyTheme sets the app theme for a View-menu choice.
func ApplyTheme(a fyne.App, choice string) {
	switch choice {
	case ThemeLight:
		a.Settings().SetTheme(fixedVariantTheme{variant: theme.VariantLight})
	case ThemeDark:
		a.Settings().SetTheme(fixedVariantTheme{variant: theme.VariantDark})
	default:
		a.Settings().SetTheme(theme.DefaultTheme())
	}
}

// PlotTheme returns the plot colours matching the app's current theme.
func PlotTheme(a fyne.App, choice string) plotting.Theme {
	dark := false
	switch choice {
	case ThemeDark:
		dark = true
	case ThemeLight:
	default:
		dark = a.Settings().ThemeVariant() == theme.VariantDark
	}
	if dark {
		return plotting.Dark()
	}
	return plotting.Light()
}

// Mu serialises the UI callbacks of this package's background goroutines.
// In the app, fyne.Do already runs them one at a time on the UI goroutine
// and Mu is never contended; Fyne's headless test driver runs fyne.Do
// callbacks directly on the calling goroutine, so without it two workers
// could touch widgets (and Fyne's shared text cache) at once. Tests take
// Mu around their own widget actions for the same reason.
var Mu sync.Mutex

// Do runs fn on the UI goroutine (fyne.Do), serialised by Mu. Call it
// only from background goroutines, never from inside a Do callback.
func Do(fn func()) {
	fyne.Do(func() {
		Mu.Lock()
		defer Mu.Unlock()
		fn()
	})
}
