package cli

import (
	"os"
	"strings"
	"testing"
)

// TestColumnFlagNamesTheFeatures is the walkthrough's reproduction: with a
// typo in --features and the right name in --bounds, the error blamed
// --bounds alone. It now lists the features, so the misspelt one shows.
func TestColumnFlagNamesTheFeatures(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	data := w.path("d.csv")
	if err := os.WriteFile(data, []byte("mean_radius,y\n1,0\n2,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ flag, value string }{
		{"--bounds", "mean_radius=0:5"},
		{"--fill", "mean_radius=1"},
		{"--units", "mean_radius=mm"},
	} {
		args := []string{"release", "--data", data, "--features", "mean_raduis", "--bounds", "mean_raduis=0:5", "--learner", "kde",
			"--epsilon", "1", "--out", w.path("o.synopsis")}
		if tc.flag == "--bounds" {
			args[6] = tc.value
		} else {
			args = append(args, tc.flag, tc.value)
		}
		r := te.run(args...)
		want := tc.flag + ` names column "mean_radius", which is neither a feature nor the label (the features are "mean_raduis"): is one of these names misspelt?`
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.flag, r.code, r.stderr, exitUsage, want)
		}
	}
}
