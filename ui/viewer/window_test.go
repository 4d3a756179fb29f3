package viewer

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/plotting"
)

// newTestViewer opens path in a viewer window of a headless test app,
// trusting the keys in trustPath, and waits until verification is done.
func newTestViewer(t *testing.T, trustPath, path string) *viewer {
	t.Helper()
	a := test.NewTempApp(t)
	v := newViewer(a, viewerConfig{trustPath: trustPath})
	v.win.Show()
	t.Cleanup(func() { v.wait(); v.win.Close() })
	if path != "" {
		v.open(path)
		v.wait()
	}
	return v
}

// setEntry replaces an entry's text by typing, as a user would.
func setEntry(e *widget.Entry, s string) {
	e.SetText("")
	test.Type(e, s)
}

// labelTexts collects the text of every label under o.
func labelTexts(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Label:
			b.WriteString(w.Text + "\n")
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		}
	}
	walk(o)
	return b.String()
}

// widgetTexts collects the text of every label and canvas text under o,
// looking inside widgets (dialogs, forms: forms name their fields with
// canvas texts) through their renderers.
func widgetTexts(t *testing.T, o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *canvas.Text:
			b.WriteString(w.Text + "\n")
		case *widget.Label:
			b.WriteString(w.Text + "\n")
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.TempWidgetRenderer(t, w).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return b.String()
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestViewerTrustedFlow opens a valid, trusted file and drives the viewer:
// metadata, a single query (valid and invalid input), a batch from CSV with
// export, and the plot with PNG and SVG export. The synopsis file is never
// changed.
func TestViewerTrustedFlow(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 1)
	path := viewerFixtureKDE.write(t, dir, signer)
	before := viewerFileBytes(t, path)
	trust := viewerTrustFile(t, dir, "curator@example.org", signer)
	v := newTestViewer(t, trust, path)

	if v.doc.State != viewerTrusted {
		t.Fatalf("state %v (%s: %s), want trusted", v.doc.State, v.doc.Headline, v.doc.Detail)
	}
	banner := labelTexts(v.banner)
	for _, want := range []string{"Signature valid", "curator@example.org", v.doc.Verified.Fingerprint} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner %q lacks %q", banner, want)
		}
	}
	if !strings.Contains(v.win.Title(), "Test release kde-1d") {
		t.Errorf("title %q", v.win.Title())
	}

	// Metadata panel.
	rows := map[string]string{}
	for _, r := range v.details.rows {
		rows[r.Label] = r.Value
	}
	for label, want := range map[string]string{
		"Title": "Test release kde-1d", "Learner": "Kernel density estimate (kde)", "Privacy ε": "1",
		"Cover size k": "20 (21 lattice values)", "Bernstein order h": "2", "Records n": "1234",
		"App version": "test", "Created": "2026-01-02T03:04:05Z",
		"For one person": "at most 2.72× more or less likely",
	} {
		if !strings.Contains(rows[label], want) {
			t.Errorf("details %s = %q, want it to contain %q", label, rows[label], want)
		}
	}
	if !strings.HasPrefix(rows["Bounds from data"], "no") {
		t.Errorf("bounds from data: %q", rows["Bounds from data"])
	}

	// Single query: the midpoint is evaluated at once; then a typed point.
	if v.query.last == nil {
		t.Fatal("no value shown for the prefilled midpoint")
	}
	setEntry(v.query.entries[0], "7.25")
	wantV, wantS, err := v.doc.Verified.EvalData([]float64{7.25})
	if err != nil {
		t.Fatal(err)
	}
	if v.query.last == nil || v.query.last.Value != wantV || v.query.last.NoiseStd != wantS {
		t.Fatalf("query 7.25: got %+v, want value %g std %g", v.query.last, wantV, wantS)
	}
	if v.query.value.Text != viewerNum(wantV) || !strings.Contains(v.query.band.Text, viewerNum(wantV-2*wantS)) {
		t.Errorf("shown value %q band %q; want %s ± 2·%s", v.query.value.Text, v.query.band.Text, viewerNum(wantV), viewerNum(wantS))
	}
	setEntry(v.query.entries[0], "11")
	if v.query.last != nil || !strings.Contains(v.query.status.Text, "outside the public bounds [0, 10] cm") {
		t.Errorf("out-of-bounds query: last %+v, status %q", v.query.last, v.query.status.Text)
	}
	if v.query.entries[0].Validate() == nil {
		t.Error("entry validator accepts 11 outside [0, 10]")
	}
	setEntry(v.query.entries[0], "2")
	test.Tap(findButton(t, v.query.content, "Evaluate"))
	if v.query.last == nil || v.query.last.X[0] != 2 {
		t.Errorf("after Evaluate: %+v", v.query.last)
	}

	// Batch: a CSV with an extra text column; columns matched by name.
	qpath := filepath.Join(dir, "queries.csv")
	var q strings.Builder
	q.WriteString("id,length\n")
	const n = 500
	for i := range n {
		fmt.Fprintf(&q, "p%d,%g\n", i, 10*float64(i)/(n-1))
	}
	if err := os.WriteFile(qpath, []byte(q.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v.batch.load(qpath)
	v.wait()
	if v.batch.evalBt.Disabled() || !strings.Contains(v.batch.info.Text, "500 rows") {
		t.Fatalf("after load: evaluate disabled=%v, info %q", v.batch.evalBt.Disabled(), v.batch.info.Text)
	}
	test.Tap(v.batch.evalBt)
	v.wait()
	if v.batch.result == nil || v.batch.result.Len() != n {
		t.Fatalf("batch: status %q", v.batch.status.Text)
	}
	for i := range n {
		x := 10 * float64(i) / (n - 1)
		wv, ws, _ := v.doc.Verified.EvalData([]float64{x})
		if !closeTo(v.batch.result.Value[i], wv) || !closeTo(v.batch.result.NoiseStd[i], ws) {
			t.Fatalf("row %d: (%g, %g), want (%g, %g)", i, v.batch.result.Value[i], v.batch.result.NoiseStd[i], wv, ws)
		}
	}
	if v.batch.progress.Value != 1 || v.batch.exportBt.Disabled() {
		t.Errorf("after evaluation: progress %g, export disabled %v", v.batch.progress.Value, v.batch.exportBt.Disabled())
	}
	out := filepath.Join(dir, "results.csv")
	v.batch.export(out)
	v.wait()
	recs := readCSVFile(t, out)
	if strings.Join(recs[0], ",") != "length,value,noise_std" || len(recs) != n+1 {
		t.Fatalf("export: header %v, %d records", recs[0], len(recs))
	}
	for i, rec := range recs[1:] {
		got, _ := strconv.ParseFloat(rec[1], 64)
		if got != v.batch.result.Value[i] {
			t.Fatalf("export row %d value %q, want %v", i, rec[1], v.batch.result.Value[i])
		}
	}

	// Plot: a curve with its band; export as PNG and SVG.
	v.tabs.SelectIndex(3)
	v.wait()
	c, ok := v.plot.fig.(*plotting.ViewerCurve)
	if !ok || v.plot.img == nil {
		t.Fatalf("plot: figure %T, image %v; status %q", v.plot.fig, v.plot.img != nil, v.plot.status.Text)
	}
	if len(c.X) != viewerCurvePoints || c.X[0] != 0 || c.X[len(c.X)-1] != 10 || c.BandSigmas != 2 || !c.MarkOn {
		t.Errorf("curve: %d points over [%g, %g], band %g, mark %v", len(c.X), c.X[0], c.X[len(c.X)-1], c.BandSigmas, c.MarkOn)
	}
	for _, format := range []string{plotting.FormatPNG, plotting.FormatSVG} {
		p := filepath.Join(dir, "plot."+format)
		v.plot.export(p, format)
		v.wait()
		data := viewerFileBytes(t, p)
		if format == plotting.FormatPNG {
			if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("PNG export: %v", err)
			}
		} else if !bytes.Contains(data, []byte("<svg")) {
			t.Errorf("SVG export is not SVG: %.100s", data)
		}
	}

	if !bytes.Equal(before, viewerFileBytes(t, path)) {
		t.Error("the viewer changed the synopsis file")
	}
}

