package cli

// Memory of inspect --json and eval --points on large inputs (issue 14
// items 10-12). Goal: peak heap ≤ 64 MB + 2× the coefficient array for any
// input. Both commands stream, so the tests hold them to a tighter bound
// that the buffering implementations broke: the peak heap (memprobe.
// MeasureLive: sampled, with the collector at GOGC=10 so the figure is
// close to what is live) stays within 2× the coefficient array plus
// cmdSlack, while what they print is several times cmdSlack.

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/internal/memprobe"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// evalMemoryChild marks the fresh process TestEvalPointsMemory measures in.
const evalMemoryChild = "BERNSTEIN_EVAL_MEMORY_CHILD"

const (
	memGoalBase = 64 << 20 // the 64 MB of the goal
	cmdSlack    = 8 << 20  // buffers, chunks, metadata, the release's structures
	// eval --points: read and write buffers, one chunk of rows, and the
	// garbage a loaded machine's collector has not reached yet (measured
	// +2.3–2.5 MB alone, +5.1 MB once with the other core busy: 4 MB
	// failed there).
	evalSlack = 8 << 20
)

// countingWriter discards what it is given and counts it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	return len(b), nil
}

// writeTestSynopsis writes a density synopsis with lattice k and the given
// values, signed by the workspace's test key (workspace.testKey), to path.
func writeTestSynopsis(t testing.TB, path string, k []int, values []float64) {
	t.Helper()
	const sens, eps = 0.125, 1.0
	p := mechanism.Params{Epsilon: eps, Noise: mechanism.NoiseLaplace, K: k, H: 1}
	scale, err := mechanism.NoiseScale(sens, p)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := mechanism.RestoreSynopsis(k, 1, values, mechanism.NoiseLaplace, scale, eps, 0, sens)
	if err != nil {
		t.Fatal(err)
	}
	meta := synopsis.Meta{
		AppVersion: "0.1.0-test", Title: "memory test", Learner: learners.KindKDE,
		Params: learners.Resolved{"bandwidth": {0.1}}, N: 1000,
		Output:      learners.OutputSpec{Name: "density", Meaning: "test", Kind: learners.OutputDensity},
		OutputRange: [2]float64{0, 4},
	}
	for j := range k {
		meta.Domain.Features = append(meta.Domain.Features, synopsis.Bound{Name: fmt.Sprintf("x%d", j), Lo: 0, Hi: 1})
	}
	f, err := synopsis.NewFile(rel, meta)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	data, err := synopsis.Encode(f, signer)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInspectJSONStreamsIdentically: the streamed document is byte for
// byte what encoding the whole document with json.Encoder gives, for
// numbers of every form encoding/json writes and across chunk borders.
func TestInspectJSONStreamsIdentically(t *testing.T) {
	w := newWorkspace(t)
	w.testKey(t)
	k := []int{90, 100} // 9191 values: two full chunks and a partial one
	specials := []float64{0, -0, 1, -1, 0.1, 1e-7, -1e-7, 1e-6, 1e20, 1e21, -1e21, 123456789.125,
		math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, 5e-324, 2.5e-308}
	rng := rand.New(rand.NewPCG(10, 14))
	vals := make([]float64, 91*101)
	for i := range vals {
		if i < len(specials) {
			vals[i] = specials[i]
		} else {
			vals[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(60)-30))
		}
	}
	path := w.path("identical.synopsis")
	writeTestSynopsis(t, path, k, vals)
	v, err := openVerified(path, "")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := writeInspectJSON(&got, path, v); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", "  ")
	if err := enc.Encode(inspectJSON{Path: path,
		Signature: signatureJSON{Valid: true, Trusted: v.Trusted, Principal: v.Principal, Fingerprint: v.Fingerprint, Note: v.TrustNote},
		File:      v.File, LatticeOrder: synopsis.LatticeOrder, Values: v.File.Values}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		i := 0
		for i < got.Len() && i < want.Len() && got.Bytes()[i] == want.Bytes()[i] {
			i++
		}
		t.Fatalf("streamed JSON differs from json.Encoder at byte %d: got %q…, want %q…",
			i, got.Bytes()[i:min(got.Len(), i+60)], want.Bytes()[i:min(want.Len(), i+60)])
	}
}

