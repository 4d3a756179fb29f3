package mechanism

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Synopsis is a released function: the iterated Bernstein polynomial whose
// coefficients are the NOISY lattice values F̃_D(p) (Algorithm 1, line 7),
// plus the public parameters of the release. Evaluating it (Eval, EvalBatch,
// EvalGrid, EvalNearest) is post-processing and costs no privacy.
//
// A Synopsis can only come from Sanitize, SanitizeValues (secure noise) or
// RestoreSynopsis (a file written from one); simulated releases have the
// distinct type SimulatedRelease.
type Synopsis struct {
	*Polynomial // coefficients are the noisy lattice values

	Noise       NoiseKind // how the coefficients were perturbed
	Scale       float64   // λ, λ_δ or σ actually used (NoiseScale)
	Epsilon     float64   // ε of the release
	Delta       float64   // δ of the release (0 for NoiseLaplace)
	Sensitivity float64   // S(F) the noise was calibrated to
}

// Params returns the release parameters of the synopsis.
func (s *Synopsis) Params() Params {
	return Params{Epsilon: s.Epsilon, Delta: s.Delta, Noise: s.Noise, K: slices.Clone(s.K()), H: s.H()}
}

// NoiseStdAt returns the public standard deviation of the noise part of the
// released value at y (Polynomial.NoiseStd with the synopsis' noise kind and
// scale).
func (s *Synopsis) NoiseStdAt(y []float64) (float64, error) {
	return s.NoiseStd(y, s.Noise, s.Scale)
}

// Sanitize is Algorithm 1. It validates sensitivity and p, checks that
// f.Dim() == len(p.K), evaluates the oracle exactly on the lattice
// (EvaluateLattice, with ctx and progress) and perturbs every value with
// secure noise (SanitizeValues; the noise step is also cancellable).
//
// Guarantee: if S(F) ≤ sensitivity, i.e. sup_y |F_D(y) − F_D′(y)| ≤
// sensitivity for all neighbouring datasets, the returned synopsis is
// ε-DP for NoiseLaplace (Theorem 3) and (ε,δ)-DP for NoiseLaplaceApprox
// (Section 4.2, with the composition check of ApproxComposedEpsilon) and
// NoiseGaussian (analytic Gaussian mechanism for L2 sensitivity S·√m).
// It assumes the oracle's outputs depend on D only through F_D and that no
// other value derived from D is released alongside.
func Sanitize(ctx context.Context, f Oracle, sensitivity float64, p Params, progress func(done, total int)) (*Synopsis, error) {
	if err := ValidateSensitivity(sensitivity); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if f == nil {
		return nil, errors.New("mechanism.Sanitize: nil oracle")
	}
	l, err := NewLattice(p.K)
	if err != nil {
		return nil, err
	}
	exact, err := EvaluateLattice(ctx, f, l, progress)
	if err != nil {
		return nil, err
	}
	return sanitizeValues(ctx, exact, sensitivity, p, false, nil)
}

// SanitizeValues perturbs exact lattice values (from EvaluateLattice, in
// lattice order, len ∏(k_j+1)) with secure noise from
// github.com/google/differential-privacy/go/v3/noise and returns the
// synopsis (Algorithm 1, lines 4–7):
//
//   - NoiseLaplace: Laplace().AddNoiseFloat64(x, l0 = m, lInf = S, ε, 0),
//     scale λ = S·m/ε;
//   - NoiseLaplaceApprox: Laplace().AddNoiseFloat64(x, 1, S, ε′, 0) with
//     ε′ = ε/(2√(2m·ln(1/δ))), scale λ_δ = S/ε′;
//   - NoiseGaussian: Gaussian().AddNoiseFloat64(x, m, S, ε, δ), scale
//     σ = noise.SigmaForGaussian(m, S, ε, δ).
//
// There is deliberately no way to pass a noise source. Errors of the noise
// library are returned. See Sanitize for the guarantee; exact must come from
// the oracle whose sensitivity is given. exact is not modified.
func SanitizeValues(exact []float64, sensitivity float64, p Params) (*Synopsis, error) {
	return SanitizeValuesContext(context.Background(), exact, sensitivity, p, nil)
}

