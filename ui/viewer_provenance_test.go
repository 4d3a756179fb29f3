package ui

import (
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project"
)

// TestViewerShowsEndProvenance: the analyst's details name each end's
// source: an end from the data, and privately estimated ends with their ε.
func TestViewerShowsEndProvenance(t *testing.T) {
	est := &project.PrivateEnd{Quantile: 0.01, Epsilon: 0.025, RangeLo: -10, RangeHi: 10}
	f := &project.SynopsisFile{Domain: project.DomainInfo{Features: []project.Bound{
		{Name: "a", Lo: 0, Hi: 1},
		{Name: "b", Lo: -1, Hi: 1, FromData: true, LoSource: project.EndTyped, HiSource: project.EndFromData},
		{Name: "c", Lo: -1, Hi: 1, LoSource: project.EndPrivate, HiSource: project.EndTyped, LoEstimate: est},
	}}}
	rows := viewerFeatureRows(f)
	if rows[1][4] != "no" || rows[2][4] != "YES (lower end typed; upper end from the data)" ||
		!strings.HasPrefix(rows[3][4], "no (lower end estimated privately (ε 0.025") {
		t.Errorf("rows %q", rows)
	}
}
