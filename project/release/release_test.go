package release

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// releaseTestSigner is a fixed Ed25519 test key (seed 0x01…); never a real
// curator key.
func releaseTestSigner(t testing.TB) ssh.Signer {
	t.Helper()
	seed := bytes.Repeat([]byte{1}, ed25519.SeedSize)
	s, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// releaseTestCSV returns n rows of columns x, y (in [0, 10]), r (a real
// label in [−5, 5]) and c (a binary label 3 / 7), deterministic.
func releaseTestCSV(n int) string {
	var b strings.Builder
	b.WriteString("x,y,r,c\n")
	for i := range n {
		u := float64(i) / float64(n-1)
		x := 10 * u
		y := 10 * math.Mod(u*7.31, 1)
		r := 5 * math.Sin(6*u)
		c := 3
		if y > x {
			c = 7
		}
		fmt.Fprintf(&b, "%.6f,%.6f,%.6f,%d\n", x, y, r, c)
	}
	return b.String()
}

func releaseTestDataset(t testing.TB, n int) *dataset.Table {
	t.Helper()
	ds, err := dataset.ParseCSV(strings.NewReader(releaseTestCSV(n)), "test.csv", dataset.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// kdeRequest is a valid KDE request on column x.
func kdeRequest(ds *dataset.Table) Request {
	return Request{
		Dataset:  ds,
		Features: []string{"x"},
		Bounds:   map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}},
		Learner:  learners.KindKDE,
		Params:   learners.Values{"bandwidth": {0.1}},
		Privacy:  mechanism.Params{Epsilon: 0.5, Noise: mechanism.NoiseLaplace, K: []int{8}, H: 2},
		Title:    "test release",
	}
}

func TestPrepareRejects(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	cases := []struct {
		name  string
		edit  func(r *Request)
		field string // substring the error must contain
	}{
		{"no dataset", func(r *Request) { r.Dataset = nil }, "dataset"},
		{"unknown learner", func(r *Request) { r.Learner = "forest" }, "forest"},
		{"no features", func(r *Request) { r.Features = nil }, "features"},
		{"too many features", func(r *Request) { r.Features = []string{"x", "y", "r", "c", "x2"} }, "features"},
		{"duplicate feature", func(r *Request) {
			r.Features = []string{"x", "x"}
		}, "twice"},
		{"missing column", func(r *Request) {
			r.Features = []string{"age"}
			r.Bounds = map[string]dataset.Bounds{"age": {Lo: 0, Hi: 1}}
		}, `"age"`},
		{"label for unsupervised", func(r *Request) { r.Label = "r" }, "label"},
		{"missing bounds", func(r *Request) { r.Bounds = nil }, "bounds[x]"},
		{"inverted bounds", func(r *Request) { r.Bounds = map[string]dataset.Bounds{"x": {Lo: 10, Hi: 0}} }, "bounds[x]"},
		{"infinite bounds", func(r *Request) { r.Bounds = map[string]dataset.Bounds{"x": {Lo: 0, Hi: math.Inf(1)}} }, "bounds[x]"},
		{"data bounds without acknowledgement", func(r *Request) {
			r.Bounds = nil
			r.BoundsFromData = map[string]bool{"x": true}
		}, "acknowledge"},
		{"data bounds given without acknowledgement", func(r *Request) {
			r.BoundsFromData = map[string]bool{"x": true}
		}, "acknowledge"},
		{"bad parameter", func(r *Request) { r.Params = learners.Values{"bandwidth": {-1}} }, "bandwidth"},
		{"unknown parameter", func(r *Request) { r.Params = learners.Values{"gamma": {1}} }, "gamma"},
		{"epsilon zero", func(r *Request) { r.Privacy.Epsilon = 0 }, "epsilon"},
		{"epsilon NaN", func(r *Request) { r.Privacy.Epsilon = math.NaN() }, "epsilon"},
		{"delta with laplace", func(r *Request) { r.Privacy.Delta = 1e-6 }, "delta"},
		{"gaussian without delta", func(r *Request) { r.Privacy.Noise = mechanism.NoiseGaussian }, "delta"},
		{"unknown noise", func(r *Request) { r.Privacy.Noise = "cauchy" }, "noise"},
		{"h zero", func(r *Request) { r.Privacy.H = 0 }, "h"},
		{"k count", func(r *Request) { r.Privacy.K = []int{3, 4} }, "k"},
		{"k zero", func(r *Request) { r.Privacy.K = []int{0} }, "k"},
		{"k too large", func(r *Request) { r.Privacy.K = []int{9999} }, "k"},
		{"too many coefficients", func(r *Request) {
			r.Features = []string{"x", "y", "r"}
			r.Bounds["y"], r.Bounds["r"] = dataset.Bounds{Lo: 0, Hi: 10}, dataset.Bounds{Lo: -5, Hi: 5}
			r.Privacy.K = []int{300, 300, 300}
		}, "k"},
		{"auto k with bad epsilon", func(r *Request) { r.KAuto, r.Privacy.Epsilon = true, -1 }, "epsilon"},
		{"auto k with bad h", func(r *Request) { r.KAuto, r.Privacy.H = true, 11 }, "h"},
		{"title with a line break", func(r *Request) { r.Title = "a\nb" }, "title"},
		{"title too long", func(r *Request) { r.Title = strings.Repeat("t", 201) }, "title"},
		{"unit with a line break", func(r *Request) { r.Units = map[string]string{"x": "c\nm"} }, "unit"},
		{"beta out of range", func(r *Request) { r.KAuto, r.Beta = true, 1.5 }, "beta"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := kdeRequest(ds)
			req.Bounds = map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}}
			tc.edit(&req)
			p, err := Prepare(context.Background(), req, nil)
			if err == nil {
				t.Fatalf("Prepare accepted the request: K = %v", p.Params.K)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not mention %q", err, tc.field)
			}
		})
	}
}