// SanitizeValuesContext is SanitizeValues with cancellation and progress:
// the secure draws (about 10 µs each) are made in chunks of 512, ctx is
// checked between chunks (on cancellation it returns ctx.Err() and no
// synopsis), and progress, if not nil, is called after each chunk with the
// number of values perturbed so far and the total, from worker goroutines
// (it must be safe for concurrent use). Guarantee and noise as for
// SanitizeValues.
func SanitizeValuesContext(ctx context.Context, exact []float64, sensitivity float64, p Params, progress func(done, total int)) (*Synopsis, error) {
	if err := ValidateSensitivity(sensitivity); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return sanitizeValues(ctx, exact, sensitivity, p, true, progress)
}

func sanitizeValues(ctx context.Context, exact []float64, sensitivity float64, p Params, check bool, progress func(done, total int)) (*Synopsis, error) {
	if check {
		if err := checkCoefficients(p.K, exact); err != nil {
			return nil, err
		}
	}
	scale, err := noiseScaleValid(sensitivity, p)
	if err != nil {
		return nil, err
	}
	src, err := newSecureNoise(sensitivity, p)
	if err != nil {
		return nil, err
	}
	noisy, err := addSecureNoise(ctx, src, exact, progress)
	if err != nil {
		return nil, err
	}
	return &Synopsis{
		Polynomial:  newPolynomial(slices.Clone(p.K), p.H, noisy),
		Noise:       p.Noise,
		Scale:       scale,
		Epsilon:     p.Epsilon,
		Delta:       p.Delta,
		Sensitivity: sensitivity,
	}, nil
}

// addSecureNoise returns exact + one independent secure draw per value. The
// draws (≈ 10 µs each, dominated by the library's locked crypto/rand
// buffer and its sampling arithmetic) are spread over runtime.GOMAXPROCS(0)
// goroutines in chunks; ctx is checked between chunks and progress (if not
// nil) is called after each chunk.
func addSecureNoise(ctx context.Context, src *secureNoise, exact []float64, progress func(done, total int)) ([]float64, error) {
	const chunk = 512
	noisy := make([]float64, len(exact))
	nChunks := (len(exact) + chunk - 1) / chunk
	workers := min(runtime.GOMAXPROCS(0), nChunks)
	var next, done atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= nChunks {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				for i := c * chunk; i < min((c+1)*chunk, len(exact)); i++ {
					v, err := src.add(exact[i])
					if err != nil {
						errs[w] = err
						next.Store(int64(nChunks)) // stop the others
						return
					}
					noisy[i] = v
				}
				if progress != nil {
					d := done.Add(int64(min((c+1)*chunk, len(exact)) - c*chunk))
					progress(int(d), len(exact))
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return noisy, nil
}

// RestoreSynopsis rebuilds a synopsis read from a file. It validates
// everything as a release would (k, h, ε, δ, noise kind, sensitivity, finite
// coefficients), recomputes NoiseScale and refuses a scale that differs from
// it by more than a relative 1e-12, so a file cannot claim a guarantee its
// noise does not carry. The synopsis keeps noisy itself (not a copy, so a
// large file costs one array less): the caller must not modify it
// afterwards. With h ≥ 2 it holds one more array, the transformed
// coefficients; nothing else of the lattice's size.
func RestoreSynopsis(k []int, h int, noisy []float64, kind NoiseKind, scale, epsilon, delta, sensitivity float64) (*Synopsis, error) {
	p := Params{Epsilon: epsilon, Delta: delta, Noise: kind, K: slices.Clone(k), H: h}
	if err := ValidateSensitivity(sensitivity); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := checkCoefficients(p.K, noisy); err != nil {
		return nil, err
	}
	want, err := noiseScaleValid(sensitivity, p)
	if err != nil {
		return nil, err
	}
	if !(math.Abs(scale-want) <= 1e-12*want) {
		return nil, paramErr("scale", scale, "does not match the noise scale %.17g implied by noise %q, S = %g, ε = %g, δ = %g, k = %v (relative tolerance 1e-12)",
			want, kind, sensitivity, epsilon, delta, k)
	}
	return &Synopsis{
		Polynomial:  newPolynomial(p.K, h, noisy),
		Noise:       kind,
		Scale:       scale,
		Epsilon:     epsilon,
		Delta:       delta,
		Sensitivity: sensitivity,
	}, nil
}

// String summarises the release parameters (no coefficients).
func (s *Synopsis) String() string {
	return fmt.Sprintf("Synopsis{noise %s, scale %g, ε %g, δ %g, S %g, k %v, h %d}",
		s.Noise, s.Scale, s.Epsilon, s.Delta, s.Sensitivity, s.K(), s.H())
}
