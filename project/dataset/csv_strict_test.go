package dataset

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// Issue 14 item 15: numbers in CSV values and on the command line are
// plain decimal (ParseNumber); strconv.ParseFloat's extras are refused.

func TestParseNumber(t *testing.T) {
	good := []struct {
		in   string
		want float64
	}{
		{"0", 0}, {"3", 3}, {"-0.25", -0.25}, {"+1.5", 1.5}, {" 2.5 ", 2.5},
		{"1e3", 1000}, {"1.5E-3", 0.0015}, {"-2e+2", -200}, {".5", 0.5}, {"2.", 2},
		{"-.5e1", -5}, {"007", 7}, {"1e-400", 0},
	}
	for _, c := range good {
		got, err := ParseNumber(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, rule string }{
		{"", "missing value"},
		{"   ", "missing value"},
		{"1_0", `"1_0" is not a plain decimal number`},
		{"1_000.5", "not a plain decimal number"},
		{"0x1p-2", `"0x1p-2" is not a plain decimal number`},
		{"0x10", "is not a number"}, // not even for ParseFloat (no p exponent)
		{"0b101", "is not a number"},
		{"Inf", `"Inf" is not a finite number`},
		{"-inf", "not a finite number"},
		{"+Infinity", "not a finite number"},
		{"NaN", `"NaN" is not a finite number`},
		{"nan", "not a finite number"},
		{"1e999", "outside the range of a float64"},
		{"-1e309", "outside the range"},
		{"1,5", "decimal comma"},
		{"abc", `"abc" is not a number`},
		{"1.2.3", "is not a number"},
		{"1e", "is not a number"},
		{"e5", "is not a number"},
		{".", "is not a number"},
		{"+", "is not a number"},
		{"--1", "is not a number"},
		{"1 2", "is not a number"},
		{"١٢", "is not a number"}, // Arabic-Indic digits
		{strings.Repeat("9", 100) + "x", "…"},
	}
	for _, c := range bad {
		if v, err := ParseNumber(c.in); err == nil || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("ParseNumber(%q) = %v, %v; want an error containing %q", c.in, v, err, c.rule)
		}
	}
}

func TestParseWholeNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  uint64
		want uint64
		rule string
	}{
		{"12", 100, 12, ""},
		{" +3 ", 100, 3, ""},
		{"0", 100, 0, ""},
		{"18446744073709551615", 1<<64 - 1, 1<<64 - 1, ""},
		{"101", 100, 0, "larger than 100"},
		{"18446744073709551616", 1<<64 - 1, 0, "larger than"},
		{"-1", 100, 0, "not a whole number"},
		{"0x10", 100, 0, "not a whole number"},
		{"1_0", 100, 0, "not a whole number"},
		{"1e2", 1000, 0, "not a whole number"},
		{"1.0", 100, 0, "not a whole number"},
		{"", 100, 0, "not a whole number"},
		{"+", 100, 0, "not a whole number"},
		{"05", 100, 5, ""}, // docs/cli.md: leading zeros are harmless
		{"++3", 100, 0, "not a whole number"},
		{"+-3", 100, 0, "not a whole number"},
	} {
		got, err := ParseWholeNumber(c.in, c.max)
		if c.rule == "" && (err != nil || got != c.want) {
			t.Errorf("ParseWholeNumber(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		if c.rule != "" && (err == nil || !strings.Contains(err.Error(), c.rule)) {
			t.Errorf("ParseWholeNumber(%q) = %v, %v; want an error containing %q", c.in, got, err, c.rule)
		}
	}
}

