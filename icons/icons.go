// Package icons embeds the Bernstein Release application icon.
//
// The icon shows the five Bernstein basis polynomials b_{ν,4} over their
// lattice cover; icon.svg is the source and icon.png (512×512) is rendered
// from it with ImageMagick: convert -background none -density 96 icon.svg
// -resize 512x512 -depth 8 icon.png.
package icons

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.svg
var iconSVG []byte

//go:embed icon.png
var iconPNG []byte

// AppSVG is the application icon as an SVG resource.
var AppSVG = fyne.NewStaticResource("bernstein.svg", iconSVG)

// AppPNG is the application icon as a 512×512 PNG resource.
var AppPNG = fyne.NewStaticResource("bernstein.png", iconPNG)
