package plotting

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

func viewerTestCurve() *ViewerCurve {
	c := &ViewerCurve{Title: "density", XLabel: "x (cm)", YLabel: "density (1/cm)", BandSigmas: 2}
	for i := range 101 {
		x := float64(i) / 100
		c.X = append(c.X, x)
		c.Value = append(c.Value, math.Exp(-(x-0.6)*(x-0.6)/0.02)+0.1*math.Sin(20*x))
		c.Std = append(c.Std, 0.05+0.05*x)
	}
	return c
}

func viewerTestHeatmap(boundary bool) *ViewerHeatmap {
	h := &ViewerHeatmap{Title: "score", XLabel: "x1", YLabel: "x2", ColourLabel: "score",
		Contours: 6, Boundary: boundary, Diverging: true}
	for i := range 60 {
		h.X = append(h.X, float64(i)/59)
	}
	for j := range 40 {
		h.Y = append(h.Y, 10+float64(j)/39*5)
	}
	for _, x := range h.X {
		for _, y := range h.Y {
			h.Values = append(h.Values, (x-0.5)+(y-12.5)/5+0.1*math.Sin(6*x))
		}
	}
	return h
}

// viewerSave writes img into -plotdir for a human to look at.
func viewerSave(t *testing.T, name string, img image.Image) {
	t.Helper()
	if *plotDir == "" {
		return
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*plotDir, name+".png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// viewerCountNear counts pixels within tol (per 8-bit channel) of (r, g, b).
func viewerCountNear(img image.Image, r0, g0, b0 uint8, tol int) int {
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if abs8(int(r>>8)-int(r0)) <= tol && abs8(int(g>>8)-int(g0)) <= tol && abs8(int(b>>8)-int(b0)) <= tol {
				n++
			}
		}
	}
	return n
}