// TestViewerTamperedFile: a file changed after signing shows the invalid
// state with its reason, and nothing of its content is shown or evaluated.
func TestViewerTamperedFile(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 2)
	path := viewerFixtureKDE.write(t, dir, signer)
	trust := viewerTrustFile(t, dir, "curator@example.org", signer)
	data := viewerFileBytes(t, path)
	// Change one lattice value: the first line after the metadata.
	i := bytes.Index(data, []byte("\n}\n")) + 3
	tampered := append([]byte(nil), data...)
	if tampered[i] == '1' {
		tampered[i] = '2'
	} else {
		tampered[i] = '1'
	}
	bad := filepath.Join(dir, "tampered.synopsis")
	if err := os.WriteFile(bad, tampered, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, path, want string
	}{
		{"tampered", bad, "signature does not verify"},
		{"missing", filepath.Join(dir, "nope.synopsis"), "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newTestViewer(t, trust, tc.path)
			if v.doc.State != viewerInvalid || v.doc.Verified != nil || v.doc.Release != nil {
				t.Fatalf("state %v, verified %v", v.doc.State, v.doc.Verified != nil)
			}
			if v.tabs != nil || v.query != nil || v.batch != nil || v.plot != nil || v.details != nil {
				t.Error("content tabs exist for an invalid file")
			}
			banner := labelTexts(v.banner)
			if !strings.Contains(banner, tc.want) {
				t.Errorf("banner %q lacks %q", banner, tc.want)
			}
			body := labelTexts(v.body)
			if strings.Contains(body, "Test release") || strings.Contains(body+banner, "length") {
				t.Errorf("invalid file's content is shown: %q", body)
			}
			if !strings.Contains(v.win.Title(), "INVALID") && tc.name == "tampered" {
				t.Errorf("title %q", v.win.Title())
			}
		})
	}
}

