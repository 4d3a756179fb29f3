package mechanism

import "context"

// Oracle is the target function F_D: [0,1]^ℓ → ℝ of Algorithm 1, with the
// data already bound in. Eval must be safe for concurrent use and must not
// retain y.
type Oracle interface {
	// Dim returns ℓ, the number of query coordinates.
	Dim() int
	// Eval returns F_D(y) for y ∈ [0,1]^ℓ (len(y) == Dim()).
	Eval(y []float64) float64
}

// GridOracle is implemented by oracles that can evaluate a whole tensor grid
// faster than point by point (for example a separable kernel density
// estimate). Sanitize uses it when present: EvaluateLattice calls EvalGrid
// sequentially (never concurrently) on at most 20 slabs of the lattice along
// the first axis, so EvalGrid may parallelise internally.
type GridOracle interface {
	Oracle
	// EvalGrid writes F_D at every point of axes[0] × … × axes[ℓ−1] into out,
	// in lattice order (row-major: the last axis varies fastest), so
	// len(out) == ∏ len(axes[j]). It returns ctx.Err() if cancelled.
	EvalGrid(ctx context.Context, axes [][]float64, out []float64) error
}

// ProgressGridOracle is a GridOracle that reports its own progress. When an
// oracle implements it, EvaluateLattice makes ONE EvalGridProgress call for
// the whole lattice instead of slabs (slabs repeat per-call set-up work, such
// as a kernel density estimate's pass over the data), and forwards the
// reported fraction as lattice progress.
type ProgressGridOracle interface {
	GridOracle
	// EvalGridProgress is EvalGrid that calls progress (if not nil) with
	// (done, total) in units of its own choosing, done ≤ total, possibly
	// from several goroutines (calls may arrive out of order).
	EvalGridProgress(ctx context.Context, axes [][]float64, out []float64, progress func(done, total int)) error
}

// NoiseKind names how the lattice values of a release are perturbed.
type NoiseKind string

const (
	// NoiseLaplace is Algorithm 1: i.i.d. Laplace with scale
	// λ = S(F)·∏(k_j+1)/ε; pure ε-differential privacy (Theorem 3).
	NoiseLaplace NoiseKind = "laplace"
	// NoiseLaplaceApprox is Section 4.2: Laplace with scale
	// λ_δ = 2·S(F)·√(2·∏(k_j+1)·log(1/δ))/ε, (ε,δ)-DP by advanced composition
	// (Theorem 7).
	NoiseLaplaceApprox NoiseKind = "laplace-approx"
	// NoiseGaussian is beyond the paper: the Gaussian mechanism calibrated
	// to the L2 sensitivity S(F)·√∏(k_j+1); (ε,δ)-DP.
	NoiseGaussian NoiseKind = "gaussian"
)

// Params are the release parameters of Algorithm 1. Params.Validate checks
// them (the only place the rules are enforced; ValidatePrivacy, ValidateK
// and ValidateH are its parts, for callers that hold only some of the
// parameters); NoiseScale turns them into the noise scale.
type Params struct {
	Epsilon float64   // ε > 0, finite
	Delta   float64   // δ ∈ (0,1) for NoiseLaplaceApprox and NoiseGaussian; 0 for NoiseLaplace
	Noise   NoiseKind // how coefficients are perturbed
	K       []int     // cover size per axis, k_j ≥ 1; len(K) == ℓ
	H       int       // iterated Bernstein order, 1 ≤ h ≤ 10
}
