// Command winres writes and checks the Windows resources (icon, version,
// manifest) of the release executables; scripts/dist.sh and
// scripts/dist-test.sh run it with `go run ./scripts/winres`.
//
//	winres syso  -icon icons/icon.png -name "Bernstein Release" -version 0.1.0 -build 5 -arch amd64 -o DIR/x.syso
//	winres check -version 0.1.0 bernstein.exe bernstein-cli.exe
//
// syso writes a COFF object with the same resources `fyne package --os
// windows` gives the GUI executable (fyne.io/tools v1.7.4,
// package-windows.go): the icon encoded by github.com/fyne-io/image/ico, a
// version resource with FileVersion VERSION.BUILD and ProductVersion the
// same string, and an assembly manifest, all written by
// github.com/josephspurrier/goversioninfo (the library fyne package uses).
// A .syso file in the main package's directory is linked into the
// executable by `go build`, which is how bernstein-cli.exe gets them.
//
// check reads each executable's resource section with debug/pe and fails
// unless every one has an icon group, an icon image that decodes as an
// image, and a version resource whose fixed file version starts with
// VERSION; and unless all of them carry byte-identical icon images and the
// same fixed file version. The exit status is 0 only if every check passed.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "winres:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: winres syso|check [flags]")
	}
	switch args[0] {
	case "syso":
		fs := flag.NewFlagSet("syso", flag.ContinueOnError)
		var o sysoOptions
		fs.StringVar(&o.Icon, "icon", "", "PNG icon")
		fs.StringVar(&o.Name, "name", "", "product name")
		fs.StringVar(&o.Version, "version", "", "version x.y.z (FyneApp.toml)")
		fs.IntVar(&o.Build, "build", 0, "build number (the fourth version field)")
		fs.StringVar(&o.Arch, "arch", "amd64", "GOARCH of the object")
		out := fs.String("o", "", "output .syso file")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *out == "" || fs.NArg() != 0 {
			return fmt.Errorf("syso: -o FILE is required and no arguments are taken")
		}
		return writeSyso(o, *out)
	case "check":
		fs := flag.NewFlagSet("check", flag.ContinueOnError)
		version := fs.String("version", "", "the x.y.z every executable's version must start with")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			return fmt.Errorf("check: name at least one executable")
		}
		return checkExecutables(*version, fs.Args(), stdout)
	}
	return fmt.Errorf("unknown subcommand %q: want syso or check", args[0])
}
