package curator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/icons"
	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/project/keys"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// AppID and AppName identify the application to Fyne and the desktop.
const (
	AppID   = "io.github.bernsteinrelease.bernstein"
	AppName = "Bernstein Release"
)

// Options configures the curator window. Every path is optional.
type Options struct {
	// OpenCSV is a dataset to load at start (bernstein --open FILE.csv).
	OpenCSV string
	// OpenProject is a project file (.bernstein) to open at start.
	OpenProject string
	// ConfigDir holds the demo data and the autosave; default
	// os.UserConfigDir()/bernstein.
	ConfigDir string
	// LedgerPath is the privacy-budget ledger; default
	// ledger.DefaultPath().
	LedgerPath string
	// KeyPath is the curator's signing key; default keys.DefaultKeyPath().
	KeyPath string
	// Version is shown in the About dialog and written into synopses.
	Version string
	// OpenViewer opens a synopsis in the analyst's viewer (File ▸ Open
	// Synopsis…, and the synopsis just released), as viewer.Open; the
	// curator does not import the viewer. Nil: those actions report that
	// the viewer is not part of this build.
	OpenViewer func(a fyne.App, path string) fyne.Window
}

// Run opens the curator window and runs the application until the
// window is closed. It must be called from the main goroutine (Fyne's
// event loop runs there).
func Run(opts Options) error {
	a := app.NewWithID(AppID)
	a.SetIcon(icons.AppPNG)
	c, err := newCurator(a, opts)
	if err != nil {
		return err
	}
	c.win.ShowAndRun()
	c.shutdown()
	return nil
}

// curator is the curator window. All fields are touched on the UI
// goroutine only, except where noted.
type curator struct {
	app  fyne.App
	win  fyne.Window
	opts Options

	state       *curatorState
	ds          *dataset.Table // loaded dataset (nil if none)
	dsErr       error          // why the dataset could not be loaded
	projectPath string
	dirty       bool
	filling     bool // the pages are being filled from the state (fill): callbacks are no edits
	themeChoice string

	ledgerMu  sync.Mutex // guards ledger (opened lazily, used from release goroutines)
	ledger    *ledger.Ledger
	ledgerErr error
	idKey     identityKey // ledger dataset of the loaded records (guarded by ledgerMu)

	engine  *preview.Engine
	preview *previewPanel

	nav     *widget.List
	pages   map[string]curatorPage
	current string
	pageBox *fyne.Container
	split   *container.Split // steps | preview
	// pageScroll holds the step pages; it scrolls sideways only when
	// the divider is dragged narrower than a page.
	pageScroll *container.Scroll
	status     *widget.Label
	budget     *widget.Label
	// The dataset's budget as last read from the ledger (updateBudget).
	budgetKnown              bool
	budgetSpent, budgetTotal float64

	autosave   *time.Timer
	recentMenu *fyne.Menu
	release    *releaseFlow    // the dialogs of the current release (tests drive them)
	aggForm    *aggregatesForm // "Use aggregates computed elsewhere" (aggregates.go; tests drive it)
	// pendingRecords is the large source being installed (aggregates_source.go).
	pendingRecords *release.SourceInfo
	openFlow       *files.OpenFileFlow
	importFlow     *importFlow // the import step, while open or last opened
	// importWork counts the import step's previews being read (shutdown
	// waits for them: they end with a widget update).
	importWork sync.WaitGroup

	// Test hooks (nil in the app).
	onPreviewDone  func(res *preview.Result, err error)
	onReleaseDone  func(res *release.Result, err error)
	onDatasetReady func(err error)
	chooseFolder   func(cb func(dir string)) // default: a folder dialog
	openViewer     func(path string)         // default: opts.OpenViewer
}

// curatorPage is one wizard step.
type curatorPage interface {
	content() fyne.CanvasObject
	// refresh fills the page's widgets from the state (UI goroutine).
	refresh()
}

// minWindowSize is the minimum size of the window's content (it opens
// at widgets.WindowSize); everything longer scrolls.
var minWindowSize = fyne.NewSize(760, 520)

