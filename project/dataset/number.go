package dataset

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Number syntax: the one rule for numbers a person writes, in CSV values
// (ParseCSV) and on the command line (every numeric flag of the bernstein
// command). strconv.ParseFloat alone is too lenient: it also takes "1_0",
// "0x1p-2", "Inf", "NaN" and "infinity", none of which a curator means as
// a data value or a privacy parameter.
//
// A number is, after trimming spaces, plain decimal with an optional
// exponent:
//
//	[+-] digits [. digits] [(e|E) [+-] digits]    e.g. 3, -0.25, 1.5e-3
//	[+-] digits .                                  e.g. 2.
//	[+-] . digits [exponent]                       e.g. .5
//
// and must be finite as a float64. A whole number (ParseWholeNumber) is
// [+] digits.

// ParseNumber parses s as a finite float64 in the number syntax above.
// Errors quote s (at most 40 characters) and state the rule:
// `"abc" is not a number`, `"NaN" is not a finite number`, `"1_0" is not a
// plain decimal number (…)` for what strconv.ParseFloat would take, and a
// hint to use a point for a decimal comma ("1,5").
func ParseNumber(s string) (float64, error) { return parseNumberSep(s, '.') }

// ParseDecimalComma parses s in the number syntax above with a comma in
// place of the point ("1,5", "-2,5e3", ",5"): the values of a CSV file
// read with ImportOptions.DecimalComma. A value with a point ("1.5", or
// "1.234,5" with a thousands separator) is refused, so a file that mixes
// both is never half misread. Errors quote s as ParseNumber's do.
func ParseDecimalComma(s string) (float64, error) { return parseNumberSep(s, ',') }

// decimalCommaHint ends ParseNumber's message for a value that would be a
// number with a decimal comma; ParseCSV replaces it by one that names the
// import option.
const decimalCommaHint = " (decimal comma? use a point)"

// parseNumberSep is ParseNumber with the decimal separator sep ('.' or ',').
func parseNumberSep(s string, sep byte) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("missing value")
	}
	u := t
	if sep == ',' {
		if strings.Contains(t, ".") {
			return 0, fmt.Errorf("%s is not a number with a decimal comma (write 1,5 without thousands separators)", QuoteShort(t))
		}
		u = strings.Replace(t, ",", ".", 1)
	}
	if !isPlainDecimal(u) {
		v, err := strconv.ParseFloat(u, 64)
		switch {
		case err == nil && (math.IsInf(v, 0) || math.IsNaN(v)):
			return 0, fmt.Errorf("%s is not a finite number", QuoteShort(t))
		case err == nil || errors.Is(err, strconv.ErrRange):
			return 0, fmt.Errorf("%s is not a plain decimal number (digits, an optional %s and exponent, e.g. -1%c5e3)", QuoteShort(t), sepName(sep), sep)
		case sep == '.' && strings.Count(t, ",") == 1 && isPlainDecimal(strings.Replace(t, ",", ".", 1)):
			return 0, fmt.Errorf("%s is not a number%s", QuoteShort(t), decimalCommaHint)
		}
		return 0, fmt.Errorf("%s is not a number", QuoteShort(t))
	}
	v, err := strconv.ParseFloat(u, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is outside the range of a float64", QuoteShort(t))
	case err != nil: // cannot happen after isPlainDecimal
		return 0, fmt.Errorf("%s is not a number", QuoteShort(t))
	}
	return v, nil
}

// sepName names a decimal separator.
func sepName(sep byte) string {
	if sep == ',' {
		return "comma"
	}
	return "point"
}

// ParseWholeNumber parses s, after trimming spaces, as a whole number
// written as decimal digits with an optional leading '+' ("12", "+3",
// "05" = 5: leading zeros are harmless; not "0x10", "1_000", "1e3", "-1" or
// "++3"), at most max. Errors quote s and state the rule.
func ParseWholeNumber(s string, max uint64) (uint64, error) {
	t := strings.TrimSpace(s)
	digits := strings.TrimPrefix(t, "+")
	if digits == "" || countDigits(digits) != len(digits) {
		return 0, fmt.Errorf("%s is not a whole number (decimal digits with an optional leading +, e.g. 12)", QuoteShort(t))
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || v > max {
		return 0, fmt.Errorf("%s is larger than %d", QuoteShort(t), max)
	}
	return v, nil
}

// isPlainDecimal reports whether t is in the number syntax (ParseNumber).
func isPlainDecimal(t string) bool {
	if t != "" && (t[0] == '+' || t[0] == '-') {
		t = t[1:]
	}
	intDigits := countDigits(t)
	t = t[intDigits:]
	fracDigits := 0
	if t != "" && t[0] == '.' {
		t = t[1:]
		fracDigits = countDigits(t)
		t = t[fracDigits:]
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if t != "" && (t[0] == 'e' || t[0] == 'E') {
		t = t[1:]
		if t != "" && (t[0] == '+' || t[0] == '-') {
			t = t[1:]
		}
		n := countDigits(t)
		if n == 0 {
			return false
		}
		t = t[n:]
	}
	return t == ""
}

// countDigits returns the length of the run of ASCII digits starting s.
func countDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
