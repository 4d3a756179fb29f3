package curator

import (
	"fmt"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/ui/internal/widgets"
)

// identityKey remembers which ledger dataset the loaded dataset's records
// were last matched to (by the release dialog), so the status bar and the
// Privacy step show and set that dataset's budget.
type identityKey struct {
	ds  *dataset.Table
	key string
}

// ledgerKey returns the ledger dataset whose budget the curator sees for
// the loaded dataset: the one the release dialog last matched its records
// to, else the first the file was charged to (ledger.DatasetsOfFile;
// the file hash for a file new to the ledger).
func (c *curator) ledgerKey(l *ledger.Ledger) string {
	c.ledgerMu.Lock()
	k := c.idKey
	c.ledgerMu.Unlock()
	if k.ds != nil && k.ds == c.ds {
		return k.key
	}
	return ledger.DatasetsOfFile(l, c.ds.Hash)[0]
}

// identityWidgets are the release dialog's statement of which ledger
// dataset the records belong to, and the curator's declaration.
type identityWidgets struct {
	finding *widget.Label
	// diffPop declares the data a different population from the
	// near-duplicates found; shown only when there are some.
	diffPop *widgets.KeyCheck
	// same and diff are the findings without and with the declaration
	// (diff nil without near-duplicates); nil until the check finishes.
	same, diff *ledger.IdentityFinding
}

func newIdentityWidgets() *identityWidgets {
	w := &identityWidgets{
		finding: widget.NewLabel("Checking the ledger for these records …"),
		diffPop: widgets.NewKeyCheck("These records are a different population from the dataset(s) named above: do not charge their budget (the declaration is recorded in the ledger)", nil),
	}
	w.finding.Wrapping = fyne.TextWrapWord
	w.diffPop.Hide()
	return w
}

// current returns the finding that applies to the release (nil while the
// check runs).
func (w *identityWidgets) current() *ledger.IdentityFinding {
	if w.diffPop.Checked && w.diff != nil {
		return w.diff
	}
	return w.same
}

// checkIdentity matches the request's records against the ledger in the
// background (fingerprint and keyed sketches of the private data, by
// release.Identify: the same identity as the release's), then
// shows the finding in the dialog and calls show with it (UI goroutine). If
// the curator releases before the check ends, the release matches anyway
// (release.Prepared.Release) without a declaration: the safe default.
func (c *curator) checkIdentity(f *releaseFlow, req release.Request, show func(*ledger.IdentityFinding)) {
	if req.Aggregates != nil {
		c.checkDeclaredDataset(f, req, show)
		return
	}
	w := f.identity
	ds := req.Dataset
	go func() {
		same, diff, err := func() (same, diff *ledger.IdentityFinding, err error) {
			id, err := release.Identify(req) // the identity the release is charged by

			if err != nil {
				return nil, nil, err
			}
			l, err := c.openLedger()
			if err != nil {
				return nil, nil, err
			}
			if same, err = ledger.FindDataset(l, id, false); err != nil {
				return nil, nil, err
			}
			if len(same.NearDuplicates()) > 0 {
				diff, err = ledger.FindDataset(l, id, true)
			}
			return same, diff, err
		}()
		widgets.Do(func() {
			if c.release != f {
				return // another dialog by now
			}
			if err != nil {
				w.finding.SetText("The ledger could not be checked for these records: " + err.Error())
				w.finding.Importance = widget.DangerImportance
				w.finding.Refresh()
				return
			}
			w.same, w.diff = same, diff
			update := func() {
				fd := w.current()
				w.finding.SetText("Dataset (from the private records; shown to you only): " + fd.Describe())
				if len(fd.NearDuplicates()) > 0 && fd == same {
					w.finding.Importance = widget.WarningImportance
				} else {
					w.finding.Importance = widget.MediumImportance
				}
				w.finding.Refresh()
				c.ledgerMu.Lock()
				c.idKey = identityKey{ds: ds, key: fd.Charges[0].DatasetHash}
				c.ledgerMu.Unlock()
				show(fd)
			}
			if diff != nil {
				w.diffPop.OnChanged = func(bool) { update() }
				w.diffPop.Show()
			}
			update()
		})
	}()
}

// identityBudgetText is the release dialog's budget sentence for the
// ledger dataset the release is charged to. over is the ledger's own
// admission rule (Ledger.Admits: basic composition, or else its zCDP
// account, docs/ledger.md) for every dataset the release is charged to, so
// the dialog never calls over budget what the ledger admits; a release
// that only the zCDP account admits says so.
func identityBudgetText(l *ledger.Ledger, fd *ledger.IdentityFinding, eps, delta float64, kind mechanism.NoiseKind) (text string, over bool) {
	key := fd.Charges[0].DatasetHash
	spent, _ := l.Spent(key)
	budget := l.Budget(key)
	text = releaseBudgetText(spent, budget, eps, delta, kind)
	for _, m := range fd.Charges {
		e := ledger.Entry{Kind: ledger.KindRelease, DatasetHash: m.DatasetHash, Epsilon: eps, Delta: delta, Noise: string(kind)}
		if l.Admits(e) != nil {
			return text, true
		}
	}
	if spent+eps > budget*(1+1e-9)+1e-12 {
		text += "\n" + zcdpAdmitsSentence(l.Accounts(key).DeltaBudget)
	}
	return text, false
}

// zcdpAdmitsSentence explains a release that adding ε would put past the
// budget but the ledger's zCDP account admits.
func zcdpAdmitsSentence(deltaBudget float64) string {
	return fmt.Sprintf("Adding up ε, this passes the ε budget; the ledger's tighter zCDP account (Gaussian noise composes better) admits it at the dataset's δ budget %s (docs/ledger.md, \"zCDP accounting\").",
		strconv.FormatFloat(deltaBudget, 'g', 3, 64))
}

// rememberLedgerKey records the ledger dataset a release of the loaded
// dataset (the release dialog is modal) was charged to.
func (c *curator) rememberLedgerKey(res *release.Result) {
	if res.Synopsis.Source != nil {
		return // from aggregates: not the loaded records' dataset
	}
	c.ledgerMu.Lock()
	defer c.ledgerMu.Unlock()
	c.idKey = identityKey{ds: c.ds, key: res.Entry.DatasetHash}
}
