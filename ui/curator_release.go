package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
)

// releasePage summarises what will be published and starts the release.
type releasePage struct {
	c         *curator
	box       fyne.CanvasObject
	title     *widget.Entry
	note      *widget.Entry
	summary   *widget.Label
	out       *widget.Entry
	overwrite *widget.Check
	release   *widget.Button
	history   *fyne.Container
}

func newReleasePage(c *curator) *releasePage {
	p := &releasePage{c: c}
	p.title = widget.NewEntry()
	p.title.SetPlaceHolder("public title of the release")
	p.title.OnChanged = func(s string) {
		if !c.syncing {
			c.state.Title = s
			c.dirty = true
			c.updateTitle()
			p.updateSummary()
		}
	}
	p.note = widget.NewMultiLineEntry()
	p.note.SetPlaceHolder("public note for analysts (optional): what the data are, how to read the output")
	p.note.SetMinRowsVisible(3)
	p.note.Wrapping = fyne.TextWrapWord
	p.note.OnChanged = func(s string) {
		if !c.syncing {
			c.state.Note = s
			c.dirty = true
			c.updateTitle()
		}
	}
	p.summary = widget.NewLabel("")
	p.summary.Wrapping = fyne.TextWrapWord
	p.out = widget.NewEntry()
	p.out.SetPlaceHolder("output file, e.g. /home/me/release.synopsis")
	p.out.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("choose where to write the synopsis")
		}
		return c.checkSynopsisOut(s)
	}
	folder := widget.NewButtonWithIcon("Folder…", theme.FolderOpenIcon(), func() {
		c.pickFolder(func(dir string) {
			name := filepath.Base(p.out.Text)
			if name == "" || name == "." || name == string(filepath.Separator) {
				name = suggestedFileName(c.state.Title)
			}
			p.out.SetText(filepath.Join(dir, name))
		})
	})
	p.overwrite = widget.NewCheck("Replace the file if it already exists", nil)
	p.release = widget.NewButtonWithIcon("Release…", theme.UploadIcon(), c.startRelease)
	p.release.Importance = widget.HighImportance
	p.history = container.NewVBox()
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	p.box = container.NewVScroll(container.NewPadded(container.NewVBox(
		bold("Title"), p.title, bold("Note"), p.note,
		bold("What will be published"), p.summary,
		bold("Synopsis file"), container.NewBorder(nil, nil, nil, folder, p.out), p.overwrite,
		p.release,
		widget.NewSeparator(), bold("Releases of this project"), p.history,
	)))
	return p
}

func (p *releasePage) content() fyne.CanvasObject { return p.box }

func (p *releasePage) refresh() {
	s := p.c.state
	p.title.SetText(s.Title)
	p.note.SetText(s.Note)
	if p.out.Text == "" {
		dir := filepath.Dir(s.CSVPath)
		if s.CSVPath == "" {
			dir, _ = os.UserHomeDir()
		}
		p.out.SetText(filepath.Join(dir, suggestedFileName(s.Title)))
	}
	p.updateSummary()
	p.history.Objects = nil
	for i := len(s.History) - 1; i >= 0; i-- {
		h := s.History[i]
		row := widget.NewLabel(fmt.Sprintf("%s  ε = %s%s: %s", h.Time.Local().Format("2006-01-02 15:04"), formatValue(h.Epsilon), deltaSuffix(h.Delta), h.Path))
		row.Wrapping = fyne.TextWrapBreak
		path := h.Path
		p.history.Add(container.NewBorder(nil, nil, nil, widget.NewButton("Open in viewer", func() { p.c.openSynopsis(path) }), row))
	}
	if len(s.History) == 0 {
		l := widget.NewLabel("No releases yet.")
		l.TextStyle.Italic = true
		p.history.Add(l)
	}
	p.history.Refresh()
}

func deltaSuffix(d float64) string {
	if d == 0 {
		return ""
	}
	return ", δ = " + formatValue(d)
}

// updateSummary describes the release the current settings would make.
func (p *releasePage) updateSummary() {
	p.summary.SetText(releaseSummary(p.c.state, p.c.ds, p.c.preview.lastK))
}