// newCurator builds the window (not shown).
func newCurator(a fyne.App, opts Options) (*curator, error) {
	if opts.ConfigDir == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("find the user configuration directory: %w", err)
		}
		opts.ConfigDir = filepath.Join(dir, "bernstein")
	}
	if opts.LedgerPath == "" {
		p, err := ledger.DefaultPath()
		if err != nil {
			return nil, err
		}
		opts.LedgerPath = p
	}
	if opts.KeyPath == "" {
		p, err := keys.DefaultKeyPath()
		if err != nil {
			return nil, err
		}
		opts.KeyPath = p
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	c := &curator{
		app: a, opts: opts, state: newCuratorState(), engine: preview.NewEngine(),
		pages: map[string]curatorPage{},
	}
	c.themeChoice = a.Preferences().StringWithFallback("theme", widgets.ThemeSystem)
	widgets.ApplyTheme(a, c.themeChoice)
	c.win = a.NewWindow(AppName)
	c.win.SetIcon(icons.AppPNG)
	c.build()
	c.win.Resize(widgets.WindowSize)
	c.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) {
		for _, u := range uris {
			c.openChosen(u.Path())
			return
		}
	})
	c.win.SetCloseIntercept(c.confirmClose)
	c.updateTitle()
	c.updateBudget()
	switch {
	case opts.OpenProject != "":
		c.openProject(opts.OpenProject)
	case opts.OpenCSV != "":
		c.loadDataset(opts.OpenCSV, true)
	default:
		c.showStep(stepStart)
	}
	return c, nil
}

// shutdown stops background work after the window closed.
func (c *curator) shutdown() {
	if c.autosave != nil {
		c.autosave.Stop()
	}
	c.preview.stop()
	c.importWork.Wait()
}

// build creates the window content.
func (c *curator) build() {
	c.status = widget.NewLabel("")
	c.status.Wrapping = fyne.TextWrapWord // a long error wraps, never cut off
	c.budget = widget.NewLabel("")
	c.budget.Alignment = fyne.TextAlignTrailing
	c.budget.TextStyle = fyne.TextStyle{Bold: true}

	c.preview = newPreviewPanel(c)
	c.pages[stepStart] = newStartPage(c)
	c.pages[stepData] = newDataPage(c)
	c.pages[stepBounds] = newBoundsPage(c)
	c.pages[stepLearner] = newLearnerPage(c)
	c.pages[stepPrivacy] = newPrivacyPage(c)
	c.pages[stepRelease] = newReleasePage(c)

	icons := map[string]fyne.Resource{
		stepStart: theme.HomeIcon(), stepData: theme.FileIcon(), stepBounds: theme.ContentCutIcon(),
		stepLearner: theme.ComputerIcon(), stepPrivacy: theme.VisibilityOffIcon(), stepRelease: theme.UploadIcon(),
	}
	c.nav = widget.NewList(
		func() int { return len(wizardSteps) },
		func() fyne.CanvasObject {
			return container.NewHBox(widget.NewIcon(theme.HomeIcon()), widget.NewLabel("Learner   "))
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			box := o.(*fyne.Container)
			box.Objects[0].(*widget.Icon).SetResource(icons[wizardSteps[id]])
			// Numbered as the Go menu's shortcuts (Ctrl+1 is Start) and the
			// user guide's headings.
			box.Objects[1].(*widget.Label).SetText(fmt.Sprintf("%d. %s", id+1, wizardSteps[id]))
		})
	c.nav.OnSelected = func(id widget.ListItemID) {
		if wizardSteps[id] != c.current {
			c.showStep(wizardSteps[id])
		}
	}
	c.pageBox = container.NewStack()
	// Each side scrolls sideways when the divider is dragged narrower
	// than its content: the divider stays where the curator left it on
	// every step, whatever a step's content needs (issue 17 item 4).
	c.pageScroll = container.NewHScroll(c.pageBox)
	left := container.NewBorder(nil, nil, container.NewPadded(c.nav), widget.NewSeparator(), c.pageScroll)
	split := container.NewHSplit(left, container.NewHScroll(c.preview.content()))
	split.Offset = 0.5
	c.split = split
	statusBar := container.NewBorder(widget.NewSeparator(), nil, nil, c.budget, c.status)
	min := canvas.NewRectangle(nil)
	min.SetMinSize(minWindowSize)
	c.win.SetContent(container.NewStack(min, container.NewBorder(nil, statusBar, nil, nil, split)))
	c.buildMenus()
}

