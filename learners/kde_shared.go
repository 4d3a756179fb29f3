package learners

import "fmt"

// This file holds what the three kernel learners (kde, priestley-chao,
// naive-bayes) share: the Gaussian kernel and the validation of a Dataset
// against a Spec.

// invSqrt2Pi is 1/√(2π), the peak of the standard normal density.
const invSqrt2Pi = 0.398942280401432677939946059934381868

// minBandwidth is the smallest kernel bandwidth (mapped units) the three
// kernel learners accept. It is a public rule that keeps every kernel
// computation finite whatever the records: 1/(2b²) ≤ 5·10¹¹ and the peak
// 1/(√(2π)·b) ≤ 4·10⁵ per axis, so exp(−u²/(2b²)) never evaluates
// exp(−0·∞) = NaN. Without it a bandwidth below about 1e-154 made 1/(2b²)
// overflow to +Inf, and a record lying exactly on a lattice coordinate
// turned the oracle into NaN — a refusal that revealed the record (issue 13
// item 5). No useful bandwidth is that small: at b = 1e-6 the sensitivity is
// already about 4·10⁵/n per axis.
const minBandwidth = 1e-6

// gaussPeak returns κ = sup_u N(u; 0, b²) = 1/(√(2π)·b), the largest value of
// the one-dimensional Gaussian kernel of bandwidth (standard deviation) b.
func gaussPeak(b float64) float64 { return invSqrt2Pi / b }

// checkData validates a dataset against spec and returns n. It checks the
// dimension, the shape of X, that every feature is finite and inside
// [0, 1] (data must arrive mapped by the curator's public bounds), and the
// labels against spec.Label: LabelReal needs n finite labels in [−1, 1],
// LabelBinary n labels that are exactly −1 or +1; for LabelNone labels are
// ignored. minN is the smallest number of records the learner accepts.
// Errors name the record (0-based index into the Dataset), the value and
// the rule broken.
func checkData(spec Spec, d Dataset, minN int) (int, error) {
	k := spec.Kind
	if d.Dim < spec.MinDim || d.Dim > spec.MaxDim {
		return 0, fmt.Errorf("%s: dataset has %d feature columns; this learner needs between %d and %d", k, d.Dim, spec.MinDim, spec.MaxDim)
	}
	if err := checkSource(k, d); err != nil {
		return 0, err
	}
	if d.Source == nil && len(d.X)%d.Dim != 0 {
		return 0, fmt.Errorf("%s: dataset has %d feature values, not a multiple of its %d columns", k, len(d.X), d.Dim)
	}
	n := d.N()
	if n < minN {
		return 0, fmt.Errorf("%s: dataset has %d records; this learner needs at least %d", k, n, minN)
	}
	err := eachRecordChunk(d, func(first int, x []float64) error {
		for i, v := range x {
			if !(v >= 0 && v <= 1) { // also rejects NaN
				return fmt.Errorf("%s: record %d, feature %d: value %g is outside [0, 1] (features must be mapped and clipped by the public bounds)", k, first+i/d.Dim, i%d.Dim, v)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	switch spec.Label {
	case LabelReal, LabelBinary:
		if len(d.Labels) != n {
			return 0, fmt.Errorf("%s: dataset has %d labels for %d records; this learner needs one %s label per record", k, len(d.Labels), n, spec.Label)
		}
		for i, v := range d.Labels {
			if spec.Label == LabelReal && !(v >= -1 && v <= 1) {
				return 0, fmt.Errorf("%s: record %d: label %g is outside [−1, 1] (labels must be mapped and clipped by the public label bounds)", k, i, v)
			}
			if spec.Label == LabelBinary && v != -1 && v != 1 {
				return 0, fmt.Errorf("%s: record %d: label %g is not −1 or +1 (binary labels must be mapped to −1 and +1)", k, i, v)
			}
		}
	}
	return n, nil
}

// checkGrid validates the arguments of an EvalGrid call: one non-empty axis
// per dimension and len(out) == ∏ len(axes[j]).
func checkGrid(dim int, axes [][]float64, out []float64) error {
	if len(axes) != dim {
		return fmt.Errorf("learners: EvalGrid: %d axes for a %d-dimensional oracle", len(axes), dim)
	}
	total := 1
	for j, a := range axes {
		if len(a) == 0 {
			return fmt.Errorf("learners: EvalGrid: axis %d is empty", j)
		}
		total *= len(a)
	}
	if len(out) != total {
		return fmt.Errorf("learners: EvalGrid: output has %d values, grid has %d points", len(out), total)
	}
	return nil
}
