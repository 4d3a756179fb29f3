package ui

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/gocarina/gocsv"
)

// Result columns written after the feature columns of a batch export.
const (
	viewerColValue    = "value"
	viewerColNoiseStd = "noise_std"
	viewerColClass    = "class"
)

// viewerCSVFloat is a float64 that gocsv writes in the shortest form that reads
// back to the same float64 ('g' format, e.g. 1e-300 rather than 300 zeros).
type viewerCSVFloat float64

// MarshalCSV implements gocsv.TypeMarshaller.
func (f viewerCSVFloat) MarshalCSV() (string, error) {
	return strconv.FormatFloat(float64(f), 'g', -1, 64), nil
}

// viewerExportHeader returns the header of a batch export: one column per feature
// (its name; a feature whose name equals a result column is written as
// "feature:<name>" so that no two columns share a name), then value,
// noise_std and, for classifiers, class.
func viewerExportHeader(features []viewerFeature, classifier bool) []string {
	h := make([]string, 0, len(features)+3)
	for _, f := range features {
		name := f.Name
		if name == viewerColValue || name == viewerColNoiseStd || name == viewerColClass {
			name = "feature:" + name
		}
		h = append(h, name)
	}
	h = append(h, viewerColValue, viewerColNoiseStd)
	if classifier {
		h = append(h, viewerColClass)
	}
	return h
}

// viewerRowType returns the typed result row that gocsv marshals: dim
// viewerCSVFloat feature fields F0…, then Value, NoiseStd and (for classifiers)
// Class. The feature columns depend on the release, so the struct type is
// built with reflect.StructOf; the header is written separately
// (viewerExportHeader) because feature names may contain characters that a struct
// tag cannot carry (a comma ends a gocsv tag name).
func viewerRowType(dim int, classifier bool) reflect.Type {
	ft := reflect.TypeFor[viewerCSVFloat]()
	fields := make([]reflect.StructField, 0, dim+3)
	for j := range dim {
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("F%d", j), Type: ft, Tag: reflect.StructTag(fmt.Sprintf(`csv:"f%d"`, j)),
		})
	}
	fields = append(fields,
		reflect.StructField{Name: "Value", Type: ft, Tag: `csv:"value"`},
		reflect.StructField{Name: "NoiseStd", Type: ft, Tag: `csv:"noise_std"`})
	if classifier {
		fields = append(fields, reflect.StructField{Name: "Class", Type: reflect.TypeFor[string](), Tag: `csv:"class"`})
	}
	return reflect.StructOf(fields)
}

// viewerWriteCSV writes a batch result as CSV to w: the header of
// viewerExportHeader, then one typed row per query marshalled with gocsv
// (feature values in data units as read, value, noise_std, class). Numbers
// are written in the shortest form that reads back exactly. progress, if not
// nil, is called with rows written (on the calling goroutine) at most about
// 100 times. It returns ctx.Err() when cancelled, leaving w partly written
// (callers write to a temporary file or buffer).
func viewerWriteCSV(ctx context.Context, w io.Writer, b *viewerBatch, progress func(done, total int)) error {
	dim := len(b.Features)
	classifier := b.Class != nil
	cw := csv.NewWriter(w)
	if err := cw.Write(viewerExportHeader(b.Features, classifier)); err != nil {
		return err
	}
	n := b.rows()
	rt := viewerRowType(dim, classifier)
	chunk := min(max(n/100, 1), viewerBatchChunk)
	rows := reflect.MakeSlice(reflect.SliceOf(rt), chunk, chunk)
	gw := gocsv.NewSafeCSVWriter(cw)
	for lo := 0; lo < n; lo += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+chunk, n)
		for i := lo; i < hi; i++ {
			row := rows.Index(i - lo)
			for j := range dim {
				row.Field(j).SetFloat(b.X[i*dim+j])
			}
			row.Field(dim).SetFloat(b.Value[i])
			row.Field(dim + 1).SetFloat(b.NoiseStd[i])
			if classifier {
				row.Field(dim + 2).SetString(b.Class[i])
			}
		}
		if err := gocsv.MarshalCSVWithoutHeaders(rows.Slice(0, hi-lo).Interface(), gw); err != nil {
			return err
		}
		if progress != nil {
			progress(hi, n)
		}
	}
	cw.Flush()
	return cw.Error()
}