// TestViewerUntrustedCanBeTrusted: a valid file from an unknown key shows
// its fingerprint and the offer to trust it; trusting it writes the
// allowed_signers file and the file then shows as trusted.
func TestViewerUntrustedCanBeTrusted(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 3)
	path := viewerFixtureSVM.write(t, dir, signer)
	trust := filepath.Join(dir, "config", "allowed_signers") // does not exist yet
	v := newTestViewer(t, trust, path)
	if v.doc.State != viewerUntrusted {
		t.Fatalf("state %v, want untrusted", v.doc.State)
	}
	fp := v.doc.Verified.Fingerprint
	if !strings.Contains(labelTexts(v.banner), fp) || !strings.Contains(v.win.Title(), "untrusted") {
		t.Errorf("banner lacks the fingerprint %s or title %q lacks 'untrusted'", fp, v.win.Title())
	}
	if v.tabs == nil {
		t.Fatal("a valid untrusted file shows no content")
	}
	if v.trustBt == nil {
		t.Fatal("no Trust button")
	}
	test.Tap(v.trustBt)
	if top := v.win.Canvas().Overlays().Top(); top == nil {
		t.Error("Trust this key… opened no dialog")
	}
	if err := v.trust("has space"); err == nil {
		t.Error("a principal with a space was accepted")
	}
	if err := v.trust("alice@example.org"); err != nil {
		t.Fatal(err)
	}
	v.wait()
	if v.doc.State != viewerTrusted || v.doc.Verified.Principal != "alice@example.org" {
		t.Fatalf("after trusting: state %v principal %q", v.doc.State, v.doc.Verified.Principal)
	}
	data := string(viewerFileBytes(t, trust))
	if !strings.Contains(data, `alice@example.org namespaces="bernstein-synopsis" ssh-ed25519 `) {
		t.Errorf("allowed_signers: %q", data)
	}
}

