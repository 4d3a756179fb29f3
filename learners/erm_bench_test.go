package learners

import (
	"context"
	"fmt"
	rand "math/rand/v2" // seeded: benchmark data only
	"testing"
)

// BenchmarkLinearFit fits logistic (Figure 2 data) and ridge (uniform
// features, real labels) regression at several sizes.
func BenchmarkLinearFit(b *testing.B) {
	for _, n := range []int{3000, 100000} {
		fig := ermFigure2Data(n/2, 1)
		b.Run(fmt.Sprintf("logistic/n=%d", n), func(b *testing.B) {
			cpu0, _ := processCPUTime()
			defer ermReportCPU(b, cpu0)
			for b.Loop() {
				if _, err := NewLogistic().Fit(context.Background(), fig, Values{"C": {10}}); err != nil {
					b.Fatal(err)
				}
			}
		})
		d := ermRandomData(rand.New(rand.NewPCG(1, 2)), n, 4, false)
		b.Run(fmt.Sprintf("ridge/ℓ=4/n=%d", n), func(b *testing.B) {
			cpu0, _ := processCPUTime()
			defer ermReportCPU(b, cpu0)
			for b.Loop() {
				if _, err := NewRidge().Fit(context.Background(), d, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
