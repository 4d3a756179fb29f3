package learners

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// rbfC is the kernel K_c(x, y) = exp(−‖x − y‖²/(2σ²)) + c.
func rbfC(x, y []float64, sigma, c float64) float64 {
	var d2 float64
	for j := range x {
		d2 += (x[j] - y[j]) * (x[j] - y[j])
	}
	return math.Exp(-d2/(2*sigma*sigma)) + c
}

// TestSVMLatticeSums checks svmLatticeSums against the m × m Gram matrix
// of the lattice built point by point: ∏T_j + c·m² is its total and
// ∏R_j + c·m its largest row sum (relative 10⁻¹²), so the factorisation
// over the axes is exact.
func TestSVMLatticeSums(t *testing.T) {
	for _, tc := range []struct {
		k           []int
		sigma, icpt float64
	}{
		{[]int{1}, 1, 0}, {[]int{4}, 0.1, 0}, {[]int{3, 3}, 0.283, 0}, {[]int{2, 5}, 0.141, 1},
		{[]int{6, 1, 2}, 0.5, 0.25}, {[]int{8, 8}, 0.05, 3}, {[]int{1, 1}, 0.001, 0},
	} {
		pts := latticePoints(tc.k)
		var total, row float64
		for _, y := range pts {
			var s float64
			for _, z := range pts {
				s += rbfC(y, z, tc.sigma, tc.icpt)
			}
			total += s
			row = max(row, s)
		}
		prodT, prodR, m := svmLatticeSums(len(tc.k), tc.sigma, tc.k)
		if m != float64(len(pts)) {
			t.Fatalf("k = %v: m = %g, want %d", tc.k, m, len(pts))
		}
		gotT, gotR := prodT+tc.icpt*m*m, prodR+tc.icpt*m
		if math.Abs(gotT-total) > 1e-12*total || math.Abs(gotR-row) > 1e-12*row {
			t.Errorf("k = %v σ = %g c = %g: total %.15g, row %.15g; want %.15g, %.15g", tc.k, tc.sigma, tc.icpt, gotT, gotR, total, row)
		}
	}
}

// TestSVMLatticeFactor checks the geometric step of the bounds for
// RKHS changes Δw = Σ_i a_i Φ(z_i) (random points, random weights, and
// Δw = Σ_ν Φ(ν/k), which attains the L1 step): the lattice vector
// Δ_ν = ⟨Δw, Φ(ν/k)⟩ has ‖Δ‖₁ ≤ √(1ᵀG1)·‖Δw‖ and ‖Δ‖₂ ≤ √(max row sum
// of G)·‖Δw‖, with ‖Δw‖² = aᵀK_z a computed exactly from the kernel.
func TestSVMLatticeFactor(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 11))
	for _, tc := range []struct {
		k           []int
		sigma, icpt float64
	}{
		{[]int{1}, 1, 0}, {[]int{4}, 0.2, 0}, {[]int{4, 4}, 0.283, 0}, {[]int{3, 6}, 0.141, 0},
		{[]int{2, 2}, 0.5, 1}, {[]int{5, 2, 1}, 0.3, 0.5}, {[]int{8, 8}, 0.07, 0},
	} {
		t.Run(fmt.Sprintf("k=%v/sigma=%g/c=%g", tc.k, tc.sigma, tc.icpt), func(t *testing.T) {
			dim := len(tc.k)
			pts := latticePoints(tc.k)
			prodT, prodR, m := svmLatticeSums(dim, tc.sigma, tc.k)
			f1 := math.Sqrt(prodT + tc.icpt*m*m)
			f2 := math.Sqrt(prodR + tc.icpt*m)
			var worst1, worst2 float64
			for trial := range 200 {
				var z [][]float64
				var a []float64
				switch {
				case trial == 0: // the lattice itself, unit weights: attains the L1 step
					z = pts
					for range pts {
						a = append(a, 1)
					}
				default:
					for range 1 + r.IntN(6) {
						p := make([]float64, dim)
						for j := range p {
							p[j] = r.Float64()
							if trial%2 == 0 { // lattice points and corners
								p[j] = float64(r.IntN(tc.k[j]+1)) / float64(tc.k[j])
							}
						}
						z = append(z, p)
						a = append(a, r.NormFloat64())
					}
				}
				var norm2 float64
				for i := range z {
					for l := range z {
						norm2 += a[i] * a[l] * rbfC(z[i], z[l], tc.sigma, tc.icpt)
					}
				}
				norm := math.Sqrt(max(norm2, 0))
				var l1, l2 float64
				for _, y := range pts {
					var d float64
					for i := range z {
						d += a[i] * rbfC(y, z[i], tc.sigma, tc.icpt)
					}
					l1 += math.Abs(d)
					l2 += d * d
				}
				l2 = math.Sqrt(l2)
				if l1 > f1*norm*(1+1e-10) || l2 > f2*norm*(1+1e-10) {
					t.Fatalf("trial %d: ‖Δ‖₁ = %g > √(1ᵀG1)‖Δw‖ = %g or ‖Δ‖₂ = %g > √R‖Δw‖ = %g", trial, l1, f1*norm, l2, f2*norm)
				}
				worst1, worst2 = max(worst1, l1/(f1*norm)), max(worst2, l2/(f2*norm))
			}
			t.Logf("largest ‖Δ‖₁/(√(1ᵀG1)‖Δw‖) %.6f, ‖Δ‖₂/(√R‖Δw‖) %.6f; L₁/S factor %.4f", worst1, worst2, f1/m/math.Sqrt(1+tc.icpt))
			if math.Abs(worst1-1) > 1e-9 {
				t.Errorf("the L1 step is attained by Δw = Σ_ν Φ(ν/k); largest ratio %.12f", worst1)
			}
		})
	}
}