// TestViewerClassifier2D: a 2-D classifier shows the class of a query, a
// heatmap with the decision boundary, and warns that a bound came from data.
func TestViewerClassifier2D(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 4)
	path := viewerFixtureSVM.write(t, dir, signer)
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	var warned bool
	for _, r := range v.details.rows {
		warned = warned || (r.Label == "Bounds from data" && r.Warn && strings.HasPrefix(r.Value, "YES"))
	}
	if !warned {
		t.Error("bounds taken from data are not flagged")
	}
	setEntry(v.query.entries[0], "0.9")
	setEntry(v.query.entries[1], "4")
	if v.query.last == nil || v.query.last.Class != "sick" || v.query.class.Text != "sick" {
		t.Errorf("class at (0.9, 4): %+v, label %q; want sick", v.query.last, v.query.class.Text)
	}
	setEntry(v.query.entries[1], "-5")
	setEntry(v.query.entries[0], "0")
	if v.query.last == nil || v.query.last.Class != "healthy" {
		t.Errorf("class at (0, -5): %+v; want healthy", v.query.last)
	}
	v.plot.ensure()
	v.wait()
	h, ok := v.plot.fig.(*plotting.ViewerHeatmap)
	if !ok {
		t.Fatalf("figure %T, status %q", v.plot.fig, v.plot.status.Text)
	}
	if !h.Boundary || h.BoundaryLevel != 0 || !h.Diverging || h.Contours == 0 || !h.MarkOn || h.MarkX != 0 || h.MarkY != -5 {
		t.Errorf("heatmap: boundary %v at %g, diverging %v, contours %d, mark %v (%g, %g)", h.Boundary, h.BoundaryLevel, h.Diverging, h.Contours, h.MarkOn, h.MarkX, h.MarkY)
	}
	// Values are the release's: check one grid point.
	want, _, _ := v.doc.Verified.EvalData([]float64{h.X[7], h.Y[9]})
	if got := h.Values[7*len(h.Y)+9]; !closeTo(got, want) {
		t.Errorf("heatmap value %g, want %g", got, want)
	}
}

// TestViewerSlices3D: with ℓ = 3 the plot is a slice; the slider of the
// axis not plotted moves the slice; changing the axes swaps the sliders.
func TestViewerSlices3D(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 5)
	path := viewerFixtureRidge.write(t, dir, signer)
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	if got := v.doc.Release.outputLabel(); !strings.HasSuffix(got, "(€)") {
		t.Errorf("regression output %q: want the label's unit (€)", got)
	}
	p := v.plot
	p.ensure()
	v.wait()
	if p.rows[2].Hidden || !p.rows[0].Hidden || !p.rows[1].Hidden {
		t.Fatal("with axes a×b only the slider of c should show")
	}
	p.sliders[2].SetValue(0.5)
	v.wait()
	h := p.fig.(*plotting.ViewerHeatmap)
	if !strings.Contains(h.Title, "c = 0.5") || h.Boundary {
		t.Errorf("slice title %q, boundary %v", h.Title, h.Boundary)
	}
	want, _, _ := v.doc.Verified.EvalData([]float64{h.X[3], h.Y[4], 0.5})
	if got := h.Values[3*len(h.Y)+4]; !closeTo(got, want) {
		t.Errorf("slice value %g, want %g", got, want)
	}
	p.xSel.SetSelected("c")
	v.wait()
	if p.spec.AX != 2 || p.spec.AY != 1 || p.rows[2].Visible() || !p.rows[0].Visible() {
		t.Errorf("after choosing c: axes (%d, %d), rows hidden %v %v %v", p.spec.AX, p.spec.AY, p.rows[0].Hidden, p.rows[1].Hidden, p.rows[2].Hidden)
	}
	p.ySel.SetSelected("c") // same as x: swaps
	v.wait()
	if p.spec.AX != 1 || p.spec.AY != 2 {
		t.Errorf("choosing c for both axes: axes (%d, %d), want (1, 2)", p.spec.AX, p.spec.AY)
	}
	if h := p.fig.(*plotting.ViewerHeatmap); h.XLabel != "b" || h.YLabel != "c (s)" || !strings.Contains(h.Title, "a = 0.5") {
		t.Errorf("after swap: %q vs %q, title %q", h.XLabel, h.YLabel, h.Title)
	}
}

