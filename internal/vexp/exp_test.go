package vexp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

const u = 0x1p-53

// expEdges are the arguments where the algorithm changes regime: zero and
// the smallest magnitudes, the reduction's half-way points (k ± ½)·ln 2
// and their neighbours for every k, the clamp at −708, the underflow range
// and the infinite end.
func expEdges() []float64 {
	xs := []float64{0, math.Copysign(0, -1), -math.SmallestNonzeroFloat64, -0x1p-1022, -u, -2 * u, -1e-300, -1e-20, -1e-8,
		-0.5, -1, -2, -10, -100, -700, -707.999, expMin, math.Nextafter(expMin, 0), math.Nextafter(expMin, -1000),
		-708.3964185322641, -709, -744.44, -745.1332191019411, -745.1332191019412, -746, -1000, -1e300,
		-math.MaxFloat64, math.Inf(-1)}
	for k := 0; k <= 1022; k++ {
		h := -(float64(k) + 0.5) * math.Ln2
		for _, d := range []float64{-2, -1, 0, 1, 2} {
			xs = append(xs, min(0, h+d*math.Abs(h)*u*2))
		}
		xs = append(xs, -float64(k)*math.Ln2)
	}
	return xs
}

// TestExpBoundBig checks |Exp(x) − e^x| ≤ RelErr·e^x + Tiny against e^x to
// about 100 bits (math/big) at the edges and 5·10⁴ random arguments,
// uniform in [−745, 0] and log-uniform magnitudes in [e⁻⁴⁶, 1] (below −708
// the bound is the absolute Tiny). It also reports the largest relative
// error seen (the proof in doc.go gives ≤ 3.13u).
func TestExpBoundBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 4))
	xs := expEdges()
	for range 25000 {
		xs = append(xs, -745*rng.Float64(), -math.Exp(-46*rng.Float64()))
	}
	got := make([]float64, len(xs))
	Exp(got, xs)
	worst := 0.0
	for i, x := range xs {
		e := bigExp(x)
		ef, _ := e.Float64()
		diff, _ := new(big.Float).Sub(new(big.Float).SetFloat64(got[i]), e).Float64()
		if math.Abs(diff) > RelErr*ef+Tiny {
			t.Fatalf("Exp(%v) = %v, e^x = %v: error %.3g > RelErr·e^x + Tiny", x, got[i], ef, math.Abs(diff))
		}
		if x >= expMin {
			if math.Abs(diff) > RelErr*ef {
				t.Fatalf("Exp(%v) = %v, e^x = %v: relative error %.3gu > 4u", x, got[i], ef, math.Abs(diff)/ef/u)
			}
			worst = max(worst, math.Abs(diff)/ef/u)
		}
	}
	t.Logf("largest relative error on [−708, 0]: %.3fu (%d arguments)", worst, len(xs))
}

// bigExp returns e^x (x ≤ 0 finite, or −Inf) with relative error below
// 2⁻¹⁰⁰: the Taylor series of y = x/2¹² (|y| < 0.2 for x ≥ −800; smaller x
// are evaluated at −800, whose e^x is below Tiny too) to 28 terms
// (remainder < 0.2²⁸/28! < 2⁻¹⁶⁰) at 128 bits, squared 12 times (each
// squaring at most doubles the relative error and adds 2⁻¹²⁸).
func bigExp(x float64) *big.Float {
	const prec = 128
	x = max(x, -800)
	y := new(big.Float).SetPrec(prec).SetFloat64(x)
	y.SetMantExp(y, -12)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for i := int64(1); i <= 28; i++ {
		term.Mul(term, y)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(i))
		sum.Add(sum, term)
	}
	for range 12 {
		sum.Mul(sum, sum)
	}
	return sum
}

