package viewer

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/icons"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
	"github.com/bernsteinrelease/bernstein/ui/internal/trust"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// viewerAppID is the application ID of the standalone viewer (shared with
// the curator app: same preferences and configuration directory).
const viewerAppID = "io.github.bernsteinrelease.bernstein"

// Run opens the analyst's viewer on the synopsis file at path as a
// standalone app (`bernstein view FILE.synopsis`) and returns when its
// window is closed. path may be "" (the window then offers to open a
// file). A path that cannot be found is an error before any window opens;
// everything else, including a file that does not verify, is shown in the
// window.
//
// The viewer is read-only: it never writes the synopsis file. It writes
// only what the analyst asks for through a save dialog (batch results, plot
// exports) and the analyst's trusted-keys file.
func Run(path string) error {
	if path != "" {
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		if st.IsDir() {
			return fmt.Errorf("%s is a directory, not a synopsis file", path)
		}
	}
	a := app.NewWithID(viewerAppID)
	a.SetIcon(icons.AppPNG)
	Open(a, path)
	a.Run()
	return nil
}

// Open opens a new viewer window in the running app a (the curator
// app's File ▸ Open Synopsis…) on the synopsis file at path ("" for an
// empty window), shows it and returns it. Verification runs in the
// background; the window shows "Verifying…" until it is done. Call it on
// the UI goroutine.
func Open(a fyne.App, path string) fyne.Window {
	trustPath, err := keys.DefaultAllowedSignersPath()
	ownKey, _ := keys.DefaultKeyPath() // "" if unknown: no key is this machine's
	v := newViewer(a, viewerConfig{trustPath: trustPath, ownKeyPath: ownKey})
	if err != nil {
		v.trustErr = err.Error()
	}
	v.win.Show()
	if path != "" {
		v.open(path)
	}
	return v.win
}

// viewerConfig holds what differs between the real app and tests.
type viewerConfig struct {
	// trustPath is the analyst's allowed_signers file.
	trustPath string
	// ownKeyPath is this machine's curator key (the curator app's signing
	// key); a file signed with it is said to be signed by this machine's
	// curator key. Only its public half (ownKeyPath + ".pub") is read.
	ownKeyPath string
}

// viewer is one viewer window showing one synopsis file at a time.
// Fields are touched only on the UI goroutine, except jobs.
type viewer struct {
	app fyne.App
	win fyne.Window
	cfg viewerConfig

	// jobs counts background work (verification, batch evaluation,
	// export, plot rendering); tests wait for it.
	jobs sync.WaitGroup

	doc      *viewerDoc
	gen      int    // increases with every open; stale loads are dropped
	saveDir  string // folder of the last export
	trustErr string // the trusted-keys path could not be determined

	root    *fyne.Container // banner + body
	banner  *fyne.Container
	body    *fyne.Container
	tabs    *container.AppTabs
	trustBt *widget.Button // "Trust this key…" on the untrusted banner

	clamp      bool          // show values clamped to the public output range
	clampCheck *widget.Check // the option, above the tabs

	details *viewerDetailsTab
	query   *viewerQueryTab
	batch   *viewerBatchTab
	plot    *viewerPlotTab
}

// newViewer creates the window (not shown) with its menu and drop target.
func newViewer(a fyne.App, cfg viewerConfig) *viewer {
	v := &viewer{app: a, cfg: cfg}
	v.win = a.NewWindow("Bernstein Viewer")
	v.win.SetIcon(icons.AppPNG)
	v.banner = container.NewStack()
	v.body = container.NewStack()
	v.root = container.NewBorder(v.banner, nil, nil, nil, v.body)
	v.win.SetContent(v.root)
	v.win.Resize(widgets.WindowSize) // fits a 1024×700 screen, like the curator
	v.win.SetMainMenu(v.menu())
	v.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { v.dropped(uris) })
	v.win.SetOnClosed(v.cancelAll)
	v.win.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault},
		func(fyne.Shortcut) { v.chooseFile() })
	v.win.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault},
		func(fyne.Shortcut) { v.win.Close() })
	v.showEmpty()
	return v
}