func abs8(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestRenderViewerCurveBand(t *testing.T) {
	s := Size{W: 640, H: 400, Scale: 1}
	c := viewerTestCurve()
	img, err := RenderViewer(c, Light(), s)
	if err != nil {
		t.Fatal(err)
	}
	viewerSave(t, "viewer-curve", img)
	if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 400 {
		t.Fatalf("image %v, want 640×400", b)
	}
	// The band is a translucent blue over white: (0x1e,0x88,0xe5) at alpha
	// 0x40 gives about (0xc7, 0xe1, 0xf8). Without a band there is none.
	withBand := viewerCountNear(img, 0xc7, 0xe1, 0xf8, 6)
	c.BandSigmas = 0
	img0, err := RenderViewer(c, Light(), s)
	if err != nil {
		t.Fatal(err)
	}
	without := viewerCountNear(img0, 0xc7, 0xe1, 0xf8, 6)
	if withBand < 2000 || without > withBand/20 {
		t.Errorf("band pixels: %d with band, %d without; want ≥ 2000 and a clear difference", withBand, without)
	}
}

func TestRenderViewerHeatmapBoundary(t *testing.T) {
	s := Size{W: 640, H: 420, Scale: 1}
	th := Dark()
	on, err := RenderViewer(viewerTestHeatmap(true), th, s)
	if err != nil {
		t.Fatal(err)
	}
	viewerSave(t, "viewer-heatmap", on)
	off, err := RenderViewer(viewerTestHeatmap(false), th, s)
	if err != nil {
		t.Fatal(err)
	}
	// The boundary is black; nothing else in the Dark theme is.
	nOn, nOff := viewerCountNear(on, 0, 0, 0, 24), viewerCountNear(off, 0, 0, 0, 24)
	if nOn < nOff+300 {
		t.Errorf("foreground pixels with boundary %d, without %d: the boundary is missing", nOn, nOff)
	}
}

func TestViewerContourLevels(t *testing.T) {
	h := &ViewerHeatmap{Contours: 4, Values: []float64{0, 0.13, 0.71, 1}}
	got := h.ContourLevels()
	want := []float64{0.2, 0.4, 0.6, 0.8}
	if len(got) != len(want) {
		t.Fatalf("levels %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("levels %v, want %v", got, want)
		}
	}
	if l := (&ViewerHeatmap{Contours: 4, Values: []float64{3, 3, 3, 3}}).ContourLevels(); l != nil {
		t.Errorf("constant map: levels %v, want none", l)
	}
	if l := (&ViewerHeatmap{Contours: 0, Values: []float64{0, 1}}).ContourLevels(); l != nil {
		t.Errorf("Contours 0: levels %v, want none", l)
	}
}

func TestViewerValidate(t *testing.T) {
	tests := []struct {
		name string
		f    ViewerFigure
		want string
	}{
		{"one x", &ViewerCurve{X: []float64{1}, Value: []float64{1}, Std: []float64{0}}, "need at least 2"},
		{"decreasing x", &ViewerCurve{X: []float64{1, 0}, Value: []float64{1, 1}, Std: []float64{0, 0}}, "x[1] = 0"},
		{"short std", &ViewerCurve{X: []float64{0, 1}, Value: []float64{1, 1}, Std: []float64{0}}, "one per x"},
		{"negative std", &ViewerCurve{X: []float64{0, 1}, Value: []float64{1, 1}, Std: []float64{0, -1}}, "std[1] = -1"},
		{"NaN sigmas", &ViewerCurve{X: []float64{0, 1}, Value: []float64{1, 1}, Std: []float64{0, 0}, BandSigmas: math.NaN()}, "band sigmas"},
		{"heatmap y", &ViewerHeatmap{X: []float64{0, 1}, Y: []float64{0}, Values: []float64{1, 2}}, "y axis has 1"},
		{"heatmap values", &ViewerHeatmap{X: []float64{0, 1}, Y: []float64{0, 1}, Values: []float64{1, 2}}, "want 2×2"},
		{"heatmap Inf x", &ViewerHeatmap{X: []float64{0, math.Inf(1)}, Y: []float64{0, 1}, Values: make([]float64, 4)}, "x[1] = +Inf"},
		{"heatmap contours", &ViewerHeatmap{X: []float64{0, 1}, Y: []float64{0, 1}, Values: make([]float64, 4), Contours: 99}, "contours = 99"},
	}
	for _, tc := range tests {
		err := tc.f.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
		if _, err := RenderViewer(tc.f, Light(), Size{W: 100, H: 100, Scale: 1}); err == nil {
			t.Errorf("%s: RenderViewer accepted an invalid figure", tc.name)
		}
	}
	if _, err := RenderViewer(viewerTestCurve(), Light(), Size{W: 10, H: 100, Scale: 1}); err == nil {
		t.Error("RenderViewer accepted a 10-pixel-wide image")
	}
}

func TestExportViewer(t *testing.T) {
	for _, f := range []ViewerFigure{viewerTestCurve(), viewerTestHeatmap(true)} {
		var buf bytes.Buffer
		if err := ExportViewer(&buf, f, Light(), FormatPNG, 6*vg.Inch, 4*vg.Inch); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("PNG export does not decode: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 864 || b.Dy() != 576 {
			t.Errorf("PNG export %v, want 864×576 (6×4 in at 144 dpi)", b)
		}
		buf.Reset()
		if err := ExportViewer(&buf, f, Light(), FormatSVG, 6*vg.Inch, 4*vg.Inch); err != nil {
			t.Fatal(err)
		}
		svg := buf.String()
		if !strings.Contains(svg, "<svg") || !strings.Contains(svg, `width="432pt"`) || !strings.HasSuffix(strings.TrimSpace(svg), "</svg>") {
			t.Errorf("SVG export looks wrong: %.200s…", svg)
		}
	}
	var buf bytes.Buffer
	if err := ExportViewer(&buf, viewerTestCurve(), Light(), "gif", 6*vg.Inch, 4*vg.Inch); err == nil || !strings.Contains(err.Error(), `"gif"`) {
		t.Errorf("gif: error %v, want a format error", err)
	}
	if err := ExportViewer(&buf, viewerTestCurve(), Light(), FormatPNG, 0, 4*vg.Inch); err == nil {
		t.Error("zero width accepted")
	}
}

// TestViewerSequentialIsViridis: the sequential scale is built from the
// viridis controls (NewLuminance accepts them), not the fallback.
func TestViewerSequentialIsViridis(t *testing.T) {
	cm := viewerSequential()
	cm.SetMin(0)
	cm.SetMax(1)
	c, err := cm.At(0)
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := c.RGBA()
	if abs8(int(r>>8)-0x44) > 3 || abs8(int(g>>8)-0x01) > 3 || abs8(int(b>>8)-0x54) > 3 {
		t.Errorf("colour at the minimum = (%d, %d, %d), want viridis' dark purple (68, 1, 84)", r>>8, g>>8, b>>8)
	}
}
