package project

import (
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// WorkspaceImport is how the project's CSV file is laid out
// (dataset.ImportOptions), as the project file writes it:
//
//	"import": {"header_row": 3, "delimiter": ";", "decimal_comma": true, "comment": "#"}
//
// Every field may be left out; a project file without "import" (every
// file written before issue 17) reads the file as before: header on the
// first line, delimiter detected, decimal point, no comment lines.
type WorkspaceImport struct {
	// HeaderRow is the file's line with the header (0 or 1: the first).
	HeaderRow int `json:"header_row,omitempty"`
	// Delimiter is "auto" or empty (detected from the header line), "tab",
	// or one character (dataset.ParseDelimiter).
	Delimiter    string `json:"delimiter,omitempty"`
	DecimalComma bool   `json:"decimal_comma,omitempty"`
	// Comment is the character starting a comment line; empty: none.
	Comment string `json:"comment,omitempty"`
	// NoHeader: the file has no header line; its columns are named
	// column1, column2, … and HeaderRow is the first data line.
	NoHeader bool `json:"no_header,omitempty"`
}

// NewWorkspaceImport returns o as the project file records it, or nil for
// the default layout (so that such a project file is unchanged).
func NewWorkspaceImport(o dataset.ImportOptions) *WorkspaceImport {
	if o == (dataset.ImportOptions{}) || o == (dataset.ImportOptions{HeaderRow: 1}) {
		return nil
	}
	wi := &WorkspaceImport{HeaderRow: o.HeaderRow, DecimalComma: o.DecimalComma, Comment: o.Comment, NoHeader: o.NoHeader}
	if o.Delimiter != 0 {
		wi.Delimiter = dataset.FormatDelimiter(o.Delimiter)
	}
	return wi
}

// ImportOptions returns the dataset's import options: the defaults when
// the project file has none. The project file was validated when it was
// read or saved (validate), so this cannot fail for a loaded workspace.
func (w *Workspace) ImportOptions() dataset.ImportOptions {
	o, _ := w.Dataset.Import.options()
	return o
}

// options converts and validates the recorded options (nil: defaults); a
// failure names the field and the rule.
func (wi *WorkspaceImport) options() (dataset.ImportOptions, *WorkspaceError) {
	if wi == nil {
		return dataset.ImportOptions{}, nil
	}
	d, err := dataset.ParseDelimiter(wi.Delimiter)
	if err != nil {
		return dataset.ImportOptions{}, fieldError("dataset.import.delimiter", "%v", err)
	}
	o := dataset.ImportOptions{HeaderRow: wi.HeaderRow, Delimiter: d, DecimalComma: wi.DecimalComma, Comment: wi.Comment, NoHeader: wi.NoHeader}
	if err := o.Validate(); err != nil {
		return dataset.ImportOptions{}, fieldError("dataset.import", "%v", err)
	}
	return o, nil
}

// checkImport is validate's rule for dataset.import.
func (w *Workspace) checkImport() *WorkspaceError {
	_, e := w.Dataset.Import.options()
	return e
}
