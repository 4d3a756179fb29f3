package peers

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// Hall, Rinaldo & Wasserman, "Differential Privacy for Functions and
// Functional Data" (JMLR 2013; the workshop text in
// /work/shared/papers/hall-rinaldo-wasserman-dp-functions-rkhs.txt):
// release a function f_D ∈ H(K) by adding a Gaussian process with
// covariance c·K, where
//
//	c = c(ε, δ, Δ) = 2·ln(2/δ)·Δ²/ε²                          (Prop. 1.1)
//
// and Δ ≥ sup_{D∼D′} ‖f_D − f_D′‖_{H(K)} (Prop. 2.1, Eq. 3). The release
// is (ε, δ)-DP for ε ≤ 1: the constant is that of the classical Gaussian
// mechanism (Dwork–Roth Thm A.1 with ln(2/δ) in place of ln(1.25/δ)),
// whose proof assumes ε ≤ 1.
//
// Here the process is released through its values on a public tensor grid
// (a finite marginal of the process is post-processing of it) and
// evaluated between grid points by multilinear interpolation (more
// post-processing). Noise is never drawn inside this package: the caller
// passes a GaussianSource.

// GPMaxEpsilon is the largest ε Hall et al.'s proof covers.
const GPMaxEpsilon = 1.0

// GP grid limits: the Cholesky factor of one axis costs m³/3 flops and m²
// floats; the grid values cost ∏ m_j floats.
const (
	MaxGPAxisPoints = 4001    // points per axis
	MaxGPGridPoints = 1 << 22 // points in the whole grid
)

// GP jitter ladder (see NewGPFactor): τ = 0, then gpJitterStart·t,
// ×10 each step, up to GPMaxJitter·t, with t = trace(K_j)/m_j = 1 for the
// unit-amplitude per-axis kernel.
const (
	gpJitterStart = 1e-12
	// GPMaxJitter is the largest relative jitter τ_j/(trace(K_j)/m_j) tried
	// before NewGPFactor gives up. It inflates the noise variance at every
	// grid point by at most a factor (1 + GPMaxJitter)^ℓ.
	GPMaxJitter = 1e-4
)

// GaussianSource supplies independent Normal(0, σ²) draws; it is the
// Gaussian half of NoiseSource, so any NoiseSource will do.
// *mechanism.SimulationNoise satisfies it (seeded: previews, figures,
// tests only). A real release must pass a source backed by
// github.com/google/differential-privacy/go/v3/noise (cryptographically
// secure randomness); this package never chooses the source.
type GaussianSource interface {
	Gaussian(sigma float64) float64
}

// GPNoiseScale returns √c, c = 2·ln(2/δ)·Δ²/ε² (Hall, Rinaldo & Wasserman,
// Prop. 1.1 and 2.1): the released process is f_D + √c·G with G the
// centred Gaussian process of covariance K, the kernel whose RKHS norm
// measures the sensitivity rkhsSensitivity = Δ. The result is (ε, δ)-DP
// if Δ ≥ sup_{D∼D′} ‖f_D − f_D′‖_{H(K)}.
//
// Rules: ε and δ as mechanism.ValidatePrivacy with Gaussian noise, and
// ε ≤ 1 (Hall et al.'s proof needs it),
// Δ ≥ 0 and finite. Δ = 0 gives scale 0 (a data-independent function needs
// no noise).
func GPNoiseScale(rkhsSensitivity, epsilon, delta float64) (float64, error) {
	if !(rkhsSensitivity >= 0) || math.IsInf(rkhsSensitivity, 0) {
		return 0, fmt.Errorf("peers.GPNoiseScale: RKHS sensitivity Δ = %v: must be ≥ 0 and finite", rkhsSensitivity)
	}
	if err := mechanism.ValidatePrivacy(epsilon, delta, mechanism.NoiseGaussian); err != nil {
		return 0, fmt.Errorf("peers.GPNoiseScale: %w", err)
	}
	if epsilon > GPMaxEpsilon {
		return 0, fmt.Errorf("peers.GPNoiseScale: epsilon = %v: must be ≤ 1 (Hall et al.'s proof needs ε ≤ 1)", epsilon)
	}
	s := rkhsSensitivity * math.Sqrt(2*math.Log(2/delta)) / epsilon
	if math.IsInf(s, 0) {
		return 0, fmt.Errorf("peers.GPNoiseScale: RKHS sensitivity Δ = %v with epsilon = %v gives an infinite noise scale", rkhsSensitivity, epsilon)
	}
	return s, nil
}

