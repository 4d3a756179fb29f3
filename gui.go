package main

import (
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/icons"
)

// runGUI opens the graphical application. args is the command line after the
// program name, in one of three forms:
//
//	[]                          the curator window (no arguments)
//	["--open", "FILE.csv"]      the curator window with a dataset loaded
//	["view", "FILE.synopsis"]   the analyst viewer on a synopsis
//
// This is a placeholder that opens a plain window; the UI engineer replaces
// its body with ui.RunCurator / ui.RunViewer.
func runGUI(args []string) error {
	a := app.NewWithID("io.github.bernsteinrelease.bernstein")
	a.SetIcon(icons.AppPNG)
	w := a.NewWindow("Bernstein Release")
	w.SetContent(widget.NewLabel("Bernstein Release"))
	w.ShowAndRun()
	return nil
}
