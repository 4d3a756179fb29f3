package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/cli/figure"
	"github.com/bernsteinrelease/bernstein/project/fileio"
)

// TestFigure2Claims runs the command with 20 repeats (seed 1) and checks the
// CSV's shape and, loosely, the claim of Figure 2: agreement rises with ε
// and, for k = 5, h = 1 at ε = 10, exceeds 0.9.
//
// Tolerances: with seed 1 the run is deterministic. For any seed, a mean of
// 20 agreements at ε = 10 has a standard error of about 0.005 (single
// releases spread by about 0.02 around 0.99), so the margin to 0.9 is > 15σ.
// Monotonicity is checked only from ε = 0.3 upward, where consecutive means
// in the 100-repeat run differ by ≥ 0.03 (> 6σ of a 20-repeat difference).
// False-failure rate < 1e-6.
func TestFigure2Claims(t *testing.T) {
	dir := t.TempDir()
	// A stale CSV that --force must overwrite.
	if err := os.WriteFile(filepath.Join(dir, figure.CSV2File), []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	te, err := runFigureCmd(t, "2", "--out", dir, "--repeats", "20", "--seed", "1", "--force")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(te.out.String(), figure.PNG2File) {
		t.Errorf("stdout %q does not name %s", te.out.String(), figure.PNG2File)
	}
	b, err := os.ReadFile(filepath.Join(dir, figure.CSV2File))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "k,h,epsilon,mean_agreement" {
		t.Fatalf("header %q", lines[0])
	}
	// The paper's protocol: 4 (k, h) shapes × 5 values of ε.
	if got, want := len(lines)-1, 4*5; got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	agree := map[[2]int][]float64{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 4 {
			t.Fatalf("row %q: %d fields", l, len(f))
		}
		k, _ := strconv.Atoi(f[0])
		h, _ := strconv.Atoi(f[1])
		a, err := strconv.ParseFloat(f[3], 64)
		if err != nil || a < 0 || a > 1 {
			t.Fatalf("row %q: agreement %q not in [0,1]", l, f[3])
		}
		agree[[2]int{k, h}] = append(agree[[2]int{k, h}], a)
	}
	epsAt := []float64{0.1, 0.3, 1, 3, 10}
	for key, as := range agree {
		for i := 2; i < len(as); i++ { // ε = 0.3, 1, 3, 10
			if as[i] <= as[i-1] {
				t.Errorf("k,h = %v: agreement %v at ε = %g not above %v at ε = %g", key, as[i], epsAt[i], as[i-1], epsAt[i-1])
			}
		}
	}
	if a := agree[[2]int{5, 1}]; a[len(a)-1] <= 0.9 {
		t.Errorf("k = 5, h = 1, ε = 10: agreement %v, want > 0.9", a[len(a)-1])
	}
	if png, err := os.ReadFile(filepath.Join(dir, figure.PNG2File)); err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("figure2.png missing or not a PNG (%v)", err)
	}
}

// TestFigure2Refusals: existing files are not overwritten without --force
// (TestFigure2Claims checks that --force does overwrite),
// and figure 2 rejects its usage errors.
func TestFigure2Refusals(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, figure.CSV2File)
	if err := os.WriteFile(csvPath, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runFigureCmd(t, "2", "--out", dir, "--repeats", "1")
	if !errors.Is(err, fileio.ErrExists) {
		t.Fatalf("error %v, want fileio.ErrExists", err)
	}
	if b, _ := os.ReadFile(csvPath); string(b) != "keep" {
		t.Errorf("existing CSV overwritten without --force")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"2", "--out", dir, "--repeats", "0"}, "--repeats 0"},
		{[]string{"2", "--out", dir, "--bandwidth", "0.1"}, "figure 1 only"},
		{[]string{"2"}, "--out DIR is required"},
	} {
		_, err := runFigureCmd(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != exitUsage {
			t.Errorf("%v: error %v (exit %d), want usage error containing %q", tc.args, err, exitCode(err), tc.want)
		}
	}
}
