package viewer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// viewerEvaluator is the part of a verified synopsis the viewer evaluates
// with. *synopsis.Verified implements it: EvalData maps a query from
// data units through the public bounds to [0,1]^ℓ, evaluates the released
// polynomial and maps value and public noise standard deviation back to the
// output's data units; Class names the class of a classifier's value. Both
// must be safe for concurrent use (the batch evaluator calls EvalData from
// several goroutines).
type viewerEvaluator interface {
	EvalData(x []float64) (value, noiseStd float64, err error)
	Class(value float64) (string, bool)
}

// viewerFeature is one input axis of a release as the analyst sees it: its
// name, unit and public bounds in data units, and whether the curator took
// the bounds from the data (a disclosed privacy leak).
type viewerFeature struct {
	Name, Unit string
	Lo, Hi     float64
	FromData   bool
}

// label returns "name (unit)" or just the name.
func (f viewerFeature) label() string {
	if f.Unit == "" {
		return f.Name
	}
	return f.Name + " (" + f.Unit + ")"
}

// viewerRelease is the public description of a verified release that the
// evaluation, batch and plot code needs, plus its evaluator. It is built
// from a *synopsis.Verified only after the signature verified (see
// document.go); nothing here is ever built from an unverified file.
type viewerRelease struct {
	Features    []viewerFeature
	OutputName  string              // e.g. "density", or the label's name for regression
	OutputUnit  string              // unit of the output, if any
	OutputKind  learners.OutputKind // how to read the value
	ClassLabels []string            // [negative, positive] for classifiers
	// Range is the output's public range in data units (the synopsis's
	// output.range): noise can carry released values outside it.
	Range [2]float64
	eval  viewerEvaluator
}

// clamp returns value clamped to the public output range and whether it
// moved. Clamping is post-processing of the release: the privacy
// guarantee holds.
func (r *viewerRelease) clamp(value float64) (float64, bool) {
	c := min(r.Range[1], max(r.Range[0], value))
	return c, c != value
}

// rangeText formats the public output range, "[0, 400] kg".
func (r *viewerRelease) rangeText() string {
	return fmt.Sprintf("[%s, %s]%s", viewerNum(r.Range[0]), viewerNum(r.Range[1]), viewerUnitSuffix(r.OutputUnit))
}

// dim returns ℓ.
func (r *viewerRelease) dim() int { return len(r.Features) }

// classifier reports whether values map to classes.
func (r *viewerRelease) classifier() bool {
	return r.OutputKind == learners.OutputClassScore || r.OutputKind == learners.OutputProbability
}

// threshold returns the decision threshold of a classifier's value in the
// output's units: 0 for a class score, ½ for a probability (see
// learners.OutputKind); it is NaN for other outputs.
func (r *viewerRelease) threshold() float64 {
	switch r.OutputKind {
	case learners.OutputClassScore:
		return 0
	case learners.OutputProbability:
		return 0.5
	}
	return math.NaN()
}

// outputLabel returns "name (unit)" or just the name of the output.
func (r *viewerRelease) outputLabel() string {
	name := r.OutputName
	if name == "" {
		name = "value"
	}
	if r.OutputUnit == "" {
		return name
	}
	return name + " (" + r.OutputUnit + ")"
}

// viewerParseInput validates what the analyst typed for feature f: a finite
// number within the feature's public bounds [Lo, Hi] (inclusive). The error
// text names the value and the rule, for display under the field.
func viewerParseInput(f viewerFeature, text string) (float64, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return 0, fmt.Errorf("enter a value for %s between %s and %s", f.Name, viewerNum(f.Lo), viewerNum(f.Hi))
	}
	x, err := dataset.ParseNumber(s) // the number syntax of CSV values and flags
	if err != nil {
		return 0, err
	}
	if x < f.Lo || x > f.Hi {
		return 0, fmt.Errorf("%s = %s is outside the public bounds [%s, %s]%s; the release says nothing there",
			f.Name, viewerNum(x), viewerNum(f.Lo), viewerNum(f.Hi), viewerUnitSuffix(f.Unit))
	}
	return x, nil
}

func viewerUnitSuffix(unit string) string {
	if unit == "" {
		return ""
	}
	return " " + unit
}

// viewerPoint is the answer to a single query.
type viewerPoint struct {
	X        []float64 // the query in data units
	Value    float64   // released value in output units
	NoiseStd float64   // public standard deviation of the release noise at X
	Class    string    // class label for classifiers, else ""
}

// lo2 and hi2 bound the band of ±2 public noise standard deviations.
func (p viewerPoint) lo2() float64 { return p.Value - 2*p.NoiseStd }
func (p viewerPoint) hi2() float64 { return p.Value + 2*p.NoiseStd }

// viewerEvalPoint parses one text per feature and evaluates the release at
// that point. Every invalid field is reported (errs[j] for feature j); the
// release is evaluated only when all fields are valid.
func viewerEvalPoint(r *viewerRelease, texts []string) (res viewerPoint, errs []error, err error) {
	if len(texts) != r.dim() {
		panic(fmt.Sprintf("ui: viewerEvalPoint: %d inputs for %d features", len(texts), r.dim())) // programmer misuse
	}
	x := make([]float64, r.dim())
	errs = make([]error, r.dim())
	bad := 0
	for j, f := range r.Features {
		x[j], errs[j] = viewerParseInput(f, texts[j])
		if errs[j] != nil {
			bad++
		}
	}
	if bad > 0 {
		return viewerPoint{}, errs, fmt.Errorf("%d of %d inputs invalid", bad, r.dim())
	}
	v, s, err := r.eval.EvalData(x)
	if err != nil {
		return viewerPoint{}, errs, err
	}
	res = viewerPoint{X: x, Value: v, NoiseStd: s}
	if r.classifier() {
		res.Class, _ = r.eval.Class(v)
	}
	return res, errs, nil
}

// viewerNum formats a number for display: up to 6 significant digits.
func viewerNum(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