// releaseSummary lists what a release publishes: never data, only the
// noisy coefficients and public settings.
func releaseSummary(s *curatorState, ds *dataset.Table, k []int) string {
	spec := s.spec()
	var b strings.Builder
	fmt.Fprintf(&b, "• A signed .synopsis file with the noisy values of F_D on the lattice (no data, no noiseless values).\n")
	fmt.Fprintf(&b, "• Learner: %s; parameters as set; n (the number of records) is published.\n", spec.Title)
	for _, col := range s.usedColumns() {
		bd := s.Bounds[col]
		if bd == nil {
			fmt.Fprintf(&b, "• %s: bounds not set\n", col)
			continue
		}
		from := ""
		if t := bd.provenanceText(); t != "" {
			from = " — " + t
			if bd.fromData() {
				from = " — TAKEN FROM THE DATA: " + t
			}
		}
		fmt.Fprintf(&b, "• %s in [%s, %s]%s%s\n", col, bd.Lo, bd.Hi, unitSuffixText(bd.Unit), from)
	}
	if spec.Label == learners.LabelBinary && s.Label != "" {
		fmt.Fprintf(&b, "• Classes: the two values of %q (positive class %s)\n", s.Label, s.Positive)
	}
	kText := "automatic"
	if len(k) > 0 {
		kText = kLabel(k)
		if s.KAuto {
			kText += " (automatic)"
		}
	} else if !s.KAuto {
		kText = fmt.Sprint(s.K)
	}
	fmt.Fprintf(&b, "• Mechanism: Bernstein, h = %d, k = %s, %s noise\n", s.H, kText, s.Noise)
	fmt.Fprintf(&b, "• Privacy: ε = %s%s", formatValue(s.Epsilon), deltaSuffix(deltaOf(s)))
	return b.String()
}

func deltaOf(s *curatorState) float64 {
	if s.Noise == mechanism.NoiseLaplace {
		return 0
	}
	return s.Delta
}

func unitSuffixText(u string) string {
	if u == "" {
		return ""
	}
	return " " + u
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// suggestedFileName turns a title into a file name.
func suggestedFileName(title string) string {
	name := strings.Trim(unsafeName.ReplaceAllString(strings.ToLower(title), "-"), "-.")
	if name == "" {
		name = "release"
	}
	if len(name) > 60 {
		name = name[:60]
	}
	return name + ".synopsis"
}

// pickFolder asks for a folder (a dialog; tests replace chooseFolder).
func (c *curator) pickFolder(cb func(dir string)) {
	if c.chooseFolder != nil {
		c.chooseFolder(cb)
		return
	}
	dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			dialog.ShowError(err, c.win)
			return
		}
		if u != nil {
			cb(u.Path())
		}
	}, c.win)
}

// releaseFlow holds the dialogs of one release (for tests).
type releaseFlow struct {
	dlg       *curatorDialog
	pass      *widget.Entry
	overBudge *widget.Check
	identity  *identityWidgets
	progress  *widget.ProgressBar
	stage     *widget.Label
	result    *curatorDialog
	keyDlg    *curatorDialog
	keyPass   *widget.Entry
	keyPass2  *widget.Entry
	principal *widget.Entry
	keyInfo   *curatorDialog
}

// startRelease is File ▸ Release (Ctrl+R): check the settings, make sure a
// key exists, then ask for the passphrase with a summary.
func (c *curator) startRelease() {
	req, err := c.state.request(c.ds)
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			c.showStep(fe.Step)
		}
		dialog.ShowError(fmt.Errorf("not ready to release: %w", err), c.win)
		return
	}
	rp := c.pages[stepRelease].(*releasePage)
	if c.current != stepRelease {
		c.showStep(stepRelease)
	}
	if err := rp.out.Validate(); err != nil {
		dialog.ShowError(err, c.win)
		return
	}
	if _, err := os.Stat(c.opts.KeyPath); errors.Is(err, os.ErrNotExist) {
		c.createKey(func() { c.showReleaseDialog(req) })
		return
	}
	c.showReleaseDialog(req)
}

