package learners

import (
	"context"
	"math"
	rand "math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// sliceSource is a RecordSource over row-major values, counting its reads.
type sliceSource struct {
	dim   int
	x     []float64
	reads atomic.Int64
}

func (s *sliceSource) Len() int { return len(s.x) / s.dim }
func (s *sliceSource) Records(dst []float64, lo, hi int) {
	s.reads.Add(1)
	copy(dst[:(hi-lo)*s.dim], s.x[lo*s.dim:hi*s.dim])
}

// TestKDESourceSameAsX checks that a KDE fitted on a RecordSource (issue
// 20: no n·ℓ copy) gives exactly the values of the KDE fitted on X — the
// lattice by EvalGrid and single points by Eval, bit for bit (== on every
// value), for n not a multiple of the chunk and ℓ = 1 … 4 — and the same
// sensitivity and range, and that it really reads the source.
func TestKDESourceSameAsX(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 7)) // seeded: test data only
	ctx := context.Background()
	for dim := 1; dim <= 4; dim++ {
		n := 3*sourceChunk + 17
		data := randomDataset(r, n, dim, LabelNone)
		src := &sliceSource{dim: dim, x: data.X}
		bw := Values{"bandwidth": {0.05 + 0.1*r.Float64()}}
		want, err := NewKDE().Fit(ctx, data, bw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewKDE().Fit(ctx, Dataset{Dim: dim, Source: src}, bw)
		if err != nil {
			t.Fatal(err)
		}
		if got.Sensitivity != want.Sensitivity || got.OutputRange != want.OutputRange || got.N != want.N {
			t.Fatalf("ℓ=%d: sensitivity %v range %v n %d; want %v %v %d", dim, got.Sensitivity, got.OutputRange, got.N, want.Sensitivity, want.OutputRange, want.N)
		}
		axes := latticeAxes(dim, 12-2*dim)
		a, b := make([]float64, len(gridPoints(axes))), make([]float64, len(gridPoints(axes)))
		if err := want.Oracle.(mechanism.GridOracle).EvalGrid(ctx, axes, a); err != nil {
			t.Fatal(err)
		}
		reads := src.reads.Load()
		if err := got.Oracle.(mechanism.GridOracle).EvalGrid(ctx, axes, b); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a, b) {
			t.Fatalf("ℓ=%d: EvalGrid from the source differs from EvalGrid from X", dim)
		}
		if src.reads.Load() == reads {
			t.Fatalf("ℓ=%d: EvalGrid did not read the source", dim)
		}
		for range 20 {
			y := make([]float64, dim)
			for j := range y {
				y[j] = r.Float64()
			}
			if g, w := got.Oracle.Eval(y), want.Oracle.Eval(y); g != w {
				t.Fatalf("ℓ=%d: Eval(%v) = %.17g from the source, %.17g from X", dim, y, g, w)
			}
		}
		m := Dataset{Dim: dim, Source: src}.Materialized()
		if m.Source != nil || !slices.Equal(m.X, data.X) {
			t.Fatalf("ℓ=%d: Materialized differs from the records", dim)
		}
	}
}

// TestSourceRules checks that a source with a value outside [0, 1] is
// refused naming the record (as X is), and that the learners that read X
// refuse a source instead of reading nothing.
func TestSourceRules(t *testing.T) {
	ctx := context.Background()
	x := make([]float64, 2*(sourceChunk+5))
	x[2*(sourceChunk+3)+1] = math.NaN()
	_, err := NewKDE().Fit(ctx, Dataset{Dim: 2, Source: &sliceSource{dim: 2, x: x}}, Values{"bandwidth": {0.1}})
	if err == nil || !strings.Contains(err.Error(), "record 1027, feature 1") {
		t.Errorf("NaN in a source: %v; want the record 1027, feature 1 named", err)
	}
	labels := make([]float64, sourceChunk+5)
	for i := range labels {
		labels[i] = 1
	}
	for _, l := range All() {
		if ReadsSource(l.Spec().Kind) {
			continue
		}
		d := Dataset{Dim: 1, Source: &sliceSource{dim: 1, x: make([]float64, len(labels))}, Labels: labels}
		if _, err := l.Fit(ctx, d, nil); err == nil || !strings.Contains(err.Error(), "record source") {
			t.Errorf("%s given a source: %v; want a refusal", l.Spec().Kind, err)
		}
	}
}
