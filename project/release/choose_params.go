package release

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
)

// The private choice of the learner's parameters (issue 17 item 5): the
// candidate tunings are public multiples of the request's resolved values,
// chosen jointly with h and k by the same selection (docs/validation.md,
// "Choosing the learner's parameters").

// TuningGrid returns the public tunings the private choice compares for a
// learner, as candidates with only Bandwidth or Params set, given the
// request's resolved values (the centre of the grid):
//
//	svm                      C ∈ {⅓, 1, 3}·C₀ × σ ∈ {½, 1, 2}·σ₀
//	logistic                 C ∈ {⅓, 1, 3}·C₀ × intercept b ∈ {⅓, 1}·b₀ (b₀ = 0: b₀ = 1)
//	ridge                    C ∈ {0.1, 1, 10}·C₀
//	kde, priestley-chao,
//	naive-bayes              bandwidth ∈ {½, 1, 2}·b₀ (every axis)
//
// Values outside a parameter's range are dropped. For the SVM, C values
// with C·(1 + c) ≤ 1 give the same classifier up to a positive factor (the
// exact fit is (C/n)·Σ l_i K_c(·, d_i), its sensitivity and hence its noise
// are proportional to C, so the signs of the release have the same
// distribution): of those only the largest is kept. The grid depends on
// the spec and the resolved values only, never on data values.
func TuningGrid(spec learners.Spec, resolved learners.Resolved) []Candidate {
	scaled := func(name string, factors ...float64) [][]float64 {
		return scaledValues(spec, resolved, name, factors...)
	}
	var out []Candidate
	switch spec.Kind {
	case learners.KindSVM:
		icpt := resolved.Scalar("intercept")
		var cs [][]float64
		for _, c := range scaled("C", 1.0/3, 1, 3) {
			if c[0]*(1+icpt) <= 1 && len(cs) > 0 && cs[len(cs)-1][0]*(1+icpt) <= 1 {
				cs[len(cs)-1] = c // the same classifier: keep the largest C
				continue
			}
			cs = append(cs, c)
		}
		for _, c := range cs {
			for _, s := range scaled("sigma", 0.5, 1, 2) {
				out = append(out, Candidate{Params: learners.Values{"C": c, "sigma": s}})
			}
		}
	case learners.KindLogistic:
		b0 := resolved.Scalar("intercept")
		if b0 == 0 {
			b0 = 1
		}
		bs := [][]float64{{b0 / 3}, {b0}}
		for _, c := range scaled("C", 1.0/3, 1, 3) {
			for _, b := range bs {
				out = append(out, Candidate{Params: learners.Values{"C": c, "intercept": b}})
			}
		}
	case learners.KindRidge:
		for _, c := range scaled("C", 0.1, 1, 10) {
			out = append(out, Candidate{Params: learners.Values{"C": c}})
		}
	default:
		out = bandwidthGrid(spec, resolved)
	}
	if len(out) == 0 {
		return []Candidate{{}}
	}
	return out
}

// bandwidthGrid returns the tunings bandwidth ∈ {½, 1, 2}·b₀ (within the
// parameter's range) for a learner with a bandwidth, else the request's own.
func bandwidthGrid(spec learners.Spec, resolved learners.Resolved) []Candidate {
	var out []Candidate
	for _, bw := range scaledValues(spec, resolved, "bandwidth", 0.5, 1, 2) {
		out = append(out, Candidate{Bandwidth: bw})
	}
	if len(out) == 0 {
		return []Candidate{{}}
	}
	return out
}

// scaledValues returns the resolved values of parameter name times each
// factor (every axis), dropping results outside the parameter's range and
// repeats; nil if the spec has no such parameter.
func scaledValues(spec learners.Spec, resolved learners.Resolved, name string, factors ...float64) [][]float64 {
	ps, ok := paramSpec(spec, name)
	if !ok {
		return nil
	}
	var out [][]float64
	for _, f := range factors {
		v := make([]float64, len(resolved[name]))
		valid := true
		for i, x := range resolved[name] {
			v[i] = x * f
			valid = valid && ps.Check(v[i]) == nil
		}
		if valid && !slices.ContainsFunc(out, func(w []float64) bool { return slices.Equal(w, v) }) {
			out = append(out, v)
		}
	}
	return out
}

