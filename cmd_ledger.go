package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bernsteinrelease/bernstein/project"
)

func ledgerCommand() *command {
	return &command{
		Name:    "ledger",
		Args:    "[--data FILE.csv] [--budget E] [--ledger FILE] [--repair]",
		Summary: "Show the privacy budget spent per dataset; with --data, that dataset's entries.",
		Details: `The ledger records every release before its synopsis is written: dataset
(SHA-256 of the CSV file's bytes), ε, δ, learner, parameters, time, output.
The ε spent on a dataset is the sum over its releases (sequential
composition: releases that are ε_i-DP are together Σε_i-DP; δ sums too).
A release that would push the sum past the dataset's budget (default 1) is
refused unless 'release --allow-over-budget' is given, which is recorded.

A ledger whose last line was torn by a crash mid-write is read
conservatively: the torn entry's ε counts as spent, and further releases are
refused until --repair terminates the line (charging what it reveals).`,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var data, ledgerPath string
			var budget floatFlag
			var repair bool
			fs.StringVar(&data, "data", "", "show only the dataset in `FILE.csv` (identified by its content hash)")
			fs.Var(&budget, "budget", "set the total ε budget of the --data dataset to `E` (recorded as an entry)")
			fs.StringVar(&ledgerPath, "ledger", "", "ledger `FILE` (default: ledger.jsonl in the user config directory)")
			fs.BoolVar(&repair, "repair", false, "terminate a torn last line left by a crash (its ε and δ are charged)")
			return func(context.Context, []string) error {
				if budget.set && data == "" {
					return usagef("--budget needs --data FILE.csv: budgets are per dataset")
				}
				l, err := project.OpenLedger(ledgerPath)
				if err != nil {
					return err
				}
				if repair {
					rep, err := l.Repair()
					if err != nil {
						return err
					}
					if rep == nil {
						fmt.Fprintln(e.Stdout, "nothing to repair: the ledger's last line is complete")
					} else {
						fmt.Fprintf(e.Stdout, "repaired line %d: charged ε %g, δ %g to dataset %s\n",
							rep.RepairsLine, rep.Epsilon, rep.Delta, shortHash(rep.DatasetHash))
					}
				}
				if t := l.Torn(); t != nil {
					fmt.Fprintf(e.Stderr, "warning: %v\n", t)
				}
				if data == "" {
					writeLedgerSummary(e.Stdout, l)
					return nil
				}
				hash, err := project.HashFile(data)
				if err != nil {
					return err
				}
				if budget.set {
					if err := l.SetBudget(hash, budget.v); err != nil {
						return err
					}
				}
				writeLedgerDataset(e.Stdout, l, data, hash)
				return nil
			}
		},
	}
}

// writeLedgerSummary prints one line per dataset in the ledger.
func writeLedgerSummary(w io.Writer, l *project.Ledger) {
	entries := l.Entries("")
	fmt.Fprintf(w, "ledger %s\n", l.Path())
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
	for _, en := range entries {
		s := byHash[en.DatasetHash]
		if s == nil {
			s = &summary{hash: en.DatasetHash}
			byHash[en.DatasetHash] = s
		}
		if en.DatasetPath != "" {
			s.path = en.DatasetPath
		}
		if en.Kind == project.KindRelease || en.Kind == project.KindValidation {
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
	fmt.Fprintln(tw, "DATASET\tRELEASES\tε SPENT\tδ SPENT\tε BUDGET\tε LEFT\tLAST\tPATH")
	for _, s := range list {
		eps, delta := l.Spent(s.hash)
		b := l.Budget(s.hash)
		fmt.Fprintf(tw, "%s\t%d\t%.6g\t%.6g\t%.6g\t%.6g\t%s\t%s\n", shortHash(s.hash), s.releases, eps, delta, b, max(0, b-eps),
			s.last.UTC().Format(time.RFC3339), s.path)
	}
	tw.Flush()
}

// writeLedgerDataset prints every entry of one dataset and its totals.
func writeLedgerDataset(w io.Writer, l *project.Ledger, path, hash string) {
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
			if en.Kind == project.KindBudget {
				notes = append(notes, fmt.Sprintf("budget set to ε %g", en.Budget))
			}
			if en.OverBudget {
				notes = append(notes, "OVER BUDGET (allowed)")
			}
			if en.Note != "" {
				notes = append(notes, en.Note)
			}
			fmt.Fprintf(tw, "%s\t%s\t%g\t%g\t%s\t%s\t%s\n", en.Time.UTC().Format(time.RFC3339), en.Kind,
				en.Epsilon, en.Delta, dash(en.Learner), dash(en.Output), strings.Join(notes, "; "))
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nspent ε %.6g (δ %.6g) of budget ε %.6g; %.6g left\n", eps, delta, b, max(0, b-eps))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
