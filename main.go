// Command bernstein is Bernstein Release: it releases functions learned from
// sensitive data under differential privacy with the Bernstein mechanism.
package main

import (
	"fmt"
	"os"

	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/widget"
)

// version is the application version; release builds override it with
// -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	if len(os.Args) > 1 && os.Args[1] == "version" {
		fmt.Println("bernstein", version)
		return
	}
	a := app.NewWithID("io.github.bernsteinrelease.bernstein")
	w := a.NewWindow("Bernstein Release")
	w.SetContent(widget.NewLabel("Bernstein Release"))
	w.ShowAndRun()
}
