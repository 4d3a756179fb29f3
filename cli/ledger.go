package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/privacywords"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/ledger"
)

func ledgerCommand() *command {
	return &command{
		Name:    "ledger",
		Args:    "[--data FILE.csv] [--budget E] [--delta-budget D] [--ledger FILE] [--repair [--attribute LINE=FILE.csv|HASH]… [--reset-tip]]",
		Summary: "Show the privacy budget spent per dataset; with --data, that dataset's entries.",
		Details: `The ledger records every release before its synopsis is written: dataset
(the fingerprint of its records, or for entries of older versions the SHA-256
of the CSV file's bytes; see docs/ledger.md), ε, δ, learner, parameters, time,
output. With --data, the datasets the file was charged to are shown (and
--budget sets each of their budgets).
The ε spent on a dataset is the sum over its releases (sequential
composition: releases that are ε_i-DP are together Σε_i-DP; δ sums too).
A release that would push the sum past the dataset's ε budget (default 1) or
its δ budget (default 1e-6) is refused unless 'release --allow-over-budget'
is given, which is recorded. Beside this basic composition the ledger keeps
a zCDP account of the same releases (pure ε costs ρ = ε²/2, a Gaussian
release ρ = Δ²/(2σ²); ρ converts to ε at the δ budget): a release is admitted
when either account stays within the budget, and the listing shows both
(column ε zCDP, starred where it is in force; see docs/ledger.md).

A ledger whose last line was torn by a crash mid-write is read
conservatively: the torn entry's ε counts as spent, and further releases are
refused until --repair terminates the line (charging what it reveals).

Any other line that does not parse is damage: every release is refused until
--repair, which charges the damaged lines what the running totals of the
next intact line show they spent, and at least their dataset's largest
budget where the totals cannot tell (no totals follow, or a line may have
been a budget change); it never lowers what a dataset has spent. A
damaged line whose dataset cannot be read with certainty, or that no intact
line follows (it may have been a release past its budget), must be
attributed: --attribute LINE=FILE.csv (or the dataset's SHA-256), once per
dataset the line may hold; if it was a release past its budget, restore it
by hand instead (docs/ledger.md).
Lines deleted before an intact line N are charged what its running totals
show they spent, to every dataset, including datasets first seen later
("unattributed (lines missing before line N)"), unless --attribute N=FILE.csv
names their dataset. Damaged lines between intact lines that are not each
one whole entry (a line split or joined), or not as many as the entries
the totals count, may hide deleted lines: they are charged what they spent
to every dataset, whatever --attribute says.
After every write the ledger's last line (its checksum and running totals)
is kept in the tip file beside it (ledger.jsonl.tip). A ledger that does
not end where its tip says lost lines at its end (cut off, or an older
copy restored): every release is refused until --repair charges what the
tip shows they spent to every dataset. If the tip file is damaged or
missing, restore it (or the ledger) from a backup, or, once you have
checked that no line is missing at the end, --repair --reset-tip records
that decision and writes a new tip.
Keep a copy of the files before repairing.`,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var data, ledgerPath string
			var budget, deltaBudget flagvalue.Float
			var repair, resetTip bool
			attribute := attributeFlag{}
			fs.StringVar(&data, "data", "", "show only the dataset in `FILE.csv` (identified by its content hash)")
			fs.Var(&budget, "budget", "set the total ε budget of the --data dataset to `E` (recorded as an entry)")
			fs.StringVar(&ledgerPath, "ledger", "", "ledger `FILE` (default: ledger.jsonl in the user config directory)")
			fs.Var(&deltaBudget, "delta-budget", "set the total δ budget of the --data dataset to `D` in (0, 1) (recorded as an entry)")
			fs.BoolVar(&repair, "repair", false, "repair a torn last line or damaged lines (each is charged, never less than it spent)")
			fs.Var(attribute, "attribute", "with --repair: charge damaged line `LINE=FILE.csv` (or LINE=SHA256) to that dataset (every ledger dataset of the file); repeatable, also for one line")
			fs.BoolVar(&resetTip, "reset-tip", false, "with --repair: replace a damaged or missing tip file that shows nothing of what the ledger's end held, after you checked that no line is missing at the end (recorded)")
			return func(context.Context, []string) error {
				if budget.Given && data == "" {
					return usagef("--budget needs --data FILE.csv: budgets are per dataset")
				}
				if deltaBudget.Given && data == "" {
					return usagef("--delta-budget needs --data FILE.csv: budgets are per dataset")
				}
				if err := mechanism.ValidateEpsilon(budget.Value); budget.Given && err != nil {
					return usagef("--budget %g: the ε budget %s", budget.Value, mechanism.Rule(err))
				}
				if err := mechanism.ValidateDelta(deltaBudget.Value, mechanism.NoiseGaussian); deltaBudget.Given && err != nil {
					return usagef("--delta-budget %g: the δ budget must be in (0, 1)", deltaBudget.Value)
				}
				if len(attribute) > 0 && !repair {
					return usagef("--attribute only applies to --repair")
				}
				if resetTip && !repair {
					return usagef("--reset-tip only applies to --repair")
				}
				l, err := ledger.Open(ledgerPath)
				if err != nil {
					return err
				}
				if repair {
					if err := runLedgerRepair(e, l, attribute, resetTip); err != nil {
						return err
					}
				}
				for _, n := range l.Notes() {
					fmt.Fprintf(e.Stderr, "note: %s: %s\n", l.Path(), n)
				}
				if t := l.Torn(); t != nil {
					fmt.Fprintf(e.Stderr, "warning: %v\n", t)
				}
				if d := l.Damaged(); d != nil {
					fmt.Fprintf(e.Stderr, "warning: %v\n", d)
				}
				if te := l.TipProblem(); te != nil {
					fmt.Fprintf(e.Stderr, "warning: %v\n", te)
				}
				if hl := l.HardLinked(); hl != nil {
					fmt.Fprintf(e.Stderr, "warning: %v\n", hl)
				}
				if data == "" {
					writeLedgerSummary(e.Stdout, l)
					return nil
				}
				hash, err := dataset.HashFile(data)
				if err != nil {
					return err
				}
				keys := ledger.DatasetsOfFile(l, hash)
				for i, key := range keys {
					if budget.Given || deltaBudget.Given {
						if err := l.SetBudgets(key, budget.Value, deltaBudget.Value); err != nil {
							return err
						}
					}
					if i > 0 {
						fmt.Fprintln(e.Stdout)
					}
					writeLedgerDataset(e.Stdout, l, data, key)
				}
				return nil
			}
		},
	}
}

