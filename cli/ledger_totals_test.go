package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/project"
)

// TestLedgerRepairOverBudgetMarkerLost: issue 14 item 1, last case, through
// the CLI. A release of ε 5 made with --allow-over-budget, then its line's
// ε and over_budget marker destroyed: 'ledger --repair' charged it the
// dataset's budget (1). Now the running totals of the next line bound it
// (it is charged ≥ 5); when it is the last line, the repair refuses and
// asks the curator, and --attribute confirms a line that was not past its
// budget.
func TestLedgerRepairOverBudgetMarkerLost(t *testing.T) {
	for _, last := range []bool{false, true} {
		name := "middle"
		if last {
			name = "last line"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "ledger.jsonl")
			l, err := project.OpenLedger(p)
			if err != nil {
				t.Fatal(err)
			}
			ha, hb := strings.Repeat("a", 64), strings.Repeat("b", 64)
			must := func(_ project.Entry, err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(l.Reserve(project.Entry{DatasetHash: ha, Epsilon: 0.25}, false))
			must(l.Reserve(project.Entry{DatasetHash: ha, Epsilon: 5}, true))
			if !last {
				must(l.Reserve(project.Entry{DatasetHash: hb, Epsilon: 0.1}, false))
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte(`"epsilon":5,`), []byte(`"epsilon":#,`), 1)
			data = bytes.Replace(data, []byte(`"over_budget":true`), []byte(`"over_budget":tru#`), 1)
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			te := newTestEnv()
			if last {
				r := te.run("ledger", "--ledger", p, "--repair")
				if r.code == 0 || !strings.Contains(r.stderr, "no intact line follows it") || !strings.Contains(r.stderr, "--attribute 2=") {
					t.Fatalf("repair of a destroyed last line: exit %d, stderr %q; want a refusal asking the curator", r.code, r.stderr)
				}
				if after, _ := os.ReadFile(p); !bytes.Equal(after, data) {
					t.Fatal("a refused repair changed the ledger")
				}
				te.mustRun(t, "ledger", "--ledger", p, "--repair", "--attribute", "2="+ha)
				return
			}
			r := te.mustRun(t, "ledger", "--ledger", p, "--repair")
			if !strings.Contains(r.stdout, "repaired line 2: charged ε 5") {
				t.Errorf("repair: %q; want line 2 charged ε 5 (the running totals)", r.stdout)
			}
			l2, err := project.OpenLedger(p)
			if err != nil || l2.Damaged() != nil {
				t.Fatalf("after repair: %v, damaged %v", err, l2.Damaged())
			}
			if eps, _ := l2.Spent(ha); eps < 5.25 {
				t.Errorf("spent ε on a = %g after repair, below the 5.25 spent", eps)
			}
		})
	}
}