// buildMenus sets the main menu and the keyboard shortcuts.
func (c *curator) buildMenus() {
	mod := fyne.KeyModifierShortcutDefault
	sc := func(k fyne.KeyName, m fyne.KeyModifier) *desktop.CustomShortcut {
		return &desktop.CustomShortcut{KeyName: k, Modifier: m}
	}
	item := func(label string, s *desktop.CustomShortcut, fn func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, fn)
		if s != nil {
			it.Shortcut = s
			c.win.Canvas().AddShortcut(s, func(fyne.Shortcut) { fn() })
		}
		return it
	}
	recent := fyne.NewMenuItem("Open Recent", nil)
	recent.ChildMenu = fyne.NewMenu("")
	c.fillRecentMenu(recent.ChildMenu)
	file := fyne.NewMenu("File",
		item("New Project", sc(fyne.KeyN, mod), c.newProject),
		item("Open…", sc(fyne.KeyO, mod), c.showOpenDialog),
		recent,
		fyne.NewMenuItemSeparator(),
		item("Save Project", sc(fyne.KeyS, mod), func() { c.saveProject(false) }),
		item("Save Project As…", sc(fyne.KeyS, mod|fyne.KeyModifierShift), func() { c.saveProject(true) }),
		fyne.NewMenuItemSeparator(),
		item("Open Synopsis in Viewer…", nil, c.showOpenSynopsisDialog),
		item("Open Demo Data", nil, func() { c.showStep(stepStart) }),
	)
	release := fyne.NewMenu("Release",
		item("Release…", sc(fyne.KeyR, mod), c.startRelease),
		item("Curator Key…", nil, c.showKeyInfo),
	)
	// Go: every step by the keyboard (Ctrl+1 … Ctrl+6 in wizard order).
	stepKeys := []fyne.KeyName{fyne.Key1, fyne.Key2, fyne.Key3, fyne.Key4, fyne.Key5, fyne.Key6}
	var goItems []*fyne.MenuItem
	for i, step := range wizardSteps {
		goItems = append(goItems, item(step, sc(stepKeys[i], mod), func() { c.showStep(step) }))
	}
	goMenu := fyne.NewMenu("Go", goItems...)
	view := fyne.NewMenu("View",
		fyne.NewMenuItem("System Theme", func() { c.setTheme(widgets.ThemeSystem) }),
		fyne.NewMenuItem("Light Theme", func() { c.setTheme(widgets.ThemeLight) }),
		fyne.NewMenuItem("Dark Theme", func() { c.setTheme(widgets.ThemeDark) }),
	)
	help := fyne.NewMenu("Help",
		fyne.NewMenuItem("Curator Guide", c.showGuide),
		fyne.NewMenuItem("About Bernstein Release", c.showAbout),
	)
	c.win.SetMainMenu(fyne.NewMainMenu(file, goMenu, release, view, help))
	c.recentMenu = recent.ChildMenu
}

// showStep switches the wizard page.
func (c *curator) showStep(step string) {
	p, ok := c.pages[step]
	if !ok {
		return
	}
	c.current = step
	c.fill(p.refresh)
	c.derive()
	c.pageBox.Objects = []fyne.CanvasObject{p.content()}
	c.pageBox.Refresh()
	if i := slices.Index(wizardSteps, step); i >= 0 {
		c.nav.Select(i)
	}
}

// refreshPages re-fills every page from the state (after loading a
// project or a dataset).
func (c *curator) refreshPages() {
	c.fill(func() {
		for _, p := range c.pages {
			p.refresh()
		}
	})
	c.derive()
}

// derivedView is a page with views that follow from the state: marks,
// messages, summaries, enabled buttons.
type derivedView interface{ derive() }

// derive is the one update path of everything the window shows that is
// derived from the state (and the dataset, the ledger's budget and the
// last preview): every page's derived views are recomputed from them, so
// nothing shown can keep a stale or last-valid value. Inputs are filled by
// the pages' refresh; derive never writes an input.
func (c *curator) derive() {
	for _, step := range wizardSteps {
		if d, ok := c.pages[step].(derivedView); ok {
			d.derive()
		}
	}
}

// budgetLeft is the ε left in the dataset's budget (last ledger read).
func (c *curator) budgetLeft() float64 { return c.budgetTotal - c.budgetSpent }

// edit is the one update path of a setting the curator changed in a
// widget: write (nil: the callback wrote the state itself) copies the
// widget's value into the state; then edit updates what the window
// derives from the state, marks the project unsaved, schedules the
// autosave and recomputes the preview. While the pages are filled from
// the state (fill), the widgets' callbacks are no edits: write is skipped,
// so filling an input never writes the state back, and only the derived
// views are updated.
func (c *curator) edit(write func()) {
	if c.filling {
		c.derive()
		return
	}
	if write != nil {
		write()
	}
	c.derive()
	c.dirty = true
	c.updateTitle()
	c.scheduleAutosave()
	c.preview.schedule(false)
}

