package curator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestPreviewSaysWhatItIs: on the private data the preview states that
// settings chosen from it are not covered by ε and points to the private
// choice; on the uniform stand-in the plots and the notice say so, and the
// fit sees the stand-in, not the private data.
func TestPreviewSaysWhatItIs(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	res := f.preview()
	p := c.preview
	if !strings.Contains(p.standIn.notice.Text, "settings chosen from this preview are not covered by ε; use Choose privately… to pick them under DP") {
		t.Fatalf("notice on the private data: %q", p.standIn.notice.Text)
	}
	if strings.Contains(res.Tradeoff.Title, "stand-in") {
		t.Fatalf("private preview marked as a stand-in: %q", res.Tradeoff.Title)
	}
	privateTruth := res.Function.True
	f.do(func() { p.standIn.choice.SetSelected(previewOnUniform) })
	res = f.preview()
	if !strings.Contains(res.Tradeoff.Title, "public stand-in: uniform sample") || !strings.Contains(res.Function.Title, "stand-in") {
		t.Fatalf("stand-in plots not marked: %q, %q", res.Tradeoff.Title, res.Function.Title)
	}
	if !strings.Contains(p.standIn.notice.Text, "uniform sample within the public bounds") {
		t.Errorf("notice on the stand-in: %q", p.standIn.notice.Text)
	}
	if res.N != c.ds.Rows {
		t.Errorf("stand-in n = %d, want the public n = %d", res.N, c.ds.Rows)
	}
	same := len(privateTruth) == len(res.Function.True)
	for i := 0; same && i < len(privateTruth); i++ {
		same = privateTruth[i] == res.Function.True[i]
	}
	if same {
		t.Error("the stand-in preview shows the private F_D")
	}
	// Back to the private data.
	f.do(func() { p.standIn.choice.SetSelected(previewOnPrivate) })
	res = f.preview()
	if strings.Contains(res.Tradeoff.Title, "stand-in") || !strings.Contains(p.standIn.notice.Text, "not covered by ε") {
		t.Errorf("back on the private data: %q, %q", res.Tradeoff.Title, p.standIn.notice.Text)
	}
}

// TestPreviewPublicCSVStandIn: a public CSV of the same columns replaces
// the private data in the preview, marked with its name.
func TestPreviewPublicCSVStandIn(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.preview()
	path := filepath.Join(t.TempDir(), "public.csv")
	var b strings.Builder
	b.WriteString("x\n")
	for i := range 300 {
		fmt.Fprintf(&b, "%.2f\n", float64(i%100)/100)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.ReadCSV(path, dataset.CSVOptions{Columns: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.preview.usePublicCSV(ds) })
	res := f.preview()
	if !strings.Contains(res.Tradeoff.Title, "public stand-in: "+path) || res.N != 300 {
		t.Fatalf("public CSV preview: title %q, n %d", res.Tradeoff.Title, res.N)
	}
	if !strings.Contains(c.preview.standIn.notice.Text, path) {
		t.Errorf("notice %q does not name the file", c.preview.standIn.notice.Text)
	}
}
