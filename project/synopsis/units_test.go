package synopsis

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
)

// readBack encodes and reads a fixture, so that units are tested on what an
// analyst actually gets.
func readBack(t *testing.T, s synSpec) *Verified {
	t.Helper()
	data := encodeSyn(t, buildSynFile(t, s), "alice")
	v, err := Read(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The fixtures' lattice values are the ramp 0.25 + 0.5·mean_j(y_j), which
// every iterated Bernstein operator reproduces exactly, so the released
// function is known in closed form; features j have bounds [10, 30+10j].
func TestEvalData(t *testing.T) {
	const tol = 1e-12
	ramp := func(y ...float64) float64 {
		s := 0.0
		for _, v := range y {
			s += v
		}
		return 0.25 + 0.5*s/float64(len(y))
	}
	cases := []struct {
		name string
		s    synSpec
		x    []float64
		want float64 // in data units
		sd   float64 // std scale factor: data std = sd·(std on [0,1]^ℓ)
	}{
		{"density ℓ=1", synSpec{kind: learners.OutputDensity, k: []int{3}}, []float64{20}, ramp(0.5) / 20, 1.0 / 20},
		{"density ℓ=2 h=2", synSpec{kind: learners.OutputDensity, k: []int{4, 5}, h: 2}, []float64{15, 40}, ramp(0.25, 1) / (20 * 30), 1.0 / 600},
		{"density at lower corner", synSpec{kind: learners.OutputDensity, k: []int{4, 5}}, []float64{10, 10}, ramp(0, 0) / 600, 1.0 / 600},
		{"regression", synSpec{kind: learners.OutputRegression, k: []int{3}}, []float64{25}, 5 + 10*ramp(0.75), 10},
		{"class score", synSpec{kind: learners.OutputClassScore, k: []int{2, 2}, h: 3}, []float64{30, 10}, ramp(1, 0), 1},
		{"probability", synSpec{kind: learners.OutputProbability, k: []int{6}}, []float64{12}, ramp(0.1), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := readBack(t, c.s)
			got, std, err := v.EvalData(c.x)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > tol*math.Max(1, math.Abs(c.want)) {
				t.Errorf("value %v, want %v", got, c.want)
			}
			y := make([]float64, len(c.x))
			if err := v.ToUnit(c.x, y); err != nil {
				t.Fatal(err)
			}
			unitStd, err := v.Release.NoiseStdAt(y)
			if err != nil {
				t.Fatal(err)
			}
			if want := c.sd * unitStd; !(std > 0) || math.Abs(std-want) > tol*want {
				t.Errorf("noise std %v, want %v", std, want)
			}

			// The batch agrees with single evaluations.
			pts := append(append(append([]float64(nil), c.x...), lowerCorner(v)...), c.x...)
			vals, stds := make([]float64, 3), make([]float64, 3)
			if err := v.EvalDataBatch(context.Background(), pts, vals, stds); err != nil {
				t.Fatal(err)
			}
			if math.Abs(vals[0]-got) > tol*math.Max(1, math.Abs(got)) || vals[2] != vals[0] || math.Abs(stds[0]-std) > tol*std {
				t.Errorf("batch %v ± %v, single %v ± %v", vals, stds, got, std)
			}
			if err := v.EvalDataBatch(context.Background(), pts, vals, nil); err != nil {
				t.Errorf("batch without stds: %v", err)
			}
		})
	}
}

func lowerCorner(v *Verified) []float64 {
	var x []float64
	for _, b := range v.File.Domain.Features {
		x = append(x, b.Lo)
	}
	return x
}

func TestEvalDataErrors(t *testing.T) {
	v := readBack(t, synSpec{kind: learners.OutputDensity, k: []int{3, 2}})
	for _, x := range [][]float64{{9.999, 20}, {30, 40.5}, {math.NaN(), 20}, {math.Inf(1), 20}} {
		_, _, err := v.EvalData(x)
		var oob *OutOfBoundsError
		if !errors.As(err, &oob) {
			t.Errorf("%v: %v, want *OutOfBoundsError", x, err)
			continue
		}
		name := v.File.Domain.Features[oob.Index].Name
		if oob.Feature != name || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "[10, ") {
			t.Errorf("%v: message %q does not name the feature and its bounds", x, err)
		}
	}
	if _, _, err := v.EvalData([]float64{20}); err == nil {
		t.Error("wrong number of coordinates accepted")
	}
	// Exactly on the bounds is inside.
	if _, _, err := v.EvalData([]float64{30, 40}); err != nil {
		t.Errorf("upper corner: %v", err)
	}
	ctx := context.Background()
	vals := make([]float64, 2)
	err := v.EvalDataBatch(ctx, []float64{20, 20, 20, 99}, vals, nil)
	var oob *OutOfBoundsError
	if !errors.As(err, &oob) || !strings.Contains(err.Error(), "point 1") {
		t.Errorf("batch with an outlier: %v", err)
	}
	if err := v.EvalDataBatch(ctx, []float64{20, 20, 20}, vals, nil); err == nil {
		t.Error("ragged batch accepted")
	}
	if err := v.EvalDataBatch(ctx, []float64{20, 20}, vals, nil); err == nil {
		t.Error("len(values) mismatch accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := v.EvalDataBatch(cancelled, []float64{20, 20, 20, 20}, vals, make([]float64, 2)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled batch: %v", err)
	}
}

func TestClass(t *testing.T) {
	score := readBack(t, synSpec{kind: learners.OutputClassScore, k: []int{1}})
	prob := readBack(t, synSpec{kind: learners.OutputProbability, k: []int{1}})
	dens := readBack(t, synSpec{kind: learners.OutputDensity, k: []int{1}})
	cases := []struct {
		v     *Verified
		value float64
		want  string
		ok    bool
	}{
		{score, 0, "malignant", true},
		{score, 1e-300, "malignant", true},
		{score, -1e-300, "benign", true},
		{score, -2, "benign", true},
		{score, math.NaN(), "benign", true},
		{prob, 0.5, "yes", true},
		{prob, 0.4999999, "no", true},
		{prob, 0.9, "yes", true},
		{prob, 0, "no", true},
		{dens, 1, "", false},
	}
	for _, c := range cases {
		got, ok := c.v.Class(c.value)
		if got != c.want || ok != c.ok {
			t.Errorf("%s Class(%v) = %q, %v; want %q, %v", c.v.File.Output.Kind, c.value, got, ok, c.want, c.ok)
		}
	}
}
