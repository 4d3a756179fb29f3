package flagvalue

import "testing"

// TestNumericFlagTypes: the flag types take plain decimal, with spaces and
// a '+' sign, and keep their default in help.
func TestNumericFlagTypes(t *testing.T) {
	var x float64
	var n int
	var u uint64
	for _, c := range []struct {
		set  interface{ Set(string) error }
		in   string
		want func() bool
	}{
		{Number{&x}, " -1.5e2 ", func() bool { return x == -150 }},
		{Number{&x}, ".25", func() bool { return x == 0.25 }},
		{Whole[int]{&n}, "+7", func() bool { return n == 7 }},
		{Whole[uint64]{&u}, "18446744073709551615", func() bool { return u == 1<<64-1 }},
	} {
		if err := c.set.Set(c.in); err != nil || !c.want() {
			t.Errorf("Set(%q): %v", c.in, err)
		}
	}
	if err := (Whole[int]{&n}).Set("2147483648"); err == nil {
		t.Error("an int flag took 2^31")
	}
	var k K
	if err := k.Set("3, 4"); err != nil || len(k.Sizes) != 2 || k.Sizes[1] != 4 {
		t.Errorf("--k 3,4: %v %v", k, err)
	}
	for _, bad := range []string{"0", "-3", "+", "0x3"} {
		if err := k.Set(bad); err == nil {
			t.Errorf("--k %q accepted", bad)
		}
	}
}

// TestDelimiterFlag: --delimiter takes auto, tab, names and one character,
// and shows itself as it would be typed.
func TestDelimiterFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want rune
		show string
	}{{"auto", 0, "auto"}, {"tab", '\t', "tab"}, {";", ';', ";"}, {"pipe", '|', "|"}} {
		var d Delimiter
		if err := d.Set(c.in); err != nil || d.R != c.want || d.String() != c.show {
			t.Errorf("Set(%q) = %q (%q), %v", c.in, d.R, d.String(), err)
		}
	}
	var d Delimiter
	if err := d.Set(`"`); err == nil || d.R != 0 {
		t.Errorf(`--delimiter '"' accepted (%q)`, d.R)
	}
}
