package study

import (
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
)

// TestTrigPeerNeedsMoments: below peers.TrigMinMoments the trig release
// answers a constant whatever the data (every Jackson multiplier past μ_0
// is 0), so the trig peer is not built there — at k = 1 and 2 (t = 2, 3)
// the peers hold no trig and the caption says why; from k = 3 on it is
// built. The target search's k scan then never proposes a data-free
// constant as "the trig release".
func TestTrigPeerNeedsMoments(t *testing.T) {
	x := make([]float64, 200)
	for i := range x {
		x[i] = float64(i%50) / 49
	}
	data, values, fit, grid, truth := kdeOnTargetGrid(t, x, 0.05)
	for k := 1; k <= 4; k++ {
		sims, caption, err := BuildPeers(PeerData{Kind: learners.KindKDE, Title: "kde", Data: data, Fitted: fit, Values: values,
			Grid: grid, Truth: truth, K: []int{k}})
		if err != nil {
			t.Fatal(err)
		}
		built := false
		for _, s := range sims {
			built = built || s.Kind == peers.KindTrig
		}
		if want := k+1 >= peers.TrigMinMoments(peers.TrigJackson); built != want {
			t.Errorf("k = %d: trig built %v, want %v (caption %q)", k, built, want, caption)
		}
		if !built && !strings.Contains(caption, "answer a constant") {
			t.Errorf("k = %d: the caption %q does not say why the trig peer is missing", k, caption)
		}
	}
}
