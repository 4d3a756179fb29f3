package release

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// The tests of a release from an aggregate table write the table the
// query would return with an in-memory counter over the records as the
// in-memory path maps them (p.Data of a release from the records: filled,
// clipped, mapped), so the two paths can be compared value for value. The
// embedded DuckDB computes it in aggregates_duckdb_test.go (Linux, cgo).

// writeTable writes a CSV result table (header and rows) into dir.
func writeTable(t *testing.T, dir, name string, header []string, rows [][]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// kdeTable counts the mapped records of d per fine bin cell (B per axis),
// as the KDE query does: bin_j = min(floor(x_j·B), B − 1).
func kdeTable(d learners.Dataset, B int) ([]string, [][]string) {
	counts := map[string]int{}
	var order []string
	for i := range d.N() {
		var key []string
		for j := range d.Dim {
			key = append(key, strconv.Itoa(min(int(math.Floor(d.X[i*d.Dim+j]*float64(B))), B-1)))
		}
		k := strings.Join(key, ",")
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	var header []string
	for j := 1; j <= d.Dim; j++ {
		header = append(header, fmt.Sprintf("bin_%d", j))
	}
	header = append(header, "records")
	rows := make([][]string, 0, len(order))
	for _, k := range order {
		rows = append(rows, append(strings.Split(k, ","), strconv.Itoa(counts[k])))
	}
	return header, rows
}

// ridgeTable writes the ridge query's one row of sums of d (mapped
// features in [0, 1], label in [−1, 1]), in the columns of
// aggregate.Columns.
func ridgeTable(d learners.Dataset) ([]string, [][]string) {
	n, dim := d.N(), d.Dim
	x := func(i, j int) float64 { return d.X[i*dim+j] }
	sum := func(f func(i int) float64) string {
		s := 0.0
		for i := range n {
			s += f(i)
		}
		return strconv.FormatFloat(s, 'g', -1, 64)
	}
	row := []string{strconv.Itoa(n)}
	for j := range dim {
		row = append(row, sum(func(i int) float64 { return x(i, j) }))
	}
	for j := range dim {
		for k := j; k < dim; k++ {
			row = append(row, sum(func(i int) float64 { return x(i, j) * x(i, k) }))
		}
	}
	for j := range dim {
		row = append(row, sum(func(i int) float64 { return x(i, j) * d.Labels[i] }))
	}
	row = append(row, sum(func(i int) float64 { return d.Labels[i] }))
	return aggregate.Columns(aggregate.Spec{Learner: learners.KindRidge, Features: make([]aggregate.Feature, dim)}), [][]string{row}
}

// releaseAndOpen releases p in e and reads the synopsis back, verified.
func releaseAndOpen(t *testing.T, p *Prepared, e *releaseEnv) (*Result, *synopsis.Verified) {
	t.Helper()
	res, err := p.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatal(err)
	}
	v, err := synopsis.Open(res.Path, e.trusted(t))
	if err != nil {
		t.Fatal(err)
	}
	return res, v
}

// fromAggregates turns a request from the records into the same request
// from the table at path (n declared, dataset named).
func fromAggregates(req Request, path string, n int) Request {
	req.Dataset = nil
	req.Aggregates = &Aggregates{Path: path, Dialect: aggregate.DuckDB, N: n, Dataset: "clinic admissions 2026"}
	return req
}

// ridgeRequest is a valid ridge request on x, y with the real label r.
func ridgeRequest(ds *dataset.Table) Request {
	return Request{
		Dataset:  ds,
		Features: []string{"x", "y"},
		Label:    "r",
		Bounds:   map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}, "y": {Lo: 0, Hi: 10}, "r": {Lo: -5, Hi: 5}},
		Fill:     map[string]float64{"y": 2.5},
		Learner:  learners.KindRidge,
		Privacy:  mechanism.Params{Epsilon: 0.5, Noise: mechanism.NoiseLaplace, K: []int{4, 3}, H: 1},
		Title:    "ridge from aggregates",
	}
}

// TestReleaseFromKDEAggregates releases a KDE from its aggregate table:
// the prepared lattice is the in-memory one within the binning bound
// (learners.KDEBinningBound) with the same S; the synopsis verifies,
// evaluates, and records the source (dialect, B, the query's hash); the
// ledger is charged before the file is written, on the named dataset,
// with the table's and the query's hashes in its note.
// kdeAggregatesFixture is 300 test records released in memory (KDE of x),
// a release environment and the KDE aggregate table of the records at B
// fine bins, written as CSV (kde.csv in the environment's folder).
type kdeAggregatesFixture struct {
	ds     *dataset.Table
	mem    *Prepared
	e      *releaseEnv
	header []string
	rows   [][]string
	path   string
}

