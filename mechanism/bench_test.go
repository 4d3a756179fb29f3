package mechanism

import (
	"context"
	"fmt"
	"math"
	rand "math/rand/v2" // seeded: benchmark inputs only
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/internal/anchor"
)

// Run: go test -run x -bench . -benchtime=3x ./mechanism/
// Results and machine notes: docs/performance.md, section "Mechanism".

const batchQueries = 1_000_000

func benchPolynomial(b *testing.B, k []int, h int) *Polynomial {
	b.Helper()
	return randomPolynomial(b, rand.New(rand.NewPCG(11, 12)), k, h)
}

func benchPoints(n, dim int) []float64 {
	r := rand.New(rand.NewPCG(13, 14))
	pts := make([]float64, n*dim)
	for i := range pts {
		pts[i] = r.Float64()
	}
	return pts
}

// BenchmarkEvalBatch: 10⁶ queries, ℓ = 2, k = 20, h = 3, all cores. Where
// python3 with numpy is installed it then runs the numpy anchor
// (testdata/anchor_evalbatch.py: bases as matrices, BLAS product, row-wise
// contraction) on the same C′ and points, checks its values against ours,
// and reports numpy's wall time per op and numpy-ratio = numpy / ours (> 1:
// we are faster), both measured in this run.
func BenchmarkEvalBatch(b *testing.B) {
	p := benchPolynomial(b, []int{20, 20}, 3)
	pts := benchPoints(batchQueries, 2)
	out := make([]float64, batchQueries)
	cpu0, _ := anchor.CPUTime()
	b.ResetTimer()
	for b.Loop() {
		if err := p.EvalBatch(context.Background(), pts, out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/batchQueries, "ns/query")
	if cpu1, ok := anchor.CPUTime(); ok {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1e3/float64(b.N), "cpu-ms/op")
	}
	numpyAnchor(b, p, pts, out, perOp)
}

// numpyAnchor runs testdata/anchor_evalbatch.py on p's C′ and pts (3
// repeats), fails if its values differ from out by more than 1e-9 of the
// scale Σ|C′| (numpy's bases by binomials and powers carry a relative error
// of about k·2⁻⁵³ each), and reports numpy-ms/op and numpy-ratio against
// goNsPerOp. Without numpy it logs why and reports nothing.
func numpyAnchor(b *testing.B, p *Polynomial, pts, out []float64, goNsPerOp float64) {
	py := anchor.Python()
	if py == "" {
		b.Log("no python3 with numpy (install python3-numpy): numpy anchor not run")
		return
	}
	dir := b.TempDir()
	primePath, ptsPath, outPath := filepath.Join(dir, "prime"), filepath.Join(dir, "points"), filepath.Join(dir, "out")
	if err := anchor.WriteFloats(primePath, p.prime); err != nil {
		b.Fatal(err)
	}
	if err := anchor.WriteFloats(ptsPath, pts); err != nil {
		b.Fatal(err)
	}
	ks := make([]string, len(p.k))
	for j, kj := range p.k {
		ks[j] = strconv.Itoa(kj)
	}
	fig, err := anchor.Run(py, filepath.Join("testdata", "anchor_evalbatch.py"), primePath, ptsPath, strings.Join(ks, ","), "3", outPath)
	if err != nil {
		b.Fatal(err)
	}
	np, err := anchor.ReadFloats(outPath, len(out))
	if err != nil {
		b.Fatal(err)
	}
	scale := sumAbs(p.prime)
	for i, v := range out {
		if w := np[i]; math.Abs(v-w) > 1e-9*scale {
			b.Fatalf("query %d: EvalBatch %.17g, numpy %.17g", i, v, w)
		}
	}
	ms, ok := fig["ms_per_op"]
	if !ok {
		b.Fatal("numpy anchor printed no ms_per_op")
	}
	b.ReportMetric(ms, "numpy-ms/op")
	b.ReportMetric(ms*1e6/goNsPerOp, "numpy-ratio")
}

