package curator

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/ui/internal/files"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// projectExt is the extension of project files.
const projectExt = project.WorkspaceExt

// toWorkspace converts the state to a project file. Only settings that
// parse are stored (an invalid bound or parameter being typed is left
// out); the dataset must be loaded, since the file records its hash.
func (s *curatorState) toWorkspace(ds *dataset.Table) (*project.Workspace, error) {
	if ds == nil {
		return nil, errors.New("open a dataset first: a project records its dataset and content hash")
	}
	w := project.NewWorkspace(ds)
	if abs, err := filepath.Abs(s.CSVPath); err == nil {
		w.Dataset.Path = abs
	}
	w.Dataset.Import = project.NewWorkspaceImport(s.Import)
	w.Title, w.Note = s.Title, s.Note
	w.Features = slices.Clone(s.Features)
	spec := s.spec()
	if spec.Label != learners.LabelNone {
		w.Label = s.Label
	}
	for _, col := range s.usedColumns() {
		b := s.Bounds[col]
		if b == nil {
			continue
		}
		bd, err := parseBounds(b)
		if err != nil {
			continue
		}
		pv := b.provenance()
		cb := project.ColumnBounds{Column: col, Lo: bd.Lo, Hi: bd.Hi, Unit: b.Unit, FromData: b.fromData(),
			LoSource: pv.Lo, HiSource: pv.Hi, LoEstimate: pv.LoEstimate, HiEstimate: pv.HiEstimate}
		if v, err := parseNumber(b.Fill); err == nil && v >= bd.Lo && v <= bd.Hi {
			cb.Fill = &v
		}
		if b.fromData() {
			t := s.AckTime
			if t.IsZero() {
				t = time.Now().UTC()
			}
			cb.AcknowledgedAt = &t
		}
		w.Bounds = append(w.Bounds, cb)
	}
	w.Learner.Kind = s.Learner
	w.Learner.Params = learners.Values{}
	for _, p := range spec.Params {
		if _, typed := s.Params[s.Learner][p.Name]; !typed && p.Auto != nil {
			// Untouched, with a public rule: resolved at release from n,
			// ℓ and ε (learners/defaults.go), by the curator and the
			// command line alike.
			continue
		}
		if v, err := s.paramValues(p); err == nil {
			w.Learner.Params[p.Name] = v
		}
	}
	if spec.Label == learners.LabelBinary {
		if c, err := s.classes(); err == nil {
			w.Learner.Classes = c.Labels()
			w.Learner.ClassesFromData = s.ClassesFromData
			if s.FillPositive {
				w.Learner.FillClass = c.Positive
			}
		}
	}
	w.Privacy = project.PrivacySettings{Epsilon: s.Epsilon, Noise: s.Noise, H: s.H, Mechanism: s.Mechanism}
	if s.Noise != mechanism.NoiseLaplace {
		w.Privacy.Delta = s.Delta
	}
	if !s.KAuto && len(s.Features) > 0 {
		w.Privacy.K = slices.Repeat([]int{s.K}, len(s.Features))
	}
	for _, r := range s.History {
		w.Releases = append(w.Releases, project.ReleaseRecord{Output: r.Path, LedgerEntryID: r.LedgerID, Time: r.Time, Epsilon: r.Epsilon, Delta: r.Delta})
	}
	return w, nil
}

// stateFromWorkspace converts a project file to a state.
func stateFromWorkspace(w *project.Workspace) *curatorState {
	s := newCuratorState()
	s.CSVPath = w.DatasetPath()
	s.Import = w.ImportOptions()
	s.Title, s.Note = w.Title, w.Note
	s.Features = slices.Clone(w.Features)
	s.Label = w.Label
	for _, b := range w.Bounds {
		cs := s.bound(b.Column)
		cs.Lo, cs.Hi, cs.Unit = fmtBound(b.Lo), fmtBound(b.Hi), b.Unit
		cs.LoEnd, cs.HiEnd = endsFromWorkspace(b, cs.Lo, cs.Hi)
		if b.Fill != nil {
			cs.Fill = fmtBound(*b.Fill)
		}
		if b.FromData && b.AcknowledgedAt != nil {
			s.AckDataBounds = true
			s.AckTime = *b.AcknowledgedAt
		}
	}
	if w.Learner.Kind != "" {
		s.Learner = w.Learner.Kind
	}
	for name, v := range w.Learner.Params {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = formatValue(x)
		}
		s.setParamText(name, strings.Join(parts, ", "))
	}
	switch {
	case len(w.Learner.Classes) == 2:
		s.Negative, s.Positive = w.Learner.Classes[0], w.Learner.Classes[1]
		s.ClassesFromData = w.Learner.ClassesFromData
		s.FillPositive = w.Learner.FillClass != "" && w.Learner.FillClass == s.Positive
	case w.Learner.PositiveLabel != nil:
		// An older project file: only the positive value was stored; the
		// curator declares the negative one.
		s.Positive = formatValue(*w.Learner.PositiveLabel)
	}
	s.Epsilon, s.Noise, s.H = w.Privacy.Epsilon, w.Privacy.Noise, w.Privacy.H
	s.Mechanism = mechanismSetting(w.Privacy.Mechanism)
	if w.Privacy.Delta > 0 {
		s.Delta = w.Privacy.Delta
	}
	s.KAuto = w.Privacy.K.Auto()
	if !s.KAuto {
		s.K = w.Privacy.K[0]
	}
	for _, r := range w.Releases {
		s.History = append(s.History, releaseRecord{Time: r.Time, Path: r.Output, Epsilon: r.Epsilon, Delta: r.Delta, LedgerID: r.LedgerEntryID})
	}
	return s
}

