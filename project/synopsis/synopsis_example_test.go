package synopsis_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// A curator signs a release; an analyst who trusts the curator's key reads
// it and evaluates it in data units.
func ExampleRead() {
	// Curator side. A real curator loads the key with keys.LoadSigner and
	// gets the release from mechanism.Sanitize; this example restores a
	// fixed one (noisy values 0.2, 0.6, 1.0 on the lattice k = 2).
	seed := sha256.Sum256([]byte("example curator key: public, never use it"))
	signer, _ := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(seed[:]))
	k := []int{2}
	scale, _ := mechanism.NoiseScale(0.05, mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: k, H: 1})
	rel, _ := mechanism.RestoreSynopsis(k, 1, []float64{0.2, 0.6, 1.0}, mechanism.NoiseLaplace, scale, 1, 0, 0.05)
	f, err := synopsis.NewFile(rel, synopsis.Meta{
		AppVersion:  "1.0.0",
		Created:     time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Title:       "Probability of recovery by age",
		Learner:     learners.KindNaiveBayes,
		N:           500,
		Domain:      synopsis.DomainInfo{Features: []synopsis.Bound{{Name: "age", Unit: "years", Lo: 0, Hi: 100}}},
		Output:      learners.OutputSpec{Name: "p", Meaning: "P(recovered | age)", Kind: learners.OutputProbability},
		OutputRange: [2]float64{0, 1},
		ClassLabels: []string{"not recovered", "recovered"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := synopsis.Encode(f, signer)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.SplitN(string(data), "\n", 2)[0])

	// Analyst side: trust the curator's key, read, evaluate.
	trusted := &keys.AllowedSigners{}
	_ = trusted.Add("curator@example.org", signer.PublicKey())
	v, err := synopsis.Read(bytes.NewReader(data), int64(len(data)), trusted)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Trusted, v.Principal, v.File.Title)
	p, std, _ := v.EvalData([]float64{50})
	class, _ := v.Class(p)
	fmt.Printf("age 50: p = %.3f ± %.3f → %s\n", p, std, class)
	_, _, err = v.EvalData([]float64{120})
	fmt.Println(err)
	// Output:
	// bernstein-synopsis format 1
	// true curator@example.org Probability of recovery by age
	// age 50: p = 0.600 ± 0.130 → recovered
	// feature "age" = 120 is outside its public bounds [0, 100]
}

// A peer kind: Chaudhuri & Vinterbo's output perturbation of a logistic
// regression, released as its noisy weights (project/release draws them);
// the analyst evaluates the logistic probability and its noise band.
func ExampleNewPeerFile() {
	seed := sha256.Sum256([]byte("example curator key: public, never use it"))
	signer, _ := ssh.NewSignerFromKey(ed25519.NewKeyFromSeed(seed[:]))
	f, err := synopsis.NewPeerFile(synopsis.PeerRelease{
		Mechanism: synopsis.MechanismInfo{Name: synopsis.MechanismOutputPerturbation, Noise: synopsis.NoiseL2Laplace,
			Scale: 0.05, Epsilon: 1},
		Sensitivity: 0.0125,
		Values:      []float64{2, 0.5}, // weights on the lift ((2x − 1), b)/√(1 + b²)
		Linear:      &synopsis.LinearInfo{Sensitivity2: 0.05},
	}, synopsis.Meta{
		AppVersion:  "1.0.0",
		Created:     time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Title:       "Probability of recovery by age",
		Learner:     learners.KindLogistic,
		Params:      learners.Resolved{"C": {1}, "intercept": {1}, "output": {1}},
		N:           400,
		Domain:      synopsis.DomainInfo{Features: []synopsis.Bound{{Name: "age", Unit: "years", Lo: 0, Hi: 100}}},
		Output:      learners.OutputSpec{Name: "p", Meaning: "P(recovered | age)", Kind: learners.OutputProbability},
		OutputRange: [2]float64{0, 1},
		ClassLabels: []string{"not recovered", "recovered"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := synopsis.Encode(f, signer)
	v, err := synopsis.Read(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, std, _ := v.EvalData([]float64{75})
	class, _ := v.Class(p)
	fmt.Println(v.File.Mechanism.Name, len(v.File.Values), "weights")
	fmt.Printf("age 75: p = %.3f ± %.3f → %s\n", p, std, class)
	// Output:
	// output-perturbation 2 weights
	// age 75: p = 0.743 ± 0.013 → recovered
}
