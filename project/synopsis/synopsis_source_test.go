package synopsis

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// goldenSourcePath is the golden synopsis of a release from aggregates
// (format 1 with the optional "source" key; docs/synopsis-format.md,
// "Releases from aggregates"). Regenerate with
// go test -run TestSynopsisGoldenSource -update, deliberately.
const goldenSourcePath = goldenDir + "/golden-v1-aggregates.synopsis"

// goldenSourceFile is the golden fill content (ridge) computed from a
// DuckDB aggregate table.
func goldenSourceFile() *File {
	f := goldenFillFile()
	f.Source = &Source{Kind: SourceAggregates, Dialect: "duckdb",
		QuerySHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}
	return f
}

// TestSynopsisGoldenSource pins the bytes of a file with a source record,
// and that the files of the other kinds have none (they stay
// byte-identical: TestSynopsisGolden, TestSynopsisGoldenFill).
func TestSynopsisGoldenSource(t *testing.T) {
	checkGoldenSynopsis(t, goldenSourcePath, goldenSourceFile())
	want, err := os.ReadFile(goldenSourcePath)
	if err != nil {
		t.Fatal(err)
	}
	layout := "\n  ],\n  \"source\": {\n    \"kind\": \"aggregates\",\n    \"dialect\": \"duckdb\",\n    \"query_sha256\": \"9f86"
	if !bytes.Contains(want, []byte(layout)) {
		t.Errorf("%s does not have the documented source layout", goldenSourcePath)
	}
	for _, old := range []string{goldenPath, goldenFillPath} {
		b, err := os.ReadFile(old)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"source"`)) {
			t.Errorf("%s has a source key", old)
		}
	}
}

// TestSourceValidate refuses every malformed source record, naming the
// field.
func TestSourceValidate(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	cases := []struct {
		name, learner string
		src           Source
		field         string
	}{
		{"kind", "ridge", Source{Kind: "records", Dialect: "duckdb", QuerySHA256: hash}, "source.kind"},
		{"learner", "svm", Source{Kind: "aggregates", Dialect: "duckdb", QuerySHA256: hash}, "source.kind"},
		{"dialect", "ridge", Source{Kind: "aggregates", Dialect: "mysql", QuerySHA256: hash}, "source.dialect"},
		{"ridge bins", "ridge", Source{Kind: "aggregates", Dialect: "spark", Bins: 64, QuerySHA256: hash}, "source.bins"},
		{"kde no bins", "kde", Source{Kind: "aggregates", Dialect: "postgres", QuerySHA256: hash}, "source.bins"},
		{"kde many bins", "kde", Source{Kind: "aggregates", Dialect: "postgres", Bins: MaxAggregateBins + 1, QuerySHA256: hash}, "source.bins"},
		{"short hash", "ridge", Source{Kind: "aggregates", Dialect: "duckdb", QuerySHA256: hash[:63]}, "source.query_sha256"},
		{"upper hash", "ridge", Source{Kind: "aggregates", Dialect: "duckdb", QuerySHA256: strings.ToUpper(hash)}, "source.query_sha256"},
	}
	for _, c := range cases {
		f := &File{Learner: LearnerInfo{Kind: c.learner}, Source: &c.src}
		err := f.validateSource()
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Field != c.field || !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: got %v, want a malformed %s", c.name, err, c.field)
		}
	}
	ok := &File{Learner: LearnerInfo{Kind: "naive-bayes"}, Source: &Source{Kind: "aggregates", Dialect: "spark", Bins: 4096, QuerySHA256: hash}}
	if err := ok.validateSource(); err != nil {
		t.Errorf("a valid naive Bayes source: %v", err)
	}
}
