package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/bernsteinrelease/bernstein/cli/flagvalue"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// importFlags are the layout flags of a CSV file a command reads
// (dataset.ImportOptions): --header-row, --delimiter, --decimal-comma,
// --comment. 'release' and 'choose' register them for --data, 'eval' for
// --points. Their rules are dataset.ImportOptions.Validate's.
type importFlags struct {
	headerRow    int
	delimiter    flagvalue.Delimiter
	decimalComma bool
	comment      string
	noHeader     bool
}

// register defines the flags on fs; file names the flag of the file they
// describe ("--data").
func (f *importFlags) register(fs *flag.FlagSet, file string) {
	flagvalue.WholeVar(fs, &f.headerRow, "header-row", 1, "the line `N` of the "+file+" file holding the header; the lines before it (a title, notes) are skipped")
	fs.Var(&f.delimiter, "delimiter", "the field delimiter `D` of the "+file+" file: auto (detected from the header line: ',', ';' or tab),\ntab, or one character")
	fs.BoolVar(&f.decimalComma, "decimal-comma", false, "numbers in the "+file+" file are written with a decimal comma (1,5); needs a delimiter other than ','")
	fs.StringVar(&f.comment, "comment", "", "lines of the "+file+" file starting with the character `C` (e.g. #) are comments, skipped")
	fs.BoolVar(&f.noHeader, "no-header", false, "the "+file+" file has no header line: its columns are named column1, column2, …,\nand --header-row is the first data line")
}

// options returns the import options, checked (a usage error).
func (f *importFlags) options() (dataset.ImportOptions, error) {
	o := dataset.ImportOptions{HeaderRow: f.headerRow, Delimiter: f.delimiter.R, DecimalComma: f.decimalComma, Comment: f.comment, NoHeader: f.noHeader}
	if err := o.Validate(); err != nil {
		return o, usagef("--header-row, --delimiter, --decimal-comma, --comment, --no-header: %v", err)
	}
	return o, nil
}

// withHeaderRowFlag names the flag in an error that suggests a preamble
// read as the header (dataset.HeaderRowHint).
func withHeaderRowFlag(err error) error {
	var ce *dataset.CSVError
	if errors.As(err, &ce) && strings.HasSuffix(ce.Rule, dataset.HeaderRowHint) {
		return fmt.Errorf("%w with --header-row N", err)
	}
	return err
}
