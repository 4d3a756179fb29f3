package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// The tests in this file run the real binary, built once per test run with
// the same command as the Makefile (go build -tags migrated_fynedo). They
// check the binary against its documented contract (docs/cli.md), so the
// exit codes are restated here, not imported.

const (
	exitOK     = 0 // success
	exitUsage  = 2 // usage error
	exitVerify = 3 // verification failed
	exitBudget = 4 // privacy budget refused the release

	passphraseEnv = keys.PassphraseEnv
)

// binResult is the outcome of one run of the binary.
type binResult struct {
	code           int
	stdout, stderr string
}

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
	binaryDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}

// buildBinary builds ./bernstein into a temporary directory (once).
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	binaryOnce.Do(func() {
		binaryDir, binaryErr = os.MkdirTemp("", "bernstein-bin-")
		if binaryErr != nil {
			return
		}
		name := "bernstein"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		binaryPath = filepath.Join(binaryDir, name)
		cmd := exec.Command("go", "build", "-tags", "migrated_fynedo", "-o", binaryPath, ".")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binaryErr = errors.New(string(out) + err.Error())
		}
	})
	if binaryErr != nil {
		t.Fatalf("go build: %v", binaryErr)
	}
	return binaryPath
}

// binRun runs the binary with a private config directory and returns exit
// code, stdout and stderr.
type binEnv struct {
	bin, dir string
	env      []string
}

func newBinEnv(t *testing.T) *binEnv {
	dir := t.TempDir()
	env := append(os.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"HOME="+filepath.Join(dir, "home"),
		"AppData="+filepath.Join(dir, "appdata"),
		passphraseEnv+"=binary test passphrase")
	return &binEnv{bin: buildBinary(t), dir: dir, env: env}
}

func (b *binEnv) run(t *testing.T, args ...string) binResult {
	t.Helper()
	cmd := exec.Command(b.bin, args...)
	cmd.Dir = b.dir
	cmd.Env = b.env
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return binResult{code: code, stdout: out.String(), stderr: errb.String()}
}

func (b *binEnv) want(t *testing.T, code int, args ...string) binResult {
	t.Helper()
	r := b.run(t, args...)
	if r.code != code {
		t.Fatalf("bernstein %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
	}
	return r
}

// TestBinaryRoundTrip is the acceptance path through the built
// binary: demo data → keygen → release → verify → eval, and every exit code.
func TestBinaryRoundTrip(t *testing.T) {
	b := newBinEnv(t)
	b.want(t, exitOK, "version")
	if r := b.want(t, exitOK, "help"); !strings.Contains(r.stdout, "Exit codes:") {
		t.Errorf("help: %s", r.stdout)
	}
	b.want(t, exitOK, "demo-data", "--out", "demo")
	b.want(t, exitOK, "keygen", "--principal", "ci@example.org", "--trust")

	// A classifier on the Figure 2 data, with k auto.
	r := b.want(t, exitOK, "release", "--data", "demo/two-class.csv", "--features", "x1,x2", "--label", "label", "--classes", "0,1",
		"--bounds", "x1=0:1,x2=0:1", "--learner", "logistic", "--param", "C=2", "--epsilon", "0.4", "--k", "auto", "--h", "1",
		"--title", "binary test", "--out", "lr.synopsis")
	if !strings.Contains(r.stdout, "ε spent by this release: 0.4") || !strings.Contains(r.stdout, "ε 0.4 of budget 1") {
		t.Errorf("release: %s", r.stdout)
	}
	if !strings.Contains(r.stderr, "k = 1 per axis (automatic: least predicted error") { // the logistic score is affine: k = 1 is exact
		t.Errorf("release stderr: %s", r.stderr)
	}
	r = b.want(t, exitOK, "verify", "lr.synopsis")
	if !strings.Contains(r.stdout, "valid signature; trusted signer ci@example.org, key SHA256:") {
		t.Errorf("verify: %s", r.stdout)
	}
	if err := os.WriteFile(filepath.Join(b.dir, "q.csv"), []byte("x2,x1\n0.5,0.3\n0.4,0.6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.want(t, exitOK, "eval", "lr.synopsis", "--points", "q.csv", "--out", "r.csv")
	got, err := os.ReadFile(filepath.Join(b.dir, "r.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The same rows through the project API.
	v, err := synopsis.Open(filepath.Join(b.dir, "lr.synopsis"), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := dataset.EvalReleaseAt(t.Context(), v, []float64{0.3, 0.5, 0.6, 0.4})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := res.WriteCSV(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) || !strings.HasPrefix(string(got), "x1,x2,value,noise_std,class\n") {
		t.Errorf("eval --points:\n%s\nwant\n%s", got, want.String())
	}

	// Exit codes: usage 2, verification 3, budget 4, runtime 1.
	if r := b.want(t, exitUsage, "release", "--bogus"); !strings.HasPrefix(r.stderr, "bernstein: release: flag provided but not defined") {
		t.Errorf("usage error: %q", r.stderr)
	}
	data, _ := os.ReadFile(filepath.Join(b.dir, "lr.synopsis"))
	data[len(data)/3] ^= 0x04
	if err := os.WriteFile(filepath.Join(b.dir, "bad.synopsis"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := b.want(t, exitVerify, "verify", "bad.synopsis"); r.stdout != "" || !strings.HasPrefix(r.stderr, "bernstein: verify: bad.synopsis: ") {
		t.Errorf("tampered: stdout %q stderr %q", r.stdout, r.stderr)
	}
	b.want(t, exitVerify, "eval", "bad.synopsis", "--at", "0.5,0.5")
	if r := b.want(t, exitBudget, "release", "--data", "demo/two-class.csv", "--features", "x1,x2", "--label", "label", "--classes", "0,1",
		"--bounds", "x1=0:1,x2=0:1", "--learner", "logistic", "--epsilon", "0.7", "--k", "3", "--out", "more.synopsis"); !strings.Contains(r.stderr, "is refused: the dataset has spent ε 0.4 of its ε budget of 1") {
		t.Errorf("budget: %q", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(b.dir, "more.synopsis")); !errors.Is(err, os.ErrNotExist) {
		t.Error("refused release wrote a file")
	}
	if err := os.WriteFile(filepath.Join(b.dir, "age.csv"), []byte("age\n30\nabc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// An invalid value is filled by the public rule: n stays 2, and the
	// private fill count goes to standard error only.
	r = b.want(t, exitOK, "release", "--data", "age.csv", "--features", "age", "--bounds", "age=0:120", "--fill", "age=40",
		"--learner", "kde", "--epsilon", "0.1", "--out", "age.synopsis")
	if want := "private (not covered by ε): 0 values clipped, 1 filled (age: 1 filled)"; !strings.Contains(r.stderr, want) || strings.Contains(r.stdout, "filled") {
		t.Errorf("invalid value: stdout %q stderr %q; want %q on stderr only", r.stdout, r.stderr, want)
	}
	r = b.want(t, exitOK, "ledger", "--data", "demo/two-class.csv")
	if !strings.Contains(r.stdout, "logistic") || !strings.Contains(r.stdout, "spent ε 0.4 of budget ε 1; 0.6 left") {
		t.Errorf("ledger: %s", r.stdout)
	}
}
