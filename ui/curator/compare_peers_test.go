package curator

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/learners"
)

// TestCuratorComparePeers ticks "Compare with published peers" in the
// curator window: for the ℓ = 1 KDE demo the preview's tradeoff result
// holds the peer series; switched to naive Bayes, the caption says no peer
// applies.
func TestCuratorComparePeers(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	res := f.preview()
	if len(res.Peers) != 0 || c.preview.peersCheck.Checked {
		t.Fatalf("peers shown before the box is ticked (checked %v, %d curves)", c.preview.peersCheck.Checked, len(res.Peers))
	}
	f.do(func() { test.Tap(c.preview.peersCheck) })
	res = f.preview()
	if len(res.Peers) != 3 {
		t.Fatalf("after ticking: %d peer curves, want 3 (caption %q)", len(res.Peers), res.PeerCaption)
	}
	labels := map[string]bool{}
	for _, cv := range res.Tradeoff.Curves {
		labels[cv.Label] = true
	}
	for _, pc := range res.Peers {
		if !labels[pc.Label] {
			t.Errorf("peer %q missing from the tradeoff plot's curves", pc.Label)
		}
	}

	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoSVM) })
	f.waitDataset()
	f.preview()
	lp := c.pages[stepLearner].(*learnerPage)
	f.do(func() { lp.choose.SetSelected(learners.NewNaiveBayes().Spec().Title) })
	res = f.preview()
	if c.state.Learner != learners.KindNaiveBayes {
		t.Fatalf("learner %q after choosing naive Bayes", c.state.Learner)
	}
	var caption string
	var visible bool
	f.do(func() { caption, visible = c.preview.peerCaption.Text, c.preview.peerCaption.Visible() })
	if len(res.Peers) != 0 || !visible || !strings.HasPrefix(caption, "No published peer applies to Naive Bayes") {
		t.Errorf("naive Bayes: %d peers, caption %q (visible %v)", len(res.Peers), caption, visible)
	}
	f.do(func() { test.Tap(c.preview.peersCheck) })
	f.preview()
	f.do(func() { visible = c.preview.peerCaption.Visible() })
	if visible {
		t.Error("caption still shown after unticking")
	}
}