func (v *viewer) menu() *fyne.MainMenu {
	open := fyne.NewMenuItem("Open Synopsis…", v.chooseFile)
	open.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault}
	keys := fyne.NewMenuItem("Trusted Keys…", v.showTrustManager)
	closeItem := fyne.NewMenuItem("Close Window", func() { v.win.Close() })
	closeItem.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault}
	about := fyne.NewMenuItem("About the Viewer", func() {
		dialog.ShowInformation("Bernstein Viewer",
			"Reads signed synopsis files released with the Bernstein mechanism\n"+
				"(Aldà & Rubinstein, AAAI 2017) and evaluates them. It never changes a file.\n\n"+
				"Licence: see the LICENSE file shipped with Bernstein Release.", v.win)
	})
	return fyne.NewMainMenu(
		fyne.NewMenu("File", open, keys, fyne.NewMenuItemSeparator(), closeItem),
		fyne.NewMenu("Help", about),
	)
}

// go runs f in the background, counted in jobs.
func (v *viewer) goJob(f func()) {
	v.jobs.Add(1)
	go func() {
		defer v.jobs.Done()
		f()
	}()
}

// cancelAll cancels running batch work and plot drawing (the window is
// closing).
func (v *viewer) cancelAll() {
	v.gen++ // drops a verification still running
	if v.batch != nil && v.batch.cancel != nil {
		v.batch.cancel()
	}
	if v.plot != nil && v.plot.cancel != nil {
		v.plot.cancel()
	}
}

// wait blocks until no background work is running (tests).
func (v *viewer) wait() { v.jobs.Wait() }

// open verifies and shows the synopsis file at path in this window.
func (v *viewer) open(path string) {
	v.gen++
	gen := v.gen
	v.setBanner(viewerBannerBusy, "Verifying "+filepath.Base(path)+"…", "The signature is checked before anything in the file is read.", nil)
	v.body.Objects = nil
	v.body.Refresh()
	v.win.SetTitle("Bernstein Viewer — verifying " + filepath.Base(path))
	cfg := v.cfg
	v.goJob(func() {
		d := viewerLoadOwn(path, cfg.trustPath, cfg.ownKeyPath)
		widgets.Do(func() {
			if gen == v.gen {
				v.show(d)
			}
		})
	})
}

// reverify re-reads the current file, e.g. after the trusted keys changed.
func (v *viewer) reverify() {
	if v.doc != nil {
		v.open(v.doc.Path)
	}
}

// showEmpty shows the start state: nothing opened yet.
func (v *viewer) showEmpty() {
	v.doc = nil
	v.setBanner(viewerBannerInfo, "No synopsis open.", "Open a .synopsis file you received from a curator (File ▸ Open Synopsis…), or drop it on this window.", nil)
	v.body.Objects = []fyne.CanvasObject{container.NewCenter(widget.NewButtonWithIcon("Open Synopsis…", theme.FolderOpenIcon(), v.chooseFile))}
	v.body.Refresh()
}

// show displays a verified (or failed) document.
func (v *viewer) show(d *viewerDoc) {
	v.doc = d
	v.tabs, v.details, v.query, v.batch, v.plot, v.trustBt = nil, nil, nil, nil, nil, nil
	name := filepath.Base(d.Path)
	switch d.State {
	case viewerInvalid:
		v.win.SetTitle("Bernstein Viewer — " + name + " (INVALID)")
		v.setBanner(viewerBannerError, d.Headline, d.Detail, nil)
		// Nothing of the content: only the reason and a way out.
		v.body.Objects = []fyne.CanvasObject{container.NewCenter(container.NewVBox(
			widget.NewLabelWithStyle("Nothing in this file is shown or evaluated.", fyne.TextAlignCenter, fyne.TextStyle{Bold: true}),
			widget.NewButtonWithIcon("Open another file…", theme.FolderOpenIcon(), v.chooseFile),
		))}
		v.body.Refresh()
		return
	case viewerUntrusted:
		v.trustBt = widget.NewButtonWithIcon("Trust this key…", theme.ConfirmIcon(), v.askTrust)
		v.trustBt.Importance = widget.HighImportance
		v.setBanner(viewerBannerWarn, d.Headline, d.Detail, v.trustBt)
	case viewerTrusted:
		v.setBanner(viewerBannerOK, d.Headline, d.Detail, nil)
	}
	title := d.Verified.File.Title
	if title == "" {
		title = name
	}
	suffix := ""
	if d.State == viewerUntrusted {
		suffix = " (untrusted signer)"
	}
	v.win.SetTitle("Bernstein Viewer — " + title + " — " + name + suffix)

	v.details = newViewerDetailsTab(d)
	v.plot = newViewerPlotTab(v, d.Release)
	v.query = newViewerQueryTab(d.Release, v.plot.markQuery, v.clampOn)
	v.batch = newViewerBatchTab(v, d.Release)
	v.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Details", theme.InfoIcon(), v.details.content),
		container.NewTabItemWithIcon("Query", theme.SearchIcon(), v.query.content),
		container.NewTabItemWithIcon("Batch", theme.ListIcon(), v.batch.content),
		container.NewTabItemWithIcon("Plot", theme.GridIcon(), v.plot.content),
	)
	v.tabs.OnSelected = func(ti *container.TabItem) {
		if ti.Text == "Plot" {
			v.plot.ensure()
		}
	}
	v.body.Objects = []fyne.CanvasObject{container.NewBorder(v.rangeBar(d.Release), nil, nil, nil, v.tabs)}
	v.body.Refresh()
	v.query.evaluate() // the midpoint, so a value shows at once
}

