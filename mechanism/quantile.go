package mechanism

import (
	"bufio"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
)

// QuantileGrid is the public grid of the quantile estimates: an estimate
// is lo + j·(hi−lo)/QuantileGrid for an integer j. Rounding the sampled
// point to it is post-processing (it depends on the public range only) and
// removes low-order floating-point bits that could otherwise carry the
// exact data values bounding the chosen interval.
const QuantileGrid = 1 << 32

// Quantile is the outcome of PrivateQuantile: one point of the public
// range, the only thing a private quantile publishes. Only PrivateQuantile,
// with cryptographically secure randomness, makes a Quantile;
// SimulatePrivateQuantile returns a SimulatedQuantile, a distinct type, so
// a seeded draw cannot stand in for a private estimate.
type Quantile struct {
	Value float64
}

// SimulatedQuantile is what PrivateQuantile could return, drawn with a
// seeded SimulationNoise: for tests and simulations only.
type SimulatedQuantile struct {
	Value float64
}

// ValidateQuantile checks the arguments of PrivateQuantile: a finite public
// range lo < hi of finite width, a quantile q ∈ (0, 1), ε > 0 finite and at
// least one record, every record a number (NaN is refused; records outside
// [lo, hi] are clipped). Errors are *ParamError values.
func ValidateQuantile(x []float64, lo, hi, q, epsilon float64) error {
	switch {
	case math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0) || !(lo < hi) || math.IsInf(hi-lo, 0):
		return paramErr("range", fmt.Sprintf("[%v, %v]", lo, hi), "the public range needs finite lo < hi with a finite width")
	case !(q > 0 && q < 1):
		return paramErr("quantile", q, "must be strictly between 0 and 1")
	case !finitePositive(epsilon):
		return paramErr("epsilon", epsilon, "the quantile ε must be > 0 and finite")
	case len(x) == 0:
		return paramErr("records", "[]", "need at least one record")
	}
	for i, v := range x {
		if math.IsNaN(v) {
			return paramErr(fmt.Sprintf("records[%d]", i), v, "is not a number")
		}
	}
	return nil
}

// PrivateQuantile returns an ε-differentially private estimate of the
// q-quantile of x within the public range [lo, hi], by the exponential
// mechanism over that range (McSherry & Talwar 2007) with the rank utility
// of Smith (STOC 2011, Section 3): the records are clipped to [lo, hi] and
// sorted, t_1 ≤ … ≤ t_n, with t_0 = lo and t_{n+1} = hi; interval
// I_i = [t_i, t_{i+1}] (i = 0 … n) is chosen with probability
//
//	P(i) ∝ |I_i| · exp(−(ε/2)·|i − q·n|)
//
// and the estimate is a uniform point of I_i, rounded to the public grid
// of QuantileGrid steps. Randomness comes from crypto/rand.
//
// Guarantee (replace-one neighbours, n public): the output has density
// f_D(y) = exp(−(ε/2)|r_D(y) − qn|)/Z_D on [lo, hi], with r_D(y) the number
// of records below y; replacing one record moves r_D(y) by at most 1 for
// every y, so the numerator changes by at most e^{ε/2} and Z_D (its
// integral) by at most e^{ε/2}: the density ratio is at most e^ε. The full
// proof and the floating-point discussion are in docs/sensitivity.md,
// "Privately estimated bounds".
//
// Arguments are validated by ValidateQuantile.
func PrivateQuantile(x []float64, lo, hi, q, epsilon float64) (Quantile, error) {
	if err := ValidateQuantile(x, lo, hi, q, epsilon); err != nil {
		return Quantile{}, err
	}
	v, err := sampleQuantile(x, lo, hi, q, epsilon, newCryptoBits())
	if err != nil {
		return Quantile{}, err
	}
	return Quantile{Value: v}, nil
}

// SimulatePrivateQuantile is PrivateQuantile with seeded randomness from
// src, for tests and simulations only.
func SimulatePrivateQuantile(x []float64, lo, hi, q, epsilon float64, src *SimulationNoise) (SimulatedQuantile, error) {
	if src == nil {
		return SimulatedQuantile{}, errors.New("mechanism.SimulatePrivateQuantile: nil simulation noise source")
	}
	if err := ValidateQuantile(x, lo, hi, q, epsilon); err != nil {
		return SimulatedQuantile{}, err
	}
	v, err := sampleQuantile(x, lo, hi, q, epsilon, src.r)
	if err != nil {
		return SimulatedQuantile{}, err
	}
	return SimulatedQuantile{Value: v}, nil
}