// changed is edit for a callback that already wrote the state.
func (c *curator) changed() { c.edit(nil) }

// fill runs refresh, which fills widgets from the state, with their
// callbacks turned into no edits (edit); a fill inside a fill keeps the
// outer one.
func (c *curator) fill(refresh func()) {
	was := c.filling
	c.filling = true
	defer func() { c.filling = was }()
	refresh()
}

// updateTitle shows the project name and an unsaved marker.
func (c *curator) updateTitle() {
	name := "Untitled project"
	if c.projectPath != "" {
		name = strings.TrimSuffix(filepath.Base(c.projectPath), projectExt)
	}
	mark := ""
	if c.dirty {
		mark = " *"
	}
	c.win.SetTitle(fmt.Sprintf("%s%s — %s", name, mark, AppName))
}

// setStatus shows a message in the status bar.
func (c *curator) setStatus(format string, args ...any) {
	c.status.SetText(fmt.Sprintf(format, args...))
}

// openLedger returns the ledger, opening it on first use. Safe for
// concurrent use.
func (c *curator) openLedger() (*ledger.Ledger, error) {
	c.ledgerMu.Lock()
	defer c.ledgerMu.Unlock()
	if c.ledger == nil && c.ledgerErr == nil {
		if err := os.MkdirAll(filepath.Dir(c.opts.LedgerPath), 0o700); err != nil {
			return nil, err
		}
		c.ledger, c.ledgerErr = ledger.Open(c.opts.LedgerPath)
	}
	if c.ledger != nil {
		return c.ledger, nil
	}
	return nil, c.ledgerErr
}

// budgetState returns ε spent, δ spent and the total budget of the loaded
// dataset.
func (c *curator) budgetState() (spent, delta, budget float64, err error) {
	if c.ds == nil {
		return 0, 0, 0, errors.New("no dataset")
	}
	l, err := c.openLedger()
	if err != nil {
		return 0, 0, 0, err
	}
	if err := l.Refresh(); err != nil {
		return 0, 0, 0, err
	}
	key := c.ledgerKey(l)
	spent, delta = l.Spent(key)
	return spent, delta, l.Budget(key), nil
}

// updateBudget refreshes the always-visible budget in the status bar.
func (c *curator) updateBudget() {
	c.budgetKnown = false
	defer c.derive()
	if c.ds == nil {
		c.budget.SetText("Privacy budget: open a dataset")
		return
	}
	spent, delta, budget, err := c.budgetState()
	if err != nil {
		c.budget.SetText("Privacy budget unknown: " + err.Error())
		return
	}
	c.budgetKnown, c.budgetSpent, c.budgetTotal = true, spent, budget
	line := budgetLine(spent, delta, budget)
	if l, err := c.openLedger(); err == nil {
		if a := l.Accounts(c.ledgerKey(l)); a.ZCDPInForce() {
			line += fmt.Sprintf("; zCDP account in force: ε %s at δ %s", fmtBudget(a.ZCDPEpsilon), strconv.FormatFloat(a.DeltaBudget, 'g', 3, 64))
		}
	}
	c.budget.SetText(line)
}

// setTheme applies and stores a theme choice and redraws the plots.
func (c *curator) setTheme(choice string) {
	c.themeChoice = choice
	c.app.Preferences().SetString("theme", choice)
	widgets.ApplyTheme(c.app, choice)
	c.preview.schedule(true)
}

// openPath opens a dropped or chosen file by its extension.
func (c *curator) openPath(path string) {
	switch strings.ToLower(filepath.Ext(path)) {
	case projectExt:
		c.openProject(path)
	case ".synopsis":
		c.openSynopsis(path)
	default:
		c.openDataset(path)
	}
}

// openDataset opens a data file as a new project: like File ▸ New
// Project, it asks first when the project has unsaved changes. It reads
// the file with the default layout; if that fails, the import step opens
// (datasetLoaded).
func (c *curator) openDataset(path string) {
	c.confirmNewProject(path, func() { c.loadDataset(path, true) })
}

// confirmNewProject runs open at once, or after the curator agreed to
// discard the unsaved changes of the project.
func (c *curator) confirmNewProject(path string, open func()) {
	if !c.dirty {
		open()
		return
	}
	widgets.ShowConfirm(c.win, "Unsaved changes",
		"Opening "+filepath.Base(path)+" starts a new project for it. Discard the unsaved changes to this project?",
		"Discard and open", open)
}

