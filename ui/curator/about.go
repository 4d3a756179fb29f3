package curator

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/icons"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// License is the licence notice shown in the About dialog.
const License = "Bernstein Release is free software under the MIT licence. It uses Fyne (BSD-3-Clause), gonum and gonum/plot (BSD-3-Clause), Google's differential-privacy library (Apache-2.0) and golang.org/x/crypto (BSD-3-Clause)."

// showAbout is Help ▸ About.
func (c *curator) showAbout() {
	icon := canvas.NewImageFromResource(icons.AppPNG)
	icon.FillMode = canvas.ImageFillContain
	icon.SetMinSize(fyne.NewSize(96, 96))
	text := widget.NewRichTextFromMarkdown("## " + AppName + "\n\nVersion " + c.opts.Version + "\n\n" +
		"Releases functions learned from sensitive data under differential privacy — pure ε-DP, or (ε, δ)-DP with the approximate Laplace or Gaussian noise — with the Bernstein mechanism " +
		"(F. Aldà and B. I. P. Rubinstein, *The Bernstein Mechanism: Function Release under Differential Privacy*, AAAI 2017).\n\n" + License)
	text.Wrapping = fyne.TextWrapWord
	d := widgets.ShowDialog(c.win, "About "+AppName, container.NewBorder(nil, c.aboutPathsBox(), icon, nil, text), []string{"Close"}, []func() bool{nil})
	d.Pop.Resize(fyne.NewSize(640, 520).Min(c.win.Canvas().Size()))
}

// curatorGuide is the in-app help (Help ▸ Curator Guide).
const curatorGuide = `## Releasing a function, step by step

1. **Data** — open a CSV (File ▸ Open, Ctrl+O, or drop it on the window). Choose the feature columns and, for regression and classifiers, the label; for a classifier, declare its two values (typed or picked), which are public. Every row is kept: n stays public.
2. **Bounds** — give every used column public bounds from domain knowledge. Values outside are clipped; a missing or non-numeric value is replaced by the column's public fill value (default the midpoint). "Suggest from data" leaks the minimum and maximum and needs your explicit acknowledgement, which is recorded.
3. **Learner** — pick what to learn. Every parameter has its help text and valid range; the sensitivity S(F) of the current learner and n appears once the preview has run.
4. **Privacy** — choose ε (smaller is more private), the noise, the order h and the lattice size k (automatic is a good start). The remaining budget of the dataset is always in the status bar.
5. **Preview** — on the right: the error against ε for h = 1…5 and the nearest-lattice baseline, and the true function next to a simulated release. Nothing is published by the preview.
6. **Release** (Ctrl+R) — check the summary, enter your key passphrase, and the signed synopsis is written after the spend is recorded in the ledger.

Save the project with Ctrl+S; it is saved automatically afterwards.

**Keyboard** — Ctrl+O opens a file by its typed path, Ctrl+1 … Ctrl+6 go to the steps, Tab moves between fields, Space ticks a box, Left and Right change a choice, Ctrl+R releases. In every dialog Enter runs the highlighted action and Escape cancels.`

// showGuide is Help ▸ Curator Guide.
func (c *curator) showGuide() {
	t := widget.NewRichTextFromMarkdown(curatorGuide)
	t.Wrapping = fyne.TextWrapWord
	d := widgets.ShowDialog(c.win, "Curator guide", container.NewVScroll(t), []string{"Close"}, []func() bool{nil})
	d.Pop.Resize(fyne.NewSize(640, 520).Min(c.win.Canvas().Size()))
}