// writeLedgerSummary prints one line per dataset in the ledger.
func writeLedgerSummary(w io.Writer, l *ledger.Ledger) {
	entries := l.Entries("")
	fmt.Fprintf(w, "ledger %s\n", l.Path())
	damaged := ledgerDoubts(l)
	writeDamageBanner(w, damaged)
	for _, d := range damaged {
		if d.DatasetHash != "" { // list a dataset seen only on a damaged line
			entries = append(entries, ledger.Entry{DatasetHash: d.DatasetHash})
		}
	}
	if len(entries) == 0 {
		fmt.Fprintln(w, "no entries")
		return
	}
	type summary struct {
		hash, path string
		releases   int
		last       time.Time
	}
	byHash := map[string]*summary{}
	var unattributed []ledger.Entry
	for _, en := range entries {
		if en.AllDatasets {
			unattributed = append(unattributed, en)
			continue
		}
		s := byHash[en.DatasetHash]
		if s == nil {
			s = &summary{hash: en.DatasetHash}
			byHash[en.DatasetHash] = s
		}
		if en.DatasetPath != "" {
			s.path = en.DatasetPath
		}
		if en.Kind == ledger.KindRelease || en.Kind == ledger.KindValidation || en.Kind == ledger.KindBounds {
			s.releases++
		}
		if en.Time.After(s.last) {
			s.last = en.Time
		}
	}
	list := make([]*summary, 0, len(byHash))
	for _, s := range byHash {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].last.After(list[j].last) })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DATASET\tRELEASES\tε SPENT\tε BUDGET\tε LEFT\tδ SPENT\tδ BUDGET\tδ LEFT\tε zCDP\tLAST\tPATH")
	for _, s := range list {
		eps, delta := l.Spent(s.hash)
		b, db := l.Budget(s.hash), l.DeltaBudget(s.hash)
		last := "-"
		if !s.last.IsZero() {
			last = s.last.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.6g\t%s\t%s\t%.6g\t%s\t%s\t%s\t%s\n", shortHash(s.hash), s.releases,
			spentFigure(eps, damaged), b, leftFigure(eps, b, damaged),
			spentFigure(delta, damaged), db, leftFigure(delta, db, damaged), zcdpFigure(l.Accounts(s.hash), damaged), last, dash(s.path))
	}
	tw.Flush()
	if slices.ContainsFunc(list, func(s *summary) bool { return l.Accounts(s.hash).ZCDPInForce() }) {
		fmt.Fprintln(w, "ε zCDP: the zCDP account's ε at the δ budget (docs/ledger.md, \"zCDP accounting\"); * where it is in force (below ε SPENT): a release is admitted when either account stays within the budget")
	}
	for _, en := range unattributed {
		fmt.Fprintf(w, "%s: ε %g, δ %g charged to every dataset, including datasets first seen later (counted above)\n",
			ledger.UnattributedNote(en.RepairsLine), en.Epsilon, en.Delta)
	}
}

