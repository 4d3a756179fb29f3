package ledger_test

import (
	"fmt"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// The ledger key of a dataset is the fingerprint of its records in the used
// columns: a re-saved file with CRLF line ends, a BOM, other row order and
// an extra column holds the same records.
func ExampleIdentifyDataset() {
	original := "age,income\n34,52000\n51,61000\n"
	resaved := "\uFEFFid;income;age\r\n2;61000.0;51\r\n1;52000;34\r\n\r\n"
	changed := "age,income\n34,52000\n51,61001\n"
	var keys []string
	for _, text := range []string{original, resaved, changed} {
		ds, err := dataset.ParseCSV(strings.NewReader(text), "people.csv", dataset.CSVOptions{Columns: []string{"age", "income"}})
		if err != nil {
			panic(err)
		}
		id, err := ledger.IdentifyDataset(ds, []string{"age", "income"})
		if err != nil {
			panic(err)
		}
		keys = append(keys, id.Records)
	}
	fmt.Println("re-saved file, same records:", keys[1] == keys[0])
	fmt.Println("one value changed, same records:", keys[2] == keys[0])
	// Output:
	// re-saved file, same records: true
	// one value changed, same records: false
}
