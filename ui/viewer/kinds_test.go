package viewer

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestViewerOpensEveryKind opens the golden file of each peer kind
// (project/synopsis/testdata, signed by the golden TEST key) in a real
// viewer window: trusted, its details name the kind and its noise, and its
// plot draws the released function with a positive noise band (ℓ = 1) or
// a heat map (ℓ = 2).
func TestViewerOpensEveryKind(t *testing.T) {
	dir := filepath.Join("..", "..", "project", "synopsis", "testdata", "synopsis")
	trust := filepath.Join(dir, "allowed_signers")
	for _, c := range []struct{ kind, file string }{
		{synopsis.MechanismGP, "golden-v1-gp.synopsis"},
		{synopsis.MechanismTrig, "golden-v1-trig.synopsis"},
		{synopsis.MechanismOutputPerturbation, "golden-v1-output-perturbation.synopsis"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			v := newTestViewer(t, trust, filepath.Join(dir, c.file))
			if v.doc.State != viewerTrusted {
				t.Fatalf("state %v (%s: %s), want trusted", v.doc.State, v.doc.Headline, v.doc.Detail)
			}
			rows := map[string]string{}
			for _, r := range v.details.rows {
				rows[r.Label] = r.Value
			}
			if !strings.HasPrefix(rows["Mechanism"], c.kind) || rows["Noise"] == "" || rows["Cover size k"] != "" {
				t.Errorf("details: mechanism %q, noise %q, k %q", rows["Mechanism"], rows["Noise"], rows["Cover size k"])
			}
			r := v.doc.Release
			fig, _, err := viewerFigure(context.Background(), r, viewerPlotSpec{AX: 0, AY: min(1, r.dim()-1), Fixed: make([]float64, r.dim())})
			if err != nil {
				t.Fatal(err)
			}
			if err := fig.Validate(); err != nil {
				t.Fatal(err)
			}
			if curve, ok := fig.(*plotting.ViewerCurve); ok {
				for i, s := range curve.Std {
					if !(s > 0) {
						t.Fatalf("noise band at %v: std %v", curve.X[i], s)
					}
				}
			}
			if v.query.last == nil {
				t.Error("no value shown for the prefilled midpoint")
			}
		})
	}
}