// openChosen opens a file the curator chose (File ▸ Open, a file dropped
// on the window): a CSV file through the import step, where its layout
// is checked on a preview first; a Parquet file or a folder of Parquet
// files at once (typed columns, no layout to choose); other files as
// openPath does.
func (c *curator) openChosen(path string) {
	if info, err := release.InspectSource(path); err == nil && info.Format == release.FormatParquet {
		// A Parquet file or folder has typed columns: the CSV import
		// options (header row, delimiter, decimal comma) do not apply.
		c.openDataset(path)
		return
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case projectExt, ".synopsis":
		c.openPath(path)
	default:
		c.confirmNewProject(path, func() { c.showImportStep(path, true, dataset.ImportOptions{}, "") })
	}
}

// showOpenDialog offers CSV files and project files.
func (c *curator) showOpenDialog() {
	c.openFlow = files.ShowOpenPath(c.win, []string{".csv", ".tsv", ".txt", ".parquet", projectExt}, c.openDir(), c.openChosen)
}

// showOpenSynopsisDialog lets the curator check a synopsis in the viewer.
func (c *curator) showOpenSynopsisDialog() {
	c.openFlow = files.ShowOpenPath(c.win, []string{synopsis.Ext}, c.openDir(), c.openSynopsis)
}

// openDir is the folder the Open dialog starts in: the current dataset's.
func (c *curator) openDir() string {
	if c.state.CSVPath != "" {
		return filepath.Dir(c.state.CSVPath)
	}
	return ""
}

// openSynopsis opens a synopsis in the analyst's viewer window
// (Options.OpenViewer), if the viewer is part of this build.
func (c *curator) openSynopsis(path string) {
	switch {
	case c.openViewer != nil:
		c.openViewer(path)
	case c.opts.OpenViewer != nil:
		c.opts.OpenViewer(c.app, path)
	default:
		widgets.ShowError(c.win, errors.New("the synopsis viewer is not part of this build"))
	}
}

// loadDataset reads a CSV in the background; fresh resets the column
// choices and reads the file with the default layout (a new dataset),
// otherwise the choices and the layout (state.Import) are kept (a project
// reopened).
func (c *curator) loadDataset(path string, fresh bool) {
	imp := c.state.Import
	if fresh {
		imp = dataset.ImportOptions{}
	}
	c.loadDatasetWith(path, fresh, imp)
}

// loadDatasetWith is loadDataset with the file's layout imp (the import
// step's choice), which becomes the project's.
func (c *curator) loadDatasetWith(path string, fresh bool, imp dataset.ImportOptions) {
	c.setStatus("Reading %s …", path)
	go func() {
		// Every row is kept: a missing or non-numeric value is filled by
		// the public fill rules at release time (n stays public).
		ds, large, err := readSource(path, imp) // a large source through DuckDB (aggregates_source.go)
		widgets.Do(func() {
			c.pendingRecords = large
			c.datasetLoaded(path, ds, err, fresh, imp)
		})
	}()
}

// datasetLoaded installs a dataset read by loadDataset (UI goroutine). A
// fresh dataset starts a new project: what depended on the old columns
// (features, label, classes, bounds, the acknowledgement), the title, note,
// project file and release history are dropped; the learner and the
// privacy settings are kept; the history shown is the new dataset's, from
// the ledger.
//
// A file that cannot be read with imp because of its content (a preamble
// read as the header, another delimiter, …) opens the import step.
func (c *curator) datasetLoaded(path string, ds *dataset.Table, err error, fresh bool, imp dataset.ImportOptions) {
	if fresh {
		c.state = c.state.forNewDataset()
		c.projectPath = ""
		c.dirty = false
		if rp, ok := c.pages[stepRelease].(*releasePage); ok {
			rp.out.SetText("") // suggested again beside the new file
		}
		if dp, ok := c.pages[stepData].(*dataPage); ok {
			dp.filter.SetText("") // the old file's filter would hide the new columns
		}
		c.forgetTargetProposal() // the old file's proposal does not apply here
		// A new file's pages and preview start at their top, not at the
		// old file's scroll offsets (walkthrough finding).
		for _, p := range c.pages {
			scrollToTop(p.content())
		}
		c.preview.box.ScrollToTop()
	}
	c.state.CSVPath = path
	c.state.Records, c.pendingRecords = c.pendingRecords, nil
	if c.state.Import != imp {
		c.state.Import = imp
		c.dirty = c.dirty || !fresh
	}
	c.ds, c.dsErr = ds, err
	if err != nil {
		c.setStatus("Could not read %s", path)
	} else {
		c.setStatus("Read %s: %s, %s", filepath.Base(path), plural(ds.Rows, "row"), plural(len(ds.Columns), "column"))
		c.state.Rows = ds.Rows
		if fresh {
			if demo := demoName(ds); demo != "" {
				c.applyDemoSettings(demo) // e.g. make run opens the demo CSV
			} else {
				c.chooseDefaultColumns()
			}
			c.state.History = c.ledgerHistory()
		}
	}
	c.updateTitle()
	c.refreshPages()
	if c.current == stepStart || c.current == "" {
		c.showStep(stepData)
	} else {
		c.showStep(c.current)
	}
	c.updateBudget()
	c.scheduleAutosave()
	c.preview.schedule(false)
	var ce *dataset.CSVError
	if errors.As(err, &ce) && !errors.Is(err, fileio.ErrNotRegular) && (c.importFlow == nil || !c.importFlow.dlg.Visible()) {
		c.showImportStep(path, fresh, imp, "The file could not be read with the options it was opened with: "+err.Error())
	}
	if c.onDatasetReady != nil {
		c.onDatasetReady(err)
	}
}

