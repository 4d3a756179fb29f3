package figure

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestFigureCSVGolden runs figures 1 and 2 with their default protocols
// (the commands' defaults: seed 1, 1000 and 100 repeats) and compares the
// CSVs byte for byte with the committed docs/reproduction/figure{1,2}.csv:
// the figures are a public output and must not drift when the simulation
// code is restructured. Deterministic (fixed seeds): it cannot fail by
// chance.
func TestFigureCSVGolden(t *testing.T) {
	ctx := context.Background()
	rows1, err := runFigure1(ctx, Config1{Repeats: DefaultRepeats1, Bandwidth: DefaultBandwidth1, Seed: DefaultSeed1})
	if err != nil {
		t.Fatal(err)
	}
	res2, err := runFigure2(ctx, Config2{Repeats: DefaultRepeats2, Seed: DefaultSeed2})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		got  []byte
	}{
		{CSV1File, figure1CSV(rows1)},
		{CSV2File, figure2CSV(res2.Rows)},
	} {
		want, err := os.ReadFile(filepath.Join("..", "..", "docs", "reproduction", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(tc.got, want) {
			t.Errorf("%s differs from docs/reproduction/%s:\n got:\n%s\nwant:\n%s", tc.file, tc.file, tc.got, want)
		}
	}
}
