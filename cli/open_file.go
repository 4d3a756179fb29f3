package cli

import (
	"path/filepath"
	"strings"
)

// openedFileArgs maps a command line that is a single bare file name, as a
// desktop's file manager passes it ("Open with", double-click through the
// desktop entry's %f), onto the GUI form that opens it:
//
//	FILE.synopsis            -> view FILE.synopsis
//	FILE.csv, FILE.bernstein -> --open FILE
//
// The extension decides, case-insensitively; anything else (a command name,
// a flag, two arguments) returns nil and is handled as a command line.
func openedFileArgs(args []string) []string {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") || lookupCommand(args[0]) != nil {
		return nil
	}
	switch strings.ToLower(filepath.Ext(args[0])) {
	case ".synopsis":
		return []string{"view", args[0]}
	case ".csv", ".bernstein":
		return []string{"--open", args[0]}
	}
	return nil
}