// TestViewerBatchErrorsShown: a query file with a missing column or rows
// outside the bounds explains why and cannot be evaluated.
func TestViewerBatchErrorsShown(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 6)
	path := viewerFixtureSVM.write(t, dir, signer)
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	for _, tc := range []struct{ name, csv, want string }{
		{"missing column", "x1,y\n0.5,1\n", `"x2"`},
		{"out of bounds", "x2,x1\n0,0.5\n6,0.5\n0,1.5\n", "2 rows cannot be evaluated (lines 3, 4)"},
		{"not a number", "x1,x2\n0.5,abc\n", `"abc"`},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".csv")
		if err := os.WriteFile(p, []byte(tc.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		v.batch.load(p)
		v.wait()
		if !v.batch.evalBt.Disabled() || !strings.Contains(v.batch.info.Text, tc.want) {
			t.Errorf("%s: evaluate enabled=%v, info %q; want it to mention %s", tc.name, !v.batch.evalBt.Disabled(), v.batch.info.Text, tc.want)
		}
	}
	// Columns in another order are matched by name, class column exported.
	p := filepath.Join(dir, "ok.csv")
	if err := os.WriteFile(p, []byte("x2,note,x1\n4,a,0.9\n-5,b,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.dropped([]fyne.URI{storage.NewFileURI(p)})
	v.wait()
	test.Tap(v.batch.evalBt)
	v.wait()
	if b := v.batch.result; b == nil || b.X[0] != 0.9 || b.X[1] != 4 || b.Class[0] != "sick" || b.Class[1] != "healthy" {
		t.Fatalf("batch by name: %+v (status %q)", v.batch.result, v.batch.status.Text)
	}
	out := filepath.Join(dir, "out.csv")
	v.batch.export(out)
	v.wait()
	recs := readCSVFile(t, out)
	if strings.Join(recs[0], ",") != "x1,x2,value,noise_std,class" || recs[1][4] != "sick" {
		t.Errorf("export: %v", recs)
	}
}

// TestViewerDropAndMenu: dropping a synopsis opens it; the File menu has
// Open, Trusted Keys and Close.
func TestViewerDropAndMenu(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 7)
	path := viewerFixtureKDE.write(t, dir, signer)
	v := newTestViewer(t, "", "")
	if v.doc != nil || !strings.Contains(labelTexts(v.banner), "No synopsis open") {
		t.Fatal("empty viewer should invite to open a file")
	}
	v.dropped([]fyne.URI{storage.NewFileURI(filepath.Join(dir, "x.txt")), storage.NewFileURI(path)})
	v.wait()
	if v.doc == nil || v.doc.State != viewerUntrusted {
		t.Fatalf("dropped file not opened: %+v", v.doc)
	}
	var items []string
	for _, it := range v.win.MainMenu().Items[0].Items {
		items = append(items, it.Label)
	}
	if got := strings.Join(items, "|"); got != "Open Synopsis…|Trusted Keys…||Close Window" {
		t.Errorf("File menu %q", got)
	}
}

func TestRunViewerMissingFile(t *testing.T) {
	err := Run(filepath.Join(t.TempDir(), "missing.synopsis"))
	if err == nil || !os.IsNotExist(err) {
		t.Errorf("Run(missing) = %v, want a not-exist error", err)
	}
	if err := Run(t.TempDir()); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Run(dir) = %v", err)
	}
}