// showReleaseDialog shows the summary and asks for the key passphrase.
func (c *curator) showReleaseDialog(req project.ReleaseRequest) {
	rp := c.pages[stepRelease].(*releasePage)
	f := &releaseFlow{pass: widget.NewPasswordEntry(), progress: widget.NewProgressBar(), stage: widget.NewLabel(""), identity: newIdentityWidgets()}
	c.release = f
	f.pass.SetPlaceHolder("passphrase of your curator key")
	passLabel, keyEncrypted, err := releaseKeyLabel(c.opts.KeyPath, f.pass)
	if err != nil {
		dialog.ShowError(err, c.win)
		return
	}
	spent, _, budget, berr := c.budgetState()
	left := budget - spent
	var budgetText string
	if berr != nil {
		budgetText = "The privacy budget could not be read: " + berr.Error()
	} else {
		budgetText = fmt.Sprintf("ε spent on this dataset so far: %s of %s. This release spends ε = %s, leaving %s.",
			fmtBudget(spent), fmtBudget(budget), formatValue(req.Privacy.Epsilon), fmtBudget(left-req.Privacy.Epsilon))
	}
	over := berr == nil && req.Privacy.Epsilon > left*(1+1e-9)+1e-12
	f.overBudge = widget.NewCheck("Release anyway, over the budget (the ledger records that it exceeded the budget)", nil)
	budgetLabel := widget.NewLabel(budgetText)
	budgetLabel.Wrapping = fyne.TextWrapWord
	if over {
		budgetLabel.Importance = widget.DangerImportance
		budgetLabel.SetText(budgetText + "\nThis release would EXCEED the budget and will be refused unless you tick the box below (or raise the total budget on the Privacy step).")
	} else {
		f.overBudge.Hide()
	}
	sum := widget.NewLabel(releaseSummary(c.state, c.ds, c.preview.lastK))
	sum.Wrapping = fyne.TextWrapWord
	out := widget.NewLabel("Output: " + rp.out.Text)
	out.Wrapping = fyne.TextWrapBreak
	order := widget.NewLabel("The spend is written to the ledger first, then the signed synopsis. The noise is drawn from a secure random source; this cannot be undone.")
	order.Wrapping = fyne.TextWrapWord
	order.TextStyle.Italic = true
	c.checkIdentity(f, req, func(fd *project.IdentityFinding) {
		l, err := c.openLedger()
		if err != nil {
			return
		}
		text, over := identityBudgetText(l, fd, req.Privacy.Epsilon)
		budgetLabel.Importance = widget.MediumImportance
		if over {
			budgetLabel.Importance = widget.DangerImportance
			text += "\nThis release would EXCEED the budget and will be refused unless you tick the box below (or raise the total budget on the Privacy step)."
			f.overBudge.Show()
		} else if !f.overBudge.Checked {
			f.overBudge.Hide()
		}
		budgetLabel.SetText(text)
	})
	content := container.NewVBox(sum, out, f.identity.finding, f.identity.diffPop, budgetLabel, f.overBudge, passLabel, f.pass, order, f.progress, f.stage)
	f.progress.Hide()
	var running bool
	f.dlg = showCuratorDialog(c.win, "Release", container.NewVScroll(content), []string{"Cancel", "Release"}, []func() bool{
		nil,
		func() bool {
			if running {
				return false
			}
			if keyEncrypted && f.pass.Text == "" {
				f.stage.SetText("Enter the passphrase of your curator key.")
				return false
			}
			running = true
			f.progress.Show()
			f.dlg.button("Release").Disable()
			f.dlg.button("Cancel").Disable()
			c.runRelease(req, rp.out.Text, rp.overwrite.Checked, f.overBudge.Checked, f.identity.diffPop.Checked, []byte(f.pass.Text), func(ok bool) {
				running = false
				f.dlg.button("Release").Enable()
				f.dlg.button("Cancel").Enable()
				if ok {
					f.dlg.Hide()
				}
			})
			return false
		},
	})
	f.dlg.pop.Resize(fyne.NewSize(640, 560))
	c.win.Canvas().Focus(f.pass)
}

