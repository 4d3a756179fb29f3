package curator

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/ui/curator/preview"
)

// mechanismRow is the Privacy step's "Mechanism" selector: Bernstein (the
// default) or a published peer the release can publish instead
// (release.Options.Mechanism). Which peers apply, and the rule refusing
// one at the current (ε, δ), come from the preview's recommendation, which
// asks (*release.Prepared).CheckMechanism — the release's one rule — and,
// until a preview of the current settings exists, from the public
// settings alone (release.CheckMechanismSettings, the same rule's public
// part).
type mechanismRow struct {
	c      *curator
	sel    *widget.Select
	rule   *widget.Label // the rule the chosen mechanism breaks, if any
	recomm *widget.Label // the preview's recommendation, repeated here
	kinds  []string      // the options' kinds, in order
	labels []string      // the options, in order: a refused kind marked
}

func newMechanismRow(c *curator) *mechanismRow {
	m := &mechanismRow{c: c, rule: widget.NewLabel(""), recomm: widget.NewLabel("")}
	m.rule.Wrapping, m.recomm.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	m.rule.Importance = widget.DangerImportance
	m.recomm.TextStyle.Italic = true
	m.rule.Hide()
	m.recomm.Hide()
	m.sel = widget.NewSelect(nil, func(label string) {
		if i := slices.Index(m.labels, label); i >= 0 {
			if k := m.kinds[i]; kindOrBernstein(c.state.Mechanism) != k {
				c.state.Mechanism = mechanismSetting(k)
				c.changed()
			}
		}
	})
	return m
}

// selectKind selects the option of kind, marked or not (no effect when
// it is not listed).
func (m *mechanismRow) selectKind(kind string) {
	if i := slices.Index(m.kinds, kind); i >= 0 {
		m.sel.SetSelected(m.labels[i])
	}
}

// optionLabel is kind's entry in the open list: its name, and when the
// current settings refuse it, the rule in a few words ("Hall et al. GP —
// needs δ > 0 (Gaussian noise)"), so the curator sees it before picking.
func optionLabel(kind, need string) string {
	if need == "" {
		return preview.MechanismLabel(kind)
	}
	return preview.MechanismLabel(kind) + " — " + need
}

// kindOrBernstein maps the state's "" to the Bernstein kind.
func kindOrBernstein(k string) string {
	if k == "" {
		return synopsis.MechanismBernstein
	}
	return k
}

// mechanismSetting maps the Bernstein kind to the state's "".
func mechanismSetting(k string) string {
	if k == synopsis.MechanismBernstein {
		return ""
	}
	return k
}

// derive lists the options (Bernstein and the peers of the preview's
// recommendation, else every kind), selects the state's and marks it with
// the rule that refuses it.
func (m *mechanismRow) derive(r *preview.Result) {
	s := m.c.state
	kinds := slices.Clone(release.Mechanisms)
	var rec *preview.Recommendation
	if r != nil && r.Recommendation != nil {
		rec = r.Recommendation
		kinds = kinds[:0]
		for _, me := range rec.Mechanisms {
			kinds = append(kinds, me.Kind)
		}
	}
	cur := kindOrBernstein(s.Mechanism)
	if !slices.Contains(kinds, cur) {
		kinds = append(kinds, cur)
	}
	m.kinds = kinds
	m.labels = make([]string, len(kinds))
	for i, k := range kinds {
		_, need := m.c.mechanismRefusal(r, k)
		m.labels[i] = optionLabel(k, need)
	}
	m.sel.SetOptions(m.labels)
	m.c.fill(func() { m.selectKind(cur) })
	if err := m.c.mechanismError(r); err != nil {
		m.rule.SetText(err.Error())
		m.rule.Show()
	} else {
		m.rule.Hide()
	}
	if t := rec.Text(r); t != "" {
		m.recomm.SetText(t)
		m.recomm.Show()
	} else {
		m.recomm.Hide()
	}
}

// mechanismError is the rule refusing the chosen mechanism at the current
// settings (mechanismRefusal), as a fieldError of the Privacy step in the
// window's words. Nil for Bernstein or settings that are not complete
// (their own rule is shown); the release refuses anything else before
// anything is spent.
func (c *curator) mechanismError(r *preview.Result) error {
	rule, _ := c.mechanismRefusal(r, kindOrBernstein(c.state.Mechanism))
	if rule == "" {
		return nil
	}
	return &fieldError{Step: stepPrivacy, Field: "Mechanism", Rule: rule}
}

// mechanismRefusal is the rule refusing kind at the current settings in
// the window's words (preview.WindowRule), and the same in a few words for
// the Mechanism list (release.RequestError.Need; "refused here" when the
// rule has none): with a preview r of these settings, a kind its learner
// has no peer for or one CheckMechanism refuses at (ε, δ); without one,
// what the public settings decide (release.CheckMechanismSettings). Both
// "" for Bernstein, an accepted kind or settings that are not complete.
func (c *curator) mechanismRefusal(r *preview.Result, k string) (rule, need string) {
	if k == synopsis.MechanismBernstein {
		return "", ""
	}
	if r == nil || r.Recommendation == nil {
		req, err := c.state.request(c.ds)
		if err != nil {
			return "", ""
		}
		if err := release.CheckMechanismSettings(req, k); err != nil {
			rule, need = preview.WindowRule(err), preview.RuleNeed(err)
		}
	} else if me, ok := r.Recommendation.Entry(k); ok {
		rule, need = me.Refused, me.Need
	} else {
		rule, need = preview.MechanismLabel(k)+" does not apply to this learner and these features", "not for this learner"
	}
	if rule != "" && need == "" {
		need = "refused here"
	}
	return rule, need
}

// mechanismText is the release summary's name of the chosen mechanism.
func mechanismText(s *curatorState) string {
	return preview.MechanismLabel(kindOrBernstein(s.Mechanism))
}

// newRecommendLabel is the preview's recommendation line (hidden until a
// preview has one).
func newRecommendLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Hide()
	return l
}

// showRecommendation shows the recommendation of res, labelled like the
// rest of the preview (simulated, curator only).
func showRecommendation(l *widget.Label, res *preview.Result, chosenPrivately bool) {
	t := res.Recommendation.Text(res)
	if t == "" {
		l.Hide()
		return
	}
	t += " (Seeded simulations of the preview, curator only: not a release.)"
	if chosenPrivately {
		// A walkthrough found the recommendation nudging the curator away
		// from a private choice just paid for.
		t += " Your settings came from the private choice, which the ε it spent covers; a recommendation of the preview on the private data is not covered by ε."
	}
	l.SetText(t)
	l.Show()
}

// readyRequest is the release request of the current settings, or the
// first rule they break: the form's (curatorState.request), then the
// chosen mechanism's (mechanismError). The Release step and File ▸
// Release both ask it.
func (c *curator) readyRequest() (release.Request, error) {
	req, err := c.state.request(c.ds)
	if err != nil {
		return req, err
	}
	return req, c.mechanismError(c.preview.lastFor(c.state, c.ds))
}