func TestPrepareSupervisedRejects(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	base := func() Request {
		return Request{
			Dataset: ds, Features: []string{"x"}, Label: "r", Learner: learners.KindRidge,
			Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "r": {Lo: -5, Hi: 5}},
			Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{1}, H: 1},
		}
	}
	cases := []struct {
		name  string
		edit  func(r *Request)
		field string
	}{
		{"no label", func(r *Request) { r.Label = "" }, "label"},
		{"label is a feature", func(r *Request) { r.Label = "x" }, "both"},
		{"label missing", func(r *Request) { r.Label = "z" }, `"z"`},
		{"label without bounds", func(r *Request) { delete(r.Bounds, "r") }, "bounds[r]"},
		{"binary label without declared classes", func(r *Request) {
			r.Learner = learners.KindNaiveBayes
			r.Label = "c"
		}, "classes"},
		{"declared classes the same value", func(r *Request) {
			r.Learner = learners.KindNaiveBayes
			r.Label, r.Classes = "c", &dataset.Classes{Negative: "7", Positive: "7.0"}
		}, "same value"},
		{"fill class not declared", func(r *Request) {
			r.Learner = learners.KindNaiveBayes
			r.Label, r.Classes, r.FillClass = "c", &dataset.Classes{Negative: "3", Positive: "7"}, "5"
		}, "fill class"},
		{"classes for a regression", func(r *Request) { r.Classes = &dataset.Classes{Negative: "3", Positive: "7"} }, "classes"},
		{"fill outside the bounds", func(r *Request) { r.Fill = map[string]float64{"x": 11} }, "fill[x]"},
		{"fill of an unused column", func(r *Request) { r.Fill = map[string]float64{"c": 1} }, "fill[c]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := base()
			tc.edit(&req)
			if _, err := Prepare(context.Background(), req, nil); err == nil {
				t.Fatal("Prepare accepted the request")
			} else if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not mention %q", err, tc.field)
			}
		})
	}
}

