package release

import (
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestChooseEngine: the engine depends only on public inputs (learner,
// format, file size against the threshold, declared n): Parquet always
// through DuckDB, a CSV from the threshold on when the learner has an
// aggregate path, the rest in memory; learners without one are refused
// for Parquet and beyond their row limit, with the limit named.
func TestChooseEngine(t *testing.T) {
	csvSmall := SourceInfo{Path: "a.csv", Format: FormatCSV, Size: 1000}
	csvLarge := SourceInfo{Path: "a.csv", Format: FormatCSV, Size: DefaultDuckDBCSVBytes}
	pq := SourceInfo{Path: "a.parquet", Format: FormatParquet, Size: 10}
	folder := SourceInfo{Path: "parts", Format: FormatParquet, Folder: true}
	pcLimit := RowLimit(learners.KindPriestleyChao)
	for _, c := range []struct {
		name      string
		src       SourceInfo
		k         learners.Kind
		n         int
		threshold int64
		want      Engine
		refusal   string // part of the refusal; "" for none
	}{
		{"small CSV, KDE", csvSmall, learners.KindKDE, 0, 0, EngineMemory, ""},
		{"large CSV, KDE", csvLarge, learners.KindKDE, 0, 0, EngineDuckDB, ""},
		{"large CSV, ridge", csvLarge, learners.KindRidge, 0, 0, EngineDuckDB, ""},
		{"large CSV, naive Bayes", csvLarge, learners.KindNaiveBayes, 0, 0, EngineDuckDB, ""},
		{"explicit threshold", csvSmall, learners.KindKDE, 0, 1000, EngineDuckDB, ""},
		{"just under the threshold", csvSmall, learners.KindKDE, 0, 1001, EngineMemory, ""},
		{"Parquet, KDE", pq, learners.KindKDE, 0, 0, EngineDuckDB, ""},
		{"Parquet folder, ridge", folder, learners.KindRidge, 0, 0, EngineDuckDB, ""},
		{"large CSV, Priestley–Chao in memory", csvLarge, learners.KindPriestleyChao, 0, 0, EngineMemory, ""},
		{"large CSV, SVM in memory", csvLarge, learners.KindSVM, 0, 0, EngineMemory, ""},
		{"Parquet, SVM", pq, learners.KindSVM, 0, 0, "", "export at most 1000000 rows"},
		{"Parquet folder, Priestley–Chao", folder, learners.KindPriestleyChao, 0, 0, "", "a folder of Parquet files"},
		{"declared n over the limit", csvSmall, learners.KindPriestleyChao, pcLimit + 1, 0, "", "at most 10000000 rows"},
		{"declared n at the limit", csvSmall, learners.KindPriestleyChao, pcLimit, 0, EngineMemory, ""},
	} {
		got, err := ChooseEngine(c.src, c.k, c.n, c.threshold)
		switch {
		case c.refusal == "" && (err != nil || got != c.want):
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		case c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.refusal)):
			t.Errorf("%s: %q, %v; want a refusal with %q", c.name, got, err, c.refusal)
		}
	}
}

// TestRowLimitInMemory: Prepare refuses a dataset beyond the learner's
// public row limit (n is public), naming the limit.
func TestRowLimitInMemory(t *testing.T) {
	old := inMemoryRowLimits[learners.KindSVM]
	inMemoryRowLimits[learners.KindSVM] = 50
	defer func() { inMemoryRowLimits[learners.KindSVM] = old }()
	req := Request{Dataset: releaseTestDataset(t, 51), Features: []string{"x"}, Label: "c", Learner: learners.KindSVM,
		Classes: &dataset.Classes{Negative: "3", Positive: "7"}, Bounds: map[string]dataset.Bounds{"x": {Lo: 0, Hi: 10}},
		Privacy: mechanism.Params{Epsilon: 1, Noise: mechanism.NoiseLaplace, K: []int{3}, H: 1}}
	_, err := Prepare(t.Context(), req, nil)
	if err == nil || !strings.Contains(err.Error(), "at most 50 rows") {
		t.Errorf("51 rows for a limit of 50: %v", err)
	}
}