// TestSVMLatticeNeighbourAudit searches replace-one neighbours of the SVM
// (record 0 replaced: label flipped at a lattice point or a corner, moved
// across the square, random) fitted by the real learner, computes the
// lattice values as the release does (mechanism.EvaluateLattice with the
// real oracle) and fails if ‖Δ‖₁/m ever exceeds L₁(k) =
// Fitted.LatticeLaplaceSensitivity or ‖Δ‖₁/m or ‖Δ‖₂/√m exceeds L₂(k) =
// Fitted.LatticeNoiseSensitivity (relative auditSlack), if L₁ > L₂ or
// L₂ > S, if the bounds differ between D and D′, or if NoiseSensitivity
// does not pick L₁ for Laplace, L₂ for Gaussian and S for laplace-approx
// noise. For C(1 + c) ≤ 1 and a wide kernel the L1 bound is nearly
// attained (a flipped label at a corner changes every lattice value by
// about the same amount): the search must reach 0.9 of L₁ there.
func TestSVMLatticeNeighbourAudit(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(29, 3))
	for _, tc := range []struct {
		k              []int
		c, sigma, icpt float64
		attained       float64 // the largest ratio to L₁ must reach this
	}{
		{[]int{1}, 1, 3, 0, 0.9}, {[]int{2, 2}, 1, 2, 0, 0.9}, {[]int{4, 4}, 1, 0.283, 0, 0.3},
		{[]int{4, 4}, 3, 0.141, 0, 0}, {[]int{6, 3}, 0.5, 0.2, 1, 0.3}, {[]int{3, 3}, 20, 0.3, 0, 0},
		{[]int{2, 1, 2}, 5, 0.5, 0.5, 0}, {[]int{8, 8}, 1, 0.07, 0, 0},
	} {
		t.Run(fmt.Sprintf("k=%v/C=%g/sigma=%g/c=%g", tc.k, tc.c, tc.sigma, tc.icpt), func(t *testing.T) {
			const n = 14
			dim := len(tc.k)
			lat, err := mechanism.NewLattice(tc.k)
			if err != nil {
				t.Fatal(err)
			}
			values := Values{"C": {tc.c}, "sigma": {tc.sigma}, "intercept": {tc.icpt}}
			var worst1, worst2, l1Bound, l2Bound, sup float64
			for trial := range 40 {
				data := Dataset{Dim: dim, X: make([]float64, n*dim), Labels: make([]float64, n)}
				for i := range data.Labels {
					data.Labels[i] = float64(2*(i%2) - 1)
					for j := range dim {
						data.X[i*dim+j] = r.Float64()
					}
				}
				nb := Dataset{Dim: dim, X: append([]float64(nil), data.X...), Labels: append([]float64(nil), data.Labels...)}
				switch trial % 4 {
				case 0: // flip the label at a lattice point
					for j := range dim {
						v := float64(r.IntN(tc.k[j]+1)) / float64(tc.k[j])
						data.X[j], nb.X[j] = v, v
					}
					nb.Labels[0] = -data.Labels[0]
				case 1: // flip the label at the corner 0
					for j := range dim {
						data.X[j], nb.X[j] = 0, 0
					}
					nb.Labels[0] = -data.Labels[0]
				case 2: // opposite corners, opposite labels
					for j := range dim {
						data.X[j], nb.X[j] = 0, 1
					}
					nb.Labels[0] = -data.Labels[0]
				default:
					replaceRandomly(r, nb, data.Labels[0])
				}
				f, g := fitNeighbours(ctx, t, NewSVM(), data, nb, values)
				l1Bound, l2Bound, sup = f.LatticeLaplaceSensitivity(tc.k), f.LatticeNoiseSensitivity(tc.k), f.Sensitivity
				if g.LatticeLaplaceSensitivity(tc.k) != l1Bound || g.LatticeNoiseSensitivity(tc.k) != l2Bound {
					t.Fatalf("bounds differ between neighbours: they must not depend on data")
				}
				if !(l1Bound > 0 && l1Bound <= l2Bound && l2Bound <= sup) {
					t.Fatalf("L₁ = %g, L₂ = %g, S = %g: want 0 < L₁ ≤ L₂ ≤ S", l1Bound, l2Bound, sup)
				}
				for noise, want := range map[mechanism.NoiseKind]float64{
					mechanism.NoiseLaplace: l1Bound, mechanism.NoiseGaussian: l2Bound, mechanism.NoiseLaplaceApprox: sup,
				} {
					if got := f.NoiseSensitivity(tc.k, noise); got != want {
						t.Fatalf("NoiseSensitivity(%v, %s) = %g, want %g", tc.k, noise, got, want)
					}
				}
				v1, err := mechanism.EvaluateLattice(ctx, f.Oracle, lat, nil)
				if err != nil {
					t.Fatal(err)
				}
				v2, err := mechanism.EvaluateLattice(ctx, g.Oracle, lat, nil)
				if err != nil {
					t.Fatal(err)
				}
				var a1, a2 float64
				for i := range v1 {
					d := v1[i] - v2[i]
					a1 += math.Abs(d)
					a2 += d * d
				}
				m := float64(len(v1))
				a1, a2 = a1/m, math.Sqrt(a2/m)
				if a1 > l1Bound*(1+auditSlack) || a1 > l2Bound*(1+auditSlack) || a2 > l2Bound*(1+auditSlack) {
					t.Errorf("trial %d: ‖Δ‖₁/m = %g, ‖Δ‖₂/√m = %g exceed L₁ = %g or L₂ = %g", trial, a1, a2, l1Bound, l2Bound)
				}
				worst1, worst2 = max(worst1, a1/l1Bound), max(worst2, a2/l2Bound)
			}
			t.Logf("L₁ = %.6g, L₂ = %.6g, S = %.6g (L₁/S = %.3f): largest ratio to L₁ %.4f, to L₂ %.4f", l1Bound, l2Bound, sup, l1Bound/sup, worst1, worst2)
			if worst1 < tc.attained {
				t.Errorf("largest ratio to L₁ %.4f < %g: the search should come close to the bound here", worst1, tc.attained)
			}
		})
	}
}

// replaceRandomly moves record 0 of nb to a uniform random point and flips
// its label (opposite of l) with probability ½: a random replace-one
// neighbour for the audits.
func replaceRandomly(r *rand.Rand, nb Dataset, l float64) {
	for j := range nb.Dim {
		nb.X[j] = r.Float64()
	}
	if r.IntN(2) == 0 {
		nb.Labels[0] = -l
	}
}

// fitNeighbours fits the learner to the neighbours a and b.
func fitNeighbours(ctx context.Context, t *testing.T, l Learner, a, b Dataset, values Values) (*Fitted, *Fitted) {
	t.Helper()
	fa, err := l.Fit(ctx, a, values)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := l.Fit(ctx, b, values)
	if err != nil {
		t.Fatal(err)
	}
	return fa, fb
}