func TestPrepareKAuto(t *testing.T) {
	ds := releaseTestDataset(t, 400)
	for _, tc := range []struct {
		beta, want float64
	}{{0, DefaultBeta}, {0.01, 0.01}} {
		req := kdeRequest(ds)
		req.Features = []string{"x", "y"}
		req.Bounds["y"] = dataset.Bounds{Lo: 0, Hi: 10}
		req.Privacy.K = nil
		req.Privacy.Epsilon = 50
		req.KAuto, req.Beta = true, tc.beta
		p, err := Prepare(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := mechanism.AutoCoverSize(p.Params, 2, 2, p.Fitted.Sensitivity, tc.want, p.Fitted.StandIn)
		if !slices.Equal(p.Params.K, []int{k, k}) {
			t.Errorf("β = %v: K = %v, want [%d %d] (mechanism.AutoCoverSize)", tc.beta, p.Params.K, k, k)
		}
		if len(p.Exact) != (k+1)*(k+1) {
			t.Errorf("%d exact values for K = %v", len(p.Exact), p.Params.K)
		}
	}
}

func TestPrepareBroadcastsK(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	req := kdeRequest(ds)
	req.Features = []string{"x", "y"}
	req.Bounds["y"] = dataset.Bounds{Lo: 0, Hi: 10}
	req.Privacy.K = []int{4}
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Params.K, []int{4, 4}) || len(p.Exact) != 25 {
		t.Errorf("K = %v, %d values; want [4 4], 25", p.Params.K, len(p.Exact))
	}
}

// TestPrepareExactMatchesOracle checks that the lattice values are F_D at
// the lattice points of the data mapped by the public bounds.
func TestPrepareExactMatchesOracle(t *testing.T) {
	ds := releaseTestDataset(t, 60)
	req := kdeRequest(ds)
	req.Bounds["x"] = dataset.Bounds{Lo: 2, Hi: 8} // clips some values
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Clipped["x"] == 0 {
		t.Error("no value clipped to [2, 8]")
	}
	// The same F_D fitted directly on the mapped data.
	x := make([]float64, ds.Rows)
	for i, v := range ds.Data["x"] {
		x[i] = min(1, max(0, (v-2)/6))
	}
	l, _ := learners.Lookup(learners.KindKDE)
	f, err := l.Fit(context.Background(), learners.Dataset{Dim: 1, X: x}, req.Params)
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range p.Exact {
		want := f.Oracle.Eval([]float64{float64(i) / 8})
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("Exact[%d] = %v, want F_D(%d/8) = %v", i, got, i, want)
		}
	}
	if p.Fitted.Sensitivity != f.Sensitivity {
		t.Errorf("sensitivity %v, want %v", p.Fitted.Sensitivity, f.Sensitivity)
	}
}

