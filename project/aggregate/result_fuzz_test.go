package aggregate

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// FuzzResultTable reads arbitrary bytes as the result table of each
// learner's query: it must never panic, and a table it accepts must hold
// what the reader promises (bins in range, counts ≥ 1) and fit, with n the
// sum of its counts, or be refused with an error.
func FuzzResultTable(f *testing.F) {
	f.Add([]byte("bin_1,bin_2,records\n0,3,2\n5,1,3\n"), uint8(0))
	f.Add([]byte("class,feature,bin,records\n-1,1,3,2\n-1,2,0,2\n1,1,7,1\n1,2,7,1\n"), uint8(1))
	f.Add([]byte("records,sum_x1,sum_x2,sum_x1_x1,sum_x1_x2,sum_x2_x2,sum_x1_y,sum_x2_y,sum_y\n10,5,5,3,2.5,3,0.1,0.2,0.3\n"), uint8(2))
	f.Add([]byte("bin_1,bin_2,records\n0,8,2\n"), uint8(0))
	f.Add([]byte("records,bin_2,bin_1\n1e3,1,1\n\"2\",3,3\n"), uint8(0))
	specs := goldenSpecs()
	kinds := []string{"kde", "naive-bayes", "ridge"}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		spec := specs[kinds[int(which)%3]]
		spec.Bins = 8
		tab, err := dataset.ParseCSV(bytes.NewReader(data), "fuzz.csv", dataset.CSVOptions{Columns: Columns(spec)})
		if err != nil {
			return
		}
		r, err := resultOf(tab, spec, DuckDB)
		if err != nil {
			return
		}
		var n int64
		for i, c := range r.Counts {
			if c < 1 || r.Cells[i] < 0 || r.Cells[i] >= 8 {
				t.Fatalf("accepted row %d: bin %d, count %d", i, r.Cells[i], c)
			}
			n += c
		}
		switch spec.Learner {
		case learners.KindRidge:
			n = r.Records
		case learners.KindNaiveBayes:
			n = 0
			for i, c := range r.Counts {
				if r.Axis[i] == 1 {
					n += c
				}
			}
		}
		if n < 1 || n > 1e12 {
			return
		}
		spec.N = int(n)
		r.Spec = spec
		if fit, err := r.Fit(context.Background(), nil); err == nil && !(fit.Sensitivity > 0) {
			t.Fatalf("fit with S = %v", fit.Sensitivity)
		}
	})
}

// FuzzQueryName checks that any column name the spec accepts stays one
// quoted identifier in every dialect: the query with the name equals the
// query with a plain name after replacing the quoted forms.
func FuzzQueryName(f *testing.F) {
	for _, n := range hostileNames {
		f.Add(n)
	}
	base := goldenSpecs()["kde"]
	f.Fuzz(func(t *testing.T, name string) {
		spec := base
		spec.Features = append([]Feature(nil), base.Features...)
		spec.Features[0].Name = name
		if spec.Validate() != nil || name == base.Features[1].Name || name == "plain_name" || name == "records" {
			return
		}
		for _, d := range Dialects {
			q, err := Query(spec, d, Table("records"))
			if err != nil {
				t.Fatal(err)
			}
			plain := base
			plain.Features = append([]Feature(nil), base.Features...)
			plain.Features[0].Name = "plain_name"
			qp, err := Query(plain, d, Table("records"))
			if err != nil {
				t.Fatal(err)
			}
			qi := QuoteIdent(d, name)
			if unquoteIdent(d, qi) != name {
				t.Fatalf("%s: %q quoted as %s", d, name, qi)
			}
			if got := strings.ReplaceAll(q, qi, QuoteIdent(d, "plain_name")); got != qp {
				t.Fatalf("%s: the name %q changed the query beyond its identifier:\n%s", d, name, q)
			}
		}
	})
}
