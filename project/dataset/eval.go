package dataset

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/gocarina/gocsv"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// Result columns of an evaluated release, after the feature columns.
const (
	EvalColumnValue    = "value"
	EvalColumnNoiseStd = "noise_std"
	EvalColumnClass    = "class"
	// EvalColumnClamped is the last column of results clamped to the
	// output's public range ((*EvalResults).Clamp): true where the
	// released value lay outside it and was moved to the nearer end.
	EvalColumnClamped = "clamped"
)

// EvalResults is a verified release evaluated at query points given in data
// units (the analyst's side of a release: post-processing of the synopsis,
// no privacy cost).
type EvalResults struct {
	// Features are the feature names in axis order (ℓ = len(Features)).
	Features []string
	// X holds the n query points in data units, row-major (n·ℓ values).
	X []float64
	// Value and NoiseStd hold, per point, the released function in data
	// units and the public standard deviation of its noise part.
	Value, NoiseStd []float64
	// Class holds the predicted class label per point for classifiers
	// (synopsis.Verified.Class); nil otherwise.
	Class []string
	// Clamped is nil unless the values were clamped to the output's public
	// range (Clamp); then Clamped[i] says whether Value[i] was moved.
	Clamped []bool
}

// Len returns the number of query points.
func (r *EvalResults) Len() int { return len(r.Value) }

// Clamp moves every value outside [lo, hi] (the output's public range,
// synopsis.File.Output.Range) to the nearer end and records which ones it
// moved in Clamped (the results then say so: Header and WriteCSV add the
// column clamped). Noise can carry a released value outside the range;
// clamping is post-processing of the release, so the privacy guarantee
// holds. NoiseStd is left as it is: it describes the release before
// clamping. It returns how many values it moved.
func (r *EvalResults) Clamp(lo, hi float64) int {
	if r.Clamped == nil {
		r.Clamped = make([]bool, r.Len())
	}
	n := 0
	for i, v := range r.Value {
		c := min(hi, max(lo, v))
		if c != v {
			r.Value[i], r.Clamped[i] = c, true
		}
		if r.Clamped[i] {
			n++
		}
	}
	return n
}

// Header returns the CSV header of r: EvalHeader, then clamped if the
// values were clamped.
func (r *EvalResults) Header() []string {
	h := EvalHeader(r.Features, r.Class != nil)
	if r.Clamped != nil {
		h = append(h, EvalColumnClamped)
	}
	return h
}

// EvalReleaseAt evaluates a verified release at the n = len(x)/ℓ points x
// (data units, row-major) with (*synopsis.Verified).EvalDataBatch: values
// and noise standard deviations in the output's data units, and the class
// for classifiers. Every point must lie within the public bounds (else an
// *synopsis.OutOfBoundsError naming the point and feature, nothing evaluated); ctx
// cancels. This is post-processing of the release: no privacy cost.
func EvalReleaseAt(ctx context.Context, v *synopsis.Verified, x []float64) (*EvalResults, error) {
	l := len(v.File.Domain.Features)
	if l == 0 || len(x)%l != 0 {
		return nil, fmt.Errorf("query points: %d values is not a multiple of the %d features", len(x), l)
	}
	n := len(x) / l
	r := &EvalResults{X: x, Value: make([]float64, n), NoiseStd: make([]float64, n)}
	for _, b := range v.File.Domain.Features {
		r.Features = append(r.Features, b.Name)
	}
	if err := v.EvalDataBatch(ctx, x, r.Value, r.NoiseStd); err != nil {
		return nil, err
	}
	if isClassifier(v.File.Output.Kind) {
		r.Class = make([]string, n)
		for i, val := range r.Value {
			r.Class[i], _ = v.Class(val)
		}
	}
	return r, nil
}

func isClassifier(kind string) bool {
	k := learners.OutputKind(kind)
	return k == learners.OutputClassScore || k == learners.OutputProbability
}

// csvFloat is a float64 that gocsv writes in the shortest form that reads
// back to the same float64 ('g' format: 1e-300 rather than 300 zeros).
type csvFloat float64

// MarshalCSV implements gocsv.TypeMarshaller.
func (f csvFloat) MarshalCSV() (string, error) {
	return strconv.FormatFloat(float64(f), 'g', -1, 64), nil
}

// EvalHeader returns the CSV header of evaluation results: the feature
// names (a feature named value, noise_std or class is written as
// "feature:NAME" so that no two columns share a name), then value,
// noise_std and, for classifiers, class.
func EvalHeader(features []string, classifier bool) []string {
	h := make([]string, 0, len(features)+3)
	for _, f := range features {
		if f == EvalColumnValue || f == EvalColumnNoiseStd || f == EvalColumnClass {
			f = "feature:" + f
		}
		h = append(h, f)
	}
	h = append(h, EvalColumnValue, EvalColumnNoiseStd)
	if classifier {
		h = append(h, EvalColumnClass)
	}
	return h
}

