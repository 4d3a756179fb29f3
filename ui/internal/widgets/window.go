package widgets

import "fyne.io/fyne/v2"

// WindowSize is the size of the app's windows (the curator's and the
// viewer's) when they open: fixed (never taken from the data), and within
// a 1024×700 screen with its title bar, so it also fits 1280×800. Each
// window's content has a smaller minimum; everything longer scrolls.
var WindowSize = fyne.NewSize(1000, 640)