// viewerClampLabel is the display option that clamps released values to
// the public output range.
const viewerClampLabel = "Show values clamped to the output range"

// rangeBar says that noise can carry released values outside the public
// output range and offers to show them clamped (issue 18 item 10):
// clamping is post-processing, so the guarantee holds; the values shown,
// plotted and exported then say that they were clamped.
func (v *viewer) rangeBar(r *viewerRelease) fyne.CanvasObject {
	v.clampCheck = widget.NewCheck(viewerClampLabel+" "+r.rangeText(), v.setClamp)
	v.clampCheck.Checked = v.clamp
	note := widget.NewLabel("— the public range of the output. The privacy noise can carry released values outside it; clamping is post-processing: the privacy guarantee holds.")
	note.Wrapping = fyne.TextWrapWord
	return container.NewBorder(nil, nil, v.clampCheck, nil, note)
}

// clampOn reports whether values are shown clamped.
func (v *viewer) clampOn() bool { return v.clamp }

// setClamp turns clamping of the shown values on or off and updates every
// view of them.
func (v *viewer) setClamp(on bool) {
	if v.clamp == on {
		return
	}
	v.clamp = on
	if v.query != nil {
		v.query.evaluate()
	}
	if v.batch != nil {
		v.batch.applyClamp()
	}
	if v.plot != nil && v.plot.started {
		v.plot.redraw()
	}
}

// Banner kinds.
type viewerBannerKind int

const (
	viewerBannerInfo viewerBannerKind = iota
	viewerBannerBusy
	viewerBannerOK
	viewerBannerWarn
	viewerBannerError
)

// setBanner shows the verification banner: a coloured strip with an icon,
// a bold headline, a wrapped detail line and an optional action.
func (v *viewer) setBanner(kind viewerBannerKind, headline, detail string, action fyne.CanvasObject) {
	var icon fyne.Resource
	colour := theme.Color(theme.ColorNamePrimary)
	switch kind {
	case viewerBannerInfo:
		icon = theme.InfoIcon()
	case viewerBannerBusy:
		icon = theme.ViewRefreshIcon()
	case viewerBannerOK:
		icon = theme.NewSuccessThemedResource(theme.ConfirmIcon())
		colour = theme.Color(theme.ColorNameSuccess)
	case viewerBannerWarn:
		icon = theme.NewWarningThemedResource(theme.WarningIcon())
		colour = theme.Color(theme.ColorNameWarning)
	case viewerBannerError:
		icon = theme.NewErrorThemedResource(theme.ErrorIcon())
		colour = theme.Color(theme.ColorNameError)
	}
	r, g, b, _ := colour.RGBA()
	bg := canvas.NewRectangle(color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x38})
	strip := canvas.NewRectangle(colour)
	strip.SetMinSize(fyne.NewSize(6, 0))
	img := widget.NewIcon(icon)
	head := widget.NewLabelWithStyle(headline, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	det := widget.NewLabel(detail)
	det.Wrapping = fyne.TextWrapWord
	det.Selectable = true // the fingerprint can be copied
	text := container.NewVBox(head, det)
	if v.trustErr != "" || (v.doc != nil && v.doc.TrustWarning != "" && kind != viewerBannerBusy) {
		msg := v.trustErr
		if v.doc != nil && v.doc.TrustWarning != "" {
			msg = v.doc.TrustWarning
		}
		w := widget.NewLabel(msg)
		w.Wrapping = fyne.TextWrapWord
		text.Add(w)
	}
	var right fyne.CanvasObject
	if action != nil {
		right = container.NewCenter(action)
	}
	row := container.NewBorder(nil, nil, container.NewHBox(strip, container.NewCenter(img)), right, text)
	v.banner.Objects = []fyne.CanvasObject{bg, container.NewPadded(row)}
	v.banner.Refresh()
}