// bitSource yields uniformly random 64-bit words.
type bitSource interface{ Uint64() uint64 }

// cryptoBits reads crypto/rand through a buffer. It is unexported and
// made only by newCryptoBits: release paths cannot be handed a seed.
type cryptoBits struct {
	r   *bufio.Reader
	err error
}

func newCryptoBits() *cryptoBits { return &cryptoBits{r: bufio.NewReaderSize(rand.Reader, 4096)} }

func (c *cryptoBits) Uint64() uint64 {
	var b [8]byte
	if _, err := io.ReadFull(c.r, b[:]); err != nil {
		// crypto/rand does not fail on supported platforms (Go ≥ 1.24);
		// should it, the draw is refused rather than made from zeros.
		c.err = err
		return 0
	}
	return binary.LittleEndian.Uint64(b[:])
}

// quantileIntervals returns the interval end points in unit coordinates
// (u = (v−lo)/(hi−lo), clipped, sorted, with 0 and 1 added: n+2 points)
// and the log-weights log|I_i| − (ε/2)|i − qn| of the n+1 intervals
// (−Inf for an empty interval). Arguments are validated.
func quantileIntervals(x []float64, lo, hi, q, epsilon float64) (pts, logw []float64) {
	n := len(x)
	pts = make([]float64, 0, n+2)
	pts = append(pts, 0)
	w := hi - lo
	for _, v := range x {
		pts = append(pts, min(max((v-lo)/w, 0), 1))
	}
	pts = append(pts, 1)
	slices.Sort(pts[1 : n+1])
	logw = make([]float64, n+1)
	qn := q * float64(n)
	for i := range logw {
		logw[i] = math.Log(pts[i+1]-pts[i]) - epsilon/2*math.Abs(float64(i)-qn)
	}
	return pts, logw
}

// sampleQuantile draws interval i with probability ∝ exp(logw_i) by the
// Gumbel-max trick (i = argmax logw_i + G_i, G_i i.i.d. standard Gumbel,
// exact in real arithmetic), then a uniform point of it, rounded to the
// grid.
func sampleQuantile(x []float64, lo, hi, q, epsilon float64, src bitSource) (float64, error) {
	pts, logw := quantileIntervals(x, lo, hi, q, epsilon)
	best, bestVal := -1, math.Inf(-1)
	for i, lw := range logw {
		if math.IsInf(lw, -1) {
			continue // empty interval: probability 0
		}
		v := lw - math.Log(exp1(src))
		if best < 0 || v > bestVal {
			best, bestVal = i, v
		}
	}
	if c, ok := src.(*cryptoBits); ok && c.err != nil {
		return 0, fmt.Errorf("secure randomness: %w", c.err)
	}
	if best < 0 {
		return 0, errors.New("quantile: no interval of positive length") // impossible: the lengths sum to 1
	}
	a, b := pts[best], pts[best+1]
	v := float64(src.Uint64()>>11) / (1 << 53) // uniform in [0, 1)
	u := a + v*(b-a)
	u = math.Round(u*QuantileGrid) / QuantileGrid
	u = min(max(u, 0), 1)
	return min(max(lo+u*(hi-lo), lo), hi), nil
}

// exp1 returns a standard exponential variate −ln U with U uniform on
// (0, 1), computed with full relative precision in both tails: half the
// time U = W ∈ (0, ½) and E = −ln W, otherwise U = 1 − W and
// E = −ln(1 − W) = −log1p(−W), where W is uniform on (0, ½) with every
// binade sampled (uniformHalf). So P(E > t) and P(E ≤ t) are both within a
// few ulps, relatively, of e^{−t} and 1 − e^{−t}.
func exp1(src bitSource) float64 {
	w := uniformHalf(src)
	if src.Uint64()&1 == 0 {
		return -math.Log(w)
	}
	return -math.Log1p(-w)
}

// uniformHalf returns W uniform on (0, ½): the binade [2^−e, 2^−e+1) is
// chosen with probability 2^−(e−1) (e ≥ 2, from the leading zeros of random
// words; capped at the smallest normal binade) and the 52 mantissa bits
// uniformly.
func uniformHalf(src bitSource) float64 {
	e := 2
	for e < 1022 {
		w := src.Uint64()
		if w != 0 {
			e += bits.LeadingZeros64(w)
			break
		}
		e += 64
	}
	e = min(e, 1022)
	m := src.Uint64() >> 12
	return math.Ldexp(1+float64(m)/(1<<52), -e)
}
