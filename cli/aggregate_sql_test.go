package cli

import (
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/aggregate"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestAggregateSQLPrintsTheQuery checks that aggregate-sql prints
// aggregate.Query's text for the flags: defaults (midpoint fill, B = 4096,
// table "data") and explicit fill, bins, table, classes and fill class.
func TestAggregateSQLPrintsTheQuery(t *testing.T) {
	te := newTestEnv()
	for _, tc := range []struct {
		args []string
		spec aggregate.Spec
		d    aggregate.Dialect
		tab  string
	}{
		{[]string{"--learner", "kde", "--features", "age,income", "--bounds", "age=0:100,income=0:2e5", "--dialect", "duckdb"},
			aggregate.Spec{Learner: learners.KindKDE, Features: []aggregate.Feature{
				{Name: "age", Bounds: dataset.Bounds{Lo: 0, Hi: 100}, Fill: 50}, {Name: "income", Bounds: dataset.Bounds{Lo: 0, Hi: 2e5}, Fill: 1e5}}},
			aggregate.DuckDB, "data"},
		{[]string{"--learner", "ridge", "--features", "x", "--label", "y", "--bounds", "x=0:1,y=-5:5", "--fill", "y=1", "--dialect", "postgres", "--table", `my "records"`},
			aggregate.Spec{Learner: learners.KindRidge, Features: []aggregate.Feature{{Name: "x", Bounds: dataset.Bounds{Lo: 0, Hi: 1}, Fill: 0.5}},
				Label: &aggregate.Label{Name: "y", Bounds: dataset.Bounds{Lo: -5, Hi: 5}, Fill: 1}},
			aggregate.Postgres, `my "records"`},
		{[]string{"--learner", "naive-bayes", "--features", "a", "--label", "c", "--bounds", "a=-1:1", "--classes", "no,yes", "--fill-class", "yes", "--bins", "256", "--dialect", "spark"},
			aggregate.Spec{Learner: learners.KindNaiveBayes, Bins: 256, Features: []aggregate.Feature{{Name: "a", Bounds: dataset.Bounds{Lo: -1, Hi: 1}, Fill: 0}},
				Label: &aggregate.Label{Name: "c", Classes: &dataset.Classes{Negative: "no", Positive: "yes"}, FillClass: 1}},
			aggregate.Spark, "data"},
	} {
		r := te.mustRun(t, append([]string{"aggregate-sql"}, tc.args...)...)
		want, err := aggregate.Query(tc.spec, tc.d, aggregate.Table(tc.tab))
		if err != nil {
			t.Fatal(err)
		}
		if r.stdout != want {
			t.Errorf("%v: printed\n%s\nwant\n%s", tc.args, r.stdout, want)
		}
	}
}

func TestAggregateSQLRefusals(t *testing.T) {
	te := newTestEnv()
	base := []string{"aggregate-sql", "--features", "a", "--bounds", "a=0:1", "--dialect", "duckdb"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"aggregate-sql", "--features", "a", "--bounds", "a=0:1", "--dialect", "duckdb"}, "--learner is required"},
		{append(base, "--learner", "svm"), "has no aggregate query"},
		{[]string{"aggregate-sql", "--learner", "kde", "--features", "a", "--bounds", "a=0:1", "--dialect", "mysql"}, "want duckdb, postgres or spark"},
		{[]string{"aggregate-sql", "--learner", "kde", "--features", "a", "--dialect", "duckdb"}, "--bounds a=LO:HI is required"},
		{[]string{"aggregate-sql", "--learner", "kde", "--features", "a", "--bounds", "a=data", "--dialect", "duckdb"}, "cannot read the data"},
		{append(base, "--learner", "kde", "--fill", "a=2"), "within the public bounds"},
		{append(base, "--learner", "kde", "--fill", "b=2"), "neither a feature nor a real label"},
		{append(base, "--learner", "naive-bayes", "--label", "c"), "needs --classes"},
		{append(base, "--learner", "naive-bayes", "--label", "c", "--classes", "0,1", "--fill-class", "2"), "neither declared class"},
		{append(base, "--learner", "kde", "--classes", "0,1"), "only to learners with a binary label"},
		{append(base, "--learner", "kde", "--bins", "1"), "between 2 and"},
		{append(base, "--learner", "kde", "--table", ""), "no source table"},
	} {
		r := te.run(tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit %d and %q", tc.args, r.code, r.stderr, r.stdout, exitUsage, tc.want)
		}
	}
}
