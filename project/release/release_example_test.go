package release_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// ExamplePrepare releases a kernel density estimate of one column: Prepare
// validates and fits, Release records the spend in the ledger, adds secure
// noise and writes the signed synopsis.
func ExamplePrepare() {
	var csv strings.Builder
	csv.WriteString("height\n")
	for i := range 200 {
		fmt.Fprintf(&csv, "%d\n", 150+i%50)
	}
	ds, err := dataset.ParseCSV(strings.NewReader(csv.String()), "heights.csv", dataset.CSVOptions{Columns: []string{"height"}})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	p, err := release.Prepare(ctx, release.Request{
		Dataset:  ds,
		Features: []string{"height"},
		Bounds:   map[string]dataset.Bounds{"height": {Lo: 140, Hi: 210}}, // public, from domain knowledge
		Units:    map[string]string{"height": "cm"},
		Learner:  learners.KindKDE,
		Params:   learners.Values{"bandwidth": {0.05}},
		Privacy:  mechanism.Params{Epsilon: 0.5, Noise: mechanism.NoiseLaplace, K: []int{10}, H: 2},
		Title:    "Heights",
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("lattice points:", len(p.Exact))

	dir, err := os.MkdirTemp("", "example-release")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	led, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader) // in the app: keys.LoadSigner
	if err != nil {
		log.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		log.Fatal(err)
	}
	res, err := p.Release(ctx, release.Options{
		Out:        filepath.Join(dir, "heights.synopsis"),
		Ledger:     led,
		Signer:     signer,
		AppVersion: "1.0.0",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("spent ε %g; dataset total ε %g of budget %g\n", res.Spent, res.Total, res.Budget)

	v, err := synopsis.Open(res.Path, nil)
	if err != nil {
		log.Fatal(err)
	}
	f := v.File
	fmt.Println("k:", f.Mechanism.K, "h:", f.Mechanism.H, "noise:", f.Mechanism.Noise, "n:", f.Learner.N)
	fmt.Printf("feature: %s in [%g, %g] %s\n", f.Domain.Features[0].Name, f.Domain.Features[0].Lo, f.Domain.Features[0].Hi, f.Domain.Features[0].Unit)
	fmt.Println("output:", f.Output.Kind, "values:", len(f.Values), "signer trusted:", v.Trusted)
	// Output:
	// lattice points: 11
	// spent ε 0.5; dataset total ε 0.5 of budget 1
	// k: [10] h: 2 noise: laplace n: 200
	// feature: height in [140, 210] cm
	// output: density values: 11 signer trusted: false
}