func newKDEAggregatesFixture(t *testing.T, B int) *kdeAggregatesFixture {
	t.Helper()
	f := &kdeAggregatesFixture{ds: releaseTestDataset(t, 300)}
	var err error
	if f.mem, err = Prepare(context.Background(), kdeRequest(f.ds), nil); err != nil {
		t.Fatal(err)
	}
	f.e = newReleaseEnv(t)
	f.header, f.rows = kdeTable(f.mem.LearnerData(), B)
	f.path = writeTable(t, f.e.dir, "kde.csv", f.header, f.rows)
	return f
}

func TestReleaseFromKDEAggregates(t *testing.T) {
	const B = 256
	f := newKDEAggregatesFixture(t, B)
	ds, mem, e, path := f.ds, f.mem, f.e, f.path
	req := fromAggregates(kdeRequest(ds), path, 300)
	req.Aggregates.Bins = B
	p, err := Prepare(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Fitted.Sensitivity != mem.Fitted.Sensitivity || p.Fitted.N != 300 {
		t.Errorf("S %v n %d; in memory S %v n 300", p.Fitted.Sensitivity, p.Fitted.N, mem.Fitted.Sensitivity)
	}
	bound := learners.KDEBinningBound([]float64{0.1}, B)
	for i := range p.Exact {
		if d := math.Abs(p.Exact[i] - mem.Exact[i]); d > bound {
			t.Errorf("lattice value %d: binned %v, records %v: difference %v above the binning bound %v", i, p.Exact[i], mem.Exact[i], d, bound)
		}
	}
	res, v := releaseAndOpen(t, p, e)
	spec := aggregate.Spec{Learner: learners.KindKDE, Bins: B,
		Features: []aggregate.Feature{{Name: "x", Bounds: dataset.Bounds{Lo: 0, Hi: 10}, Fill: 5}}}
	q, err := aggregate.Query(spec, aggregate.DuckDB, aggregate.Table("data"))
	if err != nil {
		t.Fatal(err)
	}
	want := synopsis.Source{Kind: "aggregates", Dialect: "duckdb", Bins: B, QuerySHA256: QueryHash(q)}
	if v.File.Source == nil || *v.File.Source != want {
		t.Errorf("source %+v, want %+v", v.File.Source, want)
	}
	if v.File.Learner.N != 300 || len(v.File.Fill) != 1 || *v.File.Fill[0].Value != 5 {
		t.Errorf("learner %+v fill %+v", v.File.Learner, v.File.Fill)
	}
	val, std, err := v.EvalData([]float64{5})
	if err != nil || !isFinite(val) || !(std > 0) {
		t.Errorf("evaluating at x = 5: %v ± %v, %v", val, std, err)
	}
	named := NamedDataset("clinic admissions 2026")
	entries := e.ledger.Entries(named)
	if len(entries) != 1 || res.Entry.DatasetHash != named || res.Total != 0.5 {
		t.Fatalf("ledger entries on the named dataset: %+v; result %+v", entries, res)
	}
	en := entries[0]
	if en.DatasetPath != absPath(path) || en.Identity != nil || !strings.Contains(en.Note, QueryHash(q)) ||
		!strings.Contains(en.Note, "table SHA-256 ") || !strings.Contains(en.Note, `"clinic admissions 2026"`) {
		t.Errorf("ledger entry %+v", en)
	}
	if _, err := p.Identity(); err == nil {
		t.Error("a release from aggregates has a records identity")
	}
}

// TestReleaseFromRidgeMoments: ridge from its sums gives the in-memory
// release's lattice function (noise-free values to 1e-12 of the output
// range) and S, for every dialect's error bound.
func TestReleaseFromRidgeMoments(t *testing.T) {
	ds := releaseTestDataset(t, 400)
	mem, err := Prepare(context.Background(), ridgeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	header, rows := ridgeTable(mem.Data)
	path := writeTable(t, t.TempDir(), "ridge.csv", header, rows)
	for _, d := range aggregate.Dialects {
		req := fromAggregates(ridgeRequest(ds), path, 400)
		req.Aggregates.Dialect = d
		p, err := Prepare(context.Background(), req, nil)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if p.Fitted.Sensitivity != mem.Fitted.Sensitivity {
			t.Errorf("%s: S %v, in memory %v", d, p.Fitted.Sensitivity, mem.Fitted.Sensitivity)
		}
		r := mem.Fitted.OutputRange
		tol := 1e-9 * (r[1] - r[0])
		for i := range p.Exact {
			if diff := math.Abs(p.Exact[i] - mem.Exact[i]); diff > tol {
				t.Errorf("%s: lattice value %d: from sums %v, from records %v (difference %v > %v)", d, i, p.Exact[i], mem.Exact[i], diff, tol)
			}
		}
		if !slices.Equal(p.Params.K, mem.Params.K) || p.Domain.Label == nil || *p.Domain.Label != *mem.Domain.Label {
			t.Errorf("%s: k %v label %+v; in memory k %v label %+v", d, p.Params.K, p.Domain.Label, mem.Params.K, mem.Domain.Label)
		}
		if len(p.Fill) != 3 || *p.Fill[1].Value != 2.5 || p.Source.Bins != 0 || p.Source.Dialect != string(d) {
			t.Errorf("%s: fill %+v source %+v", d, p.Fill, p.Source)
		}
	}
}

// TestAggregateRefusals: a table that does not fit the spec, or counts
// another n, is refused naming the file (and the line and column where
// one applies); settings that need the records are refused; nothing is
// charged.
func TestAggregateRefusals(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	mem, err := Prepare(context.Background(), kdeRequest(ds), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	header, rows := kdeTable(mem.LearnerData(), 64)
	good := writeTable(t, dir, "good.csv", header, rows)
	bad := slices.Clone(rows)
	bad[1] = []string{"64", bad[1][1]}
	cases := []struct {
		name string
		edit func(r *Request)
		want []string // substrings of the error
	}{
		{"extra column", func(r *Request) {
			r.Aggregates.Path = writeTable(t, dir, "extra.csv", []string{"bin_1", "bin_2", "records"}, [][]string{{"1", "2", "3"}})
		}, []string{"extra.csv:1:2", `"bin_2"`, "not a column"}},
		{"bin outside", func(r *Request) { r.Aggregates.Path = writeTable(t, dir, "bin.csv", header, bad) }, []string{"bin.csv:3", `"bin_1"`, "[0, 63]"}},
		{"other n", func(r *Request) { r.Aggregates.N = 49 }, []string{"good.csv", "the aggregates count more than 49 records", "declared n is 49"}},
		{"n missing", func(r *Request) { r.Aggregates.N = 0 }, []string{"n:", "declare"}},
		{"other bins", func(r *Request) { r.Aggregates.Bins = 32 }, []string{"good.csv", `"bin_1"`, "[0, 31]"}},
		{"no dataset id", func(r *Request) { r.Aggregates.Dataset = " " }, []string{"dataset id"}},
		{"dialect", func(r *Request) { r.Aggregates.Dialect = "mysql" }, []string{"dialect"}},
		{"records too", func(r *Request) { r.Dataset = ds }, []string{"not both"}},
		{"svm", func(r *Request) { r.Learner = learners.KindSVM }, []string{"svm", "no aggregate path"}},
		{"data bounds", func(r *Request) {
			r.BoundsFromData = map[string]bool{"x": true}
			r.AcknowledgedDataBounds = true
		}, []string{"bounds[x]", "typed"}},
		{"fill outside", func(r *Request) { r.Fill = map[string]float64{"x": 11} }, []string{"fill[x]"}},
	}
	for _, c := range cases {
		req := fromAggregates(kdeRequest(ds), good, 50)
		req.Aggregates.Bins = 64
		c.edit(&req)
		_, err := Prepare(context.Background(), req, nil)
		if err == nil {
			t.Errorf("%s: prepared", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
}

// TestAggregateLedgerDataset: the declared ledger dataset. The records
// fingerprint (or the dataset hash, at least 12 digits) of an earlier
// release from the records charges that release's budget, so the same
// data released once from the file and once from aggregates is counted
// once in one budget; an unknown hash is refused before anything is
// charged (a typo must not open a new budget); a name opens or shares a
// dataset; "different population" is refused.
func TestAggregateLedgerDataset(t *testing.T) {
	ds := releaseTestDataset(t, 120)
	e := newReleaseEnv(t)
	small := func() Request { r := kdeRequest(ds); r.Privacy.Epsilon = 0.2; return r }
	mem, err := Prepare(context.Background(), small(), nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := mem.Release(context.Background(), e.opt)
	if err != nil {
		t.Fatal(err)
	}
	header, rows := kdeTable(mem.LearnerData(), aggregate.DefaultBins)
	path := writeTable(t, e.dir, "kde.csv", header, rows)
	release := func(decl string, differentPopulation bool) (*Result, error) {
		req := fromAggregates(small(), path, 120)
		req.Aggregates.Dataset = decl
		p, err := Prepare(context.Background(), req, nil)
		if err != nil {
			return nil, err
		}
		opt := e.opt
		opt.Out = filepath.Join(e.dir, fmt.Sprintf("agg%d.synopsis", len(e.ledger.Entries(""))))
		opt.DifferentPopulation = differentPopulation
		if _, _, err := p.LedgerDatasets(e.ledger, differentPopulation); err != nil {
			return nil, err
		}
		return p.Release(context.Background(), opt)
	}
	key := first.Entry.DatasetHash
	for _, decl := range []string{preparedKey(t, mem)[:12], strings.ToUpper(key)} {
		res, err := release(decl, false)
		if err != nil {
			t.Fatalf("%s: %v", decl, err)
		}
		if res.Entry.DatasetHash != key {
			t.Errorf("%s: charged to %s, want the records' dataset %s", decl, res.Entry.DatasetHash, key)
		}
	}
	if spent, _ := e.ledger.Spent(key); math.Abs(spent-0.6) > 1e-12 {
		t.Errorf("the records' dataset spent ε %v, want 0.6 (one release from the file, two from aggregates)", spent)
	}
	before := len(e.ledger.Entries(""))
	if _, err := release("0123456789ab", false); err == nil || !strings.Contains(err.Error(), "no dataset 0123456789ab") {
		t.Errorf("unknown hash: %v", err)
	}
	var re *RequestError
	if _, err := release("clinic", true); !errors.As(err, &re) || re.Field != "different population" {
		t.Errorf("different population: %v", err)
	}
	if _, err := release("bad\nname", false); err == nil {
		t.Error("a name with a line feed was accepted")
	}
	if n := len(e.ledger.Entries("")); n != before {
		t.Errorf("%d entries after three refusals, want %d", n, before)
	}
	for range 2 {
		if _, err := release("clinic", false); err != nil {
			t.Fatal(err)
		}
	}
	if got := e.ledger.Entries(NamedDataset("clinic")); len(got) != 2 {
		t.Errorf("%d releases on the dataset named clinic, want 2", len(got))
	}
}

// TestAggregateDialectsPinned: the synopsis's list of dialects is the
// aggregate package's (synopsis cannot import it).
func TestAggregateDialectsPinned(t *testing.T) {
	var want []string
	for _, d := range aggregate.Dialects {
		want = append(want, string(d))
	}
	if !slices.Equal(synopsis.AggregateDialects, want) || synopsis.MaxAggregateBins != aggregate.MaxBins {
		t.Errorf("synopsis dialects %v bins %d; aggregate %v %d", synopsis.AggregateDialects, synopsis.MaxAggregateBins, want, aggregate.MaxBins)
	}
}

// TestAggregateQueryMatchesRelease: the query AggregateQuery shows the
// curator (the window's "Use aggregates computed elsewhere") is the text
// whose SHA-256 the release from its table records, for each dialect and
// table name; a learner without an aggregate path is refused.
func TestAggregateQueryMatchesRelease(t *testing.T) {
	ds := releaseTestDataset(t, 50)
	req := ridgeRequest(ds)
	for _, d := range aggregate.Dialects {
		q, err := AggregateQuery(req, d, "survey", 0)
		if err != nil {
			t.Fatal(err)
		}
		spec := aggregate.Spec{Learner: learners.KindRidge, Features: []aggregate.Feature{
			{Name: "x", Bounds: req.Bounds["x"], Fill: 5}, {Name: "y", Bounds: req.Bounds["y"], Fill: 2.5}},
			Label: &aggregate.Label{Name: "r", Bounds: req.Bounds["r"], Fill: 0}}
		want, err := aggregate.Query(spec, d, aggregate.Table("survey"))
		if err != nil {
			t.Fatal(err)
		}
		if q != want {
			t.Errorf("%s: AggregateQuery:\n%s\nwant aggregate.Query's:\n%s", d, q, want)
		}
	}
	req.Learner = learners.KindSVM
	if _, err := AggregateQuery(req, aggregate.DuckDB, "", 0); err == nil {
		t.Error("svm: a query was written")
	}
}
