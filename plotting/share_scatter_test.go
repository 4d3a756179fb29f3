package plotting

import (
	"strings"
	"testing"
)

// TestRenderShareTradeoff: a share plot (a classifier's agreement) draws
// values in [0, 1] on a linear axis, including exact 0 and 1, and skips
// values outside; the error-vs-k use of the same plot takes its own x
// label.
func TestRenderShareTradeoff(t *testing.T) {
	eps := []float64{0.1, 0.3, 1, 3}
	for _, tc := range []struct {
		name  string
		y     []float64
		drawn bool
	}{
		{"agreement", []float64{0, 0.5, 0.9, 1}, true},
		{"outside [0,1] only", []float64{-0.1, 1.5, 2, 3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &Tradeoff{Title: "agreement", Epsilons: eps, Share: true, XLabel: "cover size k (log scale)",
				YLabel: "agreement", Curves: []Curve{{Label: "h = 1", Y: tc.y, Colour: 0, Width: 3}}, MarkerEps: 1, MarkerErr: 0.9}
			img, err := RenderTradeoff(tr, Light(), Size{W: 480, H: 320, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			r, g, b, _ := Light().Series[0].RGBA()
			n := countNear(img, uint8(r>>8), uint8(g>>8), uint8(b>>8), 30)
			if tc.drawn && n < 150 {
				t.Errorf("only %d pixels of the curve's colour: not drawn", n)
			}
			if !tc.drawn && n > 60 { // the legend's sample line only
				t.Errorf("%d pixels of the curve's colour: values outside [0, 1] drawn", n)
			}
			save(t, "share-"+strings.ReplaceAll(tc.name, " ", "-"), img)
		})
	}
}

// TestRenderFunctionScatter: the data's scatter is drawn beneath the
// curves (in the muted colour) and its shape is validated.
func TestRenderFunctionScatter(t *testing.T) {
	x := linspace(0, 10, 50)
	rel := make([]float64, len(x))
	for i, v := range x {
		rel[i] = v / 2
	}
	var sx, sy []float64
	for i := range 300 {
		sx = append(sx, float64(i%100)/10)
		sy = append(sy, float64(i%100)/20+float64(i%7)-3)
	}
	size := Size{W: 480, H: 320, Scale: 1}
	mr, mg, mb, _ := Light().Muted.RGBA()
	muted := func(f *Function1D) int {
		img, err := RenderFunction1D(f, Light(), size)
		if err != nil {
			t.Fatal(err)
		}
		save(t, "function-scatter", img)
		return countNear(img, uint8(mr>>8), uint8(mg>>8), uint8(mb>>8), 20)
	}
	without := muted(&Function1D{X: x, Release: rel})
	with := muted(&Function1D{X: x, Release: rel, ScatterX: sx, ScatterY: sy, ScatterLabel: "data (curator only)"})
	if with < without+300 {
		t.Errorf("%d muted pixels with the scatter, %d without: scatter not drawn", with, without)
	}
	_, err := RenderFunction1D(&Function1D{X: x, Release: rel, ScatterX: sx, ScatterY: sy[:3]}, Light(), size)
	if err == nil || !strings.Contains(err.Error(), "scatter") {
		t.Errorf("mismatched scatter: error %v, want one naming the scatter", err)
	}
}
