package plotting_test

import (
	"bytes"
	"fmt"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/bernsteinrelease/bernstein/plotting"
)

// Contour lines of a viewer heatmap sit at round values inside the range.
func ExampleViewerHeatmap_ContourLevels() {
	h := &plotting.ViewerHeatmap{Contours: 4, Values: []float64{0, 0.13, 0.71, 1}}
	fmt.Printf("%.3g\n", h.ContourLevels())
	// Output: [0.2 0.4 0.6 0.8]
}

// A viewer figure is exported as SVG (or PNG) with the same drawing code
// that shows it on screen.
func ExampleExportViewer() {
	curve := &plotting.ViewerCurve{
		Title: "Released density", XLabel: "x (mm)", YLabel: "density (1/mm)",
		X: []float64{0, 0.5, 1}, Value: []float64{0.5, 1.5, 0.8}, Std: []float64{0.1, 0.1, 0.2},
		BandSigmas: 2,
	}
	var buf bytes.Buffer
	if err := plotting.ExportViewer(&buf, curve, plotting.Light(), plotting.FormatSVG, 8*vg.Inch, 5*vg.Inch); err != nil {
		fmt.Println(err)
		return
	}
	svg := buf.String()
	fmt.Println(strings.Contains(svg, `width="576pt" height="360pt"`), strings.Contains(svg, "Released density"))
	// Output: true true
}
