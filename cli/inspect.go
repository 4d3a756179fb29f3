package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/privacywords"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

func inspectCommand() *command {
	return &command{
		Name:    "inspect",
		Args:    "FILE.synopsis [--json] [--allowed-signers FILE] [--allow-untrusted]",
		Summary: "Verify a synopsis and print its content (--json: all of it, lattice values included).",
		Details: `Nothing is printed from a file whose signature does not verify (exit 3).
The human-readable form shows the metadata; --json prints one JSON object with
the signature verdict, every metadata field and the noisy lattice values in
lattice order (row-major, last axis fastest). A valid file signed by a key
outside your allowed signers is refused (exit 5) unless --allow-untrusted is
given.`,
		MinPos: 1,
		MaxPos: 1,
		Setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			var allowed string
			var asJSON, allowUntrusted bool
			trustFlag(fs, &allowed)
			allowUntrustedFlag(fs, &allowUntrusted)
			fs.BoolVar(&asJSON, "json", false, "print the whole verified payload as JSON, lattice values included")
			return func(_ context.Context, pos []string) error {
				v, err := openVerified(pos[0], allowed)
				if err != nil {
					return err
				}
				if err := requireTrust(v, allowUntrusted, e.Stderr); err != nil {
					return err
				}
				if asJSON {
					return writeInspectJSON(e.Stdout, pos[0], v)
				}
				writeInspect(e.Stdout, pos[0], v)
				return nil
			}
		},
	}
}

func writeInspect(w io.Writer, path string, v *synopsis.Verified) {
	f := v.File
	m := f.Mechanism
	fmt.Fprintf(w, "%s: valid signature; %s\n\n", path, trustLine(v))
	field := func(name, format string, args ...any) {
		fmt.Fprintf(w, "%-16s %s\n", name+":", fmt.Sprintf(format, args...))
	}
	if f.Title != "" {
		field("title", "%s", f.Title)
	} else {
		field("title", "(none given)") // an empty line read as a fault
	}
	if f.Note != "" {
		field("note", "%s", strings.ReplaceAll(f.Note, "\n", "\n                 "))
	}
	field("created", "%s", f.Created.UTC().Format(time.RFC3339))
	field("app version", "%s", f.AppVersion)
	field("format", "%d", f.Format)
	field("mechanism", "%s", f.DescribeMechanism())
	priv := fmt.Sprintf("ε = %g", m.Epsilon)
	if m.Delta > 0 {
		priv += fmt.Sprintf(", δ = %g", m.Delta)
	}
	field("privacy", "%s", priv)
	field("in words", "%s", wrapText(privacywords.OnePerson(m.Epsilon, m.Delta, mechanism.NoiseKind(m.Noise)), 62, 17))
	field("noise", "%s", f.DescribeNoise())
	if f.LatticeSensitivityPossible() {
		field("learner", "%s, n = %d, sensitivity %g (the noise's calibration: S(F), or the lattice bound L(k) ≤ S(F) of this linear score (logistic, SVM))", f.Learner.Kind, f.Learner.N, f.Learner.Sensitivity)
	} else {
		field("learner", "%s, n = %d, sensitivity S(F) = %g", f.Learner.Kind, f.Learner.N, f.Learner.Sensitivity)
	}
	names := make([]string, 0, len(f.Learner.Params))
	for name := range f.Learner.Params {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		field("  "+name, "%s", joinFloats(f.Learner.Params[name]))
	}
	for j, b := range f.Domain.Features {
		field(fmt.Sprintf("feature %d", j+1), "%s", describeBound(b))
	}
	if f.Domain.Label != nil {
		field("label", "%s", describeBound(*f.Domain.Label))
	}
	if f.Domain.BoundsFromData {
		fmt.Fprintln(w, "WARNING:         some bounds were taken from the data (acknowledged by the curator);")
		fmt.Fprintln(w, "                 they reveal the data's range outside the ε guarantee")
	}
	field("output", "%s: %s", f.Output.NameAndKind(), f.Output.Meaning)
	field("output range", "[%g, %g]", f.Output.Range[0], f.Output.Range[1])
	if len(f.Output.ClassLabels) == 2 {
		field("classes", "negative %s, positive %s", f.Output.ClassLabels[0], f.Output.ClassLabels[1])
	}
	if f.Fill != nil {
		field("fill rules", "%s", describeFill(f.Fill))
	}
	if f.Source != nil {
		field("computed from", "%s", f.Source.Describe())
	}
	if len(f.Values) > 0 {
		field("values", "%d %s in [%g, %g] (--json prints them)",
			len(f.Values), f.DescribeValues(), slices.Min(f.Values), slices.Max(f.Values))
	}
}

func describeBound(b synopsis.Bound) string {
	s := fmt.Sprintf("%s in [%g, %g]", b.Name, b.Lo, b.Hi)
	if b.Unit != "" {
		s += " " + b.Unit
	}
	switch lo, hi := b.Ends(); {
	case lo == synopsis.EndFromData && hi == synopsis.EndFromData:
		s += " (from data)"
	case lo != synopsis.EndTyped || hi != synopsis.EndTyped:
		s += " (" + b.DescribeEnds() + ")"
	}
	return s
}

func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%g", x)
	}
	return strings.Join(s, ", ")
}

// wrapText breaks s at spaces into lines of at most width runes (a longer
// word stays whole) and indents every line after the first by indent
// spaces, for a value in inspect's two-column layout.
func wrapText(s string, width, indent int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		l := utf8.RuneCountInString(w)
		switch {
		case i == 0:
		case n+1+l > width:
			b.WriteString("\n" + strings.Repeat(" ", indent))
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String()
}
