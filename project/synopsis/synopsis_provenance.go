package synopsis

import (
	"fmt"
	"math"
	"slices"
)

// EndSource says where one end of a column's public bounds came from. It
// is recorded per end in the synopsis (Bound.LoSource, Bound.HiSource) and
// in the project file.
type EndSource string

const (
	// EndTyped is a bound typed by the curator from domain knowledge.
	EndTyped EndSource = "typed"
	// EndFromData is the data's minimum or maximum (dataset.Table.SuggestBounds),
	// a leak outside ε that the curator acknowledged.
	EndFromData EndSource = "data"
	// EndPrivate is a differentially private quantile estimate
	// (EstimatePrivateBounds), whose ε is charged in the ledger.
	EndPrivate EndSource = "private"
)

// valid reports whether s is one of the known sources.
func (s EndSource) Valid() bool { return s == EndTyped || s == EndFromData || s == EndPrivate }

// PrivateEnd describes a privately estimated bound end: the quantile
// estimated, the ε spent on it and the wide public range searched.
type PrivateEnd struct {
	Quantile float64 `json:"quantile"`
	Epsilon  float64 `json:"epsilon"`
	RangeLo  float64 `json:"range_lo"`
	RangeHi  float64 `json:"range_hi"`
}

// validate checks 0 < q < 1, ε > 0 finite and a finite range lo < hi that
// contains v, the end's value.
func (p *PrivateEnd) validate(field string, v float64) error {
	switch {
	case !(p.Quantile > 0 && p.Quantile < 1):
		return fieldErr(ErrMalformed, field+".quantile", "%v must be strictly between 0 and 1", p.Quantile)
	case !(p.Epsilon > 0) || math.IsInf(p.Epsilon, 0):
		return fieldErr(ErrMalformed, field+".epsilon", "%v must be finite and > 0", p.Epsilon)
	case !isFinite(p.RangeLo) || !isFinite(p.RangeHi) || !(p.RangeLo < p.RangeHi):
		return fieldErr(ErrMalformed, field, "public range [%v, %v] needs finite lo < hi", p.RangeLo, p.RangeHi)
	case v < p.RangeLo || v > p.RangeHi:
		return fieldErr(ErrMalformed, field, "estimate %v lies outside its public range [%v, %v]", v, p.RangeLo, p.RangeHi)
	}
	return nil
}

// BoundsProvenance says, per end, where a column's bounds came from; the
// estimate fields are set exactly for EndPrivate ends.
type BoundsProvenance struct {
	Lo, Hi                 EndSource
	LoEstimate, HiEstimate *PrivateEnd
}

// HasData reports whether an end came from the data.
func (p BoundsProvenance) HasData() bool { return p.Lo == EndFromData || p.Hi == EndFromData }

// Ends returns where each end of b came from. Files written before per-end
// provenance (format 1 without lo_source and hi_source) record one flag
// for the column: both ends are then from the data if FromData, typed
// otherwise.
func (b Bound) Ends() (lo, hi EndSource) {
	if b.LoSource == "" && b.HiSource == "" {
		if b.FromData {
			return EndFromData, EndFromData
		}
		return EndTyped, EndTyped
	}
	return b.LoSource, b.HiSource
}

// validateProvenance checks the per-end provenance of a synopsis bound:
// both sources or neither (an older file), known values, from_data true
// exactly when an end is "data", and an estimate exactly for "private"
// ends, valid and containing the end's value.
func (b *Bound) ValidateProvenance(field string) error {
	if b.LoSource == "" && b.HiSource == "" {
		if b.LoEstimate != nil || b.HiEstimate != nil {
			return fieldErr(ErrMalformed, field, "private estimates need lo_source and hi_source")
		}
		return nil
	}
	ends := []struct {
		name string
		src  EndSource
		est  *PrivateEnd
		v    float64
	}{{"lo", b.LoSource, b.LoEstimate, b.Lo}, {"hi", b.HiSource, b.HiEstimate, b.Hi}}
	for _, e := range ends {
		if !e.src.Valid() {
			return fieldErr(ErrMalformed, field+"."+e.name+"_source", "%q is not one of typed, data, private", e.src)
		}
		if (e.src == EndPrivate) != (e.est != nil) {
			return fieldErr(ErrMalformed, field+"."+e.name+"_estimate", "must be present exactly when %s_source is private", e.name)
		}
		if e.est != nil {
			if err := e.est.validate(field+"."+e.name+"_estimate", e.v); err != nil {
				return err
			}
		}
	}
	if data := b.LoSource == EndFromData || b.HiSource == EndFromData; data != b.FromData {
		return fieldErr(ErrMalformed, field+".from_data", "is %v but the per-end sources say %v", b.FromData, data)
	}
	return nil
}

// DescribeEnd is one end's provenance in words, e.g. "typed",
// "from the data", "estimated privately (ε 0.025, 1st percentile)".
func DescribeEnd(src EndSource, est *PrivateEnd) string {
	switch src {
	case EndFromData:
		return "from the data"
	case EndPrivate:
		if est != nil {
			return fmt.Sprintf("estimated privately (ε %.4g, quantile %.4g of [%.6g, %.6g])", est.Epsilon, est.Quantile, est.RangeLo, est.RangeHi)
		}
		return "estimated privately"
	}
	return "typed"
}

// DescribeEnds is a bound's per-end provenance in words for analysts:
// "typed" when both ends were typed, "from the data" when both were taken
// from it, otherwise one phrase per end ("lower end …; upper end …").
func (b Bound) DescribeEnds() string {
	lo, hi := b.Ends()
	if lo == hi && lo != EndPrivate {
		return DescribeEnd(lo, nil)
	}
	return "lower end " + DescribeEnd(lo, b.LoEstimate) + "; upper end " + DescribeEnd(hi, b.HiEstimate)
}

// AnyPrivateEnd reports whether some bound of d was estimated privately.
func (d DomainInfo) AnyPrivateEnd() bool {
	bs := d.Features
	if d.Label != nil {
		bs = append(slices.Clone(bs), *d.Label)
	}
	for _, b := range bs {
		if lo, hi := b.Ends(); lo == EndPrivate || hi == EndPrivate {
			return true
		}
	}
	return false
}
