package plotting

import (
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -plotdir writes every rendered test image there for a human to look at.
var plotDir = flag.String("plotdir", "", "write rendered test plots as PNG files into this directory")

func save(t *testing.T, name string, img image.Image) {
	t.Helper()
	if *plotDir == "" {
		return
	}
	f, err := os.Create(filepath.Join(*plotDir, name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// distinctColours counts the distinct colours of img (capped at limit).
func distinctColours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bb, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bb, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// countNear counts pixels within tol (per 8-bit channel) of the colour.
func countNear(img image.Image, r0, g0, b0 uint8, tol int) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if abs(int(r>>8)-int(r0)) <= tol && abs(int(g>>8)-int(g0)) <= tol && abs(int(bb>>8)-int(b0)) <= tol {
				n++
			}
		}
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func linspace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = a + (b-a)*float64(i)/float64(n-1)
	}
	return out
}

func sampleTradeoff() *Tradeoff {
	eps := []float64{0.01, 0.0316, 0.1, 0.316, 1, 3.16, 10}
	t := &Tradeoff{Title: "k = 20", Epsilons: eps, MarkerEps: 1, MarkerErr: 0.2, MarkerLabel: "current"}
	for h := 1; h <= 5; h++ {
		y := make([]float64, len(eps))
		for i, e := range eps {
			y[i] = float64(h) / e * 0.1
		}
		t.Curves = append(t.Curves, Curve{Label: "h = " + string(rune('0'+h)), Y: y, Colour: h - 1})
	}
	lower := make([]float64, len(eps))
	for i, e := range eps {
		lower[i] = 0.01 / e
	}
	t.Curves = append(t.Curves, Curve{Label: "lower bound S/ε", Y: lower, Dashed: true, Colour: -1})
	return t
}

func TestRenderTradeoff(t *testing.T) {
	for _, th := range []struct {
		name  string
		theme Theme
	}{{"light", Light()}, {"dark", Dark()}} {
		img, err := RenderTradeoff(sampleTradeoff(), th.theme, Size{W: 640, H: 420, Scale: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := img.Bounds().Size(); got.X != 640 || got.Y != 420 {
			t.Fatalf("%s: size %v, want 640×420", th.name, got)
		}
		// The first series colour must actually be drawn (the curves are
		// not an empty plot) and the background must dominate.
		c := th.theme.Series[0]
		r, g, b, _ := c.RGBA()
		if n := countNear(img, uint8(r>>8), uint8(g>>8), uint8(b>>8), 30); n < 200 {
			t.Errorf("%s: only %d pixels of the h=1 colour: curve not drawn", th.name, n)
		}
		r, g, b, _ = th.theme.Background.RGBA()
		if n := countNear(img, uint8(r>>8), uint8(g>>8), uint8(b>>8), 2); n < 640*420/2 {
			t.Errorf("%s: only %d background pixels", th.name, n)
		}
		save(t, "tradeoff-"+th.name, img)
	}
}

func TestRenderHiDPI(t *testing.T) {
	img, err := RenderTradeoff(sampleTradeoff(), Light(), Size{W: 1280, H: 840, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Size(); got.X != 1280 || got.Y != 840 {
		t.Fatalf("size %v, want 1280×840", got)
	}
}

func TestValidationErrors(t *testing.T) {
	good := Size{W: 300, H: 200, Scale: 1}
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"tiny size", func() error {
			_, err := RenderTradeoff(sampleTradeoff(), Light(), Size{W: 3, H: 200, Scale: 1})
			return err
		}, "width and height"},
		{"zero scale", func() error { _, err := RenderTradeoff(sampleTradeoff(), Light(), Size{W: 300, H: 200}); return err }, "scale"},
		{"huge", func() error {
			_, err := RenderTradeoff(sampleTradeoff(), Light(), Size{W: 100000, H: 100000, Scale: 1})
			return err
		}, "area"},
		{"one epsilon", func() error { _, err := RenderTradeoff(&Tradeoff{Epsilons: []float64{1}}, Light(), good); return err }, "at least 2"},
		{"negative epsilon", func() error {
			_, err := RenderTradeoff(&Tradeoff{Epsilons: []float64{-1, 1}}, Light(), good)
			return err
		}, "epsilon[0] = -1"},
		{"decreasing epsilon", func() error {
			_, err := RenderTradeoff(&Tradeoff{Epsilons: []float64{2, 1}}, Light(), good)
			return err
		}, "increasing"},
		{"curve length", func() error {
			_, err := RenderTradeoff(&Tradeoff{Epsilons: []float64{1, 2}, Curves: []Curve{{Label: "h = 1", Y: []float64{1}}}}, Light(), good)
			return err
		}, `curve "h = 1" has 1 values`},
		{"function x", func() error {
			_, err := RenderFunction1D(&Function1D{X: []float64{0, 0}}, Light(), good)
			return err
		}, "x[1] = 0"},
		{"function release length", func() error {
			_, err := RenderFunction1D(&Function1D{X: []float64{0, 1}, Release: []float64{1}}, Light(), good)
			return err
		}, "release has 1 values"},
		{"function negative band", func() error {
			_, err := RenderFunction1D(&Function1D{X: []float64{0, 1}, Release: []float64{1, 1}, Band: []float64{1, -1}}, Light(), good)
			return err
		}, "band[1] = -1"},
		{"heatmap panels", func() error {
			_, err := RenderHeatmaps(&Heatmaps{X: []float64{0, 1}, Y: []float64{0, 1}}, Light(), good)
			return err
		}, "0 panels"},
		{"heatmap values", func() error {
			_, err := RenderHeatmaps(&Heatmaps{X: []float64{0, 1}, Y: []float64{0, 1}, Maps: []Heatmap{{Title: "a", Values: []float64{1}}}}, Light(), good)
			return err
		}, `panel "a" has 1 values`},
		{"heatmap axis", func() error {
			_, err := RenderHeatmaps(&Heatmaps{X: []float64{0, math.NaN()}, Y: []float64{0, 1}, Maps: []Heatmap{{Values: make([]float64, 4)}}}, Light(), good)
			return err
		}, "x[1] = NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestTradeoffSkipsNonPositive(t *testing.T) {
	tr := sampleTradeoff()
	tr.Curves[0].Y[2] = math.NaN()
	tr.Curves[1].Y[3] = 0
	tr.Curves[2].Y = []float64{-1, -1, -1, -1, -1, -1, -1} // nothing drawable
	if _, err := RenderTradeoff(tr, Light(), Size{W: 400, H: 300, Scale: 1}); err != nil {
		t.Fatal(err)
	}
	// All curves empty still renders an empty frame, no panic.
	empty := &Tradeoff{Epsilons: []float64{1, 2}, Curves: []Curve{{Y: []float64{math.NaN(), 0}}}}
	if _, err := RenderTradeoff(empty, Light(), Size{W: 400, H: 300, Scale: 1}); err != nil {
		t.Fatal(err)
	}
}

func TestRenderFunction1D(t *testing.T) {
	x := linspace(0, 1, 200)
	tr, rel, band := make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
	for i, v := range x {
		tr[i] = math.Exp(-(v - 0.5) * (v - 0.5) / 0.02)
		rel[i] = tr[i] + 0.05*math.Sin(20*v)
		band[i] = 0.1
	}
	rel[50] = math.NaN() // breaks the line, must not fail
	f := &Function1D{Title: "density", XLabel: "x", YLabel: "density", X: x, True: tr, Release: rel, Band: band, BandLabel: "±2 std"}
	for _, th := range []Theme{Light(), Dark()} {
		img, err := RenderFunction1D(f, th, Size{W: 600, H: 400, Scale: 1})
		if err != nil {
			t.Fatal(err)
		}
		if n := distinctColours(img, 50); n < 10 {
			t.Errorf("only %d colours: plot looks empty", n)
		}
		name := "function-light"
		if th.Dark {
			name = "function-dark"
		}
		save(t, name, img)
	}
	// The viewer has no true function.
	f.True = nil
	if _, err := RenderFunction1D(f, Light(), Size{W: 300, H: 200, Scale: 1}); err != nil {
		t.Fatal(err)
	}
}

func TestRenderHeatmaps(t *testing.T) {
	x, y := linspace(0, 1, 60), linspace(-2, 2, 50)
	a, b := make([]float64, len(x)*len(y)), make([]float64, len(x)*len(y))
	for i, xv := range x {
		for j, yv := range y {
			a[i*len(y)+j] = xv - 0.5 + 0.2*yv
			b[i*len(y)+j] = a[i*len(y)+j] + 0.05*math.Sin(10*xv)
		}
	}
	h := &Heatmaps{XLabel: "x1", YLabel: "x2", X: x, Y: y,
		Maps:     []Heatmap{{Title: "true", Values: a}, {Title: "release", Values: b}},
		Boundary: true, Diverging: true, ColourLabel: "score", MarkerOn: true, MarkerX: 0.5, MarkerY: 0}
	img, err := RenderHeatmaps(h, Light(), Size{W: 800, H: 380, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n := distinctColours(img, 100); n < 50 {
		t.Errorf("only %d colours: heatmap looks empty", n)
	}
	save(t, "heatmaps", img)
	// Constant values (degenerate colour range) still render.
	h.Maps = []Heatmap{{Title: "flat", Values: make([]float64, len(x)*len(y))}}
	h.Diverging = false
	img, err = RenderHeatmaps(h, Dark(), Size{W: 400, H: 300, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	save(t, "heatmap-flat-dark", img)
}

func BenchmarkRenderTradeoff(b *testing.B) {
	tr := sampleTradeoff()
	for b.Loop() {
		if _, err := RenderTradeoff(tr, Light(), Size{W: 640, H: 420, Scale: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderHeatmaps(b *testing.B) {
	x := linspace(0, 1, 100)
	v := make([]float64, 100*100)
	for i := range v {
		v[i] = math.Sin(float64(i))
	}
	h := &Heatmaps{X: x, Y: x, Maps: []Heatmap{{Values: v}, {Values: v}}, Boundary: true, Diverging: true}
	for b.Loop() {
		if _, err := RenderHeatmaps(h, Light(), Size{W: 800, H: 400, Scale: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