// TestParseCSVStrictValues reads each value as the second row of a file
// with a required column and checks the verdict and the error's position.
func TestParseCSVStrictValues(t *testing.T) {
	for _, c := range []struct {
		field string // as written in the file, quotes included
		want  float64
		rule  string // "" = accepted
	}{
		{"1.5", 1.5, ""},
		{"-2e3", -2000, ""},
		{`" 0.5 "`, 0.5, ""},
		{"1_0", 0, "not a plain decimal number"},
		{"0x1p-2", 0, "not a plain decimal number"},
		{"Inf", 0, "not a finite number"},
		{"infinity", 0, "not a finite number"},
		{"NaN", 0, "not a finite number"},
		// A quoted value with a line break is an error even when it is a
		// number after trimming (the docs say so; it used to be accepted).
		{"\"0.5\n\"", 0, "spanning lines"},
		{"\"\n0.5\"", 0, "spanning lines"},
		{"\"0.5\r\n\"", 0, "spanning lines"},
		{"\"0.5\r\"", 0, "spanning lines"},
	} {
		in := "x\n1\n" + c.field + "\n"
		d, err := ParseCSV(strings.NewReader(in), "v.csv", CSVOptions{Columns: []string{"x"}})
		if c.rule == "" {
			if err != nil || d.Data["x"][1] != c.want {
				t.Errorf("%q: %v; want %v", c.field, err, c.want)
			}
			continue
		}
		var ce *CSVError
		if !errors.As(err, &ce) || ce.Line != 3 || ce.Column != 1 || !strings.Contains(ce.Rule, c.rule) {
			t.Errorf("%q: error %v; want v.csv:3:1 with %q", c.field, err, c.rule)
		}
		// Without a column list the column is text, not numbers.
		d, err = ParseCSV(strings.NewReader(in), "v.csv", CSVOptions{})
		if err != nil {
			t.Fatalf("%q without Columns: %v", c.field, err)
		}
		if _, err := d.Column("x"); err == nil || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("%q without Columns: Column(x) = %v; want an error containing %q", c.field, err, c.rule)
		}
	}
}

// TestParseCSVErrorExcerpts: errors quote at most 80 characters of the
// file, however long the fields (a CR-only file of 800 kB used to give an
// 800 kB error echoing the data).
func TestParseCSVErrorExcerpts(t *testing.T) {
	long := strings.Repeat("é", 5000)
	for _, c := range []struct {
		name, in string
		opts     CSVOptions
		rule     string
	}{
		{"CR-only line ends, one column", "x\r" + strings.Repeat("0.5\r", 200000), CSVOptions{Columns: []string{"x"}}, "CR-only line ends"},
		{"CR-only line ends, no column list", "x\r" + strings.Repeat("0.5\r", 200000), CSVOptions{}, "CR-only line ends"},
		{"CR-only line ends, two columns", "x,y\r" + strings.Repeat("0.5,1\r", 100000), CSVOptions{}, "CR-only line ends"},
		{"long value", "x\n" + long + "\n", CSVOptions{Columns: []string{"x"}}, "is not a number"},
		{"long duplicate header", long + "," + long + "\n1,2\n", CSVOptions{}, "duplicate column name"},
		{"long names, missing column", longHeader(20, long) + "\n" + strings.Repeat("1,", 19) + "1\n", CSVOptions{Columns: []string{"zz"}}, "no such column"},
		{"long quoted value spanning lines", "x\n\"" + strings.Repeat("1\n", 10000) + "\"\n", CSVOptions{Columns: []string{"x"}}, "spanning lines"},
	} {
		_, err := ParseCSV(strings.NewReader(c.in), "e.csv", c.opts)
		if err == nil || !strings.Contains(err.Error(), c.rule) {
			t.Errorf("%s: %.200v; want an error containing %q", c.name, err, c.rule)
			continue
		}
		// Two quotations of ≤ 40 runes (each ≤ 4 bytes, escaped ≤ 10) plus
		// the words of the rule.
		if n := len(err.Error()); n > 1200 {
			t.Errorf("%s: error message of %d bytes: %.300s…", c.name, n, err)
		}
	}
}

// longHeader returns n distinct header names, each long plus its index.
func longHeader(n int, long string) string {
	names := make([]string, n)
	for i := range names {
		names[i] = long + strconv.Itoa(i)
	}
	return strings.Join(names, ",")
}
