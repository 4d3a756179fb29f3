package dataset_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

func ExampleParseCSV() {
	const data = "age;income;city\n34;52000;Oslo\n51;61000;Bergen\n29;n/a;Oslo\n"
	d, err := dataset.ParseCSV(strings.NewReader(data), "people.csv",
		dataset.CSVOptions{Columns: []string{"age", "income"}})
	fmt.Println(err)

	d, err = dataset.ParseCSV(strings.NewReader(data), "people.csv",
		dataset.CSVOptions{Columns: []string{"age", "income"}, KeepInvalid: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("delimiter %q, %d rows, %d missing income, income %v\n", d.Delimiter, d.Rows, d.Invalid["income"], d.Data["income"])
	// Output:
	// people.csv:4:2 (column "income"): "n/a" is not a number; fix the file, or keep the rows and declare public fill values for such values
	// delimiter ';', 3 rows, 1 missing income, income [52000 61000 NaN]
}

func ExampleTable_MapToUnit() {
	d, err := dataset.ParseCSV(strings.NewReader("age,income\n30,20000\n60,80000\n95,50000\n"), "people.csv",
		dataset.CSVOptions{Columns: []string{"age", "income"}})
	if err != nil {
		panic(err)
	}
	// Public bounds from domain knowledge, not from the data.
	x, clipped, err := d.MapToUnit([]string{"age", "income"}, []dataset.Bounds{{Lo: 0, Hi: 90}, {Lo: 0, Hi: 100000}})
	if err != nil {
		panic(err)
	}
	for i := 0; i < d.Rows; i++ {
		fmt.Printf("%.3f %.3f\n", x[2*i], x[2*i+1])
	}
	fmt.Println("clipped per column:", clipped)
	// Output:
	// 0.333 0.200
	// 0.667 0.800
	// 1.000 0.500
	// clipped per column: [1 0]
}

func ExampleReadCSV() {
	dir, err := os.MkdirTemp("", "csv")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(path, []byte("\ufeffage\tweight\n34\t71.5\n51\t\n29\tNaN\n"), 0o644); err != nil {
		panic(err)
	}
	_, err = dataset.ReadCSV(path, dataset.CSVOptions{Columns: []string{"age", "weight"}})
	var ce *dataset.CSVError
	if errors.As(err, &ce) {
		fmt.Printf("line %d, column %d (%s): %v\n", ce.Line, ce.Column, ce.ColumnName, ce.Lines)
	}
	d, err := dataset.ReadCSV(path, dataset.CSVOptions{Columns: []string{"age", "weight"}, KeepInvalid: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("columns %q, %d rows, weight %v (%d missing)\n", d.Columns, d.Rows, d.Data["weight"], d.Invalid["weight"])
	// Output:
	// line 3, column 2 (weight): [3 4]
	// columns ["age" "weight"], 3 rows, weight [71.5 NaN NaN] (2 missing)
}

func ExamplePreviewImport() {
	const data = "Blood pressure, site 3\nexported 2026-11-24\nage;systolic\n41;120,5\n52;131\n"
	pv, err := dataset.PreviewImport(strings.NewReader(data), "bp.csv", dataset.ImportOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(pv.Header, pv.Problems[0])

	pv, err = dataset.PreviewImport(strings.NewReader(data), "bp.csv", dataset.ImportOptions{HeaderRow: 3, DecimalComma: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("delimiter %s, header %q at line %d, rows %q at lines %v, numeric %v\n",
		dataset.DelimiterName(pv.Delimiter), pv.Header, pv.HeaderLine, pv.Rows, pv.RowLines, pv.Numeric)
	// Output:
	// [Blood pressure site 3] bp.csv:2: row has 1 field, the header has 2 (delimiter ','); is line 1 really the header? if the file starts with a preamble, set the header row
	// delimiter ';', header ["age" "systolic"] at line 3, rows [["41" "120,5"] ["52" "131"]] at lines [4 5], numeric [true true]
}