func paramSpec(spec learners.Spec, name string) (learners.ParamSpec, bool) {
	i := slices.IndexFunc(spec.Params, func(p learners.ParamSpec) bool { return p.Name == name })
	if i < 0 {
		return learners.ParamSpec{}, false
	}
	return spec.Params[i], true
}

// choiceWhat names what the plan's candidates vary, for the ledger note:
// "h, k", "h, k, bandwidth", "h, k, C, sigma".
func (pl *choicePlan) choiceWhat() string {
	names := []string{"h", "k"}
	for _, c := range pl.cands {
		if c.Bandwidth != nil && !slices.Contains(names, "bandwidth") {
			names = append(names, "bandwidth")
		}
		for name := range c.Params {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names[2:])
	return strings.Join(names, ", ")
}

// noiseRMS returns the root-mean-square over the grid of axes of the
// standard deviation of a release's noise with parameters pr and
// sensitivity s: √(mean_g NoiseStd(g)²), NoiseStd that of
// mechanism.Polynomial (√2·λ·∏_j ‖b^(h)(g_j)‖₂ for Laplace noise of scale
// λ = mechanism.NoiseScale(s, pr)). It depends on s, k, h, ε, δ, the noise
// kind and the public grid only. The accuracy score of a classifier
// candidate uses it as its margin.
func noiseRMS(pr mechanism.Params, s float64, axes [][]float64) (float64, error) {
	scale, err := mechanism.NoiseScale(s, pr)
	if err != nil {
		return 0, err
	}
	m := 1
	for _, k := range pr.K {
		m *= k + 1
	}
	poly, err := mechanism.NewPolynomial(pr.K, pr.H, make([]float64, m))
	if err != nil {
		return 0, err
	}
	dim := len(pr.K)
	idx := make([]int, dim)
	y := make([]float64, dim)
	var sum float64
	count := 0
	for {
		for j := range dim {
			y[j] = axes[j][idx[j]]
		}
		sd, err := poly.NoiseStd(y, pr.Noise, scale)
		if err != nil {
			return 0, err
		}
		sum += sd * sd
		count++
		j := dim - 1
		for j >= 0 {
			idx[j]++
			if idx[j] < len(axes[j]) {
				break
			}
			idx[j] = 0
			j--
		}
		if j < 0 {
			break
		}
	}
	rms := math.Sqrt(sum / float64(count))
	if !(rms > 0) {
		return 0, fmt.Errorf("release noise RMS %g: must be > 0", rms)
	}
	return rms, nil
}

// tuningLayout returns the orders h and the factors of k* that
// DefaultCandidates combines with each of n tunings: candidateLayout's,
// except for the SVM released with Laplace or Gaussian noise, whose noise
// is calibrated to the lattice bounds of its kernel score
// (learners/svm_lattice.go) and grows more slowly with the lattice than
// S·m does: with several tunings it gets the fine layout (k factors {2, 3},
// or {1, 2, 3}) with h three higher than the default layout's (h ∈ {4, 5}
// for up to seven tunings), capped at mechanism.MaxH. A kernel classifier's
// agreement with the non-private one needs its boundary drawn finely, and
// at ε = 1 on the issue-17 benchmark the iterated Bernstein operator of
// order 4–5 on k = 4–6 does that with noise that still leaves ≥ 0.9
// agreement in most releases (docs/reproduction.md, "Classifiers with
// privately chosen parameters"). The layout depends on n, the learner and
// the noise kind only.
func tuningLayout(n int, kind learners.Kind, noise mechanism.NoiseKind) ([]int, []float64) {
	if kind != learners.KindSVM || (noise != mechanism.NoiseLaplace && noise != mechanism.NoiseGaussian) || n <= 1 {
		return candidateLayout(n, false)
	}
	hs, ks := candidateLayout(n, true)
	for i := range hs {
		hs[i] = min(mechanism.MaxH, hs[i]+2)
	}
	return hs, ks
}
