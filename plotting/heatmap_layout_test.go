package plotting

import (
	"math"
	"testing"

	"gonum.org/v1/plot/vg/draw"
)

// TestHeatmapPanelsUseTheWidth: in the curator's preview at 1024×700
// (a figure about 480 pixels wide) and 1280×800 (about 610), the two
// panels of a classifier's heatmaps take at least 70% of the figure's
// width between them, with data areas of equal width; only the first
// draws the shared y axis. The panels were narrow: every panel drew its
// own y axis and the colour bar's column was 84 points wide, which left
// the panels about 55% at 480 pixels.
func TestHeatmapPanelsUseTheWidth(t *testing.T) {
	x, y := linspace(6, 28, 40), linspace(9, 39, 40)
	v := make([]float64, len(x)*len(y))
	for i := range x {
		for j := range y {
			v[i*len(y)+j] = float64(i-j) / 40
		}
	}
	h := &Heatmaps{XLabel: "mean_radius", YLabel: "mean_texture", X: x, Y: y,
		Maps:     []Heatmap{{Title: "true F_D (private)", Values: v}, {Title: "simulated release (ε = 1, h = 1)", Values: v}},
		Boundary: true, Diverging: true, ColourLabel: "score", Min: -1, Max: 1}
	for _, s := range []Size{{W: 480, H: 320, Scale: 1}, {W: 610, H: 320, Scale: 1}, {W: 960, H: 640, Scale: 2}} {
		dc := draw.New(newCanvas(s, Light()))
		fig := layoutHeatmaps(h, Light(), dc)
		total := dc.Max.X - dc.Min.X
		var sum float64
		var widths []float64
		for i, p := range fig.panels {
			d := p.DataCanvas(fig.tiles[i])
			w := float64(d.Max.X - d.Min.X)
			widths = append(widths, w)
			sum += w
		}
		if share := sum / float64(total); share < 0.70 {
			t.Errorf("%dx%d at scale %v: the panels take %.0f%% of the width (data widths %.0f of %.0f points), want ≥ 70%%", s.W, s.H, s.Scale, 100*share, widths, total)
		}
		if d := widths[1] - widths[0]; d > 1.5 || d < -1.5 {
			t.Errorf("%dx%d: data widths %.1f differ", s.W, s.H, widths)
		}
		// The titles start at the same height and the data areas span the
		// same heights (the second title sat lower than the first).
		a, b := fig.panels[0].DataCanvas(fig.tiles[0]), fig.panels[1].DataCanvas(fig.tiles[1])
		if fig.tiles[0].Max.Y != fig.tiles[1].Max.Y || math.Abs(float64(a.Min.Y-b.Min.Y)) > 0.01 || math.Abs(float64(a.Max.Y-b.Max.Y)) > 0.01 {
			t.Errorf("%dx%d: panel tops %v and %v, data heights %v–%v and %v–%v", s.W, s.H,
				fig.tiles[0].Max.Y, fig.tiles[1].Max.Y, a.Min.Y, a.Max.Y, b.Min.Y, b.Max.Y)
		}
		if fig.panels[0].Y.Label.Text != "mean_texture" || fig.panels[1].Y.Label.Text != "" {
			t.Errorf("y labels %q, %q: want the first panel's only", fig.panels[0].Y.Label.Text, fig.panels[1].Y.Label.Text)
		}
	}
}
