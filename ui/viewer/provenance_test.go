package viewer

import (
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// TestViewerShowsEndProvenance: the analyst's details name each end's
// source: an end from the data, and privately estimated ends with their ε.
func TestViewerShowsEndProvenance(t *testing.T) {
	est := &synopsis.PrivateEnd{Quantile: 0.01, Epsilon: 0.025, RangeLo: -10, RangeHi: 10}
	f := &synopsis.File{Domain: synopsis.DomainInfo{Features: []synopsis.Bound{
		{Name: "a", Lo: 0, Hi: 1},
		{Name: "b", Lo: -1, Hi: 1, FromData: true, LoSource: synopsis.EndTyped, HiSource: synopsis.EndFromData},
		{Name: "c", Lo: -1, Hi: 1, LoSource: synopsis.EndPrivate, HiSource: synopsis.EndTyped, LoEstimate: est},
	}}}
	rows := viewerFeatureRows(f)
	if rows[1][4] != "no" || rows[2][4] != "YES (lower end typed; upper end from the data)" ||
		!strings.HasPrefix(rows[3][4], "no (lower end estimated privately (ε 0.025") {
		t.Errorf("rows %q", rows)
	}
}
