package curator

import (
	"context"
	"errors"
	"fmt"
	"image"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/plotting"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// previewPanel is the right-hand side of the curator window: the tradeoff
// plot, the function plot, a progress bar with a cancel button and the key
// numbers. It recomputes in a background worker goroutine when settings
// change (debounced), cancels stale work, and touches widgets only through
// fyne.Do.
type previewPanel struct {
	c        *curator
	tradeoff *plotView
	function *plotView
	// sweep is the error (a classifier: the agreement) against k at the
	// current ε.
	sweep    *plotView
	progress *widget.ProgressBar
	stage    *widget.Label
	cancel   *widget.Button
	info     *widget.Label
	warn     *widget.Label
	sliders  *fyne.Container
	barRow   *fyne.Container // progress bar and Cancel, shown while computing
	// peersCheck is "Compare with published peers" (off by default);
	// peerCaption explains peers that do not apply. peers mirrors the
	// checkbox (UI goroutine).
	peersCheck *widget.Check
	// error95 is the error at 95 % at the current setting, beside the
	// tradeoff plot (errorLine).
	error95 *widget.Label
	// recommend is the recommended mechanism at the current (ε, δ)
	// (preview.Recommendation; mechanism.go).
	recommend   *widget.Label
	peerCaption *widget.Label
	peers       bool
	// standIn chooses the data the preview runs on: the private data or a
	// public stand-in (preview_standin.go).
	standIn *standIn
	box     *container.Scroll

	// gen counts scheduled jobs and doneGen the last one finished (both
	// under mu), so tests can wait until the preview is idle.
	gen, doneGen int
	// last is the last result and lastKey the settings it was computed
	// for (settingsKey; UI goroutine): pages show its numbers only while
	// they are the current settings' (lastFor).
	last    *preview.Result
	lastKey string
	// sliceAt holds the ℓ ≥ 3 slice position of every axis from the third.
	sliceAt []float64

	mu      sync.Mutex // guards pending, running, stopped
	pending *previewJob
	running context.CancelFunc
	stopped bool
	wake    chan struct{}
}

// previewJob is one request to the worker: a snapshot of the settings.
type previewJob struct {
	gen        int
	key        string // settingsKey of the input ("" if incomplete)
	input      preview.Input
	inputErr   error // the settings are incomplete: show this instead
	renderOnly bool  // only the theme or size changed
	theme      plotting.Theme
	tsize      plotting.Size
	tneed      float32 // the tradeoff plot's height for its whole legend (fyne units)
	fsize      plotting.Size
	ksize      plotting.Size
}

func newPreviewPanel(c *curator) *previewPanel {
	p := &previewPanel{c: c, wake: make(chan struct{}, 1)}
	onResize := func() { p.schedule(true) }
	// Tall enough to read at any window size (the panel scrolls).
	p.tradeoff = newPlotView(fyne.NewSize(320, 320), onResize)
	p.function = newPlotView(fyne.NewSize(320, 320), onResize)
	p.sweep = newPlotView(fyne.NewSize(320, 260), onResize)
	p.progress = widget.NewProgressBar()
	p.stage = widget.NewLabel("")
	p.stage.Wrapping = fyne.TextWrapWord
	p.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), p.cancelRunning)
	p.cancel.Disable()
	p.info = widget.NewLabel("")
	p.info.Wrapping = fyne.TextWrapWord
	p.warn = widget.NewLabel("")
	p.warn.Wrapping = fyne.TextWrapWord
	p.warn.Importance = widget.WarningImportance
	p.sliders = container.NewVBox()
	p.peerCaption = widget.NewLabel("")
	p.peerCaption.Wrapping = fyne.TextWrapWord
	p.peerCaption.TextStyle.Italic = true
	p.peerCaption.Hide()
	p.peersCheck = widget.NewCheck("Compare with published peers", func(on bool) {
		p.peers = on
		if !on {
			p.peerCaption.SetText("")
			p.peerCaption.Hide()
		}
		p.schedule(false)
	})
	title := widget.NewLabelWithStyle("Preview (simulated releases — nothing is published)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.standIn = p.newStandIn()
	source := container.NewVBox(container.NewBorder(nil, nil, widget.NewLabel("Preview on"), nil, p.standIn.choice), p.standIn.notice)
	p.barRow = container.NewBorder(nil, nil, nil, p.cancel, p.progress)
	p.barRow.Hide()
	bar := container.NewVBox(p.barRow, p.stage)
	p.recommend = newRecommendLabel()
	p.error95 = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	p.error95.Wrapping = fyne.TextWrapWord
	p.error95.Hide()
	peerRow := container.NewVBox(p.peersCheck, p.peerCaption, p.recommend)
	plots := container.NewVBox(container.New(sharedRows{}, container.NewBorder(p.error95, peerRow, nil, nil, p.tradeoff), container.NewBorder(nil, p.sliders, nil, nil, p.function)), p.sweep)
	// The panel scrolls when the window is smaller than it: its size
	// never sets the window's. The plots end clear of the scroll bar,
	// which Fyne draws over the content (it covered their right edge).
	p.box = widgets.VScroll(container.NewPadded(container.NewBorder(container.NewVBox(title, source, bar), container.NewVBox(p.warn, p.info), nil, nil, plots)))
	p.tradeoff.SetMessage("Open a dataset to see the privacy/utility tradeoff.")
	p.function.SetMessage("")
	p.sweep.SetMessage("")
	go p.worker()
	return p
}

