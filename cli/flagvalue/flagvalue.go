package flagvalue

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// List is a comma-separated list of names (--features a,b). Repeating
// the flag appends.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

func (l *List) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return fmt.Errorf("%q: empty name in comma-separated list", s)
		}
		*l = append(*l, part)
	}
	return nil
}

// Float is a float64 flag that remembers whether it was given and rejects
// NaN and ±Inf.
type Float struct {
	Value float64
	Given bool // the flag was on the command line
}

func (f *Float) String() string {
	if f == nil || !f.Given {
		return ""
	}
	return strconv.FormatFloat(f.Value, 'g', -1, 64)
}

func (f *Float) Set(s string) error {
	v, err := ParseFinite(s)
	if err != nil {
		return err
	}
	f.Value, f.Given = v, true
	return nil
}

// ParseFinite parses a finite float64 in the one number syntax of CSV
// values and flags (dataset.ParseNumber: plain decimal with an optional
// exponent; no "1_0", "0x1p-2", "Inf" or "NaN").
//
// A number too small for a float64 is refused, not silently read as 0:
// "1e-400 underflows to 0".
func ParseFinite(s string) (float64, error) {
	v, err := dataset.ParseNumber(s)
	if err == nil && v == 0 && strings.ContainsAny(mantissa(s), "123456789") {
		return 0, fmt.Errorf("%s underflows to 0: it is below the smallest positive float64 (about 4.9e-324)", strings.TrimSpace(s))
	}
	return v, err
}

// mantissa returns the part of a number before its exponent.
func mantissa(s string) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		return s[:i]
	}
	return s
}

// Number is a float64 flag with a default, parsed by ParseFinite (the
// flag package's Float64Var would take "0x1p-2", "1_0" and "NaN").
type Number struct{ p *float64 }

func (f Number) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f Number) Set(s string) error {
	v, err := ParseFinite(s)
	if err == nil {
		*f.p = v
	}
	return err
}

// Whole is a whole-number flag with a default, parsed by
// dataset.ParseWholeNumber (the flag package's IntVar and Uint64Var would
// take "0x10", "0b11" and "1_000").
type Whole[T int | uint64] struct{ p *T }

func (f Whole[T]) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatUint(uint64(*f.p), 10)
}

func (f Whole[T]) Set(s string) error {
	max := uint64(math.MaxInt32)
	if _, wide := any(f.p).(*uint64); wide {
		max = math.MaxUint64
	}
	v, err := dataset.ParseWholeNumber(s, max)
	if err == nil {
		*f.p = T(v)
	}
	return err
}

// WholeVar defines a whole-number flag with default value (see Whole).
func WholeVar[T int | uint64](fs *flag.FlagSet, p *T, name string, value T, usage string) {
	*p = value
	fs.Var(Whole[T]{p}, name, usage)
}

// NumberVar defines a float64 flag with default value (see Number).
func NumberVar(fs *flag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var(Number{p}, name, usage)
}

// Bound is one column's entry of --bounds: public bounds LO:HI, or
// "data" (suggest from the data; needs --acknowledge-data-bounds).
type Bound struct {
	Lo, Hi   float64
	FromData bool
}

// Bounds collects --bounds a=LO:HI,b=data (repeatable).
type Bounds struct {
	Order []string         // columns in the order given
	Specs map[string]Bound // per column
}

func (b *Bounds) String() string {
	if b == nil {
		return ""
	}
	parts := make([]string, len(b.Order))
	for i, name := range b.Order {
		s := b.Specs[name]
		if s.FromData {
			parts[i] = name + "=data"
		} else {
			parts[i] = fmt.Sprintf("%s=%g:%g", name, s.Lo, s.Hi)
		}
	}
	return strings.Join(parts, ",")
}

func (b *Bounds) Set(s string) error {
	if b.Specs == nil {
		b.Specs = map[string]Bound{}
	}
	return columnItems(s, "COLUMN=LO:HI or COLUMN=data", func(item, name, rng string) error {
		var spec Bound
		if strings.TrimSpace(rng) == "data" {
			spec.FromData = true
		} else {
			lo, hi, ok := strings.Cut(rng, ":")
			if !ok {
				return fmt.Errorf("%q: want COLUMN=LO:HI or COLUMN=data", item)
			}
			var err error
			if spec.Lo, err = ParseFinite(lo); err != nil {
				return fmt.Errorf("%q: lower bound %v", item, err)
			}
			if spec.Hi, err = ParseFinite(hi); err != nil {
				return fmt.Errorf("%q: upper bound %v", item, err)
			}
			if !(spec.Lo < spec.Hi) {
				return fmt.Errorf("%q: lower bound must be < upper bound", item)
			}
		}
		if _, dup := b.Specs[name]; dup {
			return fmt.Errorf("%q: bounds for column %q given twice", item, name)
		}
		b.Order = append(b.Order, name)
		b.Specs[name] = spec
		return nil
	})
}

// columnItems splits s at commas into COLUMN=VALUE items (--bounds,
// --fill) and calls parse on each in order, stopping at the first error;
// an item without "=" or without a column name is refused naming want,
// the syntax of one item.
func columnItems(s, want string, parse func(item, name, value string) error) error {
	for _, item := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("%q: want %s", item, want)
		}
		if err := parse(item, name, value); err != nil {
			return err
		}
	}
	return nil
}

// Params collects --param name=v or name=v1,v2 (repeatable).
type Params struct {
	Order  []string             // parameter names in the order given
	Values map[string][]float64 // per name: one value, or one per feature
}