// BenchmarkEvalSingle: one query at a time through Eval (one goroutine).
func BenchmarkEvalSingle(b *testing.B) {
	p := benchPolynomial(b, []int{20, 20}, 3)
	pts := benchPoints(1024, 2)
	b.ResetTimer()
	for i := range b.N {
		j := i % 1024
		if _, err := p.Eval(pts[2*j : 2*j+2]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNaiveDefinition8 evaluates a subsample of queries the literal
// way, from scratch per query: every b^(h)_ν(y_j) by the sum over i of
// C(h,i)(−1)^{i−1} B^{i−1}(b_ν; y_j) (applying the Bernstein operator on the
// lattice, Definition 6 bases by binomials), then the Definition 9 sum of
// ∏_j b^(h) over all coefficients. Same polynomial as BenchmarkEvalBatch.
func BenchmarkNaiveDefinition8(b *testing.B) {
	const sub = 200
	p := benchPolynomial(b, []int{20, 20}, 3)
	pts := benchPoints(sub, 2)
	b.ResetTimer()
	var sink float64
	for range b.N {
		for i := range sub {
			sink += naiveEval(p.k, p.h, p.coeffs, pts[2*i:2*i+2])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sub), "ns/query")
	_ = sink
}

// BenchmarkNaiveSharedM is a fairer literal baseline: the collocation matrix
// M is precomputed once, and per query b^(h)(y_j)ᵀ = Σ_i C(h,i)(−1)^{i−1}
// b(y_j)ᵀM^{i−1} is formed by h−1 vector–matrix products, followed by the
// literal Definition 9 sum over all m coefficients of c_ν·∏_j b^(h).
func BenchmarkNaiveSharedM(b *testing.B) {
	const sub = 20_000
	k, h := []int{20, 20}, 3
	p := benchPolynomial(b, k, h)
	pts := benchPoints(sub, 2)
	n := k[0] + 1
	M := make([]float64, n*n)
	for mu := range n {
		BernsteinBasis(k[0], float64(mu)/float64(k[0]), M[mu*n:(mu+1)*n])
	}
	binom := []float64{0, 3, 3, 1} // C(3,i)
	bases := [][]float64{make([]float64, n), make([]float64, n)}
	v, next := make([]float64, n), make([]float64, n)
	b.ResetTimer()
	var sink float64
	for range b.N {
		for q := range sub {
			for j := range 2 {
				BernsteinBasis(k[j], pts[2*q+j], v)
				w := bases[j]
				sign := 1.0
				for i := 1; i <= h; i++ {
					for nu := range n {
						if i == 1 {
							w[nu] = 0
						}
						w[nu] += binom[i] * sign * v[nu]
					}
					// v ← vᵀM
					clear(next)
					for mu := range n {
						for nu := range n {
							next[nu] += v[mu] * M[mu*n+nu]
						}
					}
					v, next = next, v
					sign = -sign
				}
			}
			sink += naiveEvalWithBases(k, p.coeffs, bases)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*sub), "ns/query")
	_ = sink
}

func BenchmarkEvalGrid(b *testing.B) {
	p := benchPolynomial(b, []int{20, 20}, 3)
	axes := [][]float64{grid(500), grid(500)}
	b.ResetTimer()
	for range b.N {
		if _, err := p.EvalGrid(axes); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*500*500), "ns/point")
}

// cheapOracle costs a few nanoseconds per point, so Sanitize measures the
// mechanism: lattice evaluation, secure noise and polynomial set-up.
type cheapOracle struct{ dim int }

func (o cheapOracle) Dim() int { return o.dim }
func (o cheapOracle) Eval(y []float64) float64 {
	s := 0.0
	for _, v := range y {
		s += v * v
	}
	return s
}

func BenchmarkSanitize(b *testing.B) {
	for _, k := range [][]int{{20, 20}, {20, 20, 20}} {
		b.Run(fmt.Sprintf("l=%d_k=20_m=%d", len(k), coefficientCount(k)), func(b *testing.B) {
			p := Params{Epsilon: 1, Noise: NoiseLaplace, K: k, H: 3}
			for range b.N {
				if _, err := Sanitize(context.Background(), cheapOracle{len(k)}, 0.01, p, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*coefficientCount(k)), "ns/coefficient")
		})
	}
}

// BenchmarkBuildIteratedBasis: the uncached transform T for k = 200, h = 10.
func BenchmarkBuildIteratedBasis(b *testing.B) {
	for range b.N {
		buildIteratedBasis(200, 10)
	}
}

// BenchmarkNewPolynomial: C′ = (T⊗T⊗T)·C for ℓ = 3, k = 100 (m ≈ 10⁶).
func BenchmarkNewPolynomial(b *testing.B) {
	k := []int{100, 100, 100}
	c := make([]float64, coefficientCount(k))
	NewIteratedBasis(100, 4)
	b.ResetTimer()
	for range b.N {
		if _, err := NewPolynomial(k, 4, c); err != nil {
			b.Fatal(err)
		}
	}
}
