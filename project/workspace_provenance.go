package project

import (
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// validateProvenance checks the per-end provenance of a project file's
// bounds by the synopsis rules (Bound.validateProvenance).
func (b ColumnBounds) validateProvenance(field string) error {
	sb := synopsis.Bound{Name: b.Column, Lo: b.Lo, Hi: b.Hi, FromData: b.FromData,
		LoSource: b.LoSource, HiSource: b.HiSource, LoEstimate: b.LoEstimate, HiEstimate: b.HiEstimate}
	return sb.ValidateProvenance(field)
}
