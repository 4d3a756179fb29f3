package curator

import (
	"fmt"
	"strings"

	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// endSetting is where one end of a column's bounds came from: typed (the
// zero value), the data's minimum or maximum ("Suggest from data") or a
// private estimate ("Estimate privately…"). Value is the text that was
// filled in; the end keeps its source while its entry holds that number.
type endSetting struct {
	Source   synopsis.EndSource
	Value    string
	Estimate *synopsis.PrivateEnd
}

// source returns the end's source, typed for the zero value.
func (e endSetting) source() synopsis.EndSource {
	if e.Source == "" {
		return synopsis.EndTyped
	}
	return e.Source
}

// edited records that the curator changed the end's text: an end from the
// data or a private estimate stays so while the text is the same number,
// and becomes typed when it is a different one (issue 13 item 4).
func (e *endSetting) edited(text string) {
	if e.source() == synopsis.EndTyped || sameNumber(text, e.Value) {
		return
	}
	*e = endSetting{}
}

// sameNumber reports whether two texts are the same number ("1" and
// "1.0"), or the same text when either is not a number.
func sameNumber(a, b string) bool {
	x, errA := parseNumber(a)
	y, errB := parseNumber(b)
	if errA == nil && errB == nil {
		return x == y
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

// fromData reports whether either end came from the data.
func (s *columnSetting) fromData() bool {
	return s.LoEnd.source() == synopsis.EndFromData || s.HiEnd.source() == synopsis.EndFromData
}

// provenance is the per-end provenance of the column for the request.
func (s *columnSetting) provenance() synopsis.BoundsProvenance {
	return synopsis.BoundsProvenance{Lo: s.LoEnd.source(), Hi: s.HiEnd.source(),
		LoEstimate: s.LoEnd.Estimate, HiEstimate: s.HiEnd.Estimate}
}

// setEnds fills both ends from one source (Suggest from data, Estimate
// privately).
func (s *columnSetting) setEnds(lo, hi string, src synopsis.EndSource, loEst, hiEst *synopsis.PrivateEnd) {
	s.Lo, s.Hi = lo, hi
	s.LoEnd = endSetting{Source: src, Value: lo, Estimate: loEst}
	s.HiEnd = endSetting{Source: src, Value: hi, Estimate: hiEst}
}

// provenanceText describes where the ends came from, for the bounds page
// and the release summary; "" when both are typed.
func (s *columnSetting) provenanceText() string {
	lo, hi := s.LoEnd.source(), s.HiEnd.source()
	if lo == synopsis.EndTyped && hi == synopsis.EndTyped {
		return ""
	}
	if lo == hi && lo == synopsis.EndFromData {
		return "both ends taken from the data (recorded in the synopsis)"
	}
	return fmt.Sprintf("lower end %s; upper end %s (recorded in the synopsis)",
		synopsis.DescribeEnd(lo, s.LoEnd.Estimate), synopsis.DescribeEnd(hi, s.HiEnd.Estimate))
}

// dataEnds names the column ends currently taken from the data, e.g.
// "x (upper end)", for the acknowledgement and the release summary.
func (s *curatorState) dataEnds() []string {
	var out []string
	for _, col := range s.usedColumns() {
		b := s.Bounds[col]
		if b == nil || !b.fromData() {
			continue
		}
		lo, hi := b.LoEnd.source() == synopsis.EndFromData, b.HiEnd.source() == synopsis.EndFromData
		switch {
		case lo && hi:
			out = append(out, col+" (both ends)")
		case lo:
			out = append(out, col+" (lower end)")
		default:
			out = append(out, col+" (upper end)")
		}
	}
	return out
}

// endsFromWorkspace restores the per-end provenance of a project file's
// bounds. Files written before per-end provenance have one from_data flag
// for the column: both ends from the data, or both typed.
func endsFromWorkspace(b project.ColumnBounds, lo, hi string) (endSetting, endSetting) {
	loSrc, hiSrc := b.LoSource, b.HiSource
	if loSrc == "" && hiSrc == "" && b.FromData {
		loSrc, hiSrc = synopsis.EndFromData, synopsis.EndFromData
	}
	end := func(src synopsis.EndSource, v string, est *synopsis.PrivateEnd) endSetting {
		if src == "" || src == synopsis.EndTyped {
			return endSetting{}
		}
		return endSetting{Source: src, Value: v, Estimate: est}
	}
	return end(loSrc, lo, b.LoEstimate), end(hiSrc, hi, b.HiEstimate)
}

// boundsConfirmed reports whether the curator has confirmed the bounds on
// the bounds page (the private clip counts are shown only then).
func (c *curator) boundsConfirmed() bool {
	bp, ok := c.pages[stepBounds].(*boundsPage)
	return ok && bp.confirmed
}

// showSummary rewrites the numbers under the plots of the last preview,
// e.g. after the bounds were confirmed or an edit withdrew that (UI
// goroutine).
func (p *previewPanel) showSummary() {
	if p == nil || p.last == nil {
		return
	}
	p.info.SetText(previewSummary(p.last, p.c.boundsConfirmed()))
}
