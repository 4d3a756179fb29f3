package cli

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestReleaseEveryKind releases each synopsis kind with release
// --mechanism, then evaluates it with eval (value and noise std equal the
// library's EvalData) and reads it with inspect and inspect --json (the
// kind, its block and its value order).
func TestReleaseEveryKind(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	kde := func(out string, extra ...string) []string { return w.kdeRelease(w.path(out), extra...) }
	logistic := []string{"release", "--data", filepath.Join(w.demo, dataset.DemoTwoClass2DFile), "--features", "x1,x2",
		"--label", "label", "--classes", "0,1", "--bounds", "x1=0:1,x2=0:1", "--learner", "logistic",
		"--epsilon", "0.5", "--k", "3", "--passphrase-file", w.pass, "--mechanism", "output-perturbation", "--out", w.path("op.synopsis")}
	for _, c := range []struct {
		kind, block, out string
		args             []string
		at               string
	}{
		{synopsis.MechanismGP, `"gp": {`, "gp.synopsis", kde("gp.synopsis", "--mechanism", "gp", "--noise", "gaussian", "--delta", "1e-6"), "0.3"},
		{synopsis.MechanismTrig, `"trig": {`, "trig.synopsis", kde("trig.synopsis", "--mechanism", "trig"), "0.3"},
		{synopsis.MechanismOutputPerturbation, `"output_perturbation": {`, "op.synopsis", logistic, "0.3,0.6"},
	} {
		t.Run(c.kind, func(t *testing.T) {
			te.mustRun(t, c.args...)
			out := w.path(c.out)
			v, err := synopsis.Open(out, nil)
			if err != nil {
				t.Fatal(err)
			}
			if v.File.Mechanism.Name != c.kind {
				t.Fatalf("kind %q", v.File.Mechanism.Name)
			}
			r := te.mustRun(t, "eval", out, "--at", c.at)
			rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			var x []float64
			for _, s := range strings.Split(c.at, ",") {
				f, _ := strconv.ParseFloat(s, 64)
				x = append(x, f)
			}
			val, std, err := v.EvalData(x)
			if err != nil {
				t.Fatal(err)
			}
			dim := len(x)
			if got, _ := strconv.ParseFloat(rows[1][dim], 64); got != val {
				t.Errorf("eval value %v, want %v", rows[1][dim], val)
			}
			if got, _ := strconv.ParseFloat(rows[1][dim+1], 64); !(std > 0) || got != std {
				t.Errorf("eval noise_std %v, want %v > 0", rows[1][dim+1], std)
			}
			text := te.mustRun(t, "inspect", out).stdout
			if !strings.Contains(text, "mechanism:       "+c.kind) {
				t.Errorf("inspect does not name the kind:\n%s", text)
			}
			js := te.mustRun(t, "inspect", "--json", out).stdout
			var doc struct {
				Mechanism struct{ Name string } `json:"mechanism"`
				Order     string                `json:"lattice_order"`
				Values    []float64             `json:"values"`
			}
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Mechanism.Name != c.kind || doc.Order != v.File.ValueOrder() || len(doc.Values) != len(v.File.Values) || !strings.Contains(js, c.block) {
				t.Errorf("inspect --json: %s", js)
			}
		})
	}
	// Outside the theorem: refused, nothing spent.
	r := te.run(kde("big.synopsis", "--mechanism", "gp", "--noise", "gaussian", "--delta", "1e-6", "--epsilon", "2")...)
	if r.code == 0 || !strings.Contains(r.stderr, "ε ≤ 1") {
		t.Errorf("gp at ε = 2: exit %d %q", r.code, r.stderr)
	}
}
