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
}

func newMechanismRow(c *curator) *mechanismRow {
	m := &mechanismRow{c: c, rule: widget.NewLabel(""), recomm: widget.NewLabel("")}
	m.rule.Wrapping, m.recomm.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	m.rule.Importance = widget.DangerImportance
	m.recomm.TextStyle.Italic = true
	m.rule.Hide()
	m.recomm.Hide()
	m.sel = widget.NewSelect(nil, func(label string) {
		for _, k := range m.kinds {
			if preview.MechanismLabel(k) == label {
				if kindOrBernstein(c.state.Mechanism) != k {
					c.state.Mechanism = mechanismSetting(k)
					c.changed()
				}
				return
			}
		}
	})
	return m
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
	labels := make([]string, len(kinds))
	for i, k := range kinds {
		labels[i] = preview.MechanismLabel(k)
	}
	m.sel.SetOptions(labels)
	m.c.fill(func() { m.sel.SetSelected(preview.MechanismLabel(cur)) })
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
// settings, as a fieldError of the Privacy step in the window's words
// (preview.WindowRule): with a preview r of these settings, a kind its
// learner has no peer for or one CheckMechanism refuses at (ε, δ);
// without one, what the public settings decide
// (release.CheckMechanismSettings). Nil for Bernstein or settings that are
// not complete (their own rule is shown); the release refuses anything
// else before anything is spent.
func (c *curator) mechanismError(r *preview.Result) error {
	s := c.state
	k := kindOrBernstein(s.Mechanism)
	if k == synopsis.MechanismBernstein {
		return nil
	}
	var rule string
	if r == nil || r.Recommendation == nil {
		req, err := s.request(c.ds)
		if err != nil {
			return nil
		}
		if err := release.CheckMechanismSettings(req, k); err != nil {
			rule = preview.WindowRule(err)
		}
	} else {
		rule = r.Recommendation.Check(k)
		if !slices.ContainsFunc(r.Recommendation.Mechanisms, func(me preview.MechanismError) bool { return me.Kind == k }) {
			rule = preview.MechanismLabel(k) + " does not apply to this learner and these features"
		}
	}
	if rule == "" {
		return nil
	}
	return &fieldError{Step: stepPrivacy, Field: "Mechanism", Rule: rule}
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
func showRecommendation(l *widget.Label, res *preview.Result) {
	t := res.Recommendation.Text(res)
	if t == "" {
		l.Hide()
		return
	}
	l.SetText(t + " (Seeded simulations of the preview, curator only: not a release.)")
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
