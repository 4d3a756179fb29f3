package main

import (
	"fmt"
	"os"

	"github.com/bernsteinrelease/bernstein/ui/curator"
	"github.com/bernsteinrelease/bernstein/ui/viewer"
)

// runGUI opens the graphical application. args is the command line after the
// program name, in one of these forms:
//
//	[]                            the curator window (no arguments)
//	["--open", "FILE.csv"]        the curator window with a dataset loaded
//	["--open", "FILE.bernstein"]  the curator window with a project opened
//	["view", "FILE.synopsis"]     the analyst viewer on a synopsis
func runGUI(args []string) error {
	opts := curator.Options{Version: version, OpenViewer: viewer.Open}
	switch {
	case len(args) == 0:
		return curator.Run(opts)
	case len(args) == 2 && (args[0] == "--open" || args[0] == "-open"):
		if _, err := os.Stat(args[1]); err != nil {
			return err
		}
		if curator.IsProjectFile(args[1]) {
			opts.OpenProject = args[1]
		} else {
			opts.OpenCSV = args[1]
		}
		return curator.Run(opts)
	case len(args) == 2 && args[0] == "view":
		return viewer.Run(args[1])
	}
	return fmt.Errorf("usage: bernstein [--open FILE.csv|FILE.bernstein] | bernstein view FILE.synopsis (got %q)", args)
}