func (p *Params) String() string {
	if p == nil {
		return ""
	}
	parts := make([]string, len(p.Order))
	for i, name := range p.Order {
		vs := make([]string, len(p.Values[name]))
		for j, v := range p.Values[name] {
			vs[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		parts[i] = name + "=" + strings.Join(vs, ",")
	}
	return strings.Join(parts, " ")
}

func (p *Params) Set(s string) error {
	if p.Values == nil {
		p.Values = map[string][]float64{}
	}
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=VALUE or NAME=V1,V2,… (one per feature)", s)
	}
	if _, dup := p.Values[name]; dup {
		return fmt.Errorf("%q: parameter %q given twice", s, name)
	}
	var vs []float64
	for _, f := range strings.Split(list, ",") {
		v, err := ParseFinite(f)
		if err != nil {
			return fmt.Errorf("parameter %s: %v (use one --param per parameter)", name, err)
		}
		vs = append(vs, v)
	}
	p.Order = append(p.Order, name)
	p.Values[name] = vs
	return nil
}

// K is --k: "auto" (k* of Sec. 4.1), one cover size for every axis, or
// one per axis (K1,K2,…).
type K struct {
	Auto  bool  // "auto"
	Sizes []int // otherwise: one cover size, or one per axis
}

func (k *K) String() string {
	if k == nil || k.Auto {
		return "auto"
	}
	s := make([]string, len(k.Sizes))
	for i, v := range k.Sizes {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

func (k *K) Set(s string) error {
	if strings.TrimSpace(s) == "auto" {
		k.Auto, k.Sizes = true, nil
		return nil
	}
	var ks []int
	for _, part := range strings.Split(s, ",") {
		v, err := dataset.ParseWholeNumber(part, math.MaxInt32)
		if err != nil || v < 1 {
			return fmt.Errorf("%q: want auto, a whole number ≥ 1, or one per feature (K1,K2,…)", s)
		}
		ks = append(ks, int(v))
	}
	k.Auto, k.Sizes = false, ks
	return nil
}

// Point is --at v1,v2,…: one query point in data units.
type Point []float64

func (p *Point) String() string {
	s := make([]string, len(*p))
	for i, v := range *p {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (p *Point) Set(s string) error {
	var vs []float64
	for _, part := range strings.Split(s, ",") {
		v, err := ParseFinite(part)
		if err != nil {
			return err
		}
		vs = append(vs, v)
	}
	*p = vs
	return nil
}

// Fill is --fill COL=V,COL=V: the public fill value per used numeric
// column (repeatable); a column not named is filled with the midpoint of
// its bounds.
type Fill struct {
	Values map[string]float64 // per column
	Order  []string           // columns in the order given
}

func (f *Fill) String() string {
	if f == nil {
		return ""
	}
	parts := make([]string, len(f.Order))
	for i, name := range f.Order {
		parts[i] = fmt.Sprintf("%s=%g", name, f.Values[name])
	}
	return strings.Join(parts, ",")
}

func (f *Fill) Set(s string) error {
	if f.Values == nil {
		f.Values = map[string]float64{}
	}
	return columnItems(s, "COLUMN=VALUE", func(item, name, val string) error {
		v, err := ParseFinite(val)
		if err != nil {
			return fmt.Errorf("%q: fill value %v", item, err)
		}
		if _, dup := f.Values[name]; dup {
			return fmt.Errorf("%q: fill value for column %q given twice", item, name)
		}
		f.Values[name] = v
		f.Order = append(f.Order, name)
		return nil
	})
}

// Classes is --classes NEG,POS: the declared values of a binary label.
type Classes struct {
	Value dataset.Classes
	Given bool // the flag was on the command line
}

func (f *Classes) String() string {
	if f == nil || !f.Given {
		return ""
	}
	return f.Value.String()
}

func (f *Classes) Set(s string) error {
	c, err := dataset.ParseClasses(s)
	if err != nil {
		return err
	}
	f.Value, f.Given = c, true
	return nil
}

// Quantiles is --bounds-quantiles QLO:QHI.
type Quantiles struct {
	Value [2]float64 // QLO, QHI
	Given bool       // the flag was on the command line
}

func (q *Quantiles) String() string {
	if q == nil || !q.Given {
		return ""
	}
	return fmt.Sprintf("%g:%g", q.Value[0], q.Value[1])
}

func (q *Quantiles) Set(s string) error {
	lo, hi, ok := strings.Cut(s, ":")
	if !ok {
		return fmt.Errorf("%q: want QLO:QHI, e.g. 0.01:0.99", s)
	}
	a, err := ParseFinite(lo)
	if err != nil {
		return err
	}
	b, err := ParseFinite(hi)
	if err != nil {
		return err
	}
	if !(a > 0 && a < b && b < 1) {
		return fmt.Errorf("%q: need 0 < QLO < QHI < 1", s)
	}
	q.Value, q.Given = [2]float64{a, b}, true
	return nil
}

// Delimiter is a CSV delimiter flag: auto (0, the default), tab, or one
// character (dataset.ParseDelimiter; the other rules are
// dataset.ImportOptions.Validate's).
type Delimiter struct{ R rune }

func (d *Delimiter) String() string { return dataset.FormatDelimiter(d.R) }

func (d *Delimiter) Set(s string) error {
	r, err := dataset.ParseDelimiter(s)
	if err == nil {
		d.R = r
	}
	return err
}
