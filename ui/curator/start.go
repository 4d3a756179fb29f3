package curator

import (
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// startPage is the first screen: demo datasets, open, recent projects.
type startPage struct {
	c       *curator
	box     fyne.CanvasObject
	recent  *fyne.Container
	demoKDE *widget.Button
	demoSVM *widget.Button
}

func newStartPage(c *curator) *startPage {
	p := &startPage{c: c}
	intro := widget.NewRichTextFromMarkdown(`## Welcome

Bernstein Release publishes a **function learned from sensitive data** — a density, a regression curve or a classifier — with **differential privacy**. You choose the data, public bounds, a learner and a privacy level; the preview on the right shows what a release would look like before anything is published.

New here? Start with a demo dataset:`)
	intro.Wrapping = fyne.TextWrapWord
	p.demoKDE = widget.NewButtonWithIcon("Demo: 1-D density (two bumps)", theme.MediaPlayIcon(), func() { c.openDemo(demoKDE) })
	p.demoKDE.Importance = widget.HighImportance
	p.demoSVM = widget.NewButtonWithIcon("Demo: 2-D classes (SVM, Figure 2)", theme.MediaPlayIcon(), func() { c.openDemo(demoSVM) })
	open := widget.NewButtonWithIcon("Open a CSV file or project…", theme.FolderOpenIcon(), c.showOpenDialog)
	tip := widget.NewLabel("You can also drop a CSV file onto this window.")
	tip.TextStyle.Italic = true
	p.recent = container.NewVBox()
	p.box = widgets.VScroll(container.NewPadded(container.NewVBox(
		intro, p.demoKDE, p.demoSVM, widget.NewSeparator(), open, tip,
		widget.NewLabelWithStyle("Recent projects", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), p.recent,
	)))
	return p
}

func (p *startPage) content() fyne.CanvasObject { return p.box }

func (p *startPage) refresh() {
	p.recent.Objects = nil
	for _, path := range p.c.recentProjects() {
		path := path
		b := widget.NewButtonWithIcon(filepath.Base(path), theme.DocumentIcon(), func() { p.c.openProject(path) })
		b.Alignment = widget.ButtonAlignLeading
		dir := widget.NewLabel(filepath.Dir(path))
		dir.Truncation = fyne.TextTruncateEllipsis // a long path never widens the window
		p.recent.Add(container.NewGridWithColumns(2, b, dir))
	}
	if len(p.recent.Objects) == 0 {
		l := widget.NewLabel("None yet. Projects you save appear here.")
		l.TextStyle.Italic = true
		p.recent.Add(l)
	}
	p.recent.Refresh()
}

// Demo datasets.
const (
	demoKDE = "kde-mixture.csv"
	demoSVM = "two-class.csv"
)

// openDemo writes the bundled demo datasets into the config directory (if
// missing) and opens one with settings that work out of the box.
func (c *curator) openDemo(name string) {
	dir := filepath.Join(c.opts.ConfigDir, "demo")
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			widgets.ShowError(c.win, err)
			return
		}
		if _, err := dataset.WriteDemoData(dir, true); err != nil {
			widgets.ShowError(c.win, err)
			return
		}
	}
	c.resetProject()
	c.applyDemoSettings(name)
	c.loadDataset(path, false)
}

// applyDemoSettings sets the learner, columns, public bounds (the demo
// generators' documented [0,1] ranges) and k of a demo dataset.
func (c *curator) applyDemoSettings(name string) {
	s := c.state
	switch name {
	case demoKDE:
		s.Learner = learners.KindKDE
		s.Features, s.Label, s.Negative, s.Positive = []string{"x"}, "", "", ""
		s.bound("x").Lo, s.bound("x").Hi = "0", "1"
		s.Title = "Demo: private density of a two-bump mixture"
		// Figure 1 of the paper: k = 20. Here the theory's k* (about 4) is
		// far too coarse: the approximation error, not the noise, dominates.
		s.KAuto, s.K = false, 20
	case demoSVM:
		s.Learner = learners.KindSVM
		s.Features = []string{"x1", "x2"}
		// The demo's public declaration of its label values.
		s.Label, s.Negative, s.Positive = "label", "0", "1"
		for _, col := range s.Features {
			s.bound(col).Lo, s.bound(col).Hi = "0", "1"
		}
		s.Title = "Demo: private SVM classifier"
	}
}

// demoName returns demoKDE or demoSVM if ds is byte for byte one of the
// bundled demo datasets (as written by bernstein demo-data or make run),
// else "".
func demoName(ds *dataset.Table) string {
	switch ds.Hash {
	case dataset.DemoKDE1D(dataset.DemoKDE1DSeed).Hash:
		return demoKDE
	case dataset.DemoTwoClass2D(dataset.DemoTwoClass2DSeed).Hash:
		return demoSVM
	}
	return ""
}
