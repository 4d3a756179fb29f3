// Package vexp computes e^x for whole slices of non-positive arguments with
// a proven relative error bound: the exponentials of the SVM's kernel rows
// (learners/svm_kernel.go; issue 19 item 4), four at a time in AVX2
// assembly where the processor has AVX2 and FMA.
//
// Contract: Exp(dst, x) sets dst[i] to an approximation of e^{x[i]} for
// every i < len(x); len(dst) ≥ len(x) (Exp panics otherwise: programmer
// error), and dst may be x itself. For every x ≤ 0 (−Inf included, NaN
// excluded: callers pass finite data),
//
//	|Exp(x) − e^x| ≤ RelErr·e^x + Tiny,  RelErr = 4u = 2⁻⁵¹, Tiny = 2⁻¹⁰²¹,
//
// with u = 2⁻⁵³ (for x ≥ −708 the Tiny term is not needed: the error is
// relative). Arguments x > 0 are outside the contract.
//
// Algorithm and proof (expGo, whose steps the assembly performs one for
// one, giving bit-identical results, TestAsmMatchesGo):
//
//  1. x ← max(x, −708). For x < −708 the result is Exp(−708) ≤ e^{−708}(1 +
//     RelErr) < 2⁻¹⁰²¹ = Tiny while 0 ≤ e^x < e^{−708}: the Tiny term.
//  2. k = fl(x·log2e + 1.5·2⁵²) − 1.5·2⁵² (one fused multiply-add; the sum
//     lies in [2⁵², 2⁵³), whose spacing is 1, so k is the integer nearest
//     to x·fl(log₂e), and the subtraction is exact). |x·fl(log₂e) − x/ln 2| ≤
//     708·1.45u < 1.2·10⁻¹³, so |x − k·ln 2| ≤ ln 2·(½ + 1.2·10⁻¹³) =: ρ <
//     0.346574, and k ∈ [−1021, 0].
//  3. r₁ = fl(x − k·H), H = fl-split high part of ln 2 (0x3fe62e42fee00000,
//     low 21 bits zero, so k·H is a multiple of 2⁻³²): exact. For k = 0,
//     r₁ = x. Otherwise |x| > 0.34 > 2⁻², so x and k·H are multiples of
//     ulp(x) = 2^{e−52} (e ≥ −2 the exponent of x, ulp(x) ≤ 2⁻⁴³ ≤ 2⁻³²),
//     and |x − k·H| < 0.35 < 2⁻¹ needs fewer than 2⁵³ of them.
//  4. r = fl(r₁ − k·L), L = fl(ln 2 − H): one rounding, |r − r₁ + k·L| ≤
//     u·|r₁ − k·L|, and |ln 2 − H − L| < 2⁻⁸⁶, so with r* = x − k·ln 2
//     exactly, |r − r*| ≤ 0.3466u + 1021·2⁻⁸⁶ ≤ 0.3467u, and e^r =
//     e^{r*}(1 + η₁), |η₁| ≤ 0.3468u.
//  5. p(r) = Σ_{i≤13} r^i/i! (Taylor): |e^r − p(r)| ≤ ρ¹⁴/14!·e^ρ ≤ 0.075u·e^r
//     (e^r ≥ e^{−ρ}).
//  6. Horner with fused multiply-adds and rounded coefficients fl(1/i!)
//     (exact for i ≤ 2): the computed p̂ satisfies |p̂ − p(r)| ≤ Σ_i
//     (i+1 or, for i ≥ 3, i+2)·u·ρ^i/i! (first order; every term's
//     higher-order part is below 10⁻¹⁵u) ≤ 1.912u ≤ 2.705u·e^{−ρ} ≤ 2.705u·p.
//  7. 2^k is built exactly from the bits of step 2's sum ((k + 1023) << 52,
//     k + 1023 ∈ [2, 1023]); p̂·2^k ≥ 0.7·2⁻¹⁰²¹ is normal, so the
//     product is exact.
//
// Altogether |Exp(x) − e^x| ≤ (0.3468 + 0.075 + 2.705 + 10⁻¹⁰)u·e^x ≤
// 3.13u·e^x for x ∈ [−708, 0], which RelErr = 4u rounds up. The tests
// check the bound against e^x to 100 bits (math/big) on 5·10⁴ arguments and
// the edges (the largest error seen is 1.35u), and against math.Exp (< 1
// ulp) on more than 1.2·10⁷ (exp_test.go).
//
// Without AVX2 and FMA (Fast() == false), Exp falls back to math.Exp, whose
// error (< 1 ulp ≤ 2u·e^x for normal results) is within the same bound.
package vexp
