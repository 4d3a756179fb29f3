package synopsis

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/bernsteinrelease/bernstein/project/keys"
)

// The golden synopsis: format 1, signed with the committed TEST key
// testdata/synopsis/test_curator_ed25519 (passphrase in goldenPassphrase;
// see testdata/synopsis/README.md). Every future version must read it.
const (
	goldenDir        = "testdata/synopsis"
	goldenPath       = goldenDir + "/golden-v1.synopsis"
	goldenKeyPath    = goldenDir + "/test_curator_ed25519"
	goldenSigners    = goldenDir + "/allowed_signers"
	goldenPassphrase = "bernstein-TEST-passphrase-not-secret"
	goldenPrincipal  = "golden-test@bernstein.invalid"
)

// goldenFile is the content of the golden synopsis, written out literally
// (not through NewFile or mechanism) so that it cannot drift: a
// ridge regression on two features, k = (3, 2), h = 2, Laplace noise with
// λ = S·m/ε = 0.03125·12/0.5 = 0.75.
func goldenFile() *File {
	return &File{
		Format:     1,
		AppVersion: "0.1.0",
		Created:    time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Title:      "Blood pressure by age and BMI — golden test file",
		Note:       "Golden file of format 1.\nUnicode: ε, δ, ∏; quotes \" and <angle> brackets; tab\there.",
		Mechanism: MechanismInfo{Name: "bernstein", K: []int{3, 2}, H: 2, Noise: "laplace",
			Scale: 0.75, Epsilon: 0.5, Delta: 0, Neighbouring: "replace-one"},
		Learner: LearnerInfo{Kind: "ridge", Params: map[string][]float64{"C": {1}}, Sensitivity: 0.03125, N: 2048},
		Domain: DomainInfo{
			Features: []Bound{
				{Name: "age", Unit: "years", Lo: 18, Hi: 90},
				{Name: "bmi", Unit: "kg/m²", Lo: 15, Hi: 45, FromData: true},
			},
			Label:          &Bound{Name: "systolic", Unit: "mmHg", Lo: 80, Hi: 200},
			BoundsFromData: true,
		},
		Output: OutputInfo{Name: "systolic", Meaning: "Predicted systolic blood pressure.", Kind: "regression",
			Range: [2]float64{80, 200}},
		Values: []float64{-0.7183, 0.2719, 1.4142, -1.7320508075688772, 0.5, 2.25e-7,
			-0, 3.141592653589793, -12.5, 0.001, 1e21, -0.3333333333333333},
	}
}

// goldenSigner loads the committed TEST key. keys.LoadSigner refuses
// group/world-readable keys; a git checkout gives the committed key mode
// 0644, so it uses a private copy.
func goldenSigner(t *testing.T) ssh.Signer {
	t.Helper()
	keyData, err := os.ReadFile(goldenKeyPath)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(key, keyData, 0o600); err != nil {
		t.Fatal(err)
	}
	signer, err := keys.LoadSigner(key, []byte(goldenPassphrase))
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

func TestSynopsisGolden(t *testing.T) {
	v := checkGoldenSynopsis(t, goldenPath, goldenFile())
	if !v.Trusted || v.Principal != goldenPrincipal {
		t.Errorf("Trusted, Principal = %v, %q; want true, %q (%s)", v.Trusted, v.Principal, goldenPrincipal, v.TrustNote)
	}
	if got := v.Release.Coefficients(); !reflect.DeepEqual(got, goldenFile().Values) {
		t.Errorf("release coefficients %v", got)
	}
}

// checkGoldenSynopsis rewrites the golden file at path under -update, then
// checks that it reads back (signed by the golden key) to exactly content
// and that the writer still produces its bytes (Ed25519 signatures are
// deterministic), so format 1 stays one format. It returns what it read.
func checkGoldenSynopsis(t *testing.T, path string, content *File) *Verified {
	t.Helper()
	signer := goldenSigner(t)
	if synUpdate() {
		if err := Write(path, content, signer, true); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", path)
	}
	trusted, err := keys.LoadAllowedSigners(goldenSigners)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Open(path, trusted)
	if err != nil {
		t.Fatalf("the golden format-1 file %s no longer reads: %v", path, err)
	}
	if !reflect.DeepEqual(v.File, content) {
		t.Errorf("golden content changed:\n got %+v\nwant %+v", v.File, content)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Encode(content, signer)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("EncodeSynopsis no longer reproduces %s byte for byte; a format change needs a new format version", path)
	}
	return v
}
