package viewer

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

func featureNames(r *viewerRelease) []string {
	n := make([]string, r.dim())
	for j, f := range r.Features {
		n[j] = f.Name
	}
	return n
}

// viewerPythonScript is the numpy-only snippet documented in docs/python.md.
var viewerPythonScript = filepath.Join("..", "..", "docs", "python", "bernstein_eval.py")

// viewerPython returns a Python 3 interpreter that can import numpy, or
// skips the test (CI installs Debian's python3-numpy so it runs there).
func viewerPython(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if err := exec.Command(py, "-c", "import numpy").Run(); err == nil {
			return py
		}
	}
	t.Skip("no python3 with numpy (install python3-numpy); the documented Python snippet is not tested")
	return ""
}

// TestViewerPythonSnippet runs docs/python/bernstein_eval.py on signed test
// releases of every output kind and noise kind, and on the golden file of
// every peer synopsis kind (hall-gp, wang-trig, output-perturbation), and checks that it gives the
// app's values, noise standard deviations and classes, and that
// docs/python.md shows exactly that script.
func TestViewerPythonSnippet(t *testing.T) {
	script, err := os.ReadFile(viewerPythonScript)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "python.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, append(append([]byte("```python\n"), script...), "```"...)) {
		t.Error("docs/python.md does not show docs/python/bernstein_eval.py verbatim in a ```python block")
	}
	py := viewerPython(t)
	dir := t.TempDir()
	signer := viewerTestSigner(t, 11)
	golden := filepath.Join("..", "..", "project", "synopsis", "testdata", "synopsis")
	for _, tc := range []struct {
		fx     viewerFixture
		golden string // a golden file of a peer kind, instead of fx
		points [][]float64
	}{
		{fx: viewerFixtureKDE, points: [][]float64{{0}, {0.1}, {3.3}, {7.25}, {10}}},
		{fx: viewerFixtureSVM, points: [][]float64{{0, -5}, {0.9, 4}, {0.5, 0}, {1, 5}, {0.25, -1.5}}},
		{fx: viewerFixtureRidge, points: [][]float64{{0, 0, -1}, {1, 2, 1}, {0.3, 1.7, 0.2}, {0.5, 1, 0}}},
		{golden: "golden-v1-gp.synopsis", points: [][]float64{{0}, {12.5}, {33.3}, {71}, {100}}},
		{golden: "golden-v1-trig.synopsis", points: [][]float64{{0}, {12.5}, {33.3}, {71}, {100}}},
		{golden: "golden-v1-output-perturbation.synopsis", points: [][]float64{{0, 15}, {30, 23}, {75, 40}, {100, 45}}},
	} {
		name := tc.fx.name + tc.golden
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(golden, tc.golden)
			if tc.golden == "" {
				path = tc.fx.write(t, dir, signer)
			}
			doc := viewerLoad(path, "")
			if doc.Verified == nil {
				t.Fatal(doc.Detail)
			}
			args := []string{viewerPythonScript, path}
			for _, p := range tc.points {
				s := make([]string, len(p))
				for j, x := range p {
					s[j] = strconv.FormatFloat(x, 'g', -1, 64)
				}
				args = append(args, strings.Join(s, ","))
			}
			out, err := exec.Command(py, args...).Output()
			if err != nil {
				var stderr string
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("%v\n%s", err, stderr)
			}
			recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			r := doc.Release
			if got, want := strings.Join(recs[0], ","), strings.Join(dataset.EvalHeader(featureNames(r), r.classifier()), ","); got != want {
				t.Errorf("header %q, want %q", got, want)
			}
			if len(recs) != len(tc.points)+1 {
				t.Fatalf("%d rows, want %d:\n%s", len(recs)-1, len(tc.points), out)
			}
			for i, p := range tc.points {
				rec := recs[i+1]
				wv, ws, err := doc.Verified.EvalData(p)
				if err != nil {
					t.Fatal(err)
				}
				gv, _ := strconv.ParseFloat(rec[len(p)], 64)
				gs, _ := strconv.ParseFloat(rec[len(p)+1], 64)
				// Both evaluate the same polynomial in float64 by different
				// (equally stable) routes; 1e-9 relative to the values'
				// scale leaves room for rounding only.
				tol := 1e-9 * math.Max(1, math.Abs(wv)+ws)
				if math.Abs(gv-wv) > tol || math.Abs(gs-ws) > 1e-9*math.Max(1, ws) {
					t.Errorf("point %v: python (%s, %s), app (%v, %v)", p, rec[len(p)], rec[len(p)+1], wv, ws)
				}
				if r.classifier() {
					if c, _ := doc.Verified.Class(wv); rec[len(p)+2] != c {
						t.Errorf("point %v: python class %q, app %q", p, rec[len(p)+2], c)
					}
				}
			}
		})
	}

	// Outside the bounds the snippet refuses, like the app.
	path := viewerFixtureKDE.write(t, t.TempDir(), signer)
	if err := exec.Command(py, viewerPythonScript, path, fmt.Sprint(10.5)).Run(); err == nil {
		t.Error("the Python snippet evaluated a point outside the public bounds")
	}
}
