package cli

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// Flag value types of the command line. Each parses and validates its own
// syntax once, where the text comes in, with messages naming the value and
// the rule broken; the project package validates meaning (bounds order,
// parameter ranges, …).

// listFlag is a comma-separated list of names (--features a,b). Repeating
// the flag appends.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return fmt.Errorf("%q: empty name in comma-separated list", s)
		}
		*l = append(*l, part)
	}
	return nil
}

// floatFlag is a float64 flag that remembers whether it was given and rejects
// NaN and ±Inf.
type floatFlag struct {
	v   float64
	set bool
}

func (f *floatFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatFloat(f.v, 'g', -1, 64)
}

func (f *floatFlag) Set(s string) error {
	v, err := parseFinite(s)
	if err != nil {
		return err
	}
	f.v, f.set = v, true
	return nil
}

// parseFinite parses a finite float64 in the one number syntax of CSV
// values and flags (dataset.ParseNumber: plain decimal with an optional
// exponent; no "1_0", "0x1p-2", "Inf" or "NaN").
//
// A number too small for a float64 is refused, not silently read as 0:
// "1e-400 underflows to 0".
func parseFinite(s string) (float64, error) {
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

// numberFlag is a float64 flag with a default, parsed by parseFinite (the
// flag package's Float64Var would take "0x1p-2", "1_0" and "NaN").
type numberFlag struct{ p *float64 }

func (f numberFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f numberFlag) Set(s string) error {
	v, err := parseFinite(s)
	if err == nil {
		*f.p = v
	}
	return err
}

// wholeFlag is a whole-number flag with a default, parsed by
// dataset.ParseWholeNumber (the flag package's IntVar and Uint64Var would
// take "0x10", "0b11" and "1_000").
type wholeFlag[T int | uint64] struct{ p *T }

func (f wholeFlag[T]) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatUint(uint64(*f.p), 10)
}

func (f wholeFlag[T]) Set(s string) error {
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

// wholeVar defines a whole-number flag with default value (see wholeFlag).
func wholeVar[T int | uint64](fs *flag.FlagSet, p *T, name string, value T, usage string) {
	*p = value
	fs.Var(wholeFlag[T]{p}, name, usage)
}

// numberVar defines a float64 flag with default value (see numberFlag).
func numberVar(fs *flag.FlagSet, p *float64, name string, value float64, usage string) {
	*p = value
	fs.Var(numberFlag{p}, name, usage)
}

// boundSpec is one column's entry of --bounds: public bounds LO:HI, or
// "data" (suggest from the data; needs --acknowledge-data-bounds).
type boundSpec struct {
	Lo, Hi   float64
	FromData bool
}

// boundsFlag collects --bounds a=LO:HI,b=data (repeatable).
type boundsFlag struct {
	order []string
	specs map[string]boundSpec
}

func (b *boundsFlag) String() string {
	if b == nil {
		return ""
	}
	parts := make([]string, len(b.order))
	for i, name := range b.order {
		s := b.specs[name]
		if s.FromData {
			parts[i] = name + "=data"
		} else {
			parts[i] = fmt.Sprintf("%s=%g:%g", name, s.Lo, s.Hi)
		}
	}
	return strings.Join(parts, ",")
}

func (b *boundsFlag) Set(s string) error {
	if b.specs == nil {
		b.specs = map[string]boundSpec{}
	}
	for _, item := range strings.Split(s, ",") {
		name, rng, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("%q: want COLUMN=LO:HI or COLUMN=data", item)
		}
		var spec boundSpec
		if strings.TrimSpace(rng) == "data" {
			spec.FromData = true
		} else {
			lo, hi, ok := strings.Cut(rng, ":")
			if !ok {
				return fmt.Errorf("%q: want COLUMN=LO:HI or COLUMN=data", item)
			}
			var err error
			if spec.Lo, err = parseFinite(lo); err != nil {
				return fmt.Errorf("%q: lower bound %v", item, err)
			}
			if spec.Hi, err = parseFinite(hi); err != nil {
				return fmt.Errorf("%q: upper bound %v", item, err)
			}
			if !(spec.Lo < spec.Hi) {
				return fmt.Errorf("%q: lower bound must be < upper bound", item)
			}
		}
		if _, dup := b.specs[name]; dup {
			return fmt.Errorf("%q: bounds for column %q given twice", item, name)
		}
		b.order = append(b.order, name)
		b.specs[name] = spec
	}
	return nil
}

// paramsFlag collects --param name=v or name=v1,v2 (repeatable).
type paramsFlag struct {
	order  []string
	values map[string][]float64
}

func (p *paramsFlag) String() string {
	if p == nil {
		return ""
	}
	parts := make([]string, len(p.order))
	for i, name := range p.order {
		vs := make([]string, len(p.values[name]))
		for j, v := range p.values[name] {
			vs[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		parts[i] = name + "=" + strings.Join(vs, ",")
	}
	return strings.Join(parts, " ")
}

func (p *paramsFlag) Set(s string) error {
	if p.values == nil {
		p.values = map[string][]float64{}
	}
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=VALUE or NAME=V1,V2,… (one per feature)", s)
	}
	if _, dup := p.values[name]; dup {
		return fmt.Errorf("%q: parameter %q given twice", s, name)
	}
	var vs []float64
	for _, f := range strings.Split(list, ",") {
		v, err := parseFinite(f)
		if err != nil {
			return fmt.Errorf("parameter %s: %v (use one --param per parameter)", name, err)
		}
		vs = append(vs, v)
	}
	p.order = append(p.order, name)
	p.values[name] = vs
	return nil
}

// kFlag is --k: "auto" (k* of Sec. 4.1), one cover size for every axis, or
// one per axis (K1,K2,…).
type kFlag struct {
	auto bool
	k    []int
}

func (k *kFlag) String() string {
	if k == nil || k.auto {
		return "auto"
	}
	s := make([]string, len(k.k))
	for i, v := range k.k {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

func (k *kFlag) Set(s string) error {
	if strings.TrimSpace(s) == "auto" {
		k.auto, k.k = true, nil
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
	k.auto, k.k = false, ks
	return nil
}

// pointFlag is --at v1,v2,…: one query point in data units.
type pointFlag []float64

func (p *pointFlag) String() string {
	s := make([]string, len(*p))
	for i, v := range *p {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (p *pointFlag) Set(s string) error {
	var vs []float64
	for _, part := range strings.Split(s, ",") {
		v, err := parseFinite(part)
		if err != nil {
			return err
		}
		vs = append(vs, v)
	}
	*p = vs
	return nil
}