// GPKernel is the product Gaussian kernel
//
//	K(x, y) = A · ∏_j exp(−(x_j − y_j)²/(2σ_j²)),
//
// the covariance of the released process and the kernel whose RKHS norm
// the sensitivity Δ must bound (the same A and σ_j on both sides).
type GPKernel struct {
	Amplitude float64   // A > 0
	Sigmas    []float64 // σ_j > 0, one per axis
}

func (k GPKernel) validate(dim int) error {
	if !(k.Amplitude > 0) || math.IsInf(k.Amplitude, 0) {
		return fmt.Errorf("peers: GP kernel amplitude A = %v: must be positive and finite", k.Amplitude)
	}
	if len(k.Sigmas) != dim {
		return fmt.Errorf("peers: GP kernel has %d widths σ_j for %d grid axes: need one per axis", len(k.Sigmas), dim)
	}
	for j, s := range k.Sigmas {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("peers: GP kernel width σ_%d = %v: must be positive and finite", j, s)
		}
	}
	return nil
}

// validateGPAxes checks the public grid: at least one axis, each non-empty,
// finite and strictly increasing, within the size limits. It returns the
// number of grid points.
func validateGPAxes(axes [][]float64) (int, error) {
	if len(axes) == 0 {
		return 0, fmt.Errorf("peers: GP grid has no axes: need at least one")
	}
	total := 1
	for j, a := range axes {
		if len(a) == 0 || len(a) > MaxGPAxisPoints {
			return 0, fmt.Errorf("peers: GP grid axis %d has %d points: must have between 1 and %d", j, len(a), MaxGPAxisPoints)
		}
		for i, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("peers: GP grid axis %d, point %d = %v: must be finite", j, i, v)
			}
			if i > 0 && !(v > a[i-1]) {
				return 0, fmt.Errorf("peers: GP grid axis %d, point %d = %v: must be greater than point %d = %v (axes strictly increasing)", j, i, v, i-1, a[i-1])
			}
		}
		total *= len(a)
		if total > MaxGPGridPoints {
			return 0, fmt.Errorf("peers: GP grid has more than %d points: too large", MaxGPGridPoints)
		}
	}
	return total, nil
}

// GPFactor is the square root of the covariance of a Gaussian process with
// kernel GPKernel on a public tensor grid axes[0] × … × axes[ℓ−1]. On the
// grid the covariance is the Kronecker product A·⊗_j K_j, K_j[a][b] =
// exp(−(x_a − x_b)²/(2σ_j²)) on axis j, so it is factored axis by axis:
// L_j is the lower Cholesky factor of K_j + (τ_j + ρ_j)·I and
// √A·⊗_j L_j is applied without forming the Kronecker product.
//
// Jitter τ_j. Gaussian kernel matrices on fine grids are numerically
// singular, so τ_j runs up a ladder — 0, 1e-12, 1e-11, …, GPMaxJitter
// (relative to trace(K_j)/m_j = 1) — and the first value whose Cholesky
// succeeds is kept; NewGPFactor fails if none does. This is safe for
// privacy: ⊗_j(K_j + τ_jI) − ⊗_j K_j expands into a sum of Kronecker
// products of positive semidefinite factors, so it is PSD, and the
// released noise is the required GP noise plus independent,
// data-independent Gaussian noise — post-processing, which keeps (ε, δ)-DP
// and only costs a little utility (variance × at most (1+τ)^ℓ).
//
// Rounding allowance ρ_j. The computed factor satisfies
// L̂L̂ᵀ = K̂_j + (τ_j+ρ_j)I + E with ‖E‖₂ ≤ γ_{m+1}·trace/(1−γ_{m+1})
// (Higham, Accuracy and Stability, Thm 10.3, and ‖r_i‖² ≤ A_ii/(1−γ)),
// and the computed kernel K̂_j differs from K_j by a few ulps per entry
// (‖·‖₂ ≤ 3m·u). ρ_j = 2γ_{m+1}·m·(1+τ_j) + 8m·u dominates both, so
// L̂L̂ᵀ ⪰ K_j + τ_jI ⪰ K_j: rounding in the factorisation cannot shrink the
// noise below what Prop. 2.1 requires. (ρ ≈ 2.2e-10 for m = 1001.) In
// practice ρ alone already lets the factorisation finish for Gaussian
// kernels, even numerically singular ones (1001 points, σ = 0.05: τ = 0);
// the ladder is a safety net for what that argument misses. The
// product L̂z is itself rounded (relative error ≤ γ_m per entry) and the
// mean values f_D(grid) carry their own evaluation error; neither is
// covered by the Gaussian-mechanism proof — the same floating-point caveat
// as every floating-point Gaussian mechanism (docs/security.md).
//
// A GPFactor depends only on public inputs (grid and kernel). It is
// immutable after NewGPFactor and may be shared; Sample needs its own
// source and output per goroutine.
type GPFactor struct {
	axes   [][]float64
	kernel GPKernel
	size   int
	chol   [][]float64 // chol[j]: m_j×m_j lower-triangular, row-major
	jitter []float64   // τ_j
	round  []float64   // ρ_j
	// upper is L_1ᵀ padded to a multiple of gemm.ColBlock columns, built
	// once by the first SampleRows of a one-axis factor (gp_rows.go).
	upperOnce sync.Once
	upper     []float64
}