// runRelease prepares and publishes in the background: project.Prepare
// then (*Prepared).Release — the same pipeline as the command line.
func (c *curator) runRelease(req project.ReleaseRequest, out string, overwrite, allowOver, differentPopulation bool, pass []byte, finished func(ok bool)) {
	f := c.release
	keyPath := c.opts.KeyPath
	version := c.opts.Version
	f.stage.SetText("Unlocking the key …")
	go func() {
		res, err := func() (*project.ReleaseResult, error) {
			signer, err := keys.LoadSigner(keyPath, pass)
			if err != nil {
				return nil, err
			}
			ledger, err := c.openLedger()
			if err != nil {
				return nil, err
			}
			uiDo(func() { f.stage.SetText("Fitting and evaluating F_D on the lattice …") })
			prep, err := project.Prepare(context.Background(), req, func(done, total int) {
				if total > 0 {
					uiDo(func() { f.progress.SetValue(float64(done) / float64(total)) })
				}
			})
			if err != nil {
				return nil, err
			}
			uiDo(func() {
				f.stage.SetText("Recording the spend in the ledger, adding noise, signing, writing …")
				f.progress.SetValue(0)
			})
			return prep.Release(context.Background(), project.ReleaseOptions{
				Out: out, Overwrite: overwrite, AllowOverBudget: allowOver, DifferentPopulation: differentPopulation,
				Ledger: ledger, Signer: signer, AppVersion: version,
				Protected: project.KeyProtected(keyPath),
				NoiseProgress: func(done, total int) {
					uiDo(func() { f.progress.SetValue(float64(done) / float64(total)) })
				},
			})
		}()
		uiDo(func() {
			c.releaseFinished(res, err, finished)
		})
	}()
}

// releaseFinished reports a release (UI goroutine).
func (c *curator) releaseFinished(res *project.ReleaseResult, err error, finished func(ok bool)) {
	f := c.release
	c.updateBudget()
	if err != nil {
		f.progress.Hide()
		var be *project.BudgetError
		switch {
		case errors.Is(err, keys.ErrWrongPassphrase):
			f.stage.SetText("Wrong passphrase. Nothing was released or spent.")
		case errors.As(err, &be):
			f.stage.SetText(fmt.Sprintf("Refused: ε = %s would bring the spent ε from %s to %s, over the budget of %s. Nothing was released or spent.",
				formatValue(be.Requested), fmtBudget(be.Spent), fmtBudget(be.Spent+be.Requested), fmtBudget(be.Budget)))
		case errors.Is(err, fileio.ErrExists):
			f.stage.SetText(err.Error() + " — choose another file name or tick \"Replace the file\". Nothing was spent.")
		default:
			f.stage.SetText("Release failed: " + err.Error())
		}
		f.stage.Wrapping = fyne.TextWrapWord
		finished(false)
		if c.onReleaseDone != nil {
			c.onReleaseDone(nil, err)
		}
		return
	}
	finished(true)
	c.rememberLedgerKey(res)
	id := res.Entry.ID
	c.state.History = append(c.state.History, releaseRecord{Time: time.Now().UTC(), Path: res.Path, Epsilon: res.Spent, Delta: deltaOf(c.state), LedgerID: id})
	c.dirty = true
	c.updateTitle()
	c.scheduleAutosave()
	c.pages[stepRelease].refresh()
	msg := widget.NewLabel(fmt.Sprintf("Published %s\n\nε spent by this release: %s. Spent on this dataset in total: %s of %s.\n\n%s",
		res.Path, formatValue(res.Spent), fmtBudget(res.Total), fmtBudget(res.Budget), res.Identity.Describe()))
	msg.Wrapping = fyne.TextWrapWord
	share := widget.NewLabel("Analysts verify it with your allowed_signers line (Release ▸ Curator Key…).")
	share.Wrapping = fyne.TextWrapWord
	share.TextStyle.Italic = true
	path := res.Path
	f.result = showCuratorDialog(c.win, "Released", container.NewVBox(msg, share), []string{"Close", "Open in viewer"}, []func() bool{
		nil, func() bool { c.openSynopsis(path); return true },
	})
	c.setStatus("Released %s (ε = %s)", path, formatValue(res.Spent))
	if c.onReleaseDone != nil {
		c.onReleaseDone(res, nil)
	}
}

