package plotting

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestTradeoffShortPlotKeepsData renders a tradeoff with a 10-entry
// legend at the size the curator's preview gives it at 1024×700 (about
// 490×320 px; walkthrough REPORT 9: the legend left the data 30 px) and
// checks, from the drawn layout, that the legend takes at most a quarter
// of the height and the data area at least 45%; a tall plot keeps every
// legend entry.
func TestTradeoffShortPlotKeepsData(t *testing.T) {
	eps := []float64{0.03, 0.1, 0.3, 1, 3, 10, 30}
	var curves []Curve
	for h := 1; h <= 9; h++ {
		y := make([]float64, len(eps))
		for i := range y {
			y[i] = 0.5 + 0.04*float64(h) - 0.01*float64(i)
		}
		curves = append(curves, Curve{Label: fmt.Sprintf("agreement, h = %d, a long description of the curve", h), Y: y})
	}
	tr := &Tradeoff{Title: "Agreement vs privacy: k = 2, mean of 200 simulated releases", Epsilons: eps, Curves: curves,
		Share: true, MarkerEps: 1, MarkerErr: 0.6, MarkerLabel: "your setting (ε = 1, h = 1)"}
	for _, tc := range []struct {
		size    Size
		minData float64
	}{
		{Size{W: 490, H: 320, Scale: 1}, 0.45},
		{Size{W: 490, H: 240, Scale: 1}, 0.35},
		{Size{W: 980, H: 640, Scale: 2}, 0.45},
	} {
		var img, data, leg vg.Length
		drawnLayout = func(i, d, l vg.Length) { img, data, leg = i, d, l }
		if _, err := RenderTradeoff(tr, Dark(), tc.size); err != nil {
			t.Fatal(err)
		}
		drawnLayout = nil
		if img == 0 || leg > legendMaxShare*img+1e-9 || float64(data/img) < tc.minData {
			t.Errorf("%+v: image %.0f, data area %.0f (%.0f%%, want ≥ %.0f%%), legend %.0f (want ≤ %.0f%%)",
				tc.size, img, data, 100*data/img, 100*tc.minData, leg, 100*legendMaxShare)
		}
	}
}

// TestWrapTitle: a title wider than the plot is wrapped at spaces to lines
// no wider than it (walkthrough: "Error against k" was cut on the left).
func TestWrapTitle(t *testing.T) {
	p := newPlot(Light(), "Error against k: mean absolute error of 200 simulated releases at ε = 1, h = 1", "", "")
	w := vg.Points(180)
	wrapTitle(p, w)
	lines := strings.Split(p.Title.Text, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "Error against k") {
		t.Fatalf("title %q not wrapped", p.Title.Text)
	}
	for _, l := range lines {
		if p.Title.TextStyle.Width(l) > w {
			t.Errorf("title line %q is wider than %v", l, w)
		}
	}
}
