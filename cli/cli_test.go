package cli

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/csv"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// cliResult is the outcome of one in-process command.
type cliResult struct {
	code           int
	stdout, stderr string
}

// testEnv is an env with buffers, a fixed clock, no terminal, a recording
// GUI and its own environment variables.
type testEnv struct {
	env
	vars    map[string]string
	guiArgs [][]string
	out     bytes.Buffer
	errb    bytes.Buffer
}

// testVersion is the version the test environment reports (the main
// package's default).
const testVersion = "0.1.0-dev"

func newTestEnv() *testEnv {
	te := &testEnv{vars: map[string]string{}}
	te.env = env{
		Stdin:    strings.NewReader(""),
		Stdout:   &te.out,
		Stderr:   &te.errb,
		Getenv:   func(k string) string { return te.vars[k] },
		Now:      func() time.Time { return time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC) },
		Terminal: func() bool { return false },
		Version:  testVersion,
		GUI: func(args []string) error {
			te.guiArgs = append(te.guiArgs, args)
			return nil
		},
	}
	return te
}

func (te *testEnv) run(args ...string) cliResult {
	te.out.Reset()
	te.errb.Reset()
	code := run(context.Background(), args, &te.env)
	return cliResult{code: code, stdout: te.out.String(), stderr: te.errb.String()}
}

// mustRun runs a command that must succeed.
func (te *testEnv) mustRun(t *testing.T, args ...string) cliResult {
	t.Helper()
	r := te.run(args...)
	if r.code != exitOK {
		t.Fatalf("bernstein %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// workspace is a temporary user config directory (where the default key,
// ledger and allowed signers live) with demo data and a passphrase file.
type workspace struct {
	dir, demo, pass string
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("AppData", filepath.Join(dir, "appdata"))
	w := &workspace{dir: dir, demo: filepath.Join(dir, "demo"), pass: filepath.Join(dir, "pass")}
	if err := os.WriteFile(w.pass, []byte("correct horse battery staple\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.WriteDemoData(w.demo, false); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *workspace) path(name string) string { return filepath.Join(w.dir, name) }

// keygen creates the default key with bernstein keygen and trusts it.
func (w *workspace) keygen(t *testing.T, te *testEnv) {
	t.Helper()
	te.mustRun(t, "keygen", "--passphrase-file", w.pass, "--principal", "curator@example.org", "--trust")
}

// testKey installs a fixed, unencrypted TEST key as the default curator key
// and trusts it. Unencrypted keys load without the (deliberately slow)
// bcrypt key derivation, which keeps the tests fast; keys.LoadSigner accepts
// them (ssh-keygen -N "" keys) and bernstein keygen never writes them.
func (w *workspace) testKey(t *testing.T) {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize))
	block, err := ssh.MarshalPrivateKey(priv, "TEST KEY")
	if err != nil {
		t.Fatal(err)
	}
	path, err := keys.DefaultKeyPath()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	pub, err := ssh.NewPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	a, err := keys.ParseAllowedSigners(strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Add("curator@example.org", pub); err != nil {
		t.Fatal(err)
	}
	trust, err := keys.DefaultAllowedSignersPath()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Save(trust); err != nil {
		t.Fatal(err)
	}
}

func (w *workspace) kdeRelease(out string, extra ...string) []string {
	args := []string{"release", "--data", filepath.Join(w.demo, dataset.DemoKDE1DFile), "--features", "x",
		"--bounds", "x=0:1", "--learner", "kde", "--param", "bandwidth=0.05", "--epsilon", "0.25",
		"--k", "12", "--h", "2", "--title", "Figure 1 mixture", "--passphrase-file", w.pass, "--out", out}
	return append(args, extra...)
}

func TestHelpDescribesEveryFlag(t *testing.T) {
	te := newTestEnv()
	r := te.mustRun(t, "help")
	for _, c := range commands() {
		if !strings.Contains(r.stdout, "  "+c.Name+" ") {
			t.Errorf("help does not list %s", c.Name)
		}
	}
	for code := range 6 {
		if !strings.Contains(r.stdout, fmt.Sprintf("  %d  ", code)) {
			t.Errorf("help does not document exit code %d", code)
		}
	}
	for _, c := range commands() {
		want := te.mustRun(t, "help", c.Name).stdout
		helps := [][]string{{c.Name, "--help"}, {c.Name, "-help"}}
		if c.Name != "release" { // release's -h is the Bernstein order h
			helps = append(helps, []string{c.Name, "-h"})
		}
		for _, args := range helps {
			if got := te.mustRun(t, args...).stdout; got != want {
				t.Errorf("%v prints a different help than help %s", args, c.Name)
			}
		}
		fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
		c.Setup(fs, &env{})
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(want, "  --"+f.Name) {
				t.Errorf("help %s does not describe --%s", c.Name, f.Name)
			}
			if f.Usage == "" {
				t.Errorf("%s --%s has no usage text", c.Name, f.Name)
			}
		})
	}
	if r := te.run("help", "nope"); r.code != exitUsage {
		t.Errorf("help nope: exit %d", r.code)
	}
}

// TestDocsDescribeEveryFlag keeps docs/cli.md in step with the code.
func TestDocsDescribeEveryFlag(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for _, c := range commands() {
		if !strings.Contains(text, "bernstein "+c.Name) {
			t.Errorf("docs/cli.md does not describe bernstein %s", c.Name)
		}
		fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
		c.Setup(fs, &env{})
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(text, "--"+f.Name) {
				t.Errorf("docs/cli.md does not describe %s --%s", c.Name, f.Name)
			}
		})
	}
	for code := range 6 {
		if !strings.Contains(text, fmt.Sprintf("| %d |", code)) {
			t.Errorf("docs/cli.md does not document exit code %d", code)
		}
	}
}

func TestVersion(t *testing.T) {
	te := newTestEnv()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if r := te.mustRun(t, args...); r.stdout != "bernstein "+testVersion+"\n" {
			t.Errorf("%v: %q", args, r.stdout)
		}
	}
}