// TestExpAgainstMathExp checks the bound on 1.2·10⁷ arguments (the edges,
// then uniform on [−745, 0], log-uniform magnitudes in [e⁻⁴⁶, 1], and the
// kernel arguments −½‖a − b‖² of points in the unit square) against
// math.Exp, whose error is below 1 ulp (≤ 2u·e^x for normal results):
// where |Exp(x) − math.Exp(x)| ≤ 1.9u·math.Exp(x), the bound RelErr·e^x
// follows; every other argument is checked against e^x itself (bigExp).
// Below −708 the bound is Tiny, checked directly.
func TestExpAgainstMathExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 7))
	const block = 1 << 16
	xs := make([]float64, block)
	got := make([]float64, block)
	total, worst, sharp := 0, 0.0, 0
	check := func(xs []float64) {
		Exp(got, xs)
		for i, x := range xs {
			if x < expMin {
				// 0 ≤ e^x < e^{−708} < Tiny: the bound holds iff the
				// result is in [0, Tiny].
				if !(got[i] >= 0 && got[i] <= Tiny) {
					t.Fatalf("Exp(%v) = %v, want a value in [0, Tiny]", x, got[i])
				}
				continue
			}
			m := math.Exp(x)
			d := math.Abs(got[i] - m)
			worst = max(worst, d/m/u)
			if d <= 1.9*u*m {
				continue
			}
			sharp++
			e := bigExp(x)
			ef, _ := e.Float64()
			diff, _ := new(big.Float).Sub(new(big.Float).SetFloat64(got[i]), e).Float64()
			if math.Abs(diff) > RelErr*ef+Tiny {
				t.Fatalf("Exp(%v) = %v, e^x = %v (math.Exp %v): error %.3g > RelErr·e^x + Tiny", x, got[i], ef, m, math.Abs(diff))
			}
		}
		total += len(xs)
	}
	check(expEdges())
	for b := range 184 {
		for i := range xs {
			switch b % 3 {
			case 0:
				xs[i] = -745 * rng.Float64()
			case 1:
				xs[i] = -math.Exp(-46 * rng.Float64())
			default:
				d0, d1 := rng.Float64()-rng.Float64(), rng.Float64()-rng.Float64()
				xs[i] = -0.5 * (d0*d0 + d1*d1)
			}
		}
		check(xs)
	}
	if total < 12_000_000 {
		t.Fatalf("checked %d arguments, want ≥ 1.2·10⁷", total)
	}
	t.Logf("%d arguments; largest |Exp − math.Exp| / math.Exp on [−708, 0]: %.3fu; %d checked against math/big", total, worst, sharp)
}

// TestAsmMatchesGo checks that the assembly gives expGo's bits at every
// length (the Go tail) and position, edges and random arguments, in place
// too.
func TestAsmMatchesGo(t *testing.T) {
	if !Fast() {
		t.Logf("no AVX2 and FMA here: Exp is math.Exp, covered by the bound tests")
		return
	}
	rng := rand.New(rand.NewPCG(19, 9))
	xs := expEdges()
	for range 5000 {
		xs = append(xs, -745*rng.Float64(), -math.Exp(-46*rng.Float64()))
	}
	for n := 0; n <= 40; n++ {
		got := make([]float64, n)
		Exp(got, xs[:n])
		for i := range n {
			if want := expGo(xs[i]); math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("n = %d: Exp(%v)[%d] = %v, expGo = %v", n, xs[i], i, got[i], want)
			}
		}
	}
	inPlace := append([]float64(nil), xs...)
	Exp(inPlace, inPlace)
	for i, x := range xs {
		if want := expGo(x); math.Float64bits(inPlace[i]) != math.Float64bits(want) {
			t.Fatalf("in place: Exp(%v) = %v, expGo = %v", x, inPlace[i], want)
		}
	}
}

// TestGaussRow2 checks GaussRow2 against gaussArg2 and expGo bit for bit
// with the assembly (every length up to 40, so every tail), and against
// math.Exp of the same argument within RelErr + 2u (math.Exp's own error)
// everywhere, for points in and around the unit square and g from 0 to 50.
func TestGaussRow2(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 11))
	p := make([]float64, 80)
	for i := range p {
		p[i] = 3*rng.Float64() - 1
	}
	for _, g := range []float64{0, 0.005, 0.5, 50} {
		a0, a1 := rng.Float64(), rng.Float64()
		for n := 0; n <= 40; n++ {
			got := make([]float64, n)
			GaussRow2(got, p, a0, a1, g)
			for j := range n {
				x := gaussArg2(p, j, a0, a1, g)
				if Fast() {
					if want := expGo(x); math.Float64bits(got[j]) != math.Float64bits(want) {
						t.Fatalf("g = %v, n = %d: GaussRow2[%d] = %v, expGo(gaussArg2) = %v", g, n, j, got[j], want)
					}
				}
				if m := math.Exp(x); math.Abs(got[j]-m) > (RelErr+2*u)*m+Tiny {
					t.Fatalf("g = %v, n = %d: GaussRow2[%d] = %v, math.Exp = %v", g, n, j, got[j], m)
				}
			}
		}
	}
}

// TestShortSlicesPanic checks the programmer-error panics, also where the
// short slice's capacity would allow the access.
func TestShortSlicesPanic(t *testing.T) {
	roomy := make([]float64, 3, 16)
	for name, f := range map[string]func(){
		"Exp":       func() { Exp(roomy, make([]float64, 4)) },
		"GaussRow2": func() { GaussRow2(make([]float64, 4), roomy[:7], 0, 0, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s with a short slice did not panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkExp measures a kernel row's worth of exponentials (10⁴) against
// math.Exp.
func BenchmarkExp(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 10000)
	for i := range xs {
		xs[i] = -2 * rng.Float64()
	}
	dst := make([]float64, len(xs))
	b.Run("vexp", func(b *testing.B) {
		for b.Loop() {
			Exp(dst, xs)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				dst[i] = math.Exp(x)
			}
		}
	})
}
