package mechanism

import "math"

// Literal, slow reference implementations of Definitions 6, 8 and 9, written
// independently of the package code (binomials and math.Pow, no recurrence,
// no transform matrix).

func naiveBinom(k, nu int) float64 {
	r := 1.0
	for i := 1; i <= nu; i++ {
		r = r * float64(k-nu+i) / float64(i)
	}
	return r
}

// naiveBasis is Definition 6 verbatim.
func naiveBasis(k, nu int, y float64) float64 {
	return naiveBinom(k, nu) * math.Pow(y, float64(nu)) * math.Pow(1-y, float64(k-nu))
}

// naiveBernsteinPowerOfBasis returns B_k^j(b_ν; y), built from scratch: the
// values of B^{j−1}(b_ν) at the lattice points are computed by applying the
// operator B_k(f; x) = Σ_μ f(μ/k) b_μ(x) j−1 times.
func naiveBernsteinPowerOfBasis(k, nu, j int, y float64) float64 {
	if j == 0 {
		return naiveBasis(k, nu, y)
	}
	vals := make([]float64, k+1) // B^0(b_ν) at the lattice points
	for mu := range vals {
		vals[mu] = naiveBasis(k, nu, float64(mu)/float64(k))
	}
	for step := 1; step < j; step++ {
		next := make([]float64, k+1)
		for rho := range next {
			x := float64(rho) / float64(k)
			for mu, v := range vals {
				next[rho] += v * naiveBasis(k, mu, x)
			}
		}
		vals = next
	}
	var s float64
	for mu, v := range vals {
		s += v * naiveBasis(k, mu, y)
	}
	return s
}

// naiveIterated is Definition 8 verbatim:
// b^(h)_{ν,k}(y) = Σ_{i=1}^h C(h,i)(−1)^{i−1} B_k^{i−1}(b_ν; y).
func naiveIterated(k, h, nu int, y float64) float64 {
	var s float64
	for i := 1; i <= h; i++ {
		sign := 1.0
		if i%2 == 0 {
			sign = -1
		}
		s += naiveBinom(h, i) * sign * naiveBernsteinPowerOfBasis(k, nu, i-1, y)
	}
	return s
}

// naiveIteratedAll returns b^(h)_{ν,k}(y) for all ν by Definition 8.
func naiveIteratedAll(k, h int, y float64) []float64 {
	out := make([]float64, k+1)
	for nu := range out {
		out[nu] = naiveIterated(k, h, nu, y)
	}
	return out
}

// naiveEval is the literal Definition 9 sum over all multi-indices ν with
// every iterated basis computed by Definition 8 from scratch.
func naiveEval(k []int, h int, coeffs []float64, y []float64) float64 {
	bases := make([][]float64, len(k))
	for j := range k {
		bases[j] = naiveIteratedAll(k[j], h, y[j])
	}
	return naiveEvalWithBases(k, coeffs, bases)
}

func naiveEvalWithBases(k []int, coeffs []float64, bases [][]float64) float64 {
	var sum float64
	nu := make([]int, len(k))
	for idx := range coeffs {
		// decode idx into ν, last axis fastest
		r := idx
		for j := len(k) - 1; j >= 0; j-- {
			nu[j] = r % (k[j] + 1)
			r /= k[j] + 1
		}
		prod := coeffs[idx]
		for j := range k {
			prod *= bases[j][nu[j]]
		}
		sum += prod
	}
	return sum
}

// naiveOperator returns B^(h)_k(f; y) for ℓ = 1 in operator form,
// Σ_{i=1}^h C(h,i)(−1)^{i−1} B_k^i(f; y), applying B_k to f repeatedly on
// the lattice (Definition 8, first formula).
func naiveOperator(f func(float64) float64, k, h int, y float64) float64 {
	vals := make([]float64, k+1) // B^0 f on the lattice
	for mu := range vals {
		vals[mu] = f(float64(mu) / float64(k))
	}
	apply := func(v []float64, x float64) float64 {
		var s float64
		for mu, fv := range v {
			s += fv * naiveBasis(k, mu, x)
		}
		return s
	}
	var total float64
	for i := 1; i <= h; i++ {
		sign := 1.0
		if i%2 == 0 {
			sign = -1
		}
		total += naiveBinom(h, i) * sign * apply(vals, y) // B^i f(y) = B(B^{i−1} f)(y)
		next := make([]float64, k+1)
		for rho := range next {
			next[rho] = apply(vals, float64(rho)/float64(k))
		}
		vals = next
	}
	return total
}