// evalRowType is the typed result row gocsv marshals: ℓ csvFloat feature
// fields F0…, then Value, NoiseStd and (classifiers) Class. The feature
// columns depend on the release, so the type is built with
// reflect.StructOf; the header is written by EvalHeader because a feature
// name may hold characters a gocsv struct tag cannot (a comma ends it).
func evalRowType(dim int, classifier, clamped bool) reflect.Type {
	ft := reflect.TypeFor[csvFloat]()
	fields := make([]reflect.StructField, 0, dim+3)
	for j := range dim {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", j), Type: ft, Tag: reflect.StructTag(fmt.Sprintf(`csv:"f%d"`, j))})
	}
	fields = append(fields,
		reflect.StructField{Name: "Value", Type: ft, Tag: `csv:"value"`},
		reflect.StructField{Name: "NoiseStd", Type: ft, Tag: `csv:"noise_std"`})
	if classifier {
		fields = append(fields, reflect.StructField{Name: "Class", Type: reflect.TypeFor[string](), Tag: `csv:"class"`})
	}
	if clamped {
		fields = append(fields, reflect.StructField{Name: "Clamped", Type: reflect.TypeFor[bool](), Tag: `csv:"clamped"`})
	}
	return reflect.StructOf(fields)
}

// WriteCSV writes the results as CSV: the header of EvalHeader, then one
// typed row per point marshalled with gocsv (feature values in data units,
// value, noise_std, class), numbers in the shortest form that reads back
// exactly, and clamped (true or false) if the values were clamped. It
// streams in chunks, so memory stays bounded for 10^6 rows.
func (r *EvalResults) WriteCSV(w io.Writer) error {
	ew, err := newEvalCSVWriter(w, r.Features, r.Class != nil, r.Clamped != nil)
	if err != nil {
		return err
	}
	if err := ew.write(r); err != nil {
		return err
	}
	return ew.flush()
}

// evalCSVWriter writes evaluation results as CSV, one EvalResults after
// another (EvalPointsCSV writes a file's points chunk by chunk): the bytes
// are those of one WriteCSV of all the rows.
type evalCSVWriter struct {
	cw         *csv.Writer
	gw         *gocsv.SafeCSVWriter
	rows       reflect.Value // evalWriteChunk typed rows, reused
	dim        int
	classifier bool
	clamped    bool
}

// evalWriteChunk is how many rows evalCSVWriter marshals at once.
const evalWriteChunk = 4096

// newEvalCSVWriter writes the header (EvalHeader) and returns the writer
// of the rows.
func newEvalCSVWriter(w io.Writer, features []string, classifier, clamped bool) (*evalCSVWriter, error) {
	cw := csv.NewWriter(w)
	h := EvalHeader(features, classifier)
	if clamped {
		h = append(h, EvalColumnClamped)
	}
	if err := cw.Write(h); err != nil {
		return nil, err
	}
	rt := evalRowType(len(features), classifier, clamped)
	return &evalCSVWriter{cw: cw, gw: gocsv.NewSafeCSVWriter(cw), dim: len(features), classifier: classifier, clamped: clamped,
		rows: reflect.MakeSlice(reflect.SliceOf(rt), evalWriteChunk, evalWriteChunk)}, nil
}

// write appends the rows of r (which must have the writer's features).
func (e *evalCSVWriter) write(r *EvalResults) error {
	dim, rows := e.dim, e.rows
	n := r.Len()
	for lo := 0; lo < n; lo += evalWriteChunk {
		hi := min(lo+evalWriteChunk, n)
		for i := lo; i < hi; i++ {
			row := rows.Index(i - lo)
			for j := range dim {
				row.Field(j).SetFloat(r.X[i*dim+j])
			}
			row.Field(dim).SetFloat(r.Value[i])
			row.Field(dim + 1).SetFloat(r.NoiseStd[i])
			f := dim + 2
			if e.classifier {
				row.Field(f).SetString(r.Class[i])
				f++
			}
			if e.clamped {
				row.Field(f).SetBool(r.Clamped[i])
			}
		}
		if err := gocsv.MarshalCSVWithoutHeaders(rows.Slice(0, hi-lo).Interface(), e.gw); err != nil {
			return err
		}
	}
	return nil
}

// flush writes out what the CSV writer buffers.
func (e *evalCSVWriter) flush() error {
	e.cw.Flush()
	return e.cw.Error()
}
