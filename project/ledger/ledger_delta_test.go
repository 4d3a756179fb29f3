package ledger

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestLedgerBudgetRefusals is the table of Reserve's refusal rules (issue
// 13 item 1): ε and δ each against their own budget, the same
// --allow-over-budget escape, recorded; every refusal states what is spent,
// what the release asks, the budget, and what would fit.
func TestLedgerBudgetRefusals(t *testing.T) {
	tests := []struct {
		name       string
		budgets    [2]float64 // ε, δ budget entries (0: none)
		prior      []Entry
		e          Entry
		allowOver  bool
		wantDelta  bool     // refused on δ
		wantRefuse bool     // refused at all
		wantMsg    []string // in the refusal
	}{
		{"fits both", [2]float64{}, nil, Entry{Epsilon: 0.5, Delta: 5e-7}, false, false, false, nil},
		{"ε over", [2]float64{}, []Entry{{Epsilon: 0.75}}, Entry{Epsilon: 0.5}, false, false, true,
			[]string{"spent ε 0.75", "ε budget of 1", "asks ε 0.5", "at most ε 0.25 would fit", "--allow-over-budget"}},
		{"δ over default budget", [2]float64{}, []Entry{{Epsilon: 0.1, Delta: 6e-7}}, Entry{Epsilon: 0.1, Delta: 6e-7}, false, true, true,
			[]string{"spent δ 6e-07", "δ budget of 1e-06", "asks δ 6e-07", "at most δ 4e-07 would fit", "--delta-budget", "--allow-over-budget"}},
		{"δ alone over", [2]float64{}, nil, Entry{Epsilon: 0.1, Delta: 2e-6}, false, true, true, []string{"at most δ 1e-06 would fit"}},
		{"δ over, allowed", [2]float64{}, nil, Entry{Epsilon: 0.1, Delta: 2e-6}, true, false, false, nil},
		{"raised δ budget", [2]float64{0, 1e-5}, []Entry{{Epsilon: 0.1, Delta: 6e-6}}, Entry{Epsilon: 0.1, Delta: 4e-6}, false, false, false, nil},
		{"lowered δ budget", [2]float64{0, 1e-8}, nil, Entry{Epsilon: 0.1, Delta: 2e-8}, false, true, true, []string{"δ budget of 1e-08"}},
		{"ε budget entry keeps the δ budget", [2]float64{3, 0}, nil, Entry{Epsilon: 2.5, Delta: 2e-6}, false, true, true, []string{"δ budget of 1e-06"}},
		{"ten δ of 1e-7 fit", [2]float64{}, []Entry{{Epsilon: 0.01, Delta: 1e-7}, {Epsilon: 0.01, Delta: 1e-7}, {Epsilon: 0.01, Delta: 1e-7},
			{Epsilon: 0.01, Delta: 1e-7}, {Epsilon: 0.01, Delta: 1e-7}, {Epsilon: 0.01, Delta: 1e-7}, {Epsilon: 0.01, Delta: 1e-7},
			{Epsilon: 0.01, Delta: 1e-7}, {Epsilon: 0.01, Delta: 1e-7}}, Entry{Epsilon: 0.01, Delta: 1e-7}, false, false, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := openTestLedger(t)
			if tc.budgets != [2]float64{} {
				if err := l.SetBudgets(hashA, tc.budgets[0], tc.budgets[1]); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range tc.prior {
				p.DatasetHash = hashA
				if _, err := l.Reserve(p, false); err != nil {
					t.Fatal(err)
				}
			}
			tc.e.DatasetHash = hashA
			before, _ := os.ReadFile(l.Path())
			got, err := l.Reserve(tc.e, tc.allowOver)
			var be *BudgetError
			if !tc.wantRefuse {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if got.OverBudget != tc.allowOver {
					t.Errorf("OverBudget = %v, want %v (recorded)", got.OverBudget, tc.allowOver)
				}
				return
			}
			if !errors.As(err, &be) || be.Delta != tc.wantDelta {
				t.Fatalf("err = %v, want a *BudgetError on δ = %v", err, tc.wantDelta)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
			if after, _ := os.ReadFile(l.Path()); string(after) != string(before) {
				t.Error("a refused release changed the ledger")
			}
		})
	}
	l := openTestLedger(t)
	for _, bad := range [][2]float64{{0, 0}, {-1, 0}, {0, 1}, {0, -1e-9}, {1, 1.5}} {
		if err := l.SetBudgets(hashA, bad[0], bad[1]); err == nil {
			t.Errorf("SetBudgets(%v, %v) accepted", bad[0], bad[1])
		}
	}
	if err := l.SetBudgets(hashA, 0, 1e-5); err != nil || l.DeltaBudget(hashA) != 1e-5 || l.Budget(hashA) != DefaultBudget {
		t.Errorf("SetBudgets(0, 1e-5): %v; budgets %v, %v", err, l.Budget(hashA), l.DeltaBudget(hashA))
	}
}
