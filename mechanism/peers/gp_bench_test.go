package peers

import (
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// BenchmarkGPFactor1001 factors the 1001-point, σ = 0.05 kernel of figure 1.
func BenchmarkGPFactor1001(b *testing.B) {
	axes := [][]float64{unitAxis(1001)}
	for b.Loop() {
		if _, err := NewGPFactor(axes, GPKernel{Amplitude: 1, Sigmas: []float64{0.05}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGPSample1001 draws one path on the 1001-point grid.
func BenchmarkGPSample1001(b *testing.B) {
	f, err := NewGPFactor([][]float64{unitAxis(1001)}, GPKernel{Amplitude: 1, Sigmas: []float64{0.05}})
	if err != nil {
		b.Fatal(err)
	}
	src := mechanism.NewSimulationNoise(1)
	out := make([]float64, f.Size())
	for b.Loop() {
		if err := f.Sample(1, src, out); err != nil {
			b.Fatal(err)
		}
	}
}