func TestGUIDispatch(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{nil, nil},
		{[]string{"view", "a.synopsis"}, []string{"view", "a.synopsis"}},
		{[]string{"--open", "d.csv"}, []string{"--open", "d.csv"}},
	}
	for _, tc := range cases {
		te := newTestEnv()
		te.mustRun(t, tc.args...)
		if len(te.guiArgs) != 1 || !slices.Equal(te.guiArgs[0], tc.want) {
			t.Errorf("%v: GUI called with %v, want [%v]", tc.args, te.guiArgs, tc.want)
		}
	}
	te := newTestEnv()
	te.GUI = func([]string) error { return errors.New("no display") }
	if r := te.run(); r.code != exitRuntime || !strings.Contains(r.stderr, "bernstein: no display") {
		t.Errorf("GUI failure: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, args := range [][]string{{"view"}, {"view", "a", "b"}, {"--open"}} {
		te := newTestEnv()
		if r := te.run(args...); r.code != exitUsage || len(te.guiArgs) != 0 {
			t.Errorf("%v: exit %d, GUI calls %v", args, r.code, te.guiArgs)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	w := newWorkspace(t)
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	rel := func(extra ...string) []string {
		args := []string{"release", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "kde",
			"--epsilon", "0.5", "--out", w.path("o.synopsis"), "--passphrase-file", w.pass}
		return append(args, extra...)
	}
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown command", []string{"relase"}, `unknown command "relase"`},
		{"unknown flag", []string{"verify", "--trusted", "x", "f.synopsis"}, "flag provided but not defined: -trusted"},
		{"missing data", []string{"release", "--features", "x"}, "--data FILE.csv is required"},
		{"missing features", []string{"release", "--data", data}, "--features is required"},
		{"missing learner", []string{"release", "--data", data, "--features", "x"}, "--learner is required"},
		{"unknown learner", rel("--learner", "forest"), "forest"},
		{"missing epsilon", []string{"release", "--data", data, "--features", "x", "--learner", "kde"}, "--epsilon is required"},
		{"bad epsilon", rel("--epsilon", "abc"), `"abc" is not a number`},
		{"infinite epsilon", rel("--epsilon", "Inf"), "finite"},
		{"negative epsilon", rel("--epsilon", "-1"), "epsilon = -1"},
		{"bad bounds syntax", rel("--bounds", "x=0-1"), "want COLUMN=LO:HI"},
		{"inverted bounds", rel("--bounds", "x=1:0"), "lower bound must be < upper bound"},
		{"bounds twice", rel("--bounds", "x=0:2"), "given twice"},
		{"bounds for unused column", rel("--bounds", "y=0:1"), `"y"`},
		{"data bounds without acknowledgement", []string{"release", "--data", data, "--features", "x", "--bounds", "x=data",
			"--learner", "kde", "--epsilon", "0.5", "--out", w.path("o.synopsis")}, "--acknowledge-data-bounds"},
		{"no bounds", []string{"release", "--data", data, "--features", "x", "--learner", "kde", "--epsilon", "0.5",
			"--out", w.path("o.synopsis")}, "no public bounds for column \"x\""},
		{"bad param syntax", rel("--param", "bandwidth"), "want NAME=VALUE"},
		{"bad param value", rel("--param", "bandwidth=2"), "bandwidth = 2"},
		{"unknown param", rel("--param", "gamma=2"), "gamma"},
		{"bad k", rel("--k", "0"), "want auto"},
		{"k per axis count", rel("--k", "3,4"), "2 cover sizes given for 1 features"},
		{"bad h", rel("--h", "11"), "h = 11"},
		{"bad noise", rel("--noise", "cauchy"), `--noise "cauchy"`},
		{"gaussian without delta", rel("--noise", "gaussian"), "needs --delta"},
		{"delta with laplace", rel("--delta", "1e-6"), "--delta is only for"},
		{"beta without auto", rel("--k", "5", "--beta", "0.1"), "--beta only applies"},
		{"label for kde", rel("--label", "x"), "label"},
		{"positive removed", rel("--positive", "1"), "--positive was replaced by --classes"},
		{"drop-invalid removed", rel("--drop-invalid"), "--drop-invalid was removed"},
		{"classes for kde", rel("--classes", "0,1"), "--classes applies only"},
		{"fill-class for kde", rel("--fill-class", "0"), "--fill-class applies only"},
		{"classes syntax", rel("--classes", "1"), "want two class values"},
		{"fill syntax", rel("--fill", "x"), "want COLUMN=VALUE"},
		{"fill unknown column", rel("--fill", "z=1"), `--fill names column "z"`},
		{"missing out", []string{"release", "--data", data, "--features", "x", "--learner", "kde", "--epsilon", "1"}, "--out FILE.synopsis is required"},
		{"eval without query", []string{"eval", "f.synopsis"}, "exactly one of --at"},
		{"eval with both queries", []string{"eval", "f.synopsis", "--at", "1", "--points", "q.csv"}, "exactly one of --at"},
		{"verify without file", []string{"verify"}, "needs exactly one argument, FILE.synopsis"},
		{"inspect with two files", []string{"inspect", "a", "b"}, "needs exactly one argument"},
		{"ledger budget without data", []string{"ledger", "--budget", "2"}, "--budget needs --data"},
		{"demo-data without out", []string{"demo-data"}, "--out DIR is required"},
		{"version with argument", []string{"version", "x"}, "takes no arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			te := newTestEnv()
			r := te.run(tc.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", r.code, exitUsage, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tc.want)
			}
			if !strings.HasPrefix(r.stderr, "bernstein: ") || !strings.Contains(r.stderr, "bernstein help") {
				t.Errorf("stderr %q: want a 'bernstein: ' prefix and a pointer to the help", r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q on a usage error", r.stdout)
			}
		})
	}
	if _, err := os.Stat(w.path("o.synopsis")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a usage error wrote a synopsis")
	}
}

// TestRoundTrip runs keygen → release → verify → inspect → eval → ledger
// in-process and checks every output against the project API.
func TestRoundTrip(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.keygen(t, te)
	out := w.path("kde.synopsis")
	r := te.mustRun(t, w.kdeRelease(out)...)
	for _, want := range []string{"wrote " + out, "ε spent by this release: 0.25", "ε 0.25 of budget 1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("release stdout %q lacks %q", r.stdout, want)
		}
	}

	r = te.mustRun(t, "verify", out)
	v, err := synopsis.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "valid signature; trusted signer curator@example.org, key " + v.Fingerprint; !strings.Contains(r.stdout, want) {
		t.Errorf("verify: %q lacks %q", r.stdout, want)
	}

	r = te.mustRun(t, "inspect", out)
	for _, want := range []string{"Figure 1 mixture", "k = [12], h = 2", "ε = 0.25", "kde, n = 5000", "x in [0, 1]", "13 noisy lattice values",
		"in words:        Strong privacy. For any one person in the data", "at most 1.28×"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "output:          density: ") || strings.Contains(r.stdout, "(density)") {
		t.Errorf("inspect output: want the output named once (\"density: \", not \"density (density)\"):\n%s", r.stdout)
	}
	r = te.mustRun(t, "inspect", "--json", out)
	var doc struct {
		Signature struct {
			Valid, Trusted bool
			Fingerprint    string
		}
		Mechanism    synopsis.MechanismInfo
		Learner      synopsis.LearnerInfo
		LatticeOrder string    `json:"lattice_order"`
		Values       []float64 `json:"values"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, r.stdout)
	}
	if !doc.Signature.Valid || !doc.Signature.Trusted || doc.Signature.Fingerprint != v.Fingerprint ||
		!slices.Equal(doc.Values, v.File.Values) || doc.Mechanism.Epsilon != 0.25 || doc.Learner.Kind != "kde" ||
		doc.LatticeOrder != synopsis.LatticeOrder {
		t.Errorf("inspect --json: %+v", doc)
	}

	// eval --at: the value and noise std of the synopsis at x = 0.6.
	r = te.mustRun(t, "eval", out, "--at", "0.6")
	val, std, err := v.EvalData([]float64{0.6})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("x,value,noise_std\n0.6,%s,%s\n", strconv.FormatFloat(val, 'g', -1, 64), strconv.FormatFloat(std, 'g', -1, 64))
	if r.stdout != want {
		t.Errorf("eval --at 0.6:\n%s\nwant\n%s", r.stdout, want)
	}
	// eval --points --out, columns matched by name, extra columns ignored.
	q := w.path("q.csv")
	if err := os.WriteFile(q, []byte("id,x\na,0\nb,0.25\nc,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := w.path("r.csv")
	te.mustRun(t, "eval", "--points", q, "--out", res, out)
	rows := readCSV(t, res)
	if !slices.Equal(rows[0], []string{"x", "value", "noise_std"}) || len(rows) != 4 {
		t.Fatalf("eval --points: %v", rows)
	}
	for i, x := range []float64{0, 0.25, 1} {
		val, std, _ := v.EvalData([]float64{x})
		got := parseRow(t, rows[i+1])
		if got[0] != x || got[1] != val || got[2] != std {
			t.Errorf("row %d: %v, want %v %v %v", i+1, got, x, val, std)
		}
	}

	r = te.mustRun(t, "ledger", "--data", filepath.Join(w.demo, dataset.DemoKDE1DFile))
	for _, want := range []string{"release", "0.25", "kde", out, "spent ε 0.25 of budget ε 1; 0.75 left"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("ledger output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = te.mustRun(t, "ledger")
	if !strings.Contains(r.stdout, filepath.Join(w.demo, dataset.DemoKDE1DFile)) || !strings.Contains(r.stdout, "0.75") {
		t.Errorf("ledger summary:\n%s", r.stdout)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func parseRow(t *testing.T, row []string) []float64 {
	t.Helper()
	var out []float64
	for _, s := range row {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("row %v: %v", row, err)
		}
		out = append(out, v)
	}
	return out
}

func TestClassifierEval(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	out := w.path("nb.synopsis")
	te.mustRun(t, "release", "--data", filepath.Join(w.demo, dataset.DemoTwoClass2DFile), "--features", "x1,x2",
		"--label", "label", "--classes", "0,1", "--bounds", "x1=0:1", "--bounds", "x2=0:1", "--learner", "naive-bayes",
		"--param", "bandwidth=0.1,0.2", "--epsilon", "0.5", "--noise", "laplace-approx", "--delta", "1e-6",
		"--k", "6,5", "--units", "x1=m,x2=s", "--passphrase-file", w.pass, "--out", out)
	v, err := synopsis.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := v.File
	if !slices.Equal(f.Output.ClassLabels, []string{"0", "1"}) || !slices.Equal(f.Mechanism.K, []int{6, 5}) ||
		f.Mechanism.Noise != "laplace-approx" || f.Mechanism.Delta != 1e-6 ||
		!slices.Equal(f.Learner.Params["bandwidth"], []float64{0.1, 0.2}) || f.Domain.Features[1].Unit != "s" {
		t.Errorf("synopsis %+v %+v %+v", f.Output, f.Mechanism, f.Learner)
	}
	r := te.mustRun(t, "eval", out, "--at", "0.3,0.5")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	val, _, _ := v.EvalData([]float64{0.3, 0.5})
	class, _ := v.Class(val)
	if !slices.Equal(rows[0], []string{"x1", "x2", "value", "noise_std", "class"}) || rows[1][4] != class {
		t.Errorf("eval: %v, want class %s", rows, class)
	}
	// --classes 1,0 swaps the classes.
	out2 := w.path("nb0.synopsis")
	te.mustRun(t, "release", "--data", filepath.Join(w.demo, dataset.DemoTwoClass2DFile), "--features", "x1,x2",
		"--label", "label", "--classes", "1,0", "--bounds", "x1=0:1,x2=0:1", "--learner", "naive-bayes",
		"--epsilon", "0.1", "--k", "3", "--passphrase-file", w.pass, "--out", out2)
	v2, err := synopsis.Open(out2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v2.File.Output.ClassLabels, []string{"1", "0"}) {
		t.Errorf("--classes 1,0: class labels %v", v2.File.Output.ClassLabels)
	}
	if r := te.run("eval", out, "--at", "0.3"); r.code != exitUsage || !strings.Contains(r.stderr, "2 feature(s)") {
		t.Errorf("eval with one coordinate: exit %d %q", r.code, r.stderr)
	}
	if r := te.run("eval", out, "--at", "0.3,1.5"); r.code != exitUsage || !strings.Contains(r.stderr, `feature "x2" = 1.5 is outside its public bounds [0, 1]`) {
		t.Errorf("eval out of bounds: exit %d %q", r.code, r.stderr)
	}
}

func TestBudget(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	rel := func(eps, out string, extra ...string) []string {
		args := []string{"release", "--data", data, "--features", "x", "--bounds", "x=0:1", "--learner", "kde",
			"--epsilon", eps, "--k", "5", "--passphrase-file", w.pass, "--out", w.path(out)}
		return append(args, extra...)
	}
	te.mustRun(t, rel("0.75", "a.synopsis")...)
	r := te.run(rel("0.5", "b.synopsis")...)
	if r.code != exitBudget || !strings.Contains(r.stderr, "its ε budget of 1") || !strings.Contains(r.stderr, "--allow-over-budget") {
		t.Errorf("over budget: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(w.path("b.synopsis")); !errors.Is(err, os.ErrNotExist) {
		t.Error("refused release wrote its synopsis")
	}
	// Exactly the rest of the budget fits.
	for i := range 2 {
		te.mustRun(t, rel("0.125", fmt.Sprintf("c%d.synopsis", i))...)
	}
	if r := te.run(rel("0.001", "d.synopsis")...); r.code != exitBudget {
		t.Errorf("spent budget: exit %d", r.code)
	}
	r = te.mustRun(t, rel("0.5", "e.synopsis", "--allow-over-budget")...)
	if !strings.Contains(r.stdout, "exceeded the dataset's budget") || !strings.Contains(r.stdout, "ε 1.5 of budget 1") {
		t.Errorf("allowed over budget: %q", r.stdout)
	}
	// Raising the budget records it and lets releases through.
	r = te.mustRun(t, rel("0.5", "f.synopsis", "--budget", "3")...)
	if !strings.Contains(r.stdout, "ε 2 of budget 3") {
		t.Errorf("--budget 3: %q", r.stdout)
	}
	r = te.mustRun(t, "ledger", "--data", data)
	if !strings.Contains(r.stdout, "OVER BUDGET") || !strings.Contains(r.stdout, "budget set to ε 3") || !strings.Contains(r.stdout, "spent ε 2 ") {
		t.Errorf("ledger:\n%s", r.stdout)
	}
	te.mustRun(t, "ledger", "--data", data, "--budget", "2")
	if r := te.run(rel("0.01", "g.synopsis")...); r.code != exitBudget {
		t.Errorf("after lowering the budget: exit %d", r.code)
	}
}

// testRelease makes a workspace with the trusted test key and a KDE
// release signed by it at name in the workspace.
func testRelease(t *testing.T, name string) (w *workspace, te *testEnv, out string) {
	t.Helper()
	w = newWorkspace(t)
	te = newTestEnv()
	w.testKey(t)
	out = w.path(name)
	te.mustRun(t, w.kdeRelease(out)...)
	return w, te, out
}

func TestVerifyFailures(t *testing.T) {
	w, te, out := testRelease(t, "kde.synopsis")
	good, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}

	// A different trust list: valid but untrusted, exit 5 (issue 14 item
	// 13); eval and inspect refuse it unless --allow-untrusted.
	empty := w.path("empty_signers")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	checkUntrusted(t, te, out, empty)

	// Tampered, truncated, unsigned: exit 3, nothing printed on stdout.
	flipped := bytes.Clone(good)
	i := bytes.Index(flipped, []byte(`"epsilon":`)) + len(`"epsilon":`)
	flipped[i] = '9'
	cases := map[string][]byte{
		"tampered":  flipped,
		"truncated": good[:len(good)/2],
		"unsigned":  good[:bytes.Index(good, []byte("-----BEGIN SSH SIGNATURE-----"))],
		"empty":     nil,
	}
	for name, data := range cases {
		p := w.path(name + ".synopsis")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"verify", p}, {"inspect", p}, {"inspect", "--json", p}, {"eval", p, "--at", "0.5"}} {
			r := te.run(args...)
			if r.code != exitVerify || r.stdout != "" || !strings.HasPrefix(r.stderr, "bernstein: "+args[0]+": ") {
				t.Errorf("%s: %v: exit %d, stdout %q, stderr %q", name, args, r.code, r.stdout, r.stderr)
			}
		}
	}
	// A missing file is a runtime error, not a verification verdict.
	if r := te.run("verify", w.path("missing.synopsis")); r.code != exitRuntime {
		t.Errorf("missing file: exit %d", r.code)
	}
	// A malformed allowed_signers file is an error.
	bad := w.path("bad_signers")
	if err := os.WriteFile(bad, []byte("curator@example.org ssh-ed25519 notbase64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := te.run("verify", out, "--allowed-signers", bad); r.code == exitOK {
		t.Errorf("bad allowed_signers accepted: %q", r.stdout)
	}
}

func TestNothingOverwrittenWithoutForce(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	out := w.path("kde.synopsis")
	te.mustRun(t, w.kdeRelease(out)...)
	before, _ := os.ReadFile(out)

	r := te.run(w.kdeRelease(out)...)
	if r.code != exitRuntime || !strings.Contains(r.stderr, "file exists; pass --force") {
		t.Errorf("release onto an existing file: exit %d %q", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("synopsis changed without --force")
	}
	r = te.mustRun(t, "ledger", "--data", filepath.Join(w.demo, dataset.DemoKDE1DFile))
	if !strings.Contains(r.stdout, "spent ε 0.25 ") {
		t.Errorf("a refused release was charged:\n%s", r.stdout)
	}
	te.mustRun(t, w.kdeRelease(out, "--force")...)
	if after, _ := os.ReadFile(out); bytes.Equal(before, after) {
		t.Error("--force did not replace the synopsis")
	}

	if r := te.run("keygen", "--passphrase-file", w.pass); r.code != exitRuntime || !strings.Contains(r.stderr, "--force") {
		t.Errorf("keygen over an existing key: exit %d %q", r.code, r.stderr)
	}
	if r := te.run("demo-data", "--out", w.demo); r.code != exitRuntime || !strings.Contains(r.stderr, "--force") {
		t.Errorf("demo-data over existing files: exit %d %q", r.code, r.stderr)
	}
	te.mustRun(t, "demo-data", "--out", w.demo, "--force")
	res := w.path("r.csv")
	if err := os.WriteFile(res, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := te.run("eval", out, "--at", "0.5", "--out", res); r.code != exitRuntime {
		t.Errorf("eval --out onto an existing file: exit %d", r.code)
	}
	if b, _ := os.ReadFile(res); string(b) != "keep" {
		t.Error("eval --out overwrote without --force")
	}
	te.mustRun(t, "eval", out, "--at", "0.5", "--out", res, "--force")
}

func TestPassphraseSources(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	// No terminal, no file, no variable: a clear error before anything is written.
	r := te.run("keygen")
	if r.code != exitRuntime || !strings.Contains(r.stderr, "--passphrase-file") || !strings.Contains(r.stderr, passphraseEnv) {
		t.Errorf("keygen without a passphrase: exit %d %q", r.code, r.stderr)
	}
	key, _ := keys.DefaultKeyPath()
	if _, err := os.Stat(key); !errors.Is(err, os.ErrNotExist) {
		t.Error("keygen without a passphrase wrote a key")
	}
	// A prompt on a terminal asks twice and refuses a mismatch.
	answers := []string{"one", "two"}
	te.Terminal = func() bool { return true }
	te.ReadPassword = func() ([]byte, error) {
		a := answers[0]
		answers = answers[1:]
		return []byte(a), nil
	}
	if r := te.run("keygen"); r.code != exitRuntime || !strings.Contains(r.stderr, "differ") {
		t.Errorf("mismatched prompt: exit %d %q", r.code, r.stderr)
	}
	answers = []string{"tty secret", "tty secret"}
	te.mustRun(t, "keygen")
	if _, err := keys.LoadSigner(key, []byte("tty secret")); err != nil {
		t.Errorf("key from the prompt: %v", err)
	}
	// The environment variable, then a wrong passphrase file.
	te.Terminal = func() bool { return false }
	te.vars[passphraseEnv] = "tty secret"
	out := w.path("a.synopsis")
	args := w.kdeRelease(out)
	args = slices.Delete(args, slices.Index(args, "--passphrase-file"), slices.Index(args, "--passphrase-file")+2)
	te.mustRun(t, args...)
	r = te.run(w.kdeRelease(w.path("b.synopsis"))...)
	if r.code != exitRuntime || !strings.Contains(r.stderr, "wrong passphrase") {
		t.Errorf("wrong passphrase: exit %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(w.path("b.synopsis")); !errors.Is(err, os.ErrNotExist) {
		t.Error("release with a wrong passphrase wrote a synopsis")
	}
}

func TestDataErrorsAndBounds(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := w.path("data.csv")
	if err := os.WriteFile(data, []byte("age,y\n31,1\nabc,2\n40,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"release", "--data", data, "--features", "age", "--bounds", "age=0:120", "--learner", "kde",
		"--epsilon", "0.5", "--k", "4", "--passphrase-file", w.pass, "--out", w.path("a.synopsis")}
	// An invalid value is filled (public n = 3), never a refusal; the
	// count is private: standard error only.
	r := te.mustRun(t, args...)
	if !strings.Contains(r.stdout, "wrote") || strings.Contains(r.stdout, "fill") || strings.Contains(r.stdout, "clip") ||
		!strings.Contains(r.stderr, "private (not covered by ε): 0 values clipped, 1 filled (age: 1 filled)") {
		t.Errorf("invalid value: stdout %q stderr %q", r.stdout, r.stderr)
	}
	// Data-derived bounds with the acknowledgement: recorded in the synopsis.
	data2 := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	out := w.path("b.synopsis")
	r = te.mustRun(t, "release", "--data", data2, "--features", "x", "--bounds", "x=data", "--acknowledge-data-bounds",
		"--learner", "kde", "--epsilon", "0.1", "--k", "4", "--passphrase-file", w.pass, "--out", out)
	v, err := synopsis.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.ReadCSV(data2, dataset.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	suggested, _ := ds.SuggestBounds("x")
	if b := v.File.Domain.Features[0]; !b.FromData || !v.File.Domain.BoundsFromData || b.Lo != suggested.Lo || b.Hi != suggested.Hi {
		t.Errorf("data bounds: %+v, want %+v from data", v.File.Domain, suggested)
	}
	r = te.mustRun(t, "inspect", out)
	if !strings.Contains(r.stdout, "(from data)") || !strings.Contains(r.stdout, "WARNING") {
		t.Errorf("inspect does not flag data bounds:\n%s", r.stdout)
	}
}

func TestKAuto(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	out := w.path("a.synopsis")
	args := w.kdeRelease(out)
	args[slices.Index(args, "--k")+1] = "auto"
	r := te.mustRun(t, append(args, "--beta", "0.01")...)
	v, err := synopsis.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := v.File.Mechanism.K[0]
	if !strings.Contains(r.stderr, fmt.Sprintf("k = %d per axis (automatic: least predicted error", k)) {
		t.Errorf("stderr %q does not report k = %d", r.stderr, k)
	}
	// The paper's k* = (ε/(S·ln(1/β)))^{1/(h+ℓ)} of Section 4.1 ignores how
	// finely a KDE of bandwidth 0.05 varies; the automatic k (the KDE's
	// public stand-in, docs/sensitivity.md) is finer here.
	s := v.File.Learner.Sensitivity
	kStar := math.Pow(0.25/(s*math.Log(100)), 1.0/3)
	if float64(k) < kStar {
		t.Errorf("k = %d below the paper's k* = %.2f", k, kStar)
	}
}

// TestLedgerTornLine simulates a crash in the middle of a ledger write: the
// torn entry is counted, releases are refused until ledger --repair, which
// charges what the fragment reveals.
func TestLedgerTornLine(t *testing.T) {
	w := newWorkspace(t)
	te := newTestEnv()
	w.testKey(t)
	data := filepath.Join(w.demo, dataset.DemoKDE1DFile)
	te.mustRun(t, w.kdeRelease(w.path("a.synopsis"))...)
	ledgerPath, err := ledger.DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	hash := l.Entries("")[0].DatasetHash // the dataset the release was charged to
	f, err := os.OpenFile(ledgerPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(f, `{"dataset_hash":%q,"epsilon":0.125,"delta":0,"ki`, hash); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r := te.mustRun(t, "ledger", "--data", data)
	if !strings.Contains(r.stderr, "warning:") || !strings.Contains(r.stdout, "spent ε 0.375 ") {
		t.Errorf("torn ledger: stdout %q stderr %q; want the torn 0.125 counted", r.stdout, r.stderr)
	}
	if r := te.run(w.kdeRelease(w.path("b.synopsis"))...); r.code != exitRuntime {
		t.Errorf("release on a torn ledger: exit %d %q", r.code, r.stderr)
	}
	r = te.mustRun(t, "ledger", "--repair", "--data", data)
	if !strings.Contains(r.stdout, "repaired line 2: charged ε 0.125") || !strings.Contains(r.stdout, "spent ε 0.375 ") {
		t.Errorf("repair: %q", r.stdout)
	}
	te.mustRun(t, w.kdeRelease(w.path("b.synopsis"))...)
	if r := te.mustRun(t, "ledger", "--repair"); !strings.Contains(r.stdout, "nothing to repair") {
		t.Errorf("second repair: %q", r.stdout)
	}
}

// checkUntrusted runs verify, eval and inspect on the valid synopsis out
// with an allowed signers file that does not hold its key (issue 14 item
// 13: `verify && eval` must not accept a self-signed file).
func checkUntrusted(t *testing.T, te *testEnv, out, signers string) {
	t.Helper()
	r := te.run("verify", out, "--allowed-signers", signers)
	if r.code != exitTrust || !strings.Contains(r.stdout, "valid signature; UNTRUSTED signer: key SHA256:") ||
		!strings.Contains(r.stderr, "not trusted") {
		t.Errorf("verify untrusted: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	refused := [][]string{
		{"eval", out, "--at", "0.5", "--allowed-signers", signers},
		{"inspect", out, "--allowed-signers", signers},
		{"inspect", "--json", out, "--allowed-signers", signers},
	}
	for _, args := range refused {
		r := te.run(args...)
		if r.code != exitTrust || r.stdout != "" || !strings.Contains(r.stderr, "--allow-untrusted") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, nothing on stdout", args, r.code, r.stdout, r.stderr, exitTrust)
		}
		r = te.run(append(args, "--allow-untrusted")...)
		if r.code != exitOK || r.stdout == "" || !strings.Contains(r.stderr, "warning: UNTRUSTED") {
			t.Errorf("%v --allow-untrusted: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := te.run("inspect", "--json", out, "--allowed-signers", signers, "--allow-untrusted"); !strings.Contains(r.stdout, `"trusted": false`) {
		t.Errorf("inspect --json --allow-untrusted does not say untrusted: %q", r.stdout)
	}
	if r := te.run("inspect", out, "--allowed-signers", signers, "--allow-untrusted"); !strings.Contains(r.stdout, "UNTRUSTED signer") {
		t.Errorf("inspect --allow-untrusted does not say untrusted: %q", r.stdout)
	}
}

// TestVerifyThenEvalRefusesSelfSigned reproduces issue 14 item 13: a file
// signed with the attacker's own (valid) key passed `verify && eval`.
func TestVerifyThenEvalRefusesSelfSigned(t *testing.T) {
	w, te, out := testRelease(t, "self.synopsis")
	// The victim's allowed signers trust someone else entirely.
	other, err := ssh.NewPublicKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize)).Public())
	if err != nil {
		t.Fatal(err)
	}
	signers := w.path("victim_signers")
	if err := os.WriteFile(signers, []byte("victim@example.org "+string(ssh.MarshalAuthorizedKey(other))), 0o644); err != nil {
		t.Fatal(err)
	}
	checkUntrusted(t, te, out, signers)
	// The trusted path is unchanged: exit 0 without the flag.
	te.mustRun(t, "verify", out)
	te.mustRun(t, "eval", out, "--at", "0.5")
}