// writeLedgerDataset prints every entry of one dataset and its totals.
func writeLedgerDataset(w io.Writer, l *ledger.Ledger, path, hash string) {
	eps, delta := l.Spent(hash)
	b := l.Budget(hash)
	fmt.Fprintf(w, "dataset %s\nsha256  %s\nledger  %s\n\n", path, hash, l.Path())
	entries := l.Entries(hash)
	if len(entries) == 0 {
		fmt.Fprintln(w, "no entries")
	} else {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "TIME\tKIND\tε\tδ\tLEARNER\tOUTPUT\tNOTE")
		for _, en := range entries {
			var notes []string
			if en.Kind == ledger.KindBudget && en.Budget > 0 {
				notes = append(notes, fmt.Sprintf("budget set to ε %g", en.Budget))
			}
			if en.Kind == ledger.KindBudget && en.DeltaBudget > 0 {
				notes = append(notes, fmt.Sprintf("δ budget set to %g", en.DeltaBudget))
			}
			if en.OverBudget {
				notes = append(notes, "OVER BUDGET (allowed)")
			}
			if en.Note != "" {
				notes = append(notes, en.Note)
			}
			notes = append(notes, identityNotes(en.Identity)...)
			fmt.Fprintf(tw, "%s\t%s\t%g\t%g\t%s\t%s\t%s\n", en.Time.UTC().Format(time.RFC3339), en.Kind,
				en.Epsilon, en.Delta, dash(en.Learner), dash(en.Output), strings.Join(notes, "; "))
		}
		tw.Flush()
	}
	db := l.DeltaBudget(hash)
	damaged := ledgerDoubts(l)
	fmt.Fprintln(w)
	writeDamageBanner(w, damaged)
	fmt.Fprintf(w, "spent ε %s of budget ε %.6g; %s\n", spentFigure(eps, damaged), b, leftFigure(eps, b, damaged))
	fmt.Fprintf(w, "spent δ %s of budget δ %.6g; %s\n", spentFigure(delta, damaged), db, leftFigure(delta, db, damaged))
	a := l.Accounts(hash)
	writeZCDPAccount(w, a, b, damaged)
	if len(damaged) == 0 { // what is left is unknown while the ledger is damaged
		fmt.Fprintln(w, privacywords.BudgetLeft(b-min(eps, a.ZCDPEpsilon))) // by the account in force
	}
}

// zcdpFigure shows the zCDP account's ε at the δ budget, starred where it
// is in force; a lower bound while the ledger is damaged.
func zcdpFigure(a ledger.Accounts, damaged []ledger.DamagedLine) string {
	if math.IsInf(a.ZCDPEpsilon, 1) {
		return "-"
	}
	f := spentFigure(a.ZCDPEpsilon, damaged)
	if a.ZCDPInForce() {
		f += " *"
	}
	return f
}

// writeZCDPAccount prints the dataset's zCDP account beside basic
// composition, names the one in force, and says when Gaussian releases
// accounted in zCDP spend less of what is left.
func writeZCDPAccount(w io.Writer, a ledger.Accounts, budget float64, damaged []ledger.DamagedLine) {
	conv := "no δ left to convert it at (the (ε, δ)-only releases spent the δ budget)"
	if !math.IsInf(a.ZCDPEpsilon, 1) {
		conv = fmt.Sprintf("ε %s at the δ budget %.6g", spentFigure(a.ZCDPEpsilon, damaged), a.DeltaBudget)
	}
	fmt.Fprintf(w, "zCDP account: ρ %.6g", a.Rho)
	if a.ApproxEpsilon > 0 || a.ApproxDelta > 0 {
		fmt.Fprintf(w, " and (ε %.6g, δ %.6g) of (ε, δ)-only releases", a.ApproxEpsilon, a.ApproxDelta)
	}
	fmt.Fprintf(w, ": %s\n", conv)
	inForce := "basic composition (Σε, Σδ)"
	if a.ZCDPInForce() {
		inForce = fmt.Sprintf("zCDP (its ε is the smaller), %s", leftFigure(a.ZCDPEpsilon, budget, damaged))
	}
	fmt.Fprintf(w, "in force: %s; a release is admitted when either account stays within the budget\n", inForce)
	if a.ZCDPInForce() && a.ZCDPEpsilon < budget {
		fmt.Fprintln(w, "for the remaining budget, Gaussian releases (--noise gaussian) accounted in zCDP spend less than basic composition charges them")
	}
}

