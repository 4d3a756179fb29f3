package learners

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// binDataset bins the records of d into B bins per axis, as the aggregate
// query does: bin = min(⌊x·B⌋, B − 1), cells in first-seen order.
func binDataset(d Dataset, B int) KDEBins {
	k := KDEBins{Dim: d.Dim, B: B, N: d.N()}
	index := map[string]int{}
	cell := make([]int32, d.Dim)
	for i := range d.N() {
		for j := range d.Dim {
			cell[j] = int32(min(math.Floor(d.X[i*d.Dim+j]*float64(B)), float64(B-1)))
		}
		key := fmt.Sprint(cell)
		c, ok := index[key]
		if !ok {
			c = len(k.Counts)
			index[key] = c
			k.Cells = append(k.Cells, cell...)
			k.Counts = append(k.Counts, 0)
		}
		k.Counts[c]++
	}
	return k
}

// gridValues evaluates a fitted GridOracle on axes[0] × … (row-major).
func gridValues(t *testing.T, f *Fitted, axes [][]float64) []float64 {
	t.Helper()
	total := 1
	for _, a := range axes {
		total *= len(a)
	}
	out := make([]float64, total)
	if err := f.Oracle.(mechanism.GridOracle).EvalGrid(context.Background(), axes, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKDEBinnedWithinBinningBound checks, over bandwidths, dimensions and
// B, that the binned KDE's lattice values differ from the exact KDE's by at
// most KDEBinningBound (plus 1e-12·K for rounding), that its EvalGrid agrees
// with its Eval, and that its S, lattice-L1 bound and range are the exact
// KDE's.
func TestKDEBinnedWithinBinningBound(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 1))
	for _, tc := range []struct {
		bw []float64
		B  int
		k  int
	}{
		{[]float64{0.05}, 64, 40}, {[]float64{0.05}, 4096, 40}, {[]float64{0.01}, 100, 50}, {[]float64{0.2}, 7, 20},
		{[]float64{0.05, 0.05}, 256, 16}, {[]float64{0.3, 0.08}, 4096, 16}, {[]float64{0.1, 0.02}, 33, 16},
		{[]float64{0.1, 0.2, 0.4}, 64, 6}, {[]float64{0.05, 0.05, 0.05}, 1024, 6},
		{[]float64{0.2, 0.2, 0.2, 0.2}, 16, 3},
	} {
		dim := len(tc.bw)
		t.Run(fmt.Sprintf("bw=%v/B=%d", tc.bw, tc.B), func(t *testing.T) {
			data := randomDataset(r, 300, dim, LabelNone)
			vals := Values{"bandwidth": tc.bw}
			exact, err := NewKDE().Fit(context.Background(), data, vals)
			if err != nil {
				t.Fatal(err)
			}
			binned, err := FitKDEBinned(context.Background(), binDataset(data, tc.B), vals)
			if err != nil {
				t.Fatal(err)
			}
			if binned.Sensitivity != exact.Sensitivity || binned.OutputRange != exact.OutputRange || binned.N != exact.N {
				t.Errorf("binned S %v range %v n %d stand-in %+v; exact %v %v %d %+v", binned.Sensitivity, binned.OutputRange, binned.N, binned.StandIn,
					exact.Sensitivity, exact.OutputRange, exact.N, exact.StandIn)
			}
			if fmt.Sprint(binned.StandIn) != fmt.Sprint(exact.StandIn) {
				t.Errorf("stand-in %+v, exact KDE's %+v", binned.StandIn, exact.StandIn)
			}
			kk := make([]int, dim)
			for j := range kk {
				kk[j] = tc.k
			}
			if a, b := binned.LatticeL1Sensitivity(kk), exact.LatticeL1Sensitivity(kk); a != b {
				t.Errorf("lattice-L1 bound %v, exact KDE's %v", a, b)
			}
			axes := latticeAxes(dim, tc.k)
			fe, fb := gridValues(t, exact, axes), gridValues(t, binned, axes)
			peak := exact.OutputRange[1]
			bound := KDEBinningBound(tc.bw, tc.B)
			var worst float64
			for i, y := range gridPoints(axes) {
				worst = math.Max(worst, math.Abs(fb[i]-fe[i]))
				if e := binned.Oracle.Eval(y); math.Abs(e-fb[i]) > 1e-12*peak {
					t.Fatalf("binned EvalGrid %v, Eval %v at %v", fb[i], e, y)
				}
			}
			if worst > bound+1e-12*peak {
				t.Errorf("max |binned − exact| = %.6g exceeds the binning bound %.6g", worst, bound)
			}
			t.Logf("max |binned − exact| = %.3g, bound %.3g (K = %.3g)", worst, bound, peak)
		})
	}
}