func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// findButton finds the button with the given text under o.
func findButton(t *testing.T, o fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	var found *widget.Button
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if found != nil {
			return
		}
		switch w := o.(type) {
		case *widget.Button:
			if w.Text == text {
				found = w
			}
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case fyne.Widget:
			r := test.TempWidgetRenderer(t, w)
			for _, c := range r.Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	if found == nil {
		t.Fatalf("no button %q", text)
	}
	return found
}

// gatedEval blocks every evaluation until gate is closed, so a test can
// observe the window while a batch is still running.
type gatedEval struct {
	viewerEvaluator
	gate chan struct{}
}

func (g gatedEval) EvalData(x []float64) (float64, float64, error) {
	<-g.gate
	return g.viewerEvaluator.EvalData(x)
}

// TestViewerBatchRunsInBackground: Evaluate returns at once while the
// batch runs off the UI goroutine (the window stays responsive), shows
// progress and can be cancelled.
func TestViewerBatchRunsInBackground(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 13)
	path := viewerFixtureKDE.write(t, dir, signer)
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	var q strings.Builder
	q.WriteString("length\n")
	for i := range 50_000 {
		fmt.Fprintf(&q, "%g\n", float64(i%1000)/100)
	}
	qpath := filepath.Join(dir, "q.csv")
	if err := os.WriteFile(qpath, []byte(q.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	v.batch.load(qpath)
	v.wait()
	gate := make(chan struct{})
	v.batch.r.eval = gatedEval{viewerEvaluator: v.batch.r.eval, gate: gate}

	test.Tap(v.batch.evalBt) // returns although no row can be evaluated yet
	if v.batch.cancelBt.Disabled() || !v.batch.evalBt.Disabled() || v.batch.status.Text != "Evaluating…" {
		t.Fatalf("while running: cancel disabled %v, evaluate disabled %v, status %q",
			v.batch.cancelBt.Disabled(), v.batch.evalBt.Disabled(), v.batch.status.Text)
	}
	test.Tap(v.batch.cancelBt)
	close(gate)
	v.wait()
	if v.batch.result != nil || v.batch.status.Text != "Cancelled." || v.batch.evalBt.Disabled() {
		t.Errorf("after cancel: result %v, status %q", v.batch.result != nil, v.batch.status.Text)
	}
	test.Tap(v.batch.evalBt)
	v.wait()
	if v.batch.result == nil || v.batch.result.Len() != 50_000 || v.batch.progress.Value != 1 {
		t.Errorf("second run: status %q progress %g", v.batch.status.Text, v.batch.progress.Value)
	}
}

// TestViewerFmtK: the cover size multiplies as shown, k+1 points per axis
// (walkthrough 12: "4 × 4 (25 lattice values)"), and the value does not
// repeat the row's "k" (it read "Cover size k: k = 4 × 4 …").
func TestViewerFmtK(t *testing.T) {
	for _, tc := range []struct {
		k    []int
		want string
	}{
		{[]int{20}, "20 (21 lattice values)"},
		{[]int{4, 4}, "4 × 4 (5 × 5 = 25 lattice values)"},
		{[]int{1, 1}, "1 × 1 (2 × 2 = 4 lattice values)"},
		{[]int{2, 3, 1}, "2 × 3 × 1 (3 × 4 × 2 = 24 lattice values)"},
	} {
		if got := viewerFmtK(tc.k); got != tc.want {
			t.Errorf("viewerFmtK(%v) = %q, want %q", tc.k, got, tc.want)
		}
	}
}

// TestViewerBatchChooseTypedPath: Choose Query CSV… opens the typed-path
// Open dialog in the synopsis's folder; typing a file name and Enter
// loads it (walkthrough 12: it started in $HOME and took no typed path).
func TestViewerBatchChooseTypedPath(t *testing.T) {
	dir := t.TempDir()
	signer := viewerTestSigner(t, 6)
	path := viewerFixtureSVM.write(t, dir, signer)
	v := newTestViewer(t, viewerTrustFile(t, dir, "c@example.org", signer), path)
	q := filepath.Join(dir, "queries.csv")
	if err := os.WriteFile(q, []byte("x1,x2\n0.5,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var choose *widget.Button
	var find func(o fyne.CanvasObject)
	find = func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Choose Query CSV…" {
			choose = b
		}
		if c, ok := o.(*fyne.Container); ok {
			for _, o := range c.Objects {
				find(o)
			}
		}
	}
	find(v.batch.content)
	if choose == nil {
		t.Fatal("no Choose Query CSV… button in the batch tab")
	}
	test.Tap(choose)
	fl := v.batch.openFlow
	if fl == nil || !fl.Dlg.Visible() {
		t.Fatal("Choose Query CSV… shows no Open dialog")
	}
	if want := dir + string(filepath.Separator); fl.Path.Text != want {
		t.Errorf("the path starts as %q, want the synopsis's folder %q", fl.Path.Text, want)
	}
	test.Type(fl.Path, "queries.csv")
	test.Tap(fl.Dlg.Button("Open"))
	v.wait()
	if v.batch.path != q || v.batch.data == nil {
		t.Errorf("typed path: loaded %q (data %v), want %q", v.batch.path, v.batch.data != nil, q)
	}
}