// chooseFile asks for a synopsis file to open in this window.
func (v *viewer) chooseFile() {
	files.ShowOpenFile(v.win, []string{synopsis.Ext}, v.open)
}

// dropped opens a dropped .synopsis file, or loads a dropped .csv file as
// batch queries when a release is open.
func (v *viewer) dropped(uris []fyne.URI) {
	for _, u := range uris {
		if u.Scheme() != "file" {
			continue
		}
		switch strings.ToLower(filepath.Ext(u.Path())) {
		case synopsis.Ext:
			v.open(u.Path())
			return
		case ".csv", ".tsv", ".txt":
			if v.batch != nil {
				v.tabs.SelectIndex(2)
				v.batch.load(u.Path())
				return
			}
		}
	}
	dialog.ShowInformation("Cannot open", "Drop a .synopsis file to open it, or a .csv file of query points once a release is open.", v.win)
}

// askTrust offers to trust the signer of the open (untrusted) file.
func (v *viewer) askTrust() {
	d := v.doc
	if d == nil || d.Verified == nil {
		return
	}
	entry := widget.NewEntry()
	entry.SetPlaceHolder("curator@example.org")
	if d.OwnPrincipal != "" {
		entry.SetText(d.OwnPrincipal)
	}
	entry.Validator = func(s string) error {
		_, err := keys.AllowedSignersLine(strings.TrimSpace(s), d.Verified.Signer)
		return err
	}
	fp := widget.NewLabel(d.Verified.Fingerprint)
	fp.Selectable = true
	fp.TextStyle = fyne.TextStyle{Monospace: true}
	msg := widget.NewLabel("Trust this key only if the curator confirmed this exact fingerprint to you through a channel you trust (in person, by phone, on an official page).")
	msg.Wrapping = fyne.TextWrapWord
	items := []*widget.FormItem{
		widget.NewFormItem("Fingerprint", fp),
		widget.NewFormItem("", msg),
		{Text: "Curator", Widget: entry, HintText: "a name or e-mail address for this key, without spaces"},
	}
	form := dialog.NewForm("Trust this curator key?", "Trust", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		if err := v.trust(entry.Text); err != nil {
			dialog.ShowError(err, v.win)
		}
	}, v.win)
	form.Resize(fyne.NewSize(640, 320))
	form.Show()
}

// trust adds the open file's signing key to the trusted keys under
// principal and verifies the file again.
func (v *viewer) trust(principal string) error {
	d := v.doc
	if d == nil || d.Verified == nil {
		return fmt.Errorf("no verified file is open")
	}
	if err := v.store().Add(principal, d.Verified.Signer); err != nil {
		return err
	}
	v.reverify()
	return nil
}

// showTrustManager opens the trusted-keys manager; changes re-verify the
// open file.
func (v *viewer) showTrustManager() {
	w := v.app.NewWindow("Trusted Curator Keys")
	m := trust.NewManager(v.store(), w, v.reverify)
	w.SetContent(m.Content)
	w.Resize(fyne.NewSize(860, 460))
	w.Show()
}

// store returns the analyst's trusted keys.
func (v *viewer) store() trust.Store { return trust.Store{Path: v.cfg.trustPath} }

// viewerProgress forwards progress from worker goroutines to a progress
// bar: report may be called from any goroutine; one goroutine copies the
// latest value to the bar via fyne.DoAndWait (serialised by widgets.Mu) at most 10 times a second, so the UI
// goroutine is never flooded. stop ends it (and waits for it) before the
// caller's final update.
func viewerProgress(bar *widget.ProgressBar) (report func(done, total int), stop func()) {
	var (
		mu       sync.Mutex
		frac     float64
		changed  bool
		quit     = make(chan struct{})
		finished = make(chan struct{})
	)
	report = func(done, total int) {
		mu.Lock()
		frac, changed = float64(done)/float64(max(total, 1)), true
		mu.Unlock()
	}
	go func() {
		defer close(finished)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				mu.Lock()
				f, c := frac, changed
				changed = false
				mu.Unlock()
				if c {
					fyne.DoAndWait(func() {
						widgets.Mu.Lock()
						defer widgets.Mu.Unlock()
						bar.SetValue(f)
					})
				}
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(quit)
			<-finished
		})
	}
	return report, stop
}

// runCtx starts f in the background with a cancellable context and returns
// the cancel function.
func (v *viewer) runCtx(f func(ctx context.Context)) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	v.goJob(func() {
		defer cancel()
		f(ctx)
	})
	return cancel
}
