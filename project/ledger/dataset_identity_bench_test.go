package ledger

import (
	"strings"
	"testing"
)

// BenchmarkIdentifyDataset measures the record fingerprint (one sort of the
// rows) and the keyed sketch (one HMAC per row) of 10⁵ rows in 2 columns,
// the work a release adds for the ledger.
func BenchmarkIdentifyDataset(b *testing.B) {
	ds := parseTestCSV(b, "bench.csv", "x,y\n"+strings.Join(identityTestRows(100_000, 1), "\n")+"\n")
	key := make([]byte, sketchKeyBytes)
	b.ReportAllocs()
	for b.Loop() {
		id, err := IdentifyDataset(ds, []string{"x", "y"})
		if err != nil {
			b.Fatal(err)
		}
		if s := id.Sketch(key); len(s.Mins) != SketchSize {
			b.Fatalf("%d hashes", len(s.Mins))
		}
	}
}
