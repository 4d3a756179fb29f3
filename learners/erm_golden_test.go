package learners

import (
	"context"
	"flag"
	"fmt"
	rand "math/rand/v2" // seeded: test data only
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateErmGolden = flag.Bool("update-erm-golden", false, "rewrite learners/testdata/erm_*.golden")

// TestErmSensitivityGolden pins S(F), its one-line note and OutputRange of
// the three ERM learners for a table of sizes and parameters to
// testdata/erm_sensitivity.golden (regenerate with -update-erm-golden after
// a deliberate change, and review the diff). S must not depend on the data,
// so each line is produced from two different random datasets and both must
// agree exactly.
func TestErmSensitivityGolden(t *testing.T) {
	cases := []struct {
		l   Learner
		dim int
		n   int
		v   Values
	}{
		{NewSVM(), 2, 3000, Values{"intercept": {0}}},
		{NewSVM(), 2, 2, Values{"C": {0.5}, "sigma": {0.1}, "intercept": {0}}},
		{NewSVM(), 1, 50, Values{"C": {1}, "intercept": {0}}},
		{NewSVM(), 3, 200, Values{"C": {10}, "sigma": {0.5}, "intercept": {0}}},
		{NewSVM(), 6, 1000, Values{"C": {100}, "sigma": {2}, "intercept": {0}}},
		// Intercept constant c > 0 (kernel K + c, κ² = 1 + c); nil is the
		// default c = 1.
		{NewSVM(), 2, 3000, nil},
		{NewSVM(), 2, 569, Values{"C": {0.25}, "intercept": {3}}},
		{NewSVM(), 3, 200, Values{"C": {10}, "sigma": {0.5}, "intercept": {4}}},
		{NewLogistic(), 2, 3000, nil},
		{NewLogistic(), 2, 569, Values{"C": {10}, "intercept": {0}}},
		{NewLogistic(), 3, 569, Values{"C": {10}, "intercept": {5}, "output": {1}}},
		{NewLogistic(), 2, 3000, Values{"output": {1}}},
		{NewLogistic(), 1, 2, Values{"C": {1e6}}},
		{NewLogistic(), 6, 10000, Values{"C": {0.01}, "output": {1}}},
		{NewRidge(), 1, 100, nil},
		{NewRidge(), 3, 5, Values{"C": {100}}},
		{NewRidge(), 6, 100000, Values{"C": {1e-4}}},
	}
	var b strings.Builder
	for i, c := range cases {
		var lines [2]string
		for rep := range 2 {
			r := rand.New(rand.NewPCG(uint64(i), uint64(rep)))
			d := ermRandomData(r, c.n, c.dim, c.l.Spec().Label == LabelBinary)
			f, err := c.l.Fit(context.Background(), d, c.v)
			if err != nil {
				t.Fatalf("%s ℓ=%d n=%d %v: %v", c.l.Spec().Kind, c.dim, c.n, c.v, err)
			}
			lines[rep] = fmt.Sprintf("%s ℓ=%d n=%d %v: S=%.17g range=[%.17g, %.17g]\n  %s\n",
				c.l.Spec().Kind, c.dim, c.n, c.v, f.Sensitivity, f.OutputRange[0], f.OutputRange[1], f.SensitivityNote)
		}
		if lines[0] != lines[1] {
			t.Errorf("S, note or range depend on the data:\n%s%s", lines[0], lines[1])
		}
		b.WriteString(lines[0])
	}
	path := filepath.Join("testdata", "erm_sensitivity.golden")
	if *updateErmGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-erm-golden to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("sensitivities differ from %s:\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