// TestInspectJSONMemory reproduces issue 14 item 10 at a smaller scale:
// inspect --json of a valid 750 000-value file prints 22 MB of JSON and
// allocates no more than 2× the coefficient array plus cmdSlack in all (the
// buffered document alone was larger than that).
func TestInspectJSONMemory(t *testing.T) {
	w := newWorkspace(t)
	w.testKey(t)
	k := []int{90, 90, 90}
	rng := rand.New(rand.NewPCG(10, 14))
	vals := make([]float64, 91*91*91)
	for i := range vals {
		vals[i] = -(1 + rng.Float64()) * 1e-300
	}
	path := w.path("large.synopsis")
	writeTestSynopsis(t, path, k, vals)
	coeff := uint64(len(vals)) * 8
	vals = nil

	te := newTestEnv()
	out := &countingWriter{}
	te.Stdout = out
	var code int
	mem := memprobe.MeasureLive(func() { code = te.run("inspect", "--json", path).code })
	if code != exitOK {
		t.Fatalf("inspect --json: exit %d: %s", code, te.errb.String())
	}
	t.Logf("%d values (%d bytes), %d bytes of JSON: peak heap +%d, allocated %d", coeff/8, coeff, out.n, mem.PeakHeap, mem.Allocated)
	if uint64(out.n) < 2*cmdSlack {
		t.Fatalf("only %d bytes printed: the test does not tell streaming from buffering", out.n)
	}
	// Nothing per value either: all it allocates is what it keeps.
	if limit := 2*coeff + cmdSlack; mem.Allocated > limit {
		t.Errorf("allocated %d bytes; want ≤ 2×%d + %d (the %d-byte document must not be buffered)", mem.Allocated, coeff, cmdSlack, out.n)
	}
	if goal := memGoalBase + 2*coeff; mem.PeakHeap > goal {
		t.Errorf("peak heap +%d bytes; goal ≤ %d", mem.PeakHeap, goal)
	}
}

// TestEvalPointsMemory reproduces issue 14 item 11 at a smaller scale:
// eval --points with 480 000 query rows, to standard output and to --out,
// stays within evalSlack (the coefficient array is a few hundred bytes);
// holding the rows took 40 bytes a row and more (19 MB here; 811 MB for
// 6·10⁶ rows).
//
// It measures in a fresh test process: memprobe.MeasureLive's collector
// runs at 10 % heap growth, and in CI the heap earlier tests of this
// process left let the uncollected garbage reach +15 MB in all three runs,
// where a fresh process reads +2.5 MB at any number of rows.
func TestEvalPointsMemory(t *testing.T) {
	if os.Getenv(evalMemoryChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEvalPointsMemory$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), evalMemoryChild+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("fresh process:\n%s", out)
		if err != nil {
			t.Fatalf("the measurement in a fresh process failed: %v", err)
		}
		return
	}
	w := newWorkspace(t)
	w.testKey(t)
	syn := w.path("small.synopsis")
	writeTestSynopsis(t, syn, []int{12, 12}, make([]float64, 13*13))
	// Holding the points alone (two float64 and a result per row, 24
	// bytes) would take 11.5 MB, above the 8 MB slack.
	const rows = 480_000
	var b strings.Builder
	b.WriteString("x1,x0\n")
	rng := rand.New(rand.NewPCG(11, 1))
	for range rows {
		fmt.Fprintf(&b, "%v,%v\n", rng.Float64(), rng.Float64())
	}
	points := w.path("q.csv")
	if err := os.WriteFile(points, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b = strings.Builder{}
	const coeff = 13 * 13 * 8

	for _, out := range []string{"", w.path("r.csv")} {
		te := newTestEnv()
		stdout := &countingWriter{}
		te.Stdout = stdout
		args := []string{"eval", syn, "--points", points}
		if out != "" {
			args = append(args, "--out", out)
		}
		limit := uint64(2*coeff + evalSlack)
		var r cliResult
		var mem memprobe.Result
		// The sampled peak counts garbage the collector has not reached
		// yet: on a loaded machine (the other test packages running) it
		// once read +16 MB where the same run alone reads +2.5 MB at any
		// number of rows. A run that holds the rows is above the limit
		// every time, so the least of three runs is measured.
		for attempt := 0; attempt < 3; attempt++ {
			stdout.n = 0
			if out != "" {
				os.Remove(out) // --out refuses to overwrite
			}
			m := memprobe.MeasureLive(func() { r = te.run(args...) })
			if r.code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
			}
			if attempt == 0 || m.PeakHeap < mem.PeakHeap {
				mem = m
			}
			if mem.PeakHeap <= limit {
				break
			}
		}
		written := stdout.n
		if out != "" {
			st, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			written = st.Size()
		}
		t.Logf("%v: %d bytes of results: peak heap +%d, allocated %d", args[4:], written, mem.PeakHeap, mem.Allocated)
		if rows*24 <= evalSlack*5/4 {
			t.Fatal("too few rows: the test does not tell streaming from holding the rows")
		}
		if mem.PeakHeap > limit {
			t.Errorf("%v: peak heap +%d bytes; want ≤ %d whatever the number of rows", args[4:], mem.PeakHeap, limit)
		}
	}
}
