package curator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// releasePage summarises what will be published and starts the release.
type releasePage struct {
	c         *curator
	box       fyne.CanvasObject
	title     *widget.Entry
	note      *widgets.TabEntry
	summary   *widget.Label
	out       *widgets.PathEntry // wraps a long path (no side scroll)
	overwrite *widget.Check
	release   *widget.Button
	// notReady says why the release button is disabled; goTo opens the
	// step that fixes it.
	notReady *widget.Label
	goTo     *widget.Button
	goToStep string
	history  *fyne.Container
}

func newReleasePage(c *curator) *releasePage {
	p := &releasePage{c: c}
	p.title = widget.NewEntry()
	p.title.SetPlaceHolder("public title of the release")
	p.title.OnChanged = func(s string) {
		c.state.Title = s
		c.changed()
	}
	p.note = widgets.NewTabEntry()
	p.note.SetPlaceHolder("public note for analysts (optional): what the data are, how to read the output")
	p.note.SetMinRowsVisible(3)
	p.note.Wrapping = fyne.TextWrapWord
	p.note.OnChanged = func(s string) {
		c.state.Note = s
		c.changed()
	}
	p.summary = widget.NewLabel("")
	p.summary.Wrapping = fyne.TextWrapWord
	p.out = widgets.NewPathEntry()
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
	p.notReady = widget.NewLabel("")
	p.notReady.Wrapping = fyne.TextWrapWord
	p.notReady.Importance = widget.DangerImportance
	p.goTo = widget.NewButton("", func() {
		if p.goToStep != "" {
			c.showStep(p.goToStep)
		}
	})
	p.history = container.NewVBox()
	bold := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	p.box = widgets.VScroll(container.NewPadded(container.NewVBox(
		bold("Title"), p.title, bold("Note"), p.note,
		bold("What will be published"), p.summary,
		bold("Synopsis file"), container.NewBorder(nil, nil, nil, folder, p.out), p.overwrite,
		container.NewHBox(p.release, p.goTo), p.notReady,
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

// derive shows the summary of the current settings and enables the
// release button only when they are complete, saying why not otherwise
// and offering the step that fixes it.
func (p *releasePage) derive() {
	c := p.c
	p.summary.SetText(releaseSummary(c.state, c.preview.lastFor(c.state, c.ds)))
	_, err := c.readyRequest()
	p.goToStep = ""
	if err == nil {
		p.release.Enable()
		p.notReady.SetText("")
		p.notReady.Hide()
		p.goTo.Hide()
		return
	}
	p.release.Disable()
	p.notReady.SetText(releaseBlocker(err))
	p.notReady.Show()
	var fe *fieldError
	if errors.As(err, &fe) && fe.Step != stepRelease {
		p.goToStep = fe.Step
		p.goTo.SetText("Go to the " + fe.Step + " step")
		p.goTo.Show()
	} else {
		p.goTo.Hide()
	}
}

// releaseBlocker says why no release can be made, and where to fix it.
func releaseBlocker(err error) string {
	s := "Not ready to release: " + err.Error() + "."
	var fe *fieldError
	if errors.As(err, &fe) {
		s += " Fix it on the " + fe.Step + " step."
	}
	return s
}

// releaseSummary lists what a release of the current settings publishes:
// never data, only the noisy coefficients and public settings. Values are
// the ones the release request is built from (the same parsing); a
// missing or invalid one is named with the step that fixes it. r is the
// preview of these settings (nil if none).
func releaseSummary(s *curatorState, r *preview.Result) string {
	spec := s.spec()
	var b strings.Builder
	fmt.Fprintf(&b, "• A signed .synopsis file with the noisy values of F_D on the lattice (no data, no noiseless values).\n")
	fmt.Fprintf(&b, "• Learner: %s; parameters as set; n (the number of records) is published.\n", spec.Title)
	if len(s.Features) == 0 {
		fmt.Fprintf(&b, "• Features: none chosen yet — choose them on the %s step\n", stepData)
	}
	for _, col := range s.usedColumns() {
		bv, err := s.columnBounds(col)
		var fe *fieldError
		switch {
		case errors.As(err, &fe) && fe.Rule == errBoundsMissing:
			fmt.Fprintf(&b, "• %s: bounds MISSING — set them on the %s step\n", col, stepBounds)
			continue
		case err != nil:
			fmt.Fprintf(&b, "• %s: bounds INVALID (%s) — fix them on the %s step\n", col, fe.Rule, stepBounds)
			continue
		}
		bd := s.Bounds[col]
		from := ""
		if t := bd.provenanceText(); t != "" {
			from = " — " + t
			if bd.fromData() {
				from = " — TAKEN FROM THE DATA: " + t
			}
		}
		fmt.Fprintf(&b, "• %s in [%s, %s]%s%s\n", col, fmtBound(bv.Lo), fmtBound(bv.Hi), unitSuffixText(bd.Unit), from)
	}
	if spec.Label == learners.LabelBinary && s.Label != "" {
		fmt.Fprintf(&b, "• Classes: the two values of %q (positive class %s)\n", s.Label, s.Positive)
	}
	kText := "automatic"
	switch t, typed := s.Typed[fieldK]; {
	case !s.KAuto && typed:
		kText = fmt.Sprintf("INVALID (%v) — fix it on the %s step", privacyFields[2].parse(t), stepPrivacy)
	case !s.KAuto:
		kText = strconv.Itoa(s.K)
	case r != nil:
		kText = preview.KLabel(r.K) + " (automatic)"
	}
	fmt.Fprintf(&b, "• Mechanism: Bernstein, h = %d, k = %s, %s noise\n", s.H, kText, s.Noise)
	if t, typed := s.Typed[fieldEpsilon]; typed {
		fmt.Fprintf(&b, "• Privacy: ε INVALID (%v) — fix it on the %s step", privacyFields[0].parse(t), stepPrivacy)
		return b.String()
	}
	delta := deltaSuffix(deltaOf(s))
	if t, typed := s.Typed[fieldDelta]; typed && s.fieldInUse(fieldDelta) {
		delta = fmt.Sprintf(", δ INVALID (%v) — fix it on the %s step", privacyFields[1].parse(t), stepPrivacy)
	}
	fmt.Fprintf(&b, "• Privacy: ε = %s%s", formatValue(s.Epsilon), delta)
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
			widgets.ShowError(c.win, err)
			return
		}
		if u != nil {
			cb(u.Path())
		}
	}, c.win)
}

// releaseFlow holds the dialogs of one release (for tests).
type releaseFlow struct {
	dlg       *widgets.Dialog
	pass      *widgets.KeyEntry
	overBudge *widgets.KeyCheck
	identity  *identityWidgets
	progress  *widget.ProgressBar
	stage     *widget.Label
	result    *widgets.Dialog
	keyDlg    *widgets.Dialog
	keyPass   *widgets.KeyEntry
	keyPass2  *widgets.KeyEntry
	principal *widgets.KeyEntry
	keyInfo   *widgets.Dialog
}

// startRelease is File ▸ Release (Ctrl+R): check the settings, make sure a
// key exists, then ask for the passphrase with a summary.
func (c *curator) startRelease() {
	req, err := c.readyRequest()
	if err != nil {
		var fe *fieldError
		if errors.As(err, &fe) {
			c.showStep(fe.Step)
		}
		widgets.ShowMessage(c.win, "Not ready to release", releaseBlocker(err))
		return
	}
	rp := c.pages[stepRelease].(*releasePage)
	if c.current != stepRelease {
		c.showStep(stepRelease)
	}
	if err := rp.out.Validate(); err != nil {
		widgets.ShowError(c.win, err)
		return
	}
	if _, err := os.Stat(c.opts.KeyPath); errors.Is(err, os.ErrNotExist) {
		c.createKey(func() { c.showReleaseDialog(req) })
		return
	}
	c.showReleaseDialog(req)
}

// showReleaseDialog shows the summary and asks for the key passphrase.
func (c *curator) showReleaseDialog(req release.Request) {
	rp := c.pages[stepRelease].(*releasePage)
	f := &releaseFlow{pass: widgets.NewKeyEntry(true), progress: widget.NewProgressBar(), stage: widget.NewLabel(""), identity: newIdentityWidgets()}
	c.release = f
	f.pass.SetPlaceHolder("passphrase of your curator key")
	passLabel, keyEncrypted, err := releaseKeyLabel(c.opts.KeyPath, f.pass)
	if err != nil {
		widgets.ShowError(c.win, err)
		return
	}
	spent, _, budget, berr := c.budgetState()
	left := budget - spent
	var budgetText string
	if berr != nil {
		budgetText = "The privacy budget could not be read: " + berr.Error()
	} else {
		budgetText = releaseBudgetText(spent, budget, req.Privacy.Epsilon, req.Privacy.Delta, req.Privacy.Noise)
	}
	over := berr == nil && req.Privacy.Epsilon > left*(1+1e-9)+1e-12
	f.overBudge = widgets.NewKeyCheck("Release anyway, over the budget (the ledger records that it exceeded the budget)", nil)
	budgetLabel := widget.NewLabel(budgetText)
	budgetLabel.Wrapping = fyne.TextWrapWord
	if over {
		budgetLabel.Importance = widget.DangerImportance
		budgetLabel.SetText(budgetText + "\nThis release would EXCEED the budget and will be refused unless you tick the box below (or raise the total budget on the Privacy step).")
	} else {
		f.overBudge.Hide()
	}
	sum := widget.NewLabel(requestSummary(req, c.state))
	sum.Wrapping = fyne.TextWrapWord
	out := widget.NewLabel("Output: " + rp.out.Text)
	out.Wrapping = fyne.TextWrapBreak
	order := widget.NewLabel("The spend is written to the ledger first, then the signed synopsis. The noise is drawn from a secure random source; this cannot be undone.")
	order.Wrapping = fyne.TextWrapWord
	order.TextStyle.Italic = true
	c.checkIdentity(f, req, func(fd *ledger.IdentityFinding) {
		l, err := c.openLedger()
		if err != nil {
			return
		}
		text, over := identityBudgetText(l, fd, req.Privacy.Epsilon, req.Privacy.Delta, req.Privacy.Noise)
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
	f.stage.Wrapping = fyne.TextWrapWord
	// The summary scrolls; what the curator acts on and the outcome stay
	// in view above the buttons, however short the window (at 1024×700 a
	// wrong passphrase was reported below the fold).
	summary := container.NewVScroll(container.NewVBox(sum, out, f.identity.finding, f.identity.diffPop, budgetLabel, order))
	controls := container.NewVBox(f.overBudge, passLabel, f.pass, f.progress, f.stage)
	content := container.NewBorder(nil, controls, nil, nil, summary)
	f.progress.Hide()
	var running bool
	f.dlg = widgets.ShowDialog(c.win, "Release", content, []string{"Cancel", "Release"}, []func() bool{
		nil,
		func() bool {
			if running {
				return false
			}
			if keyEncrypted && f.pass.Text == "" {
				f.stage.Importance = widget.DangerImportance
				f.stage.SetText("Enter the passphrase of your curator key.")
				return false
			}
			running = true
			f.progress.Show()
			f.dlg.Button("Release").Disable()
			f.dlg.Button("Cancel").Disable()
			c.runRelease(req, rp.out.Text, rp.overwrite.Checked, f.overBudge.Checked, f.identity.diffPop.Checked, []byte(f.pass.Text), func(ok bool) {
				running = false
				f.dlg.Button("Release").Enable()
				f.dlg.Button("Cancel").Enable()
				if ok {
					f.dlg.Hide()
				}
			})
			return false
		},
	})
	f.dlg.Pop.Resize(fyne.NewSize(640, min(560, max(c.win.Canvas().Size().Height-40, 360))))
	c.win.Canvas().Focus(f.pass) // Enter in it releases (widgets.KeyEntry)
}

// runRelease prepares and publishes in the background: release.Prepare
// then (*Prepared).Release — the same pipeline as the command line.
func (c *curator) runRelease(req release.Request, out string, overwrite, allowOver, differentPopulation bool, pass []byte, finished func(ok bool)) {
	f := c.release
	keyPath := c.opts.KeyPath
	version := c.opts.Version
	mech := c.state.Mechanism
	f.stage.Importance = widget.MediumImportance
	f.stage.SetText("Unlocking the key …")
	go func() {
		res, err := func() (*release.Result, error) {
			signer, err := keys.LoadSigner(keyPath, pass)
			if err != nil {
				return nil, err
			}
			ledger, err := c.openLedger()
			if err != nil {
				return nil, err
			}
			widgets.Do(func() { f.stage.SetText("Fitting and evaluating F_D on the lattice …") })
			prep, err := release.Prepare(context.Background(), req, func(done, total int) {
				if total > 0 {
					widgets.Do(func() { f.progress.SetValue(float64(done) / float64(total)) })
				}
			})
			if err != nil {
				return nil, err
			}
			widgets.Do(func() {
				f.stage.SetText("Recording the spend in the ledger, adding noise, signing, writing …")
				f.progress.SetValue(0)
			})
			return prep.Release(context.Background(), release.Options{
				Out: out, Overwrite: overwrite, AllowOverBudget: allowOver, DifferentPopulation: differentPopulation,
				Ledger: ledger, Signer: signer, AppVersion: version, Mechanism: mech,
				Protected: release.KeyProtected(keyPath),
				NoiseProgress: func(done, total int) {
					widgets.Do(func() { f.progress.SetValue(float64(done) / float64(total)) })
				},
			})
		}()
		widgets.Do(func() {
			c.releaseFinished(res, err, finished)
		})
	}()
}

// releaseFinished reports a release (UI goroutine).
func (c *curator) releaseFinished(res *release.Result, err error, finished func(ok bool)) {
	f := c.release
	c.updateBudget()
	if err != nil {
		f.progress.Hide()
		f.stage.Importance = widget.DangerImportance
		var be *ledger.BudgetError
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
		res.Path, formatValue(res.Spent), fmtBudget(res.Total), fmtBudget(res.Budget), resultDataset(res)))
	msg.Wrapping = fyne.TextWrapWord
	share := widget.NewLabel("Analysts verify it with your allowed_signers line (Release ▸ Curator Key…).")
	share.Wrapping = fyne.TextWrapWord
	share.TextStyle.Italic = true
	path := res.Path
	f.result = widgets.ShowDialog(c.win, "Released", container.NewVBox(msg, share), []string{"Close", "Open in viewer"}, []func() bool{
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
	f.principal = widgets.NewKeyEntry(false)
	f.principal.SetText(defaultPrincipal())
	f.keyPass = widgets.NewKeyEntry(true)
	f.keyPass2 = widgets.NewKeyEntry(true)
	msg := widget.NewLabel("You have no curator key yet. Releases are signed with it so analysts can check they come from you. The key is stored encrypted with a passphrase at\n" + c.opts.KeyPath)
	msg.Wrapping = fyne.TextWrapWord
	errl := widget.NewLabel("")
	errl.Importance = widget.DangerImportance
	errl.Wrapping = fyne.TextWrapWord
	trust := newOwnKeyTrust()
	content := container.NewVBox(msg,
		widget.NewLabel("Your name or e-mail (shown to analysts, no spaces):"), f.principal,
		widget.NewLabel("Passphrase:"), f.keyPass, widget.NewLabel("Passphrase again:"), f.keyPass2, trust, errl)
	f.keyDlg = widgets.ShowDialog(c.win, "Create your curator key", content, []string{"Cancel", "Create key"}, []func() bool{
		nil,
		func() bool {
			if f.keyPass.Text == "" || f.keyPass.Text != f.keyPass2.Text {
				errl.SetText("Enter the same, non-empty passphrase twice.")
				return false
			}
			kp, err := writeCuratorKey(c.win, c.opts.KeyPath, c.trustPath(), []byte(f.keyPass.Text), strings.TrimSpace(f.principal.Text), trust.agreed())
			if err != nil {
				errl.SetText(err.Error())
				return false
			}
			f.keyDlg.Hide()
			c.showPublicKey(kp.Fingerprint, kp.AllowedSignersLine, kp.PublicPath, then)
			return true
		},
	})
	f.keyDlg.Pop.Resize(fyne.NewSize(560, 420))
}

// showPublicKey shows the key's fingerprint and allowed_signers line.
func (c *curator) showPublicKey(fp, line, pubPath string, then func()) {
	f := c.release
	entry := widgets.NewTabEntry()
	entry.SetText(line)
	entry.Wrapping = fyne.TextWrapBreak
	entry.SetMinRowsVisible(4)
	msg := widget.NewLabel(fmt.Sprintf("Key fingerprint: %s\nPublic key: %s\n\nGive analysts this allowed_signers line so their viewer (or ssh-keygen -Y verify) trusts your releases:", fp, pubPath))
	msg.Wrapping = fyne.TextWrapWord
	cp := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { c.app.Clipboard().SetContent(line) })
	f.keyInfo = widgets.ShowDialog(c.win, "Your curator key", container.NewVBox(msg, entry, cp), []string{"Continue"}, []func() bool{
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
	f.keyInfo.Pop.Resize(fyne.NewSize(640, 360))
}

// showKeyInfo is Release ▸ Curator Key…: show the key or offer to create it.
func (c *curator) showKeyInfo() {
	data, err := fileio.ReadRegular(c.opts.KeyPath+keys.AllowedSignersSuffix, keys.MaxAllowedSignersSize)
	if err != nil {
		if _, serr := os.Stat(c.opts.KeyPath); errors.Is(serr, os.ErrNotExist) {
			c.createKey(nil)
			return
		}
		widgets.ShowError(c.win, err)
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

// requestSummary lists the values a release will use, read from the very
// request the release runs with (the confirmation shows nothing else).
func requestSummary(req release.Request, s *curatorState) string {
	var b strings.Builder
	title := string(req.Learner)
	if l, err := learners.Lookup(req.Learner); err == nil {
		title = l.Spec().Title
	}
	fmt.Fprintf(&b, "• A signed .synopsis file with the noisy values of F_D on the lattice (no data, no noiseless values); n = %d (public).\n", requestN(req))
	fmt.Fprintf(&b, "• Learner: %s", title)
	for _, name := range slices.Sorted(maps.Keys(req.Params)) {
		parts := make([]string, len(req.Params[name]))
		for i, v := range req.Params[name] {
			parts[i] = strconv.FormatFloat(v, 'g', 6, 64) // the synopsis records every digit
		}
		fmt.Fprintf(&b, "; %s = %s", name, strings.Join(parts, ", "))
	}
	b.WriteString("\n")
	cols := slices.Clone(req.Features)
	if _, ok := req.Bounds[req.Label]; ok && req.Label != "" {
		cols = append(cols, req.Label)
	}
	for _, col := range cols {
		bd := req.Bounds[col]
		from := ""
		if st := s.Bounds[col]; st != nil && st.provenanceText() != "" {
			from = " — " + st.provenanceText()
			if req.BoundsFromData[col] {
				from = " — TAKEN FROM THE DATA: " + st.provenanceText()
			}
		}
		fmt.Fprintf(&b, "• %s in [%s, %s]%s%s\n", col, fmtBound(bd.Lo), fmtBound(bd.Hi), unitSuffixText(req.Units[col]), from)
	}
	if req.Classes != nil {
		fmt.Fprintf(&b, "• Classes of %q: %s (−1) and %s (+1)\n", req.Label, req.Classes.Negative, req.Classes.Positive)
	}
	kText := "automatic (least predicted error)"
	if !req.KAuto && len(req.Privacy.K) > 0 {
		kText = preview.KLabel(req.Privacy.K)
	}
	if s.Mechanism != "" {
		fmt.Fprintf(&b, "• Mechanism: %s (a published peer; the lattice k = %s), %s noise\n", mechanismText(s), kText, req.Privacy.Noise)
	} else {
		fmt.Fprintf(&b, "• Mechanism: Bernstein, h = %d, k = %s, %s noise\n", req.Privacy.H, kText, req.Privacy.Noise)
	}
	fmt.Fprintf(&b, "• Privacy: ε = %s%s", formatValue(req.Privacy.Epsilon), deltaSuffix(req.Privacy.Delta))
	return b.String()
}
