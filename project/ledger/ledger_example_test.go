package ledger_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

func ExampleLedger_Reserve() {
	dir, err := os.MkdirTemp("", "ledger")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	l, err := ledger.Open(filepath.Join(dir, "ledger.jsonl"))
	if err != nil {
		panic(err)
	}
	d := dataset.DemoKDE1D(dataset.DemoKDE1DSeed)

	// Record the spend first; write the synopsis only if Reserve allows it.
	for _, eps := range []float64{0.5, 0.4, 0.2} {
		_, err := l.Reserve(ledger.Entry{DatasetHash: d.Hash, Epsilon: eps, Learner: "kde", Output: "kde.bsyn"}, false)
		var be *ledger.BudgetError
		switch {
		case errors.As(err, &be):
			fmt.Printf("ε = %g refused: spent %g of %g\n", eps, be.Spent, be.Budget)
		case err != nil:
			panic(err)
		default:
			fmt.Printf("ε = %g recorded; now write the synopsis\n", eps)
		}
	}
	spent, _ := l.Spent(d.Hash)
	fmt.Printf("spent %g of %g\n", spent, l.Budget(d.Hash))
	// Output:
	// ε = 0.5 recorded; now write the synopsis
	// ε = 0.4 recorded; now write the synopsis
	// ε = 0.2 refused: spent 0.9 of 1
	// spent 0.9 of 1
}
