package release

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/study"
)

// TestGPReleaseAgreesWithStudy (issue 19): the preview's simulated Hall et
// al. GP release (study's peer) is the release the product makes. R real
// GP releases on a coarse grid (k = 6) of a wiggly F_D (a KDE of
// bandwidth 0.03 in unit space on three narrow clusters: the
// interpolation error dominates the noise), drawn by the release's own
// plan (secure noise), written as signed hall-gp files, read back and
// evaluated by the synopsis code at the preview grid (study.TargetGrid),
// have a mean sup-norm error equal to the study's simulated mean (R seeded
// draws) within 5 standard errors of the difference of two means (the sd
// estimated from the real errors): a false failure has probability below
// 10⁻⁶ under the normal approximation of a mean of 300 sups.
func TestGPReleaseAgreesWithStudy(t *testing.T) {
	ctx := context.Background()
	var csv strings.Builder
	csv.WriteString("x\n")
	for i := range 600 { // three narrow clusters at 2, 5 and 8 (public test data)
		fmt.Fprintf(&csv, "%.4f\n", []float64{2, 5, 8}[i%3]+0.2*float64(i/3)/200)
	}
	ds, err := dataset.ParseCSV(strings.NewReader(csv.String()), "clusters.csv", dataset.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req := kdeRequest(ds)
	req.Params = learners.Values{"bandwidth": {0.03}} // mapped units
	req.Privacy = mechanism.Params{Epsilon: 0.5, Delta: 1e-6, Noise: mechanism.NoiseGaussian, K: []int{6}, H: 1}
	p, err := Prepare(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	grid := study.TargetGrid(1)
	truth, err := study.EvalGrid(ctx, p.Fitted.Oracle, grid, nil)
	if err != nil {
		t.Fatal(err)
	}
	const R = 300
	// The study's simulation.
	sims, _, err := study.BuildPeers(study.PeerData{Kind: p.Spec.Kind, Title: p.Spec.Title, Data: p.LearnerData(), Fitted: p.Fitted,
		Values: learners.Values(p.Resolved), Grid: grid, Truth: truth, K: p.Params.K, Delta: req.Privacy.Delta})
	if err != nil {
		t.Fatal(err)
	}
	var sim study.TargetPoint
	found := false
	for _, s := range sims {
		if s.Kind == peers.KindGP {
			if sim, err = s.QuantileError(ctx, req.Privacy.Epsilon, R, 5); err != nil {
				t.Fatal(err)
			}
			found = true
		}
	}
	if !found {
		t.Fatal("no GP peer")
	}
	// The real releases.
	plan, err := p.planPeer(synopsis.MechanismGP)
	if err != nil {
		t.Fatal(err)
	}
	signer := releaseTestSigner(t)
	trusted := (&releaseEnv{opt: Options{Signer: signer}}).trusted(t)
	meta := p.synopsisMeta("test", time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))
	out := make([]float64, len(grid[0]))
	var sum, sum2 float64
	for range R {
		f, err := p.noisyFile(ctx, plan, meta, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := synopsis.Encode(f, signer)
		if err != nil {
			t.Fatal(err)
		}
		v, err := synopsis.Read(bytes.NewReader(b), int64(len(b)), trusted)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Function.EvalBatch(ctx, grid[0], out); err != nil {
			t.Fatal(err)
		}
		sup := 0.0
		for i, y := range out {
			sup = math.Max(sup, math.Abs(y-truth[i]))
		}
		sum += sup
		sum2 += sup * sup
	}
	mean := sum / R
	sd := math.Sqrt(math.Max(sum2/R-mean*mean, 0) * R / (R - 1))
	tol := 5 * sd * math.Sqrt(2.0/R)
	t.Logf("mean sup error: released %.5g (sd %.3g), simulated %.5g; tolerance %.3g", mean, sd, sim.Mean, tol)
	if d := math.Abs(mean - sim.Mean); !(d <= tol) {
		t.Errorf("mean sup error of the real GP releases %g, of the study's simulation %g: |Δ| = %g > %g", mean, sim.Mean, d, tol)
	}
}
