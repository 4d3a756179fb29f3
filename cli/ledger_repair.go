package cli

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

// attributeFlag is ledger --attribute LINE=FILE.csv|SHA256, repeatable; a
// line may be attributed to several datasets (a line that joined entries
// of several), one flag each.
type attributeFlag map[int][]string

func (a attributeFlag) String() string {
	var parts []string
	for line, vs := range a {
		for _, v := range vs {
			parts = append(parts, fmt.Sprintf("%d=%s", line, v))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (a attributeFlag) Set(s string) error {
	ls, v, ok := strings.Cut(s, "=")
	line, err := strconv.Atoi(strings.TrimSpace(ls))
	if !ok || err != nil || line < 1 || strings.TrimSpace(v) == "" {
		return fmt.Errorf("%q: want LINE=FILE.csv or LINE=SHA256, LINE a line number ≥ 1", s)
	}
	if v = strings.TrimSpace(v); slices.Contains(a[line], v) {
		return fmt.Errorf("line %d is attributed to %s twice", line, v)
	}
	a[line] = append(a[line], v)
	return nil
}

// isHexHash reports whether s is a dataset hash (64 lower-case hex digits).
func isHexHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// runLedgerRepair runs ledger --repair and prints each repair entry.
func runLedgerRepair(e *env, l *ledger.Ledger, attribute attributeFlag, resetTip bool) error {
	opt := ledger.RepairOptions{Attribute: map[int][]string{}, ResetTip: resetTip}
	for line, vs := range attribute {
		for _, v := range vs {
			hs := []string{v}
			if !isHexHash(v) {
				// Releases are keyed on their records, linked to the
				// file by identity.file_hash: charge every ledger
				// dataset of the file, as --data shows them.
				h, err := dataset.HashFile(v)
				if err != nil {
					return fmt.Errorf("--attribute %d=%s: %w", line, v, err)
				}
				hs = ledger.DatasetsOfFile(l, h)
			}
			for _, h := range hs {
				if !slices.Contains(opt.Attribute[line], h) {
					opt.Attribute[line] = append(opt.Attribute[line], h)
				}
			}
		}
	}
	reps, err := l.Repair(opt)
	if err != nil {
		return err
	}
	if len(reps) == 0 {
		fmt.Fprintln(e.Stdout, "nothing to repair: every line of the ledger is complete and valid, and it ends where its tip file says")
		return nil
	}
	for _, r := range reps {
		if r.RepairsTip {
			fmt.Fprintf(e.Stdout, "repaired the tip file (line %d): charged ε %g, δ %g to every dataset, for lines missing at the end of the ledger (%s)\n", r.RepairsLine, r.Epsilon, r.Delta, r.Note)
			continue
		}
		to := "dataset " + dash(shortHash(r.DatasetHash))
		if r.AllDatasets {
			to = "every dataset, " + ledger.UnattributedNote(r.RepairsLine)
		}
		fmt.Fprintf(e.Stdout, "repaired line %d: charged ε %g, δ %g to %s\n", r.RepairsLine, r.Epsilon, r.Delta, to)
	}
	return nil
}
