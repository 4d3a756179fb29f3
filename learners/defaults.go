package learners

import (
	"math"
	"slices"
)

// Data-independent defaults (issue 17 item 5; docs/sensitivity.md,
// "Data-independent defaults"). The features are mapped to [0,1]^ℓ by
// public bounds, so a scale parameter has a meaning in mapped units that
// does not depend on the column's units; its default may depend on the
// public quantities of the release — n, ℓ and ε — and on nothing else.

// Public are the public quantities a data-independent default may depend
// on: the number of records n (public by the ledger's convention), the
// number of features ℓ and the ε of the release.
type Public struct {
	N, Dim  int
	Epsilon float64
}

// PublicDefaults returns values with every parameter of the spec that has
// no value and a public rule (ParamSpec.Auto) set to the rule's value at
// pub, clamped to the parameter's range; every other entry is copied as
// given (a value the curator gave, or a project file saved, stays as it
// is). values is not modified. Learners without rules, or pub with n < 1,
// ℓ < 1 or ε not finite and > 0, get values unchanged (the static
// ParamSpec.Default then applies in Resolve).
func (s Spec) PublicDefaults(values Values, pub Public) Values {
	out := make(Values, len(values))
	for k, v := range values {
		out[k] = slices.Clone(v)
	}
	for _, p := range s.Params {
		if len(values[p.Name]) > 0 {
			continue
		}
		if v, ok := p.PublicDefault(pub); ok {
			out[p.Name] = []float64{v}
		}
	}
	return out
}

// PublicDefault returns the value of the parameter's public rule
// (ParamSpec.Auto) at pub, clamped to the parameter's range, and true; or
// false if the parameter has no rule or pub is not a release context
// (n < 1, ℓ < 1, ε not finite and > 0).
func (p ParamSpec) PublicDefault(pub Public) (float64, bool) {
	if p.Auto == nil || pub.N < 1 || pub.Dim < 1 || !(pub.Epsilon > 0) || math.IsInf(pub.Epsilon, 0) {
		return 0, false
	}
	v := p.Auto(pub)
	if p.MinExclusive && v <= p.Min {
		v = math.Nextafter(p.Min, math.Inf(1))
	}
	return min(max(v, p.Min), p.Max), true
}

// rbfWidthDefault is the SVM's kernel width σ = 0.2·√ℓ: about half the
// root-mean-square distance √(ℓ/6) between two points drawn uniformly from
// the public domain [0,1]^ℓ — the median heuristic applied to the domain
// instead of the data (which it must not see), halved because data mapped
// by generous public bounds fill only part of the domain. It depends on ℓ
// only.
func rbfWidthDefault(pub Public) float64 { return 0.2 * math.Sqrt(float64(pub.Dim)) }

// bandwidthDefault is the kernel bandwidth b = 0.25·(n·min(1, ε))^(−1/(ℓ+4))
// of the smoothing learners (kde, priestley-chao, naive-bayes): Scott's
// rule b = s·n^(−1/(ℓ+4)) with the spread s = 0.25 of data that fill part of
// the mapped domain (a uniform on [0,1] has s = 0.29) instead of the data's
// own, and with n replaced by n·min(1, ε): the release noise of a kernel
// estimate grows like 1/(nε·b^ℓ) as its sampling variance grows like
// 1/(n·b^ℓ), so below ε = 1 the noise dominates and asks for the
// bandwidth of a sample of size nε.
func bandwidthDefault(pub Public) float64 {
	return 0.25 * math.Pow(float64(pub.N)*min(1, pub.Epsilon), -1/float64(pub.Dim+4))
}

// bandwidthDefault1D is bandwidthDefault for one-dimensional kernel
// estimates (ℓ = 1 whatever the number of features): naive Bayes multiplies
// per-feature densities and Priestley–Chao smooths along one axis.
func bandwidthDefault1D(pub Public) float64 {
	pub.Dim = 1
	return bandwidthDefault(pub)
}

// The rules in words, for the command line's help and the curator's form.
const (
	rbfWidthRule    = "0.2·√ℓ (half the typical distance of two points of the mapped domain)"
	bandwidthRule   = "0.25·(n·min(1, ε))^(−1/(ℓ+4)) (Scott's rule on the mapped domain)"
	bandwidthRule1D = "0.25·(n·min(1, ε))^(−1/5) (Scott's rule on the mapped axis)"
)
