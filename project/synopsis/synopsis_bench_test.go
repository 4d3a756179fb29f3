package synopsis

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
)

// synLong enables the benchmark at the lattice cap (≈10⁷ values, ~200 MB).
var synLong = synFlag("long", "run slow tests and benchmarks")

func benchSizes() [][]int {
	sizes := [][]int{{99, 99}, {999, 999}} // 10⁴ and 10⁶ values
	if synLong() {
		sizes = append(sizes, []int{214, 214, 214}) // 9 938 375 values
	}
	return sizes
}

// BenchmarkEncodeSynopsis measures Encode (canonical payload and
// Ed25519 signature) by lattice size.
func BenchmarkEncodeSynopsis(b *testing.B) {
	for _, k := range benchSizes() {
		f := buildSynFile(b, synSpec{kind: learners.OutputDensity, k: k})
		s := synSigner(b, "bench")
		b.Run(fmt.Sprintf("m=%d", len(f.Values)), func(b *testing.B) {
			var n int
			for b.Loop() {
				data, err := Encode(f, s)
				if err != nil {
					b.Fatal(err)
				}
				n = len(data)
			}
			b.SetBytes(int64(n))
		})
	}
}

// BenchmarkReadSynopsis measures Read (verification, strict parse,
// mechanism.RestoreSynopsis) by lattice size.
func BenchmarkReadSynopsis(b *testing.B) {
	for _, k := range benchSizes() {
		f := buildSynFile(b, synSpec{kind: learners.OutputDensity, k: k})
		data := encodeSyn(b, f, "bench")
		trusted := synTrust(b, "bench")
		b.Run(fmt.Sprintf("m=%d", len(f.Values)), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Read(bytes.NewReader(data), int64(len(data)), trusted); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
