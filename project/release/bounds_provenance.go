package release

import (
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// provenanceOf returns the provenance of col's bounds in req:
// req.BoundsProvenance if it names the column, else both ends from the data
// if req.BoundsFromData marks it, else both typed.
func provenanceOf(req Request, col string) (synopsis.BoundsProvenance, error) {
	p, ok := req.BoundsProvenance[col]
	if !ok {
		if req.BoundsFromData[col] {
			return synopsis.BoundsProvenance{Lo: synopsis.EndFromData, Hi: synopsis.EndFromData}, nil
		}
		return synopsis.BoundsProvenance{Lo: synopsis.EndTyped, Hi: synopsis.EndTyped}, nil
	}
	if p.Lo == "" {
		p.Lo = synopsis.EndTyped
	}
	if p.Hi == "" {
		p.Hi = synopsis.EndTyped
	}
	field := "bounds[" + col + "]"
	for _, e := range []struct {
		end string
		src synopsis.EndSource
		est *synopsis.PrivateEnd
	}{{"lower", p.Lo, p.LoEstimate}, {"upper", p.Hi, p.HiEstimate}} {
		switch {
		case !e.src.Valid():
			return p, reqErr(field, "%s end source %q is not one of typed, data, private", e.end, e.src)
		case (e.src == synopsis.EndPrivate) != (e.est != nil):
			return p, reqErr(field, "the %s end's private estimate must be given exactly when its source is private", e.end)
		}
	}
	if req.BoundsFromData[col] && !p.HasData() {
		return p, reqErr(field, "marked as taken from the data, but neither end's provenance says so")
	}
	return p, nil
}

// boundWithProvenance is the synopsis bound of col with b and its
// provenance p per end; FromData is set when either end came from the data.
func boundWithProvenance(col, unit string, b dataset.Bounds, p synopsis.BoundsProvenance) synopsis.Bound {
	return synopsis.Bound{Name: col, Unit: unit, Lo: b.Lo, Hi: b.Hi, FromData: p.HasData(),
		LoSource: p.Lo, HiSource: p.Hi, LoEstimate: p.LoEstimate, HiEstimate: p.HiEstimate}
}
