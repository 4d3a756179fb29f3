package learners

import (
	"math"
	rand "math/rand/v2" // seeded: test data only

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// ermFigure2Data returns the Figure 2 setting of Aldà & Rubinstein (2017):
// perPos points of class +1 from N([0.3, 0.5], 0.01·I) and perNeg points of
// class −1 from N([0.6, 0.4], 0.01·[1 0.8; 0.8 1.5]), clipped to [0,1]²,
// interleaved, from a seeded PCG.
func ermFigure2Data(perClass int, seed uint64) Dataset {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	l22 := math.Sqrt(1.5 - 0.8*0.8) // Cholesky of [1 0.8; 0.8 1.5]
	clip := func(v float64) float64 { return min(max(v, 0), 1) }
	d := Dataset{Dim: 2}
	for range perClass {
		z0, z1 := r.NormFloat64(), r.NormFloat64()
		d.X = append(d.X, clip(0.3+0.1*z0), clip(0.5+0.1*z1))
		d.Labels = append(d.Labels, 1)
		z0, z1 = r.NormFloat64(), r.NormFloat64()
		d.X = append(d.X, clip(0.6+0.1*z0), clip(0.4+0.1*(0.8*z0+l22*z1)))
		d.Labels = append(d.Labels, -1)
	}
	return d
}

// ermRandomData returns n uniform points in [0,1]^dim with labels: binary
// −1/+1 with P(+1) = ½ if binary, else uniform in [−1, 1].
func ermRandomData(r *rand.Rand, n, dim int, binary bool) Dataset {
	d := Dataset{Dim: dim, X: make([]float64, n*dim), Labels: make([]float64, n)}
	for i := range d.X {
		d.X[i] = r.Float64()
	}
	for i := range d.Labels {
		if binary {
			d.Labels[i] = float64(2*r.IntN(2) - 1)
		} else {
			d.Labels[i] = 2*r.Float64() - 1
		}
	}
	return d
}

// ermAccuracy is the fraction of records whose sign of F_D matches the label
// (threshold 0, or ½ for probabilities).
func ermAccuracy(o mechanism.Oracle, d Dataset, threshold float64) float64 {
	ok := 0
	for i := range d.N() {
		f := o.Eval(d.X[i*d.Dim : (i+1)*d.Dim])
		if (f >= threshold) == (d.Labels[i] > 0) {
			ok++
		}
	}
	return float64(ok) / float64(d.N())
}
