package curator

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// kdeDemoWithPeers opens the KDE demo, waits for its preview and ticks
// "Compare with published peers" (the preview of that is not waited for).
func kdeDemoWithPeers(t *testing.T) *curatorFixture {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.preview()
	f.do(func() { test.Tap(c.preview.peersCheck) })
	return f
}

// TestCuratorPeersLegendWhole: with the published peers compared on the
// KDE demo, the tradeoff plot is as tall as its legend needs to list every
// series under its guarantee heading (plotting.TradeoffHeight at the
// plot's width: beside the plot when it fits there, else below), at
// 1024×700 and 1280×800, and is drawn at that height; the function plot
// under it keeps its own height. Before, the plot kept 320 units and its
// legend ended in "… 1 more" (walkthrough).
func TestCuratorPeersLegendWhole(t *testing.T) {
	f := kdeDemoWithPeers(t)
	c := f.c
	for _, win := range []fyne.Size{fyne.NewSize(1024, 700), fyne.NewSize(1280, 800)} {
		f.do(func() { c.win.Resize(win) })
		res := f.preview()
		if len(res.Peers) == 0 {
			t.Fatalf("%v: no peers compared", win)
		}
		f.do(func() {
			p := c.preview
			s := p.tradeoff.pixelSize()
			base := int(p.tradeoff.baseMin.Height * s.Scale)
			need, err := plotting.TradeoffHeight(res.Tradeoff, widgets.PlotTheme(c.app, c.themeChoice), plotting.Size{W: s.W, H: base, Scale: s.Scale})
			if err != nil {
				t.Fatal(err)
			}
			if win.Width == 1024 && need <= base {
				t.Fatalf("%v: the peers' legend needs %d px: want a legend that does not fit the %d px plot, so the test can fail", win, need, base)
			}
			t.Logf("%v: plot %v, its whole legend needs %d px", win, p.tradeoff.Size(), need)
			got := p.tradeoff.Size().Height * s.Scale
			if got+1 < float32(need) {
				t.Errorf("%v: tradeoff plot %.0f px high, its whole legend needs %d px", win, got, need)
			}
			if b := p.tradeoff.img.Image.Bounds(); b.Dy()+1 < need {
				t.Errorf("%v: tradeoff image drawn %d px high, its whole legend needs %d px", win, b.Dy(), need)
			}
			if fh := p.function.Size().Height; fh > p.function.MinSize().Height+1 && fh >= p.tradeoff.Size().Height {
				t.Errorf("%v: the function plot grew with the tradeoff plot: %.0f (its minimum %.0f)", win, fh, p.function.MinSize().Height)
			}
		})
	}
}

// TestCuratorNoGapUnderTargetHint: before any search, "Error I can accept"
// ends with its hint — the empty result line is hidden, so no blank line
// sits between the hint and the Noise heading (walkthrough screenshot).
func TestCuratorNoGapUnderTargetHint(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	f.do(func() { test.Tap(c.pages[stepStart].(*startPage).demoKDE) })
	f.waitDataset()
	f.do(func() { c.showStep(stepPrivacy) })
	f.preview()
	f.do(func() {
		tp := c.pages[stepPrivacy].(*privacyPage).target
		below := tp.box.Size().Height - (tp.hint.Position().Y + tp.hint.Size().Height)
		if below > 0.5 {
			t.Errorf("%.0f units of blank space under the hint (result %q visible %v)", below, tp.result.Text, tp.result.Visible())
		}
	})
}
