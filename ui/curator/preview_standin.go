package curator

import (
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// What the preview runs on (issue 13 item 7): the private data, whose
// preview is honest about not being covered by ε, or a public stand-in.
const (
	previewOnPrivate = "the private data (curator only)"
	previewOnUniform = "a uniform sample within the public bounds"
	previewOnCSV     = "a public CSV of the same columns…"
)

// previewPrivateNotice is shown with a preview of the private data.
const previewPrivateNotice = "This preview compares simulated releases with the exact F_D of the private data: " +
	"settings chosen from this preview are not covered by ε; use Choose privately… to pick them under DP " +
	"(or preview on a public stand-in)."

// standInSeed seeds the uniform stand-in (previews only).
const standInSeed = 20261124

// standIn is the preview's choice of data (UI goroutine).
type standIn struct {
	mode   string
	csv    *dataset.Table // the public CSV, once read
	notice *widget.Label
	choice *widget.Select
}

// newStandIn builds the "Preview on" selector of the panel.
func (p *previewPanel) newStandIn() *standIn {
	s := &standIn{mode: previewOnPrivate}
	s.notice = widget.NewLabel(previewPrivateNotice)
	s.notice.Wrapping = fyne.TextWrapWord
	s.notice.Importance = widget.WarningImportance
	s.choice = widget.NewSelect([]string{previewOnPrivate, previewOnUniform, previewOnCSV}, func(v string) {
		if v == previewOnCSV {
			p.pickPublicCSV()
			return
		}
		s.mode = v
		p.updateStandInNotice()
		p.schedule(false)
	})
	s.choice.Selected = previewOnPrivate // no callback: the panel is being built
	return s
}

// updateStandInNotice says what the preview shows (UI goroutine).
func (p *previewPanel) updateStandInNotice() {
	s := p.standIn
	switch s.mode {
	case previewOnUniform:
		s.notice.SetText("Preview on a public stand-in: a uniform sample within the public bounds (n as in the data). " +
			"It shows no private data, so settings chosen from it are not fitted to the data; it can look different from them.")
		s.notice.Importance = widget.MediumImportance
	case previewOnCSV:
		s.notice.SetText(fmt.Sprintf("Preview on a public stand-in: %s. Settings chosen from it are not fitted to the private data, "+
			"as long as this file is really public.", s.csv.Path))
		s.notice.Importance = widget.MediumImportance
	default:
		s.notice.SetText(previewPrivateNotice)
		s.notice.Importance = widget.WarningImportance
	}
	s.notice.Refresh()
}

// pickPublicCSV asks for a public CSV with the used columns and reads it
// off the UI goroutine; on failure the preview stays on what it was.
func (p *previewPanel) pickPublicCSV() {
	c := p.c
	prev := p.standIn.mode
	back := func() {
		p.standIn.choice.SetSelected(prev) // re-runs the callback with prev
	}
	cols := c.state.usedColumns()
	if c.state.spec().Label == learners.LabelBinary && c.state.Label != "" && !slices.Contains(cols, c.state.Label) {
		cols = append(cols, c.state.Label)
	}
	if len(cols) == 0 {
		dialog.ShowInformation("Choose columns first", "Choose the columns on the Data step first.", c.win)
		back()
		return
	}
	files.ShowOpenFile(c.win, []string{".csv", ".tsv", ".txt"}, func(path string) {
		go func() {
			ds, err := dataset.ReadCSV(path, dataset.CSVOptions{Columns: cols})
			widgets.Do(func() {
				if err != nil {
					dialog.ShowError(fmt.Errorf("public stand-in: %w", err), c.win)
					back()
					return
				}
				p.usePublicCSV(ds)
			})
		}()
	})
	// Until a file is read the preview keeps its data (and stays so if the
	// file dialog is cancelled).
	p.standIn.choice.Selected = prev
	p.standIn.choice.Refresh()
}

// usePublicCSV switches the preview to a public CSV (UI goroutine).
func (p *previewPanel) usePublicCSV(ds *dataset.Table) {
	s := p.standIn
	s.csv, s.mode = ds, previewOnCSV
	s.choice.Selected = previewOnCSV
	s.choice.Refresh()
	p.updateStandInNotice()
	p.schedule(false)
}

// applyStandIn replaces the private dataset of req by the chosen stand-in
// and returns the label marking the plots ("" for the private data).
func (p *previewPanel) applyStandIn(req release.Request) (release.Request, string, error) {
	s := p.standIn
	switch s.mode {
	case previewOnUniform:
		l, err := learners.Lookup(req.Learner)
		if err != nil {
			return req, "", err
		}
		ds, err := release.UniformStandIn(req, l.Spec(), standInSeed)
		if err != nil {
			return req, "", fmt.Errorf("the uniform stand-in: %w", err)
		}
		req.Dataset, req.Aggregates = ds, nil
		return req, "public stand-in: uniform sample", nil
	case previewOnCSV:
		if s.csv == nil {
			return req, "", nil
		}
		req.Dataset, req.Aggregates = s.csv, nil
		return req, "public stand-in: " + s.csv.Path, nil
	}
	return req, "", nil
}
