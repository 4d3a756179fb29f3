package study

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// The one home of the "error at 95 %" (issue 19): what the target search
// (FindEpsilon) compares with the curator's target and what the curator's
// preview shows beside the plot. For one release setting, repeats releases
// are simulated (repeat r draws from RepeatSeed(seed, r), as PerRepeat) and
// the error of each is taken: sup_grid |release − F_D| for a density or a
// regression, the share of the points where the released classifier
// disagrees with the non-private one for a classifier. The measure is the
// TargetQuantile quantile of these errors with its order-statistics 95 %
// confidence interval.

// SettingSpec is one Bernstein release setting for QuantileError.
type SettingSpec struct {
	// Sensitivity S and Params (Epsilon, Delta, Noise, H; K is the
	// model's) give the noise scale (mechanism.NoiseScale).
	Sensitivity float64
	Params      mechanism.Params
	// Points (from the same model's AtPoints), when not nil, makes the
	// error a classifier's disagreement at Threshold.
	Points    *Points
	Threshold float64
	// Repeats releases, repeat r drawing from RepeatSeed(Seed, r).
	Repeats int
	Seed    uint64
}

// QuantileError simulates the releases of s on md and returns their
// TargetQuantile error with its confidence interval and their mean error
// (TargetPoint; K is the model's). With the same seed, repeats, noise and
// order, the releases are those of md.Run with PerRepeat{Seed} (its Mean
// is this Mean up to summation order). An ε, δ or k the noise kind refuses
// gives infinite errors (no error: that setting does not apply). Errors:
// repeats outside [20, MaxRepeats] (a 95 % quantile needs 20), an order md
// lacks, points of another model, ctx.Err() when cancelled.
func (md *Model) QuantileError(ctx context.Context, s SettingSpec) (TargetPoint, error) {
	p := s.Params
	out := TargetPoint{Epsilon: p.Epsilon, Noise: p.Noise, Delta: p.Delta, H: p.H, K: slices.Clone(md.k),
		Error: math.Inf(1), Low: math.Inf(1), High: math.Inf(1), Mean: math.Inf(1)}
	if err := checkQuantileRepeats(s.Repeats); err != nil {
		return out, err
	}
	p.K = md.k
	scale, err := mechanism.NoiseScale(s.Sensitivity, p)
	if err != nil {
		return out, nil
	}
	errs, err := md.simulateErrors(ctx, s, scale)
	if err != nil {
		return out, err
	}
	out.setErrors(errs)
	return out, nil
}

// checkQuantileRepeats refuses a number of simulated releases outside
// [20, MaxRepeats]: a 95 % quantile needs 20.
func checkQuantileRepeats(repeats int) error {
	if repeats < 20 || repeats > MaxRepeats {
		return fmt.Errorf("study: %d repeats: a 95%% quantile needs between 20 and %d", repeats, MaxRepeats)
	}
	return nil
}

// setErrors sets t's TargetQuantile error with its confidence interval
// and its mean error from the errors of the simulated releases.
func (t *TargetPoint) setErrors(errs []float64) {
	sum := 0.0
	for _, e := range errs {
		sum += e
	}
	t.Mean = sum / float64(len(errs))
	t.Error, t.Low, t.High = quantileCI(errs, TargetQuantile)
}

// simulateErrors returns the error of every simulated release of s at the
// noise scale, in repeat order (the worker of Model.Run, chunked).
func (md *Model) simulateErrors(ctx context.Context, s SettingSpec, scale float64) ([]float64, error) {
	sp := Spec{Sensitivity: s.Sensitivity, Noise: s.Params.Noise, Orders: []int{s.Params.H}, Measure: SupError,
		Threshold: s.Threshold, Points: s.Points}
	if s.Points != nil {
		sp.Measure = PointAgreement
	}
	measures := sp.measures()
	if err := md.checkMeasures(measures, sp); err != nil {
		return nil, err
	}
	if !slices.Contains(md.orders, s.Params.H) {
		return nil, fmt.Errorf("study: order h = %d: the model has %v", s.Params.H, md.orders)
	}
	errs := make([]float64, s.Repeats)
	var next atomic.Int64
	var wg sync.WaitGroup
	scales := []float64{scale}
	lb := md.linearBatch(sp.Orders)
	chunks := (s.Repeats + simChunk - 1) / simChunk
	for range min(runtime.GOMAXPROCS(0), chunks) {
		wg.Go(func() {
			work := md.worker(sp, measures, nil, lb)
			srcs := make([]Source, simChunk)
			out := make([]float64, simChunk)
			for {
				c := int(next.Add(1)) - 1
				if c >= chunks || ctx.Err() != nil {
					return
				}
				r0 := c * simChunk
				n := min(simChunk, s.Repeats-r0)
				for i := range n {
					srcs[i] = mechanism.NewSimulationNoise(RepeatSeed(s.Seed, r0+i))
				}
				// The worker cannot fail without a cancellation: its
				// measures are checked above.
				_ = work(r0, srcs[:n], []int{0}, scales, out[:n])
				for i := range n {
					if s.Points != nil {
						errs[r0+i] = 1 - out[i]
					} else {
						errs[r0+i] = out[i]
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return errs, nil
}