// ledgerDoubts returns the ledger's damaged lines and, if it does not end
// where its tip file says, a pseudo-line 0 for that: while there are any,
// every figure is a lower bound.
func ledgerDoubts(l *ledger.Ledger) []ledger.DamagedLine {
	damaged := l.DamagedLines()
	if te := l.TipProblem(); te != nil {
		damaged = append(damaged, ledger.DamagedLine{Reason: te.Reason})
	}
	return damaged
}

// writeDamageBanner says, if the ledger is damaged, which lines, and that
// every figure is a lower bound until the repair: a damaged line's dataset
// hash may itself be damaged, so any dataset may be affected. Line 0 is
// the ledger's end, which does not match its tip file (ledgerDoubts).
func writeDamageBanner(w io.Writer, damaged []ledger.DamagedLine) {
	var ls []string
	for _, d := range damaged {
		if d.Line == 0 {
			fmt.Fprintf(w, "TIP: %s; until 'ledger --repair' every spent figure below is a lower bound (≥) and what is left is unknown, for every dataset (docs/ledger.md, \"The tip file\")\n", d.Reason)
			continue
		}
		ls = append(ls, strconv.Itoa(d.Line))
	}
	if len(ls) == 0 {
		return
	}
	fmt.Fprintf(w, "DAMAGED: line(s) %s do not verify; until 'ledger --repair' every spent figure below is a lower bound (≥) and what is left is unknown, for every dataset (docs/ledger.md, \"Damage\")\n",
		strings.Join(ls, ", "))
}

// spentFigure shows a spent ε or δ, as a lower bound while the ledger is
// damaged.
func spentFigure(v float64, damaged []ledger.DamagedLine) string {
	if len(damaged) > 0 {
		return fmt.Sprintf("≥ %.6g", v)
	}
	return fmt.Sprintf("%.6g", v)
}

// leftFigure shows what is left of a budget; unknown while the ledger is
// damaged (an overspend already visible is still shown).
func leftFigure(spent, budget float64, damaged []ledger.DamagedLine) string {
	if budget == 0 {
		// A repair of lines that may have held a budget entry set it
		// aside (docs/ledger.md, "Missing budget entries").
		return "none: budget set aside by a repair, set it again (--budget/--delta-budget)"
	}
	left := budgetLeft(spent, budget)
	if len(damaged) > 0 && !strings.HasSuffix(left, "over budget") {
		return "unknown (ledger damaged)"
	}
	if len(damaged) > 0 {
		return "at least " + left
	}
	return left
}

// budgetLeft says what is left of a budget, or by how much it is overspent
// ("0.3 over budget"); differences within twice the ledger's rounding
// slack (10⁻⁹ of the budget for the budget check, and as much again for the
// margin a repair adds to its charge, ledger.Ledger.Repair) count as 0
// left. This is display only: the charges themselves stay as recorded.
func budgetLeft(spent, budget float64) string {
	left := budget - spent
	if left < -budget*2e-9 {
		return fmt.Sprintf("%.6g over budget", -left)
	}
	return fmt.Sprintf("%.6g left", max(0, left))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// identityNotes describes how an entry's records were matched to its
// dataset (curator only: derived from the private records).
func identityNotes(x *ledger.EntryIdentity) []string {
	if x == nil {
		return nil
	}
	var notes []string
	switch x.Match {
	case ledger.MatchFile:
		notes = append(notes, "same file")
	case ledger.MatchNearDuplicate:
		notes = append(notes, fmt.Sprintf("near-duplicate (about %.0f%% of rows in common)", 100*x.Share))
	}
	for _, d := range x.DifferentPopulation {
		notes = append(notes, fmt.Sprintf("declared a different population from %s (about %.0f%% of rows in common)", shortHash(d.DatasetHash), 100*d.Share))
	}
	return notes
}
