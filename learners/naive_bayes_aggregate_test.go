package learners

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2"
	"strings"
	"testing"
)

// nbBinDataset bins the records of d per class and feature, as the
// aggregate query does.
func nbBinDataset(d Dataset, B int) NaiveBayesBins {
	k := NaiveBayesBins{Dim: d.Dim, B: B, N: d.N()}
	index := map[[3]int]int{}
	for i := range d.N() {
		cl := int8(-1)
		if d.Labels[i] > 0 {
			cl = 1
		}
		for j := range d.Dim {
			b := int32(min(math.Floor(d.X[i*d.Dim+j]*float64(B)), float64(B-1)))
			key := [3]int{int(cl), j, int(b)}
			r, ok := index[key]
			if !ok {
				r = len(k.Counts)
				index[key] = r
				k.Class, k.Feature, k.Bin, k.Counts = append(k.Class, cl), append(k.Feature, int8(j)), append(k.Bin, b), append(k.Counts, 0)
			}
			k.Counts[r]++
		}
	}
	return k
}

// TestNaiveBayesBinnedWithinBinningBound checks the binned naive Bayes
// against the in-memory one: lattice values within KDEBinningBound, the
// same S and range, EvalGrid equal to Eval.
func TestNaiveBayesBinnedWithinBinningBound(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 5))
	for _, tc := range []struct {
		bw []float64
		B  int
	}{
		{[]float64{0.1}, 64}, {[]float64{0.05}, 4096}, {[]float64{0.1, 0.2}, 100}, {[]float64{0.2, 0.1, 0.3}, 256}, {[]float64{0.3, 0.3, 0.3, 0.3}, 16},
	} {
		dim := len(tc.bw)
		t.Run(fmt.Sprintf("bw=%v/B=%d", tc.bw, tc.B), func(t *testing.T) {
			data := randomDataset(r, 250, dim, LabelBinary)
			vals := Values{"bandwidth": tc.bw}
			exact, err := NewNaiveBayes().Fit(context.Background(), data, vals)
			if err != nil {
				t.Fatal(err)
			}
			binned, err := FitNaiveBayesBinned(context.Background(), nbBinDataset(data, tc.B), vals)
			if err != nil {
				t.Fatal(err)
			}
			if binned.Sensitivity != exact.Sensitivity || binned.OutputRange != exact.OutputRange || fmt.Sprint(binned.StandIn) != fmt.Sprint(exact.StandIn) {
				t.Errorf("binned S %v range %v; exact %v %v", binned.Sensitivity, binned.OutputRange, exact.Sensitivity, exact.OutputRange)
			}
			axes := latticeAxes(dim, 6)
			fe, fb := gridValues(t, exact, axes), gridValues(t, binned, axes)
			peak := exact.OutputRange[1]
			bound := KDEBinningBound(tc.bw, tc.B)
			for i, y := range gridPoints(axes) {
				if d := math.Abs(fb[i] - fe[i]); d > bound+1e-12*peak {
					t.Fatalf("at %v: |binned − exact| = %.6g exceeds the bound %.6g", y, d, bound)
				}
				if e := binned.Oracle.Eval(y); math.Abs(e-fb[i]) > 1e-12*peak {
					t.Fatalf("binned EvalGrid %v, Eval %v at %v", fb[i], e, y)
				}
			}
		})
	}
}

// TestNaiveBayesBinnedNeighbourAudit moves or relabels one rounded record
// and checks no lattice value changes by more than S.
func TestNaiveBayesBinnedNeighbourAudit(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 6))
	for _, bw := range [][]float64{{0.1}, {0.1, 0.3}, {0.2, 0.2, 0.2}} {
		dim := len(bw)
		vals := Values{"bandwidth": bw}
		axes := latticeAxes(dim, 4)
		var worst, s float64
		for trial := range 300 {
			d := randomDataset(r, 8, dim, LabelBinary)
			if trial%3 == 0 { // all records on one point and class; the neighbour changes one record's class
				for i := range d.X {
					d.X[i] = 0
				}
				for i := range d.Labels {
					d.Labels[i] = 1
				}
			}
			d2 := Dataset{Dim: dim, X: append([]float64(nil), d.X...), Labels: append([]float64(nil), d.Labels...)}
			d2.Labels[0] = -d2.Labels[0]
			if trial%3 != 0 {
				for j := range dim {
					d2.X[j] = r.Float64()
				}
			}
			f1, err := FitNaiveBayesBinned(context.Background(), nbBinDataset(d, 4096), vals)
			if err != nil {
				t.Fatal(err)
			}
			f2, err := FitNaiveBayesBinned(context.Background(), nbBinDataset(d2, 4096), vals)
			if err != nil {
				t.Fatal(err)
			}
			s = f1.Sensitivity
			g1, g2 := gridValues(t, f1, axes), gridValues(t, f2, axes)
			for i := range g1 {
				worst = math.Max(worst, math.Abs(g1[i]-g2[i]))
			}
		}
		if worst > s*(1+1e-12) {
			t.Errorf("bw %v: largest change %.6g exceeds S = %.6g", bw, worst, s)
		}
		t.Logf("bw %v: largest change / S = %.6f", bw, worst/s)
	}
}

func TestNaiveBayesBinnedRefusals(t *testing.T) {
	ok := NaiveBayesBins{Dim: 2, B: 8, N: 3,
		Class: []int8{-1, -1, 1, 1}, Feature: []int8{0, 1, 0, 1}, Bin: []int32{1, 2, 3, 4}, Counts: []int64{2, 2, 1, 1}}
	for _, tc := range []struct {
		edit func(*NaiveBayesBins)
		want string
	}{
		{func(k *NaiveBayesBins) { k.N = 4 }, "the aggregates count 3 records but the declared n is 4"},
		{func(k *NaiveBayesBins) { k.N = 2 }, "count 3 records but the declared n is 2"},
		{func(k *NaiveBayesBins) { k.N = 1 }, "count more than 1 records"},
		{func(k *NaiveBayesBins) { k.Counts[1] = 1 }, "every record counts once on every feature"},
		{func(k *NaiveBayesBins) { k.Class[0] = 0 }, "not −1 or +1"},
		{func(k *NaiveBayesBins) { k.Feature[0] = 2 }, "outside [0, 2)"},
		{func(k *NaiveBayesBins) { k.Bin[0] = 8 }, "outside [0, 8)"},
		{func(k *NaiveBayesBins) { k.Bin[2], k.Feature[2] = 1, 0; k.Class[2] = -1 }, "counted twice"},
		{func(k *NaiveBayesBins) { k.Counts[0] = 0 }, "below 1"},
	} {
		k := ok
		k.Class, k.Feature, k.Bin, k.Counts = append([]int8(nil), ok.Class...), append([]int8(nil), ok.Feature...), append([]int32(nil), ok.Bin...), append([]int64(nil), ok.Counts...)
		tc.edit(&k)
		if _, err := FitNaiveBayesBinned(context.Background(), k, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FitNaiveBayesBinned = %v, want an error containing %q", err, tc.want)
		}
	}
	if _, err := FitNaiveBayesBinned(context.Background(), ok, nil); err != nil {
		t.Fatal(err)
	}
}