// createKey asks for a principal and a passphrase (twice) and writes the
// curator key, then shows the public key and allowed_signers line.
func (c *curator) createKey(then func()) {
	f := &releaseFlow{}
	c.release = f
	f.principal = widget.NewEntry()
	f.principal.SetText(defaultPrincipal())
	f.keyPass = widget.NewPasswordEntry()
	f.keyPass2 = widget.NewPasswordEntry()
	msg := widget.NewLabel("You have no curator key yet. Releases are signed with it so analysts can check they come from you. The key is stored encrypted with a passphrase at\n" + c.opts.KeyPath)
	msg.Wrapping = fyne.TextWrapWord
	errl := widget.NewLabel("")
	errl.Importance = widget.DangerImportance
	errl.Wrapping = fyne.TextWrapWord
	content := container.NewVBox(msg,
		widget.NewLabel("Your name or e-mail (shown to analysts, no spaces):"), f.principal,
		widget.NewLabel("Passphrase:"), f.keyPass, widget.NewLabel("Passphrase again:"), f.keyPass2, errl)
	f.keyDlg = showCuratorDialog(c.win, "Create your curator key", content, []string{"Cancel", "Create key"}, []func() bool{
		nil,
		func() bool {
			if f.keyPass.Text == "" || f.keyPass.Text != f.keyPass2.Text {
				errl.SetText("Enter the same, non-empty passphrase twice.")
				return false
			}
			kp, err := keys.WriteKeyPair(c.opts.KeyPath, []byte(f.keyPass.Text), strings.TrimSpace(f.principal.Text), false)
			if err != nil {
				errl.SetText(err.Error())
				return false
			}
			f.keyDlg.Hide()
			c.showPublicKey(kp.Fingerprint, kp.AllowedSignersLine, kp.PublicPath, then)
			return true
		},
	})
	f.keyDlg.pop.Resize(fyne.NewSize(560, 420))
}

// showPublicKey shows the key's fingerprint and allowed_signers line.
func (c *curator) showPublicKey(fp, line, pubPath string, then func()) {
	f := c.release
	entry := widget.NewMultiLineEntry()
	entry.SetText(line)
	entry.Wrapping = fyne.TextWrapBreak
	entry.SetMinRowsVisible(4)
	msg := widget.NewLabel(fmt.Sprintf("Key fingerprint: %s\nPublic key: %s\n\nGive analysts this allowed_signers line so their viewer (or ssh-keygen -Y verify) trusts your releases:", fp, pubPath))
	msg.Wrapping = fyne.TextWrapWord
	cp := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { c.app.Clipboard().SetContent(line) })
	f.keyInfo = showCuratorDialog(c.win, "Your curator key", container.NewVBox(msg, entry, cp), []string{"Continue"}, []func() bool{
		func() bool {
			// Hide first: removing a popup also removes every overlay
			// above it, so the next dialog must open after this one closed.
			f.keyInfo.Hide()
			if then != nil {
				then()
			}
			return false
		},
	})
	f.keyInfo.pop.Resize(fyne.NewSize(640, 360))
}

// showKeyInfo is Release ▸ Curator Key…: show the key or offer to create it.
func (c *curator) showKeyInfo() {
	data, err := fileio.ReadRegular(c.opts.KeyPath+keys.AllowedSignersSuffix, keys.MaxAllowedSignersSize)
	if err != nil {
		if _, serr := os.Stat(c.opts.KeyPath); errors.Is(serr, os.ErrNotExist) {
			c.createKey(nil)
			return
		}
		dialog.ShowError(err, c.win)
		return
	}
	c.release = &releaseFlow{}
	line := strings.TrimSpace(string(data))
	c.showPublicKey(keyFingerprint(line), line, c.opts.KeyPath+keys.PublicKeySuffix, nil)
}

// keyFingerprint returns the SHA256 fingerprint of the key in an
// allowed_signers line ("" if it cannot be parsed).
func keyFingerprint(line string) string {
	as, err := keys.ParseAllowedSigners(strings.NewReader(line + "\n"))
	if err != nil || len(as.Entries()) == 0 {
		return ""
	}
	return as.Entries()[0].Fingerprint
}

// defaultPrincipal suggests the curator's identity: the login name.
func defaultPrincipal() string {
	for _, v := range []string{"USER", "USERNAME", "LOGNAME"} {
		if s := strings.TrimSpace(os.Getenv(v)); s != "" && !strings.ContainsAny(s, " \t\",*?!#") {
			return s
		}
	}
	return "curator"
}