// ledgerHistory returns the releases the ledger records for the loaded
// dataset, oldest first (none if the ledger cannot be read).
func (c *curator) ledgerHistory() []releaseRecord {
	l, err := c.openLedger()
	if err != nil || c.ds == nil {
		return nil
	}
	var out []releaseRecord
	for _, e := range l.Entries(c.ledgerKey(l)) {
		if e.Kind == ledger.KindRelease {
			out = append(out, releaseRecord{Time: e.Time, Path: e.Output, Epsilon: e.Epsilon, Delta: e.Delta, LedgerID: e.ID})
		}
	}
	return out
}

// chooseDefaultColumns picks sensible columns for a newly loaded dataset:
// a column named "label" (or "class", "y") with two values in the preview
// rows becomes the label of a classifier (its two values are left for the
// curator to declare); all other numeric columns (at most 2) features. The
// learner is kept, except that a density becomes an SVM when such a label
// is found.
func (c *curator) chooseDefaultColumns() {
	s := c.state
	s.Features, s.Label, s.Negative, s.Positive, s.FillPositive = nil, "", "", "", false
	for _, col := range c.ds.Columns {
		switch strings.ToLower(col) {
		case "label", "class", "y", "target":
			if s.Label == "" {
				s.Label = col
			}
		}
	}
	for _, col := range c.ds.NumericColumns() {
		if col != s.Label && len(s.Features) < 2 {
			s.Features = append(s.Features, col)
		}
	}
	if s.Label != "" {
		if vals := previewValues(c.ds, s.Label, 3); len(vals) == 2 {
			if s.spec().Label != learners.LabelBinary {
				s.Learner = learners.KindSVM
			}
		} else if s.spec().Label == learners.LabelNone {
			s.Label = ""
		}
	}
	// A learner that needs a label keeps it without one found by name:
	// the Data step asks for the label column (switching to a density
	// here undid the curator's choice of learner on every second file).
}

// scheduleAutosave saves the project 2 s after the last change, if it has
// a file.
func (c *curator) scheduleAutosave() {
	if c.projectPath == "" {
		return
	}
	if c.autosave != nil {
		c.autosave.Stop()
	}
	c.autosave = time.AfterFunc(2*time.Second, func() {
		widgets.Do(func() {
			if c.dirty && c.projectPath != "" {
				c.writeProject(c.projectPath, true)
			}
		})
	})
}

// confirmClose asks before closing with unsaved changes.
func (c *curator) confirmClose() {
	if !c.dirty {
		c.win.Close()
		return
	}
	widgets.ShowConfirm(c.win, "Unsaved changes", "The project has unsaved changes. Close anyway?", "Close", func() {
		c.dirty = false
		c.win.Close()
	})
}

// previewShown passes a finished preview's numbers to the pages.
func (c *curator) previewShown(*preview.Result) { c.derive() }

// ctxBackground is the context of background work (cancelled per job).
var ctxBackground = context.Background()

// scrollToTop scrolls every scroll container in o's container tree (not
// inside widgets) back to its top.
func scrollToTop(o fyne.CanvasObject) {
	switch v := o.(type) {
	case *container.Scroll:
		v.ScrollToTop()
		scrollToTop(v.Content)
	case *container.Split:
		scrollToTop(v.Leading)
		scrollToTop(v.Trailing)
	case *fyne.Container:
		for _, ch := range v.Objects {
			scrollToTop(ch)
		}
	}
}
