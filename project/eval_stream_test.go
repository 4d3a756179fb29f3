package project

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// evalAllAtOnce is the reference EvalPointsCSV must match byte for byte:
// the whole file read, evaluated and written at once.
func evalAllAtOnce(v *synopsis.Verified, path string) ([]byte, error) {
	var names []string
	for _, b := range v.File.Domain.Features {
		names = append(names, b.Name)
	}
	ds, err := dataset.ReadCSV(path, dataset.CSVOptions{Columns: names})
	if err != nil {
		return nil, err
	}
	x, err := QueryPoints(ds, v)
	if err != nil {
		return nil, err
	}
	res, err := EvalReleaseAt(context.Background(), v, x)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = res.WriteCSV(&b)
	return b.Bytes(), err
}

// queryCSV writes a query file with the given header and rows made by
// row(i) into dir.
func queryCSV(t *testing.T, dir, name, header string, rows int, row func(i int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range rows {
		b.WriteString(row(i) + "\n")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// openSyn reads a synopsis encoded by the fixtures (key "alice", trusted).
func openSyn(t *testing.T, f *synopsis.File) *synopsis.Verified {
	t.Helper()
	data := encodeSyn(t, f, "alice")
	v, err := synopsis.Read(bytes.NewReader(data), int64(len(data)), synTrust(t, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEvalPointsCSVIdentical: streaming in chunks writes exactly the bytes
// of evaluating the whole file at once (issue 14 item 11), across chunk
// borders, with other columns in any order, for a classifier and for a
// feature named like a result column.
func TestEvalPointsCSVIdentical(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 14))
	dens := buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{5, 4}, h: 2})
	prob := buildSynFile(t, synSpec{kind: learners.OutputProbability, k: []int{6}})
	prob.Domain.Features[0].Name = "value"
	cases := []struct {
		name string
		f    *synopsis.File
		path string
	}{
		{"density, 2 features, extra column, 2.5 chunks", dens, queryCSV(t, dir, "d.csv", "note,x1,x0", 2*evalChunk+evalChunk/2, func(i int) string {
			return fmt.Sprintf("r%d,%v,%v", i, 10+rng.Float64()*30, 10+rng.Float64()*20)
		})},
		{"probability, feature named value, exactly one chunk", prob, queryCSV(t, dir, "p.csv", "value", evalChunk, func(i int) string {
			return fmt.Sprintf("%v", 10+rng.Float64()*20)
		})},
		{"one row", dens, queryCSV(t, dir, "one.csv", "x0,x1", 1, func(int) string { return "10,40" })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := openSyn(t, c.f)
			want, err := evalAllAtOnce(v, c.path)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			n, err := EvalPointsCSV(context.Background(), v, c.path, &got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("streamed output (%d bytes) differs from the all-at-once output (%d bytes)", got.Len(), len(want))
			}
			if lines := bytes.Count(want, []byte("\n")) - 1; n != lines {
				t.Errorf("returned %d rows; the output has %d", n, lines)
			}
		})
	}
}

// TestEvalPointsCSVErrors: a file with an error gives the error of the
// all-at-once evaluation and writes nothing, also when the error is in a
// later chunk than the first.
func TestEvalPointsCSVErrors(t *testing.T) {
	dir := t.TempDir()
	v := openSyn(t, buildSynFile(t, synSpec{kind: learners.OutputDensity, k: []int{5, 4}}))
	late := evalChunk + 17
	cases := map[string]string{
		"out of bounds in the second chunk": queryCSV(t, dir, "oob.csv", "x0,x1", 2*evalChunk, func(i int) string {
			if i == late {
				return "31,20"
			}
			return "15,20"
		}),
		"bad number in the second chunk": queryCSV(t, dir, "bad.csv", "x0,x1", 2*evalChunk, func(i int) string {
			if i == late || i == late+5 {
				return "15,abc"
			}
			return "15,20"
		}),
		"missing feature column": queryCSV(t, dir, "missing.csv", "x0,z", 3, func(int) string { return "15,20" }),
	}
	for name, path := range cases {
		t.Run(name, func(t *testing.T) {
			_, want := evalAllAtOnce(v, path)
			if want == nil {
				t.Fatal("the reference accepted the file")
			}
			var got bytes.Buffer
			_, err := EvalPointsCSV(context.Background(), v, path, &got)
			if err == nil || err.Error() != want.Error() {
				t.Fatalf("error %v, want %v", err, want)
			}
			if got.Len() != 0 {
				t.Errorf("wrote %d bytes for a file with an error", got.Len())
			}
			var oob *synopsis.OutOfBoundsError
			if strings.Contains(name, "bounds") && (!errors.As(err, &oob) || !strings.Contains(err.Error(), fmt.Sprintf("point %d:", late))) {
				t.Errorf("out of bounds error %v does not name point %d", err, late)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := EvalPointsCSV(ctx, v, cases["out of bounds in the second chunk"], &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
