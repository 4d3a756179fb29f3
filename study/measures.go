package study

import (
	"fmt"
	"math"

	"github.com/bernsteinrelease/bernstein/internal/gemm"
)

// Measure is what one simulated release is scored by.
type Measure int

const (
	// SupError is sup_grid |F_D − release| (the paper's error measure).
	SupError Measure = iota
	// SignAgreement is the fraction of grid points where the classifiers
	// of F_D and of the release (class +1 where the value is ≥
	// Spec.Threshold) agree (Figure 2, with threshold 0).
	SignAgreement
	// RMSError is the root-mean-square difference of the release and F_D
	// over the grid, √(mean_grid (F_D − release)²): the typical error of a
	// regression over the public domain, where SupError is the worst.
	RMSError
	// PointAgreement is the fraction of Spec.Points (the records: curator
	// only) where the released classifier and the non-private one (class
	// +1 where the value is ≥ Spec.Threshold) agree.
	PointAgreement
	// PointAccuracy is the fraction of Spec.Points whose label (> 0: class
	// +1) the released classifier predicts: its accuracy on the data
	// (curator only).
	PointAccuracy
)

// String names the measure as the preview and the tests print it.
func (m Measure) String() string {
	switch m {
	case SupError:
		return "sup-norm error"
	case SignAgreement:
		return "agreement on the grid"
	case RMSError:
		return "RMSE"
	case PointAgreement:
		return "agreement with the non-private classifier"
	case PointAccuracy:
		return "accuracy on the data"
	}
	return fmt.Sprintf("Measure(%d)", int(m))
}

// atPoints reports whether m is scored at Spec.Points rather than on the
// grid.
func (m Measure) atPoints() bool { return m == PointAgreement || m == PointAccuracy }

// measures returns sp.Measure followed by sp.Also.
func (sp Spec) measures() []Measure {
	return append([]Measure{sp.Measure}, sp.Also...)
}

func needsPoints(ms []Measure) bool {
	for _, m := range ms {
		if m.atPoints() {
			return true
		}
	}
	return false
}

// checkMeasures validates the measures of sp against the model.
func (md *Model) checkMeasures(ms []Measure, sp Spec) error {
	if math.IsNaN(sp.Threshold) || math.IsInf(sp.Threshold, 0) {
		return fmt.Errorf("study: threshold %g: must be finite", sp.Threshold)
	}
	for _, m := range ms {
		if m < SupError || m > PointAccuracy {
			return fmt.Errorf("study: unknown measure %d", int(m))
		}
		if !m.atPoints() {
			continue
		}
		if sp.Points == nil || sp.Points.md != md {
			return fmt.Errorf("study: the %s needs Spec.Points made by this model's AtPoints", m)
		}
		if m == PointAccuracy && sp.Points.labels == nil {
			return fmt.Errorf("study: the %s needs the points' labels", m)
		}
	}
	return nil
}

// target is where one release is scored: F_D (truth), the exact part
// E = truth − B(F_D) and the contracted unit noise at every point (noise
// at idx[g] when idx is not nil: the baseline's nearest lattice point),
// and the labels (accuracy only). The release at point g and scale s is
// truth[g] − (exact[g] − s·noise[at(g)]).
type target struct {
	truth, exact, noise []float64
	idx                 []int
	labels              []float64
}

func (t target) noiseAt(g int) float64 {
	if t.idx == nil {
		return t.noise[g]
	}
	return t.noise[t.idx[g]]
}

// release returns the values of the release at scale s.
func (t target) release(s float64) []float64 {
	out := make([]float64, len(t.exact))
	for g, e := range t.exact {
		out[g] = t.truth[g] - (e - s*t.noiseAt(g))
	}
	return out
}

// score writes measure m of the release at every scale into out. NaN
// scales give 0 (Run replaces those entries by NaN).
func score(m Measure, threshold float64, t target, scales, out []float64) {
	switch m {
	case SupError:
		supErrors(t, scales, out)
	case RMSError:
		rmsErrors(t, scales, out)
	case SignAgreement, PointAgreement:
		agreement(t, threshold, scales, out)
	case PointAccuracy:
		accuracy(t, threshold, scales, out)
	}
}

// supErrors sets out[i] = max_g |exact[g] − scales[i]·noise[at(g)]| for
// every valid (non-NaN) scale.
func supErrors(t target, scales, out []float64) {
	clear(out)
	if t.idx == nil {
		for i, s := range scales {
			if !math.IsNaN(s) {
				out[i] = gemm.MaxAbsDiff(t.exact, t.noise, s)
			}
		}
		return
	}
	for g, e := range t.exact {
		n := t.noiseAt(g)
		for i, s := range scales {
			if d := math.Abs(e - s*n); d > out[i] {
				out[i] = d
			}
		}
	}
	// NaN scales produce NaN differences, which never win the comparison,
	// so out[i] stays 0 there; Run replaces those entries by NaN.
}

// rmsErrors sets out[i] = √(mean_g (exact[g] − scales[i]·noise[at(g)])²).
func rmsErrors(t target, scales, out []float64) {
	clear(out)
	for g, e := range t.exact {
		n := t.noiseAt(g)
		for i, s := range scales {
			d := e - s*n
			out[i] += d * d
		}
	}
	for i, s := range scales {
		if math.IsNaN(s) {
			out[i] = 0
			continue
		}
		out[i] = math.Sqrt(out[i] / float64(len(t.exact)))
	}
}

// agreement sets out[i] to the fraction of points g where truth[g] and the
// release at scales[i] fall on the same side of the threshold (≥ counts as
// class +1).
func agreement(t target, threshold float64, scales, out []float64) {
	for i, s := range scales {
		n := 0
		for g, e := range t.exact {
			if (t.truth[g] >= threshold) == (t.truth[g]-(e-s*t.noiseAt(g)) >= threshold) {
				n++
			}
		}
		out[i] = float64(n) / float64(len(t.exact))
	}
}

// accuracy sets out[i] to the fraction of points g whose label (> 0: class
// +1) the release at scales[i] predicts (class +1 where ≥ threshold).
func accuracy(t target, threshold float64, scales, out []float64) {
	for i, s := range scales {
		n := 0
		for g, e := range t.exact {
			if (t.labels[g] > 0) == (t.truth[g]-(e-s*t.noiseAt(g)) >= threshold) {
				n++
			}
		}
		out[i] = float64(n) / float64(len(t.exact))
	}
}