func (p *previewPanel) content() fyne.CanvasObject { return p.box }

// schedule asks the worker to recompute (renderOnly: only redraw). It
// snapshots the settings on the UI goroutine and cancels work in progress.
func (p *previewPanel) schedule(renderOnly bool) {
	c := p.c
	p.mu.Lock()
	p.gen++
	gen := p.gen
	p.mu.Unlock()
	job := &previewJob{gen: gen, renderOnly: renderOnly,
		theme: widgets.PlotTheme(c.app, c.themeChoice), tsize: p.tradeoff.pixelSize(), fsize: p.function.pixelSize(), ksize: p.sweep.pixelSize()}
	req, err := c.state.request(c.ds)
	if c.ds == nil && c.dsErr != nil {
		err = fmt.Errorf("the dataset could not be read: %w", c.dsErr)
	}
	var standInLabel string
	if err == nil {
		req, standInLabel, err = p.applyStandIn(req)
	}
	job.inputErr = err
	if err == nil {
		job.key = settingsKey(req)
	}
	job.input = preview.Input{Request: req, SliceAt: append([]float64(nil), p.sliceAt...), Peers: p.peers, Recommend: true, StandIn: standInLabel}
	p.syncSliders(len(req.Features))
	p.mu.Lock()
	if p.pending != nil && !p.pending.renderOnly {
		job.renderOnly = false // never lose a pending recompute
	}
	p.pending = job
	if !renderOnly && p.running != nil {
		p.running() // cancel stale work
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// stop ends the worker.
func (p *previewPanel) stop() {
	p.mu.Lock()
	p.stopped = true
	if p.running != nil {
		p.running()
	}
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// cancelRunning is the Cancel button.
func (p *previewPanel) cancelRunning() {
	p.mu.Lock()
	if p.running != nil {
		p.running()
	}
	p.mu.Unlock()
}

// previewDebounce is how long the worker waits for further changes before
// starting (typing in a field or dragging a slider sends many).
const previewDebounce = 120 * time.Millisecond

// worker runs preview jobs one at a time, always the latest.
func (p *previewPanel) worker() {
	var last *preview.Result
	var lastErr error
	var lastKey string
	for range p.wake {
		time.Sleep(previewDebounce)
		p.mu.Lock()
		job := p.pending
		p.pending = nil
		stopped := p.stopped
		var ctx context.Context
		var cancel context.CancelFunc
		if job != nil {
			ctx, cancel = context.WithCancel(ctxBackground)
			p.running = cancel
		}
		p.mu.Unlock()
		if stopped {
			if cancel != nil {
				cancel()
			}
			return
		}
		if job == nil {
			continue
		}
		key := ""
		if job.inputErr == nil {
			key = preview.FitKey(job.input.Request) + fmt.Sprintf("|%+v|%v|%v|%v|peers=%v", job.input.Request.Privacy, job.input.Request.KAuto, job.input.Request.Beta, job.input.SliceAt, job.input.Peers)
		}
		res, err := last, lastErr
		if job.inputErr != nil {
			res, err = nil, job.inputErr
		} else if !job.renderOnly || key != lastKey || last == nil && lastErr == nil {
			widgets.Do(func() { p.started() })
			res, err = p.c.engine.Compute(ctx, job.input, p.progressFunc())
		}
		var imgs previewImages
		var rerr error
		if err == nil && res != nil {
			job.tneed = p.tradeoff.heightFor(res.Tradeoff, job.theme, job.tsize)
			job.tsize.H = max(job.tsize.H, int(job.tneed*job.tsize.Scale))
			imgs.tradeoff, imgs.function, rerr = preview.Render(res, job.theme, job.tsize, job.fsize)
			if rerr == nil {
				imgs.sweep, rerr = preview.RenderSweep(res, job.theme, job.ksize)
			}
		}
		cancel()
		p.mu.Lock()
		p.running = nil
		p.mu.Unlock()
		if errors.Is(err, context.Canceled) {
			widgets.Do(func() { p.cancelled(job.gen) })
			continue
		}
		last, lastErr, lastKey = res, err, key
		widgets.Do(func() { p.show(job, res, err, imgs, rerr) })
	}
}

// progressFunc returns a progress callback that updates the bar through
// fyne.Do at most once per percent.
func (p *previewPanel) progressFunc() preview.Progress {
	var mu sync.Mutex
	lastPct, lastStage := -1, preview.Stage("")
	return func(stage preview.Stage, done, total int) {
		if total <= 0 {
			return
		}
		pct := done * 100 / total
		mu.Lock()
		if pct == lastPct && stage == lastStage {
			mu.Unlock()
			return
		}
		lastPct, lastStage = pct, stage
		mu.Unlock()
		widgets.Do(func() {
			p.progress.SetValue(float64(pct) / 100)
			p.stage.SetText(fmt.Sprintf("%s … %d%%", stage, pct))
		})
	}
}

// started shows that a computation runs (UI goroutine).
func (p *previewPanel) started() {
	p.barRow.Show()
	p.cancel.Enable()
	p.progress.SetValue(0)
	p.stage.SetText("Computing the preview …")
}

// cancelled shows that the last computation was cancelled.
func (p *previewPanel) cancelled(gen int) {
	if !p.isLatest(gen) {
		return // a newer job is coming
	}
	p.cancel.Disable()
	p.barRow.Hide()
	p.stage.SetText("Preview cancelled. Change a setting to compute it again.")
	p.progress.SetValue(0)
	p.done(gen, nil, context.Canceled)
}

// previewImages are the rendered plots of one preview (sweep nil when
// there is no error-vs-k curve).
type previewImages struct{ tradeoff, function, sweep image.Image }

// show displays a finished preview (UI goroutine).
func (p *previewPanel) show(job *previewJob, res *preview.Result, err error, imgs previewImages, rerr error) {
	gen := job.gen
	p.cancel.Disable()
	if p.isLatest(gen) {
		p.barRow.Hide()
	}
	p.progress.SetValue(1)
	switch {
	case err != nil:
		p.progress.SetValue(0)
		var fe *fieldError
		if errors.As(err, &fe) {
			p.stage.SetText("Waiting for settings")
			p.tradeoff.SetMessage(fmt.Sprintf("Step %q: %s", fe.Step, err))
		} else {
			p.stage.SetText("The preview could not be computed")
			p.tradeoff.SetMessage(err.Error())
		}
		p.function.SetMessage("")
		p.sweep.SetMessage("")
		p.info.SetText("")
		p.warn.SetText("")
		p.peerCaption.Hide()
		p.recommend.Hide()
		p.error95.Hide()
		// The message is at the top: an offset kept from a longer preview
		// showed only empty boxes (walkthrough finding).
		p.box.ScrollToTop()
		p.last, p.lastKey = nil, ""
		p.c.derive()
	case rerr != nil:
		p.stage.SetText("The plots could not be drawn")
		p.tradeoff.SetMessage(rerr.Error())
	default:
		p.stage.SetText(fmt.Sprintf("Preview ready: %d simulated releases per point (seeded simulation noise, not a release)", preview.Repeats(res.Dim)))
		p.tradeoff.SetImage(imgs.tradeoff)
		if p.tradeoff.growTo(job.tneed) {
			p.box.Refresh() // lays the panel out for the plot's new height
		}
		p.function.SetImage(imgs.function)
		if imgs.sweep != nil {
			p.sweep.SetImage(imgs.sweep)
		} else {
			p.sweep.SetMessage("")
		}
		p.info.SetText(previewSummary(res, p.c.boundsConfirmed()))
		p.warn.SetText(strings.Join(res.Warnings, "\n"))
		p.showPeerCaption(res)
		showRecommendation(p.recommend, res, p.c.state.ChosenPrivately)
		p.error95.SetText(errorLine(res))
		p.error95.Show()
		p.last, p.lastKey = res, job.key
		p.c.previewShown(res)
	}
	p.done(gen, res, err)
}

// showPeerCaption shows, while the peers are compared, why a peer is not
// drawn (UI goroutine).
func (p *previewPanel) showPeerCaption(res *preview.Result) {
	if p.peers && res.PeerCaption != "" {
		p.peerCaption.SetText(res.PeerCaption)
		p.peerCaption.Show()
		return
	}
	p.peerCaption.SetText("")
	p.peerCaption.Hide()
}

// isLatest reports whether gen is the newest scheduled job.
func (p *previewPanel) isLatest(gen int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return gen == p.gen
}

// done records a finished job and reports the latest to the test hook.
func (p *previewPanel) done(gen int, res *preview.Result, err error) {
	p.mu.Lock()
	latest := gen == p.gen
	if gen > p.doneGen {
		p.doneGen = gen
	}
	p.mu.Unlock()
	if latest && p.c.onPreviewDone != nil {
		p.c.onPreviewDone(res, err)
	}
}

// idle reports whether every scheduled job has finished.
func (p *previewPanel) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.doneGen == p.gen
}

// errorLine is the error at 95% at the curator's setting, shown beside
// the tradeoff plot: the measure of "Error I can accept" (study's
// QuantileError), in the plot's units and as a share of the public range
// (a classifier: the disagreement with the non-private classifier as a
// share of the records), with the mean beside it as a number in the same
// units (the units are not written twice).
func errorLine(r *preview.Result) string {
	q := r.Error95
	what := "Error at 95%"
	if r.Classifier {
		what = "Disagreement with the non-private classifier at 95%"
	}
	return fmt.Sprintf("%s at your setting: %s — 95%% of %d simulated releases do no worse (mean %s).",
		what, r.Error95Text(q.Error), preview.Repeats(r.Dim), r.Error95Value(q.Mean))
}

// previewSummary is the numbers line under the plots.
// The clip count is shown only once the curator has confirmed the bounds
// (clipCountsWhy).
func previewSummary(r *preview.Result, boundsConfirmed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Sensitivity S(F) = %.4g.  k = %s (%d coefficients), h = %d, noise scale %.4g.\n", r.Sensitivity, preview.KLabel(r.K), latticeCount(r.K), r.H, r.Scale)
	if r.NoiseSensitivity > 0 && r.NoiseSensitivity < r.Sensitivity {
		fmt.Fprintf(&b, "The noise is calibrated to the lattice bound L(k) = %.4g ≤ S(F) (the score is linear in its features or its kernel; docs/sensitivity.md).\n", r.NoiseSensitivity)
	}
	fmt.Fprintf(&b, "Mean sup-norm error at your setting: %s (noiseless approximation alone: %s).", r.ErrorText(r.MarkerErr), approxText(r, r.Approx, r.MarkerErr))
	if r.SweepBestK > 0 && !r.Classifier {
		fmt.Fprintf(&b, " At ε = %s the least error over k is %s at k = %d.", strconv.FormatFloat(r.Epsilon, 'g', 3, 64), r.ErrorText(r.SweepBestErr), r.SweepBestK)
	}
	if !math.IsNaN(r.RMSE) {
		fmt.Fprintf(&b, "\nRMSE of the released vs the non-private fit: %s.", r.ErrorText(r.RMSE))
	}
	if r.Classifier {
		fmt.Fprintf(&b, "\nAgreement with the non-private classifier at your setting: %.3g of %s (mean of %d simulated releases).",
			r.Agreement, recordsText(r), preview.Repeats(r.Dim))
	}
	// n is public (it is written in the synopsis); what is curator only
	// are the counts and the accuracy, which come from the values.
	fmt.Fprintf(&b, "\nn = %d records (public: the synopsis states it).", r.N)
	var private []string
	if !boundsConfirmed {
		private = append(private, "clip counts after you confirm the bounds")
	} else if clipped := sumCounts(r.Clipped); clipped > 0 {
		private = append(private, plural(clipped, "value")+" clipped to the bounds")
	}
	if filled := sumCounts(r.Filled); filled > 0 {
		private = append(private, plural(filled, "missing or invalid value")+" filled by the public fill rules")
	}
	if len(private) > 0 {
		fmt.Fprintf(&b, " Curator only (never published): %s.", strings.Join(private, ", "))
	}
	if r.Classifier {
		fmt.Fprintf(&b, "\nCurator only (never published): accuracy on %s %.3g released (mean), %.3g non-private.", recordsText(r), r.Accuracy, r.NonPrivateAccuracy)
	}
	return b.String()
}

// sumCounts returns the total of per-column counts.
func sumCounts(m map[string]int) int {
	total := 0
	for _, n := range m {
		total += n
	}
	return total
}

// recordsText names the records a classifier's agreement and accuracy
// are scored on: all of them, or an evenly spaced subset.
func recordsText(r *preview.Result) string {
	if r.Records >= r.N {
		return "the records"
	}
	return fmt.Sprintf("%d evenly spaced records", r.Records)
}

// approxText writes the noiseless approximation error in the plot's
// units: below a millionth of the total error (or of 1 when there is
// none) it is rounding noise of the evaluation (e.g. 5.6e-17), shown as
// negligible.
func approxText(r *preview.Result, approx, total float64) string {
	if approx < 1e-6*math.Max(total, 1) {
		return "negligible"
	}
	return r.ErrorText(approx)
}

// settingsKey identifies the settings a preview was computed for: the
// dataset, the columns, bounds, units, learner, parameters and privacy
// parameters of the request.
func settingsKey(r release.Request) string {
	hash := ""
	if r.Dataset != nil {
		hash = r.Dataset.Hash
	}
	return fmt.Sprintf("%s|%q|%q|%v|%v|%v|%v|%v|%v|%s|%v|%+v|%v|%v", hash, r.Features, r.Label, r.Classes, r.FillClass,
		sortedMap(r.Bounds), sortedMap(r.Units), sortedMap(r.Fill), sortedMap(r.BoundsFromData), r.Learner, sortedMap(r.Params), r.Privacy, r.KAuto, r.AcknowledgedDataBounds)
}

// sortedMap prints a map in key order.
func sortedMap[V any](m map[string]V) string {
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%q=%v;", k, m[k])
	}
	return b.String()
}

// lastFor returns the last preview if it was computed for the current
// settings of s and ds, else nil.
func (p *previewPanel) lastFor(s *curatorState, ds *dataset.Table) *preview.Result {
	if p.last == nil {
		return nil
	}
	req, err := s.request(ds)
	if err != nil || settingsKey(req) != p.lastKey {
		return nil
	}
	return p.last
}

func latticeCount(k []int) int {
	m := 1
	for _, v := range k {
		m *= v + 1
	}
	return m
}

// syncSliders shows one slider per axis from the third (ℓ ≥ 3 slice).
func (p *previewPanel) syncSliders(dim int) {
	want := max(dim-2, 0)
	for len(p.sliceAt) < want {
		p.sliceAt = append(p.sliceAt, 0.5)
	}
	p.sliceAt = p.sliceAt[:want]
	if len(p.sliders.Objects) == want {
		return
	}
	p.sliders.Objects = nil
	names := p.c.state.Features
	for j := 0; j < want; j++ {
		j := j
		name := fmt.Sprintf("axis %d", j+3)
		if j+2 < len(names) {
			name = names[j+2]
		}
		s := widget.NewSlider(0, 1)
		s.Step = 0.01
		s.SetValue(p.sliceAt[j])
		s.OnChangeEnded = func(v float64) {
			p.sliceAt[j] = v
			p.schedule(false)
		}
		// The axis name is truncated above its slider: a long column name
		// must not widen the panel (and the window).
		l := widget.NewLabel("Slice at " + name + " (fraction of its bounds)")
		l.Truncation = fyne.TextTruncateEllipsis
		p.sliders.Add(container.NewVBox(l, s))
	}
	p.sliders.Refresh()
}

// plural writes "1 value" or "n values".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
