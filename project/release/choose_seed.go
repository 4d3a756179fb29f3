package release

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	rand "math/rand/v2" // only as ChaCha8 keyed from crypto/rand (a CSPRNG), never seeded by hand
)

// The randomness of the private choice (choose.go) that is not noise:
// the split of the records into training and validation sets, and the seed
// of the simulated noise of the candidates' proxy releases. Both are drawn
// from crypto/rand, independent of the data: the privacy analysis
// conditions on them (docs/validation.md). The selection noise itself comes
// from the google-DP library (mechanism.NoisyMax).

// cryptoPermutation returns a uniformly random permutation of 0..n−1,
// independent of the data: Fisher–Yates driven by ChaCha8 (a CSPRNG) keyed
// with 32 bytes from crypto/rand.
func cryptoPermutation(n int) ([]int, error) {
	var key [32]byte
	if _, err := crand.Read(key[:]); err != nil {
		return nil, fmt.Errorf("random split: %w", err)
	}
	r := rand.New(rand.NewChaCha8(key))
	return r.Perm(n), nil
}

// cryptoSeed returns a seed for the simulated noise of the scores from
// crypto/rand, independent of the data.
func cryptoSeed() (uint64, error) {
	var b [8]byte
	if _, err := crand.Read(b[:]); err != nil {
		return 0, errors.New("random seed: " + err.Error())
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}