// NewGPFactor validates the grid (non-empty, finite, strictly increasing
// axes; at most MaxGPAxisPoints per axis and MaxGPGridPoints in all) and the
// kernel (A > 0, one σ_j > 0 per axis) and factors every axis (see
// GPFactor). Cost: Σ_j m_j³/3 flops.
func NewGPFactor(axes [][]float64, k GPKernel) (*GPFactor, error) {
	total, err := validateGPAxes(axes)
	if err != nil {
		return nil, err
	}
	if err := k.validate(len(axes)); err != nil {
		return nil, err
	}
	f := &GPFactor{
		kernel: GPKernel{Amplitude: k.Amplitude, Sigmas: slices.Clone(k.Sigmas)},
		size:   total,
	}
	for j, a := range axes {
		f.axes = append(f.axes, slices.Clone(a))
		l, tau, rho, err := gpAxisCholesky(a, k.Sigmas[j])
		if err != nil {
			return nil, fmt.Errorf("peers: GP grid axis %d (%d points, σ = %g): %w", j, len(a), k.Sigmas[j], err)
		}
		f.chol = append(f.chol, l)
		f.jitter = append(f.jitter, tau)
		f.round = append(f.round, rho)
	}
	return f, nil
}

// gpUnitRoundoff is u = 2⁻⁵³.
const gpUnitRoundoff = 1.0 / (1 << 53)

// gpAllowance is ρ for an m×m factor with jitter τ (see GPFactor).
func gpAllowance(m int, tau float64) float64 {
	mu := float64(m+1) * gpUnitRoundoff
	gamma := mu / (1 - mu)
	return 2*gamma*float64(m)*(1+tau) + 8*float64(m)*gpUnitRoundoff
}

// gpAxisCholesky factors exp(−(a_p − a_q)²/(2σ²)) + (τ+ρ)I, τ from the
// jitter ladder.
func gpAxisCholesky(a []float64, sigma float64) (l []float64, tau, rho float64, err error) {
	m := len(a)
	k := make([]float64, m*m)
	for p := range m {
		for q := range p + 1 {
			d := (a[p] - a[q]) / sigma
			v := math.Exp(-d * d / 2)
			k[p*m+q], k[q*m+p] = v, v
		}
	}
	return choleskyLadder(k, m)
}

// choleskyLadder factors the symmetric m×m matrix k (unit diagonal scale)
// plus (τ+ρ)I, climbing the jitter ladder τ = 0, 1e-12, …, GPMaxJitter.
func choleskyLadder(k []float64, m int) (l []float64, tau, rho float64, err error) {
	l = make([]float64, m*m)
	for tau = 0; ; {
		rho = gpAllowance(m, tau)
		if choleskyLower(k, tau+rho, m, l) {
			return l, tau, rho, nil
		}
		switch {
		case tau == 0:
			tau = gpJitterStart
		case tau >= GPMaxJitter:
			return nil, 0, 0, fmt.Errorf("kernel matrix is not positive definite even with jitter τ = %g (the cap GPMaxJitter): the grid is too fine for this kernel width", tau)
		default:
			tau = math.Min(tau*10, GPMaxJitter)
		}
	}
}

// choleskyLower writes into l (m×m, row-major) the lower Cholesky factor
// of k + shift·I and reports whether every pivot was positive. Rows are
// taken four at a time: their entries left of the block's diagonal are
// four independent chains (choleskyRows4), then the block's triangle as
// before; every entry is computed by the same operations in the same
// order as row by row, so the factor has the same bits.
func choleskyLower(k []float64, shift float64, m int, l []float64) bool {
	clear(l)
	i0 := 0
	for ; i0+4 <= m; i0 += 4 {
		choleskyRows4(k, m, l, i0)
		if !choleskyRows(k, shift, m, l, i0, i0+4, i0) {
			return false
		}
	}
	return choleskyRows(k, shift, m, l, i0, m, 0)
}

