package project_test

import (
	"fmt"
	"strings"

	"github.com/bernsteinrelease/bernstein/project"
)

func ExampleParseCSV() {
	const data = "age;income;city\n34;52000;Oslo\n51;61000;Bergen\n29;n/a;Oslo\n"
	d, err := project.ParseCSV(strings.NewReader(data), "people.csv",
		project.CSVOptions{Columns: []string{"age", "income"}})
	fmt.Println(err)

	d, err = project.ParseCSV(strings.NewReader(data), "people.csv",
		project.CSVOptions{Columns: []string{"age", "income"}, DropInvalid: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("delimiter %q, %d rows kept, %d dropped, income %v\n", d.Delimiter, d.Rows, d.Dropped, d.Data["income"])
	// Output:
	// people.csv:4:2 (column "income"): "n/a" is not a number; fix the file or use the drop-invalid option to drop such rows
	// delimiter ';', 2 rows kept, 1 dropped, income [52000 61000]
}

func ExampleDataset_MapToUnit() {
	d, err := project.ParseCSV(strings.NewReader("age,income\n30,20000\n60,80000\n95,50000\n"), "people.csv",
		project.CSVOptions{Columns: []string{"age", "income"}})
	if err != nil {
		panic(err)
	}
	// Public bounds from domain knowledge, not from the data.
	x, clipped, err := d.MapToUnit([]string{"age", "income"}, []project.Bounds{{Lo: 0, Hi: 90}, {Lo: 0, Hi: 100000}})
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
