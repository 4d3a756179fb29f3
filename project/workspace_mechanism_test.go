package project

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestWorkspaceMechanism: privacy.mechanism is optional (a file without
// it is Bernstein, and Bernstein is not written, so older files stay
// byte-identical) and a peer kind round-trips.
func TestWorkspaceMechanism(t *testing.T) {
	valid := string(readTestdata(t, "workspace", "valid.bernstein"))
	w, err := ParseWorkspace([]byte(valid), "valid.bernstein")
	if err != nil {
		t.Fatal(err)
	}
	if w.Privacy.Mechanism != "" {
		t.Fatalf("mechanism %q in a file without one, want \"\" (Bernstein)", w.Privacy.Mechanism)
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"mechanism"`) {
		t.Errorf("a Bernstein project writes a mechanism field:\n%s", b)
	}
	for _, kind := range []string{synopsis.MechanismGP, synopsis.MechanismTrig, synopsis.MechanismOutputPerturbation} {
		in := strings.Replace(valid, `"epsilon": 0.5,`, `"epsilon": 0.5, "mechanism": "`+kind+`",`, 1)
		w, err := ParseWorkspace([]byte(in), "peer.bernstein")
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if w.Privacy.Mechanism != kind {
			t.Errorf("mechanism %q, want %q", w.Privacy.Mechanism, kind)
		}
	}
}