// resetProject starts an empty project (no dataset).
func (c *curator) resetProject() {
	c.state = newCuratorState()
	c.ds, c.dsErr = nil, nil
	c.projectPath = ""
	c.dirty = false
	if rp, ok := c.pages[stepRelease].(*releasePage); ok {
		rp.out.SetText("")
	}
	c.forgetTargetProposal()
	c.updateTitle()
}

// forgetTargetProposal clears "Error I can accept"'s proposal (and stops
// its search): it belongs to the data and project it was found for.
func (c *curator) forgetTargetProposal() {
	if pp, ok := c.pages[stepPrivacy].(*privacyPage); ok {
		pp.target.reset()
	}
}

// newProject is File ▸ New Project.
func (c *curator) newProject() {
	do := func() {
		c.resetProject()
		c.refreshPages()
		c.updateBudget()
		c.showStep(stepStart)
		c.preview.schedule(false)
	}
	if c.dirty {
		widgets.ShowConfirm(c.win, "Unsaved changes", "Discard the changes to this project?", "Discard", do)
		return
	}
	do()
}

// openProject loads a project file and its dataset; a dataset whose
// content changed since the project was saved is reported.
func (c *curator) openProject(path string) {
	w, err := project.LoadWorkspace(path)
	if err != nil {
		widgets.ShowError(c.win, fmt.Errorf("could not open the project: %w", err))
		return
	}
	c.resetProject()
	c.state = stateFromWorkspace(w)
	c.projectPath = path
	c.addRecent(path)
	if err := w.CheckDataset(); err != nil {
		var changed *project.DatasetChangedError
		if errors.As(err, &changed) {
			widgets.ShowMessage(c.win, "The dataset changed",
				"The CSV file changed since this project was saved:\n"+changed.Path+
					"\n\nIt counts as a new dataset in the privacy budget (its releases so far are charged to the old content). Check the columns and bounds before releasing.")
		} else {
			widgets.ShowError(c.win, fmt.Errorf("the project's dataset cannot be read: %w", err))
		}
	}
	c.updateTitle()
	c.loadDataset(c.state.CSVPath, false)
}

// saveProject is File ▸ Save (as: always ask for a file).
func (c *curator) saveProject(as bool) {
	if c.projectPath != "" && !as {
		c.writeProject(c.projectPath, true)
		return
	}
	dir := ""
	if c.projectPath != "" {
		dir = filepath.Dir(c.projectPath)
	} else if c.state.CSVPath != "" {
		dir = filepath.Dir(c.state.CSVPath)
	}
	name := strings.TrimSuffix(suggestedFileName(c.state.Title), ".synopsis") + projectExt
	files.ShowSaveForm(c.win, "Save project as", dir, name, "saved as "+projectExt,
		files.ProtectTarget(projectSaveTarget, c.protectedFiles),
		func(_, path string) { c.writeProject(path, true) })
}

// projectSaveTarget completes a project file name with .bernstein and
// reports whether a file is already there (the form then asks before
// replacing it).
func projectSaveTarget(dir, name string) (string, bool, error) {
	path, st, err := files.SaveTarget(dir, name, projectExt)
	return path, st != nil, err
}

// writeProject saves the project atomically (UI goroutine; it is small).
func (c *curator) writeProject(path string, overwrite bool) bool {
	w, err := c.state.toWorkspace(c.ds)
	if err == nil {
		err = project.SaveWorkspace(path, w, overwrite)
	}
	if err != nil {
		widgets.ShowError(c.win, fmt.Errorf("could not save the project: %w", err))
		return false
	}
	c.projectPath = path
	c.addRecent(path)
	if terr := c.state.typedError(); terr != nil {
		// The file keeps the last valid value of a field whose typed text
		// does not parse: what the window shows is not what was saved, so
		// the project stays marked unsaved and the status says so.
		c.dirty = true
		c.updateTitle()
		c.setStatus("Saved %s, except an invalid field (%v): the file keeps its last valid value; fix the field to save it", path, terr)
		return true
	}
	c.dirty = false
	c.updateTitle()
	c.setStatus("Saved %s", path)
	return true
}

// Recent projects live in the app preferences.
const recentKey = "recentProjects"
const maxRecent = 8

func (c *curator) recentProjects() []string {
	return c.app.Preferences().StringList(recentKey)
}

func (c *curator) addRecent(path string) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	list := slices.DeleteFunc(c.recentProjects(), func(s string) bool { return s == path })
	list = append([]string{path}, list...)
	if len(list) > maxRecent {
		list = list[:maxRecent]
	}
	c.app.Preferences().SetStringList(recentKey, list)
	if c.recentMenu != nil {
		c.fillRecentMenu(c.recentMenu)
	}
}

func (c *curator) fillRecentMenu(m *fyne.Menu) {
	m.Items = nil
	for _, p := range c.recentProjects() {
		p := p
		m.Items = append(m.Items, fyne.NewMenuItem(filepath.Base(p), func() { c.openProject(p) }))
	}
	if len(m.Items) == 0 {
		it := fyne.NewMenuItem("(none)", nil)
		it.Disabled = true
		m.Items = append(m.Items, it)
	}
	m.Refresh()
}

// IsProjectFile reports whether path names a curator project file (by its
// extension), for the command line's --open.
func IsProjectFile(path string) bool {
	return strings.EqualFold(filepath.Ext(path), projectExt)
}