// choleskyRows4 computes l[i][j] for the rows i = i0..i0+3 and the
// columns j < i0 (rows above i0 done): four chains side by side, each
// k[i][j] − Σ_{p<j} l[i][p]·l[j][p] in increasing p, then ÷ l[j][j].
func choleskyRows4(k []float64, m int, l []float64, i0 int) {
	l0, l1, l2, l3 := l[i0*m:i0*m+m], l[(i0+1)*m:(i0+1)*m+m], l[(i0+2)*m:(i0+2)*m+m], l[(i0+3)*m:(i0+3)*m+m]
	for j := range i0 {
		lj := l[j*m : j*m+j+1]
		s0, s1, s2, s3 := k[i0*m+j], k[(i0+1)*m+j], k[(i0+2)*m+j], k[(i0+3)*m+j]
		a0, a1, a2, a3 := l0[:j], l1[:j], l2[:j], l3[:j]
		for p, v := range lj[:j] {
			s0 -= a0[p] * v
			s1 -= a1[p] * v
			s2 -= a2[p] * v
			s3 -= a3[p] * v
		}
		d := lj[j]
		l0[j], l1[j], l2[j], l3[j] = s0/d, s1/d, s2/d, s3/d
	}
}

// choleskyRows computes the rows i0 ≤ i < i1 of the factor from column
// jFrom on (the columns before are done), row by row.
func choleskyRows(k []float64, shift float64, m int, l []float64, i0, i1, jFrom int) bool {
	for i := i0; i < i1; i++ {
		li := l[i*m : i*m+m]
		for j := jFrom; j <= i; j++ {
			lj := l[j*m : j*m+m]
			s := k[i*m+j]
			if i == j {
				s += shift
			}
			for p := range j {
				s -= li[p] * lj[p]
			}
			if i == j {
				if !(s > 0) {
					return false
				}
				li[i] = math.Sqrt(s)
			} else {
				li[j] = s / lj[j]
			}
		}
	}
	return true
}

// Size returns the number of grid points ∏ m_j.
func (f *GPFactor) Size() int { return f.size }

// Sample writes scale·√A·(⊗_j L_j)·z into out, z i.i.d. Normal(0, 1) from
// src (drawn in grid order): a draw, on the grid, of the Gaussian process
// with covariance scale²·K (plus the jitter of GPFactor). Grid order is
// row-major, the last axis varying fastest (as mechanism.Lattice).
// Cost: ∏m_j·Σ_j m_j multiply-adds. Errors: nil src, len(out) ≠ Size(),
// scale negative or not finite.
func (f *GPFactor) Sample(scale float64, src GaussianSource, out []float64) error {
	if src == nil {
		return fmt.Errorf("peers: GPFactor.Sample: nil Gaussian source")
	}
	if len(out) != f.size {
		return fmt.Errorf("peers: GPFactor.Sample: output has %d values, grid has %d points", len(out), f.size)
	}
	if !(scale >= 0) || math.IsInf(scale, 0) {
		return fmt.Errorf("peers: GPFactor.Sample: scale = %v: must be ≥ 0 and finite", scale)
	}
	for i := range out {
		out[i] = src.Gaussian(1)
	}
	f.applyFactor(out)
	s := scale * math.Sqrt(f.kernel.Amplitude)
	for i := range out {
		out[i] *= s
	}
	return nil
}

// applyFactor replaces x by (⊗_j L_j)·x in place: L_j is applied to every
// fibre along axis j.
func (f *GPFactor) applyFactor(x []float64) {
	inner := f.size
	buf := make([]float64, 0, MaxGPAxisPoints)
	for j, a := range f.axes {
		m := len(a)
		inner /= m
		outer := f.size / (inner * m)
		l := f.chol[j]
		fibre := buf[:m]
		for o := range outer {
			base := o * m * inner
			for r := range inner {
				for p := range m {
					fibre[p] = x[base+p*inner+r]
				}
				for p := range m {
					row := l[p*m : p*m+p+1]
					var s float64
					for q, v := range row {
						s += v * fibre[q]
					}
					x[base+p*inner+r] = s
				}
			}
		}
	}
}