// TestKDEBinningBoundNearlyAttained checks that the bound is not loose by
// more than a few percent where the kernel is steepest: one record half a
// bin from its centre, at distance b from the query point.
func TestKDEBinningBoundNearlyAttained(t *testing.T) {
	const b, B = 0.1, 64
	centre := (float64(20) + 0.5) / B
	d := centre - 0.5/B + 1e-12 // bottom edge of bin 20
	y := []float64{d + b}
	exact, err := NewKDE().Fit(context.Background(), Dataset{Dim: 1, X: []float64{d}}, Values{"bandwidth": {b}})
	if err != nil {
		t.Fatal(err)
	}
	binned, err := FitKDEBinned(context.Background(), KDEBins{Dim: 1, B: B, Cells: []int32{20}, Counts: []int64{1}, N: 1}, Values{"bandwidth": {b}})
	if err != nil {
		t.Fatal(err)
	}
	diff := math.Abs(binned.Oracle.Eval(y) - exact.Oracle.Eval(y))
	bound := KDEBinningBound([]float64{b}, B)
	if diff > bound || diff < 0.95*bound {
		t.Errorf("steepest case: |binned − exact| = %.6g, bound %.6g: want between 95 %% and 100 %% of it", diff, bound)
	}
}

func TestKDEBinnedRefusals(t *testing.T) {
	ok := KDEBins{Dim: 1, B: 8, Cells: []int32{0, 3}, Counts: []int64{2, 3}, N: 5}
	for _, tc := range []struct {
		edit func(*KDEBins)
		want string
	}{
		{func(k *KDEBins) { k.N = 6 }, "the aggregates count 5 records but the declared n is 6"},
		{func(k *KDEBins) { k.N = 4 }, "count more than 4 records but the declared n is 4"},
		{func(k *KDEBins) { k.Cells[1] = 8 }, "outside [0, 8)"},
		{func(k *KDEBins) { k.Counts[0] = 0 }, "below 1"},
		{func(k *KDEBins) { k.B = 1 }, "between 2 and"},
		{func(k *KDEBins) { k.Dim = 5; k.Cells = make([]int32, 10) }, "feature columns"},
		{func(k *KDEBins) { k.N = 0 }, "at least 1"},
	} {
		k := ok
		k.Cells = append([]int32(nil), ok.Cells...)
		k.Counts = append([]int64(nil), ok.Counts...)
		tc.edit(&k)
		if _, err := FitKDEBinned(context.Background(), k, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FitKDEBinned(%+v) = %v, want an error containing %q", k, err, tc.want)
		}
	}
	if _, err := FitKDEBinned(context.Background(), ok, nil); err != nil {
		t.Fatal(err)
	}
}

// TestKDEBinnedNeighbourAudit moves one record between cells (replace-one
// on the rounded records) and checks that no lattice value changes by more
// than S: at random and at the extreme cells, where the bound is nearly
// attained (ratio ≥ 0.99 for B = 4096).
func TestKDEBinnedNeighbourAudit(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 4))
	ctx := context.Background()
	for _, bw := range [][]float64{{0.05}, {0.5}, {0.3, 0.08}, {0.1, 0.2, 0.4}} {
		dim := len(bw)
		const B, n = 4096, 20
		vals := Values{"bandwidth": bw}
		axes := latticeAxes(dim, 4)
		var worst, s float64
		for trial := range 200 {
			k := KDEBins{Dim: dim, B: B, N: n}
			for range n {
				for range dim {
					k.Cells = append(k.Cells, int32(r.IntN(B)))
				}
				k.Counts = append(k.Counts, 1)
			}
			if trial == 0 { // all records in the corner cell; the neighbour moves one to the opposite corner
				clear(k.Cells)
			}
			k2 := KDEBins{Dim: dim, B: B, N: n, Cells: append([]int32(nil), k.Cells...), Counts: k.Counts}
			for j := range dim {
				if trial == 0 {
					k2.Cells[j] = B - 1
				} else {
					k2.Cells[j] = int32(r.IntN(B))
				}
			}
			f1, err := FitKDEBinned(ctx, k, vals)
			if err != nil {
				t.Fatal(err)
			}
			f2, err := FitKDEBinned(ctx, k2, vals)
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
		if worst < 0.99*s {
			t.Errorf("bw %v: largest change %.6g is below 0.99·S = %.6g: the corner pair should nearly attain it", bw, worst, s)
		}
		t.Logf("bw %v: largest change / S = %.9f", bw, worst/s)
	}
}

// BenchmarkKDEBinnedLattice measures the binned KDE's EvalGrid on the
// 21×21 lattice for 200,000 records in B = 4096 bins per axis (about as
// many cells as records: the worst case for binning) and B = 256.
func BenchmarkKDEBinnedLattice(b *testing.B) {
	data := randomDataset(rand.New(rand.NewPCG(1, 2)), 200_000, 2, LabelNone)
	for _, B := range []int{256, 4096} {
		bins := binDataset(data, B)
		f, err := FitKDEBinned(context.Background(), bins, nil)
		if err != nil {
			b.Fatal(err)
		}
		axes := latticeAxes(2, 20)
		out := make([]float64, 21*21)
		b.Run(fmt.Sprintf("B=%d/cells=%d", B, len(bins.Counts)), func(b *testing.B) {
			for b.Loop() {
				if err := f.Oracle.(mechanism.GridOracle).EvalGrid(context.Background(), axes, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
