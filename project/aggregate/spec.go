package aggregate

import (
	"fmt"
	"math"
	"slices"
	"unicode"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// DefaultBins is the default number of fine bins per axis, B (issue 20).
const DefaultBins = 4096

// MaxBins is the largest B accepted: bin indices and centres stay exact in
// a float64 and in every engine's BIGINT.
const MaxBins = 1 << 20

// MaxN is the largest declared n: the ridge sums are exact decimals with 24
// digits after the point and 38 in all (DECIMAL(38,24)), so a sum of n
// terms of magnitude ≤ 1 fits while n < 10¹⁴.
const MaxN = 1e14 - 1

// Feature is one feature column: its name as in the curator's data, its
// public bounds and its declared fill value (in the column's units, inside
// the bounds), which replaces a missing or non-numeric value.
type Feature struct {
	Name   string
	Bounds dataset.Bounds
	Fill   float64
}

// Label is the label column of a supervised learner. A real label (ridge)
// has public Bounds and a Fill value like a feature; a binary label (naive
// Bayes) has declared Classes and a FillClass, the learner label (−1 for
// the negative class, +1 for the positive one) given to any value that is
// neither class.
type Label struct {
	Name      string
	Bounds    dataset.Bounds
	Fill      float64
	Classes   *dataset.Classes
	FillClass float64
}

// Spec is everything the aggregate query and its reading depend on; all of
// it is public (declared by the curator), none of it read from the data.
type Spec struct {
	Learner  learners.Kind
	Features []Feature
	Label    *Label // nil for KDE
	// Bins is B, the number of fine bins per axis (KDE, naive Bayes); 0
	// means DefaultBins. Ignored by ridge regression.
	Bins int
	// N is the public number of records. The aggregate table must count
	// exactly N records (Result.Fit); it is not needed to write the query.
	N int
}

// bins returns B.
func (s Spec) bins() int {
	if s.Bins == 0 {
		return DefaultBins
	}
	return s.Bins
}

// specError is an invalid Spec: the field, and the rule it breaks.
func specError(field, format string, args ...any) error {
	return fmt.Errorf("aggregate: %s: %s", field, fmt.Sprintf(format, args...))
}

// Validate checks the Spec once, where it enters: a learner with an
// aggregate path (kde, naive-bayes, ridge; logistic through passes,
// logistic.go), 1…MaxDim distinct feature
// columns with valid names, valid bounds and finite fill values inside
// them, the label the learner needs (none, real with bounds, or binary
// with declared classes and a fill class of ±1), and 2 ≤ B ≤ MaxBins.
func (s Spec) Validate() error {
	l, err := learners.Lookup(s.Learner)
	if err != nil {
		return specError("learner", "%v", err)
	}
	ls := l.Spec()
	switch s.Learner {
	case learners.KindKDE, learners.KindNaiveBayes, learners.KindRidge, learners.KindLogistic:
	default:
		return specError("learner", "%s has no aggregate query (kde, naive-bayes and ridge have, logistic has one per Newton pass; the others need the records in memory)", s.Learner)
	}
	if d := len(s.Features); d < ls.MinDim || d > ls.MaxDim {
		return specError("features", "%d feature columns; %s takes %d to %d", d, s.Learner, ls.MinDim, ls.MaxDim)
	}
	names := make([]string, 0, len(s.Features)+1)
	for _, f := range s.Features {
		if err := checkColumn(f.Name, f.Bounds, f.Fill); err != nil {
			return err
		}
		names = append(names, f.Name)
	}
	switch ls.Label {
	case learners.LabelNone:
		if s.Label != nil {
			return specError("label", "%s takes no label column", s.Learner)
		}
	case learners.LabelReal:
		if s.Label == nil || s.Label.Classes != nil {
			return specError("label", "%s needs a real label column with public bounds (and no classes)", s.Learner)
		}
		if err := checkColumn(s.Label.Name, s.Label.Bounds, s.Label.Fill); err != nil {
			return err
		}
		names = append(names, s.Label.Name)
	case learners.LabelBinary:
		if s.Label == nil || s.Label.Classes == nil {
			return specError("label", "%s needs a binary label column with its two declared classes", s.Learner)
		}
		if err := checkName("column", s.Label.Name); err != nil {
			return err
		}
		if err := s.Label.Classes.Validate(); err != nil {
			return specError("classes", "%v", err)
		}
		if s.Label.FillClass != -1 && s.Label.FillClass != 1 {
			return specError("fill class", "%v must be −1 (the negative class) or +1 (the positive class)", s.Label.FillClass)
		}
		names = append(names, s.Label.Name)
	}
	for i, n := range names {
		if slices.Index(names, n) != i {
			return specError("column "+dataset.QuoteShort(n), "selected twice")
		}
	}
	if b := s.bins(); b < 2 || b > MaxBins {
		return specError("bins", "%d must be between 2 and %d", b, MaxBins)
	}
	if s.N < 0 || float64(s.N) > MaxN {
		return specError("n", "%d must be between 1 and %.0f (0: not declared yet, enough to write the query)", s.N, float64(MaxN))
	}
	return nil
}

// checkName refuses column (or table) names no engine can take safely: empty, longer
// than 1,000 bytes, or with control characters (NUL ends a C string in
// PostgreSQL; a newline would break the golden text). Every other name is
// quoted (QuoteIdent), whatever quotes or semicolons it holds.
func checkName(what, name string) error {
	if name == "" {
		return specError(what, "empty %s name", what)
	}
	if len(name) > 1000 {
		return specError(what+" "+dataset.QuoteShort(name), "name longer than 1,000 bytes")
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return specError(what+" "+dataset.QuoteShort(name), "name holds a control character or invalid UTF-8")
		}
	}
	return nil
}

// checkColumn checks a numeric column's name, public bounds and fill value.
func checkColumn(name string, b dataset.Bounds, fill float64) error {
	if err := checkName("column", name); err != nil {
		return err
	}
	if err := b.Validate(); err != nil {
		return specError("column "+dataset.QuoteShort(name), "invalid bounds: %v", err)
	}
	if math.IsNaN(fill) || fill < b.Lo || fill > b.Hi {
		return specError("fill["+dataset.QuoteShort(name)+"]", "fill value %v must be a finite number within the public bounds [%v, %v]", fill, b.Lo, b.Hi)
	}
	return nil
}
