package release

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// refusedPeerRequests are peerRequests and two GP requests its theorem
// refuses: at ε = 2 (> 1) and with pure Laplace noise (δ = 0).
func refusedPeerRequests(t *testing.T) (reqs map[string]Request, gpBigEps, gpPure Request) {
	reqs = peerRequests(releaseTestDataset(t, 100))
	gpBigEps = reqs["gp"]
	gpBigEps.Privacy.Epsilon = 2
	gpPure = reqs["gp"]
	gpPure.Privacy = mechanism.Params{Epsilon: 0.5, Noise: mechanism.NoiseLaplace, K: []int{8}, H: 1}
	return reqs, gpBigEps, gpPure
}

// TestCheckMechanismSettings: the refusal from the public settings alone
// (no fit) is the fitted release's own (CheckMechanism) for every
// condition public settings decide — the same field and words, and the
// same few words (RequestError.Need) for the curator's Mechanism list —
// and the kinds that CheckMechanism accepts pass it too.
func TestCheckMechanismSettings(t *testing.T) {
	reqs, gpBigEps, gpPure := refusedPeerRequests(t)
	op := synopsis.MechanismOutputPerturbation
	for _, c := range []struct {
		name, mech, field string // field "" means accepted
		req               Request
	}{
		{"gp accepted", synopsis.MechanismGP, "", reqs["gp"]},
		{"trig accepted", "trig", "", reqs["trig"]},
		{"op accepted", op, "", reqs[op]},
		{"bernstein", "", "", gpBigEps},
		{"gp eps 2", "gp", "epsilon", gpBigEps},
		{"gp delta 0", "gp", "delta", gpPure},
		{"trig delta", "trig", "delta", reqs["gp"]},
		{"op delta", op, "delta", reqs["gp"]},
		{"op on kde", op, "mechanism", reqs["trig"]},
		{"gp on logistic", "gp", "mechanism", func() Request {
			r := reqs[op]
			r.Privacy = reqs["gp"].Privacy
			r.Privacy.K = []int{4, 4}
			return r
		}()},
		{"trig on logistic", "trig", "mechanism", reqs[op]},
		{"trig k = 2: a constant", "trig", "k", func() Request {
			r := reqs["trig"]
			r.KAuto, r.Privacy.K = false, []int{2}
			return r
		}()},
		{"trig k = 3", "trig", "", func() Request {
			r := reqs["trig"]
			r.KAuto, r.Privacy.K = false, []int{3}
			return r
		}()},
		{"unknown", "histogram", "mechanism", reqs["trig"]},
	} {
		t.Run(c.name, func(t *testing.T) {
			pub := CheckMechanismSettings(c.req, c.mech)
			p, err := Prepare(context.Background(), c.req, nil)
			if err != nil {
				t.Fatal(err)
			}
			fitted := p.CheckMechanism(c.mech)
			if c.field == "" {
				if pub != nil || fitted != nil {
					t.Fatalf("refused: public %v, fitted %v", pub, fitted)
				}
				return
			}
			var re *RequestError
			if !errors.As(pub, &re) || re.Field != c.field {
				t.Fatalf("public settings: %v, want a RequestError on %q", pub, c.field)
			}
			if fitted == nil || fitted.Error() != pub.Error() {
				t.Errorf("fitted release says %v, public settings %v: want the same rule", fitted, pub)
			}
			// The rule in a few words, for the curator's Mechanism list.
			var fre *RequestError
			if re.Need == "" || !errors.As(fitted, &fre) || fre.Need != re.Need {
				t.Errorf("public settings' need %q, fitted release's %v: want the same few words", re.Need, fitted)
			}
		})
	}
}

// TestPeerRefusalsInWords: a peer's refusal names the published
// mechanism in words beside its kind (the screenshot walkthrough saw
// "wang-trig is pure ε-DP" in the curator window).
func TestPeerRefusalsInWords(t *testing.T) {
	for _, c := range []struct {
		mech string
		s    peerSettings
		want string
	}{
		{synopsis.MechanismTrig, peerSettings{kind: learners.KindKDE, dim: 1, n: 100, eps: 1, delta: 1e-6},
			"Wang et al.'s trigonometric release (wang-trig) is pure ε-DP"},
		{synopsis.MechanismOutputPerturbation, peerSettings{kind: learners.KindKDE, dim: 1, n: 100, eps: 1},
			"output perturbation (output-perturbation) releases logistic regression only"},
		{synopsis.MechanismTrig, peerSettings{kind: learners.KindKDE, dim: 2, n: 100, eps: 1},
			"Wang et al.'s trigonometric release (wang-trig) answers the one-dimensional KDE"},
	} {
		err := peerRule(c.mech, c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: %v, want %q", c.mech, c.s, err, c.want)
		}
	}
}