func TestPrepareCancelled(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Prepare(ctx, kdeRequest(ds), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestPrepareDataBoundsAcknowledged(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	req := kdeRequest(ds)
	req.Bounds = nil
	req.BoundsFromData = map[string]bool{"x": true}
	req.AcknowledgedDataBounds = true
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ds.SuggestBounds("x")
	b := p.Domain.Features[0]
	if b.Lo != want.Lo || b.Hi != want.Hi || !b.FromData || !p.Domain.BoundsFromData {
		t.Errorf("domain %+v, want bounds %+v from data", p.Domain, want)
	}
}

// releaseEnv is a temporary ledger, output path and signer.
type releaseEnv struct {
	dir    string
	ledger *ledger.Ledger
	opt    Options
}

func newReleaseEnv(t *testing.T) *releaseEnv {
	t.Helper()
	dir := t.TempDir()
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	return &releaseEnv{dir: dir, ledger: l, opt: Options{
		Out: filepath.Join(dir, "out.synopsis"), Ledger: l, Signer: releaseTestSigner(t),
		AppVersion: "test", Now: func() time.Time { return now },
	}}
}

func (e *releaseEnv) trusted(t *testing.T) *keys.AllowedSigners {
	t.Helper()
	a, err := keys.ParseAllowedSigners(strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Add("test@example.org", e.opt.Signer.PublicKey()); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestReleaseRoundTrip(t *testing.T) {
	ds := releaseTestDataset(t, 200)
	e := newReleaseEnv(t)
	req := kdeRequest(ds)
	req.Units = map[string]string{"x": "cm"}
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	var noiseDone atomic.Int64
	opt := e.opt
	opt.NoiseProgress = func(done, total int) {
		if total != 9 || done < 1 || done > total {
			t.Errorf("noise progress (%d, %d): want 1 ≤ done ≤ total = 9", done, total)
		}
		noiseDone.Store(int64(done))
	}
	res, err := p.Release(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if noiseDone.Load() != 9 {
		t.Errorf("noise progress ended at %d of 9", noiseDone.Load())
	}
	if res.Spent != 0.5 || res.Total != 0.5 || res.Budget != ledger.DefaultBudget || res.OverBudget {
		t.Errorf("result spent %v total %v budget %v over %v; want 0.5 0.5 %v false", res.Spent, res.Total, res.Budget, res.OverBudget, ledger.DefaultBudget)
	}
	v, err := synopsis.Open(res.Path, e.trusted(t))
	if err != nil {
		t.Fatal(err)
	}
	if !v.Trusted {
		t.Error("signer not trusted")
	}
	f := v.File
	if f.Title != "test release" || f.AppVersion != "test" || !f.Created.Equal(e.opt.Now()) {
		t.Errorf("title %q app %q created %v", f.Title, f.AppVersion, f.Created)
	}
	m := f.Mechanism
	if !slices.Equal(m.K, []int{8}) || m.H != 2 || m.Epsilon != 0.5 || m.Delta != 0 || m.Noise != "laplace" {
		t.Errorf("mechanism %+v", m)
	}
	lam := p.Fitted.Sensitivity * 9 / 0.5 // λ = S·∏(k_j+1)/ε
	if math.Abs(m.Scale-lam) > 1e-12*lam {
		t.Errorf("scale %v, want λ = %v", m.Scale, lam)
	}
	if f.Learner.Kind != "kde" || f.Learner.N != 200 || f.Learner.Sensitivity != p.Fitted.Sensitivity ||
		!slices.Equal(f.Learner.Params["bandwidth"], []float64{0.1}) {
		t.Errorf("learner %+v", f.Learner)
	}
	want := synopsis.Bound{Name: "x", Unit: "cm", Lo: 0, Hi: 10, LoSource: synopsis.EndTyped, HiSource: synopsis.EndTyped}
	if len(f.Domain.Features) != 1 || f.Domain.Features[0] != want || f.Domain.Label != nil || f.Domain.BoundsFromData {
		t.Errorf("domain %+v, want features [%+v]", f.Domain, want)
	}
	// Density in data units: the learner's range divided by the box volume.
	r := p.Fitted.OutputRange
	if f.Output.Kind != "density" || f.Output.Range != [2]float64{r[0] / 10, r[1] / 10} || f.Output.ClassLabels != nil {
		t.Errorf("output %+v, want density range %v/10", f.Output, r)
	}
	if len(f.Values) != 9 {
		t.Fatalf("%d values", len(f.Values))
	}
	// The values are noisy: not the exact lattice values.
	same := 0
	for i := range f.Values {
		if f.Values[i] == p.Exact[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of 9 released values equal the exact ones", same)
	}
	// The ledger holds the release.
	entries := e.ledger.Entries(preparedKey(t, p))
	if len(entries) != 1 {
		t.Fatalf("%d ledger entries", len(entries))
	}
	en := entries[0]
	if en.Kind != ledger.KindRelease || en.Epsilon != 0.5 || en.Learner != "kde" || en.Noise != "laplace" ||
		en.Output != absPath(e.opt.Out) || !slices.Equal(en.Params["k"], []float64{8}) || !slices.Equal(en.Params["h"], []float64{2}) {
		t.Errorf("ledger entry %+v", en)
	}
	if res.Entry.ID == "" || res.Entry.ID != en.ID {
		t.Errorf("result's ledger entry ID %q, ledger has %q", res.Entry.ID, en.ID)
	}
}

// TestReleaseNoiseScale checks, over many releases of the same prepared
// data, that the released lattice values scatter around the exact ones
// like Laplace(λ) with λ = S·∏(k_j+1)/ε (Algorithm 1): |Laplace(λ)|/λ is
// Exp(1), so the mean of N = 50·40 such draws is 1 with standard deviation
// 1/√N ≈ 0.022. Tolerance 0.15; by the Chernoff bound for a mean of Exp(1)
// variables, P(mean > 1.15) ≤ exp(−N(0.15 − ln 1.15)) ≈ 1e-9 and
// P(mean < 0.85) ≤ exp(−N(ln(1/0.85) − 0.15)) ≈ 1e-11: false-failure rate
// < 1e-8.
func TestReleaseNoiseScale(t *testing.T) {
	ds := releaseTestDataset(t, 200)
	req := kdeRequest(ds)
	req.Privacy.Epsilon = 0.01 // 40 releases fit the default budget
	req.Privacy.K = []int{49}
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newReleaseEnv(t)
	// Replace the file writer: only the noise is under test here.
	var got []float64
	defer swapWriter(func(path string, f *synopsis.File, _ ssh.Signer, _ bool) error {
		got = append(got, f.Values...)
		return nil
	})()
	const releases, m = 40, 50
	for range releases {
		if _, err := p.Release(context.Background(), e.opt); err != nil {
			t.Fatal(err)
		}
	}
	lam := p.Fitted.Sensitivity * m / 0.01
	sum := 0.0
	for i, v := range got {
		sum += math.Abs(v-p.Exact[i%m]) / lam
	}
	mad := sum / float64(len(got))
	if len(got) != releases*m || math.Abs(mad-1) > 0.15 {
		t.Errorf("mean |noise|/λ = %v over %d draws, want 1 ± 0.15 over %d", mad, len(got), releases*m)
	}
	if spent, _ := e.ledger.Spent(preparedKey(t, p)); math.Abs(spent-0.4) > 1e-12 {
		t.Errorf("ledger spent %v after %d releases of ε = 0.01, want 0.4", spent, releases)
	}
}

func swapWriter(w func(string, *synopsis.File, ssh.Signer, bool) error) (restore func()) {
	old := writeSynopsisFile
	writeSynopsisFile = w
	return func() { writeSynopsisFile = old }
}

// TestReleaseCrashAfterLedger injects a failure into the synopsis write: the
// ledger must show the spend and no synopsis may exist.
func TestReleaseCrashAfterLedger(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	e := newReleaseEnv(t)
	p, err := Prepare(context.Background(), kdeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	crash := errors.New("injected crash")
	var ledgerAtWrite []ledger.Entry
	defer swapWriter(func(path string, f *synopsis.File, s ssh.Signer, overwrite bool) error {
		// What a crash at this point would leave on disk: re-read the ledger
		// from the file, as a new process would.
		l, err := ledger.Open(e.ledger.Path())
		if err != nil {
			return err
		}
		ledgerAtWrite = l.Entries(preparedKey(t, p))
		return crash
	})()
	_, err = p.Release(context.Background(), e.opt)
	if !errors.Is(err, crash) {
		t.Fatalf("err = %v, want the injected crash", err)
	}
	if len(ledgerAtWrite) != 1 || ledgerAtWrite[0].Epsilon != 0.5 {
		t.Errorf("ledger on disk before the synopsis write: %+v; want the ε = 0.5 release", ledgerAtWrite)
	}
	l, err := ledger.Open(e.ledger.Path())
	if err != nil {
		t.Fatal(err)
	}
	if spent, _ := l.Spent(preparedKey(t, p)); spent != 0.5 {
		t.Errorf("ledger spent %v after the crash, want 0.5", spent)
	}
	if _, err := os.Stat(e.opt.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("synopsis exists after the crash: %v", err)
	}
}

// TestReleaseRealWriteFailure makes the real writer fail (the output's
// directory disappears after the checks): spend recorded, no file.
func TestReleaseWriterFailsAfterReserve(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	e := newReleaseEnv(t)
	p, err := Prepare(context.Background(), kdeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(e.dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	e.opt.Out = filepath.Join(sub, "out.synopsis")
	defer swapWriter(func(path string, f *synopsis.File, s ssh.Signer, overwrite bool) error {
		if err := os.Remove(sub); err != nil {
			return err
		}
		return synopsis.Write(path, f, s, overwrite)
	})()
	if _, err := p.Release(context.Background(), e.opt); err == nil {
		t.Fatal("release succeeded without its directory")
	}
	if spent, _ := e.ledger.Spent(preparedKey(t, p)); spent != 0.5 {
		t.Errorf("ledger spent %v, want 0.5", spent)
	}
	if _, err := os.Stat(e.opt.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("synopsis exists: %v", err)
	}
}

// TestReleaseChecksOutputFirst: an output that cannot be written costs
// nothing.
func TestReleaseChecksOutputFirst(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	p, err := Prepare(context.Background(), kdeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		setup func(e *releaseEnv)
		is    error
	}{
		{"exists", func(e *releaseEnv) {
			if err := os.WriteFile(e.opt.Out, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, fileio.ErrExists},
		{"no directory", func(e *releaseEnv) { e.opt.Out = filepath.Join(e.dir, "missing", "out.synopsis") }, os.ErrNotExist},
		{"is a directory", func(e *releaseEnv) {
			if err := os.Mkdir(e.opt.Out, 0o755); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"no ledger", func(e *releaseEnv) { e.opt.Ledger = nil }, nil},
		{"no signer", func(e *releaseEnv) { e.opt.Signer = nil }, nil},
		{"no output", func(e *releaseEnv) { e.opt.Out = "" }, nil},
		{"no app version", func(e *releaseEnv) { e.opt.AppVersion = "" }, synopsis.ErrMalformed},
		{"app version with a space", func(e *releaseEnv) { e.opt.AppVersion = "1 2" }, synopsis.ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newReleaseEnv(t)
			tc.setup(e)
			_, err := p.Release(context.Background(), e.opt)
			if err == nil {
				t.Fatal("release succeeded")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err = %v, want %v", err, tc.is)
			}
			if n := len(e.ledger.Entries("")); n != 0 {
				t.Errorf("%d ledger entries after a refused release", n)
			}
		})
	}
	// The existing file is untouched, and Overwrite replaces it.
	e := newReleaseEnv(t)
	if err := os.WriteFile(e.opt.Out, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Release(context.Background(), e.opt); !errors.Is(err, fileio.ErrExists) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(e.opt.Out); string(b) != "keep me" {
		t.Errorf("existing file changed to %q", b)
	}
	e.opt.Overwrite = true
	if _, err := p.Release(context.Background(), e.opt); err != nil {
		t.Fatal(err)
	}
	if _, err := synopsis.Open(e.opt.Out, nil); err != nil {
		t.Errorf("overwritten file: %v", err)
	}
}

func TestReleaseBudget(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	req := kdeRequest(ds)
	req.Privacy.Epsilon = 0.6
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := newReleaseEnv(t)
	if _, err := p.Release(context.Background(), e.opt); err != nil {
		t.Fatal(err)
	}
	// Second release: 1.2 > 1 is refused, nothing recorded or written.
	e.opt.Out = filepath.Join(e.dir, "second.synopsis")
	_, err = p.Release(context.Background(), e.opt)
	var be *ledger.BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want *BudgetError", err)
	}
	if be.Spent != 0.6 || be.Requested != 0.6 || be.Budget != 1 {
		t.Errorf("budget error %+v", be)
	}
	if spent, _ := e.ledger.Spent(preparedKey(t, p)); spent != 0.6 {
		t.Errorf("spent %v after a refusal, want 0.6", spent)
	}
	if _, err := os.Stat(e.opt.Out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("refused release wrote its file: %v", err)
	}
	// Allowed over budget: recorded as such.
	e.opt.AllowOverBudget = true
	res, err := p.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OverBudget || res.Total != 1.2 || res.Budget != 1 {
		t.Errorf("result %+v, want over budget with total 1.2", res)
	}
	entries := e.ledger.Entries(preparedKey(t, p))
	if len(entries) != 2 || !entries[1].OverBudget {
		t.Errorf("ledger %+v; want the second entry over budget", entries)
	}
}

func TestReleaseClassifier(t *testing.T) {
	ds := releaseTestDataset(t, 120)
	for _, tc := range []struct {
		positive float64
		labels   []string
	}{{7, []string{"3", "7"}}, {3, []string{"7", "3"}}} {
		classes := dataset.Classes{Negative: tc.labels[0], Positive: tc.labels[1]}
		e := newReleaseEnv(t)
		req := Request{
			Dataset: ds, Features: []string{"x", "y"}, Label: "c", Classes: &classes,
			Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 10}},
			Learner: learners.KindNaiveBayes,
			Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseGaussian, Delta: 1e-6, K: []int{4, 5}, H: 1},
		}
		p, err := Prepare(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Labels: +1 exactly where c is the positive class.
		for i, c := range ds.Data["c"] {
			if want := map[bool]float64{true: 1, false: -1}[c == tc.positive]; p.Data.Labels[i] != want {
				t.Fatalf("label %d = %v for c = %v, positive %v", i, p.Data.Labels[i], c, tc.positive)
			}
		}
		res, err := p.Release(context.Background(), e.opt)
		if err != nil {
			t.Fatal(err)
		}
		o := res.Synopsis.Output
		if !slices.Equal(o.ClassLabels, tc.labels) || o.Kind != string(learners.OutputClassScore) {
			t.Errorf("positive %v: output %+v, want class labels %v", tc.positive, o, tc.labels)
		}
		m := res.Synopsis.Mechanism
		if m.Noise != "gaussian" || m.Delta != 1e-6 || !slices.Equal(m.K, []int{4, 5}) {
			t.Errorf("mechanism %+v", m)
		}
		if res.Synopsis.Domain.Label != nil {
			t.Errorf("classifier has a label bound %+v", res.Synopsis.Domain.Label)
		}
	}
}

// TestPrepareOutputFollowsFit checks that a learner whose output meaning
// depends on a parameter (logistic: score or probability) is described by
// the fit, so the synopsis and the plots read a probability as a probability.
func TestPrepareOutputFollowsFit(t *testing.T) {
	ds := releaseTestDataset(t, 120)
	for _, tc := range []struct {
		mode float64
		want learners.OutputKind
	}{{0, learners.OutputClassScore}, {1, learners.OutputProbability}} {
		req := Request{
			Dataset: ds, Features: []string{"x", "y"}, Label: "c", Classes: &dataset.Classes{Negative: "3", Positive: "7"},
			Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 10}},
			Learner: learners.KindLogistic, Params: learners.Values{"output": {tc.mode}},
			Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{2, 2}, H: 1},
		}
		p, err := Prepare(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Spec.Output.Kind != tc.want {
			t.Errorf("output = %v: Prepared.Spec.Output.Kind = %q, want %q", tc.mode, p.Spec.Output.Kind, tc.want)
		}
	}
}

func TestReleaseRegressionUnits(t *testing.T) {
	ds := releaseTestDataset(t, 100)
	e := newReleaseEnv(t)
	req := Request{
		Dataset: ds, Features: []string{"x"}, Label: "r", Learner: learners.KindRidge,
		Bounds:  map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "r": {Lo: -4, Hi: 6}},
		Units:   map[string]string{"r": "kg"},
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{1}, H: 1},
	}
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Clipped["r"] == 0 {
		t.Error("no label clipped to [−4, 6] (the data reach −5)")
	}
	res, err := p.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatal(err)
	}
	f := res.Synopsis
	if l := f.Domain.Label; l == nil || *l != (synopsis.Bound{Name: "r", Unit: "kg", Lo: -4, Hi: 6, LoSource: synopsis.EndTyped, HiSource: synopsis.EndTyped}) {
		t.Errorf("label bound %+v", f.Domain.Label)
	}
	// Regression range in label units: mid + half·r with mid 1, half 5.
	r := p.Fitted.OutputRange
	want := [2]float64{1 + 5*r[0], 1 + 5*r[1]}
	if math.Abs(f.Output.Range[0]-want[0]) > 1e-12 || math.Abs(f.Output.Range[1]-want[1]) > 1e-12 {
		t.Errorf("output range %v, want %v", f.Output.Range, want)
	}
}

// TestReleaseFileHoldsNoData checks that no data value, no exact lattice
// value and nothing but the public description reaches the file.
func TestReleaseFileHoldsNoData(t *testing.T) {
	ds := releaseTestDataset(t, 40)
	e := newReleaseEnv(t)
	p, err := Prepare(context.Background(), kdeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ds.Data["x"][1:] { // x[0] = 0 is also a bound
		for _, s := range []string{strconv.FormatFloat(v, 'f', 6, 64), strconv.FormatFloat(v, 'g', -1, 64)} {
			if len(s) > 3 && bytes.Contains(data, []byte(s)) {
				t.Errorf("data value %s in the synopsis", s)
			}
		}
	}
	for _, v := range p.Exact {
		if s := strconv.FormatFloat(v, 'g', -1, 64); bytes.Contains(data, []byte(s)) {
			t.Errorf("exact lattice value %s in the synopsis", s)
		}
	}
	if bytes.Contains(data, []byte(ds.Hash)) || bytes.Contains(data, []byte(preparedKey(t, p))) || bytes.Contains(data, []byte("test.csv")) {
		t.Error("the synopsis names the dataset")
	}
}
