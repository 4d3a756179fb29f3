package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapText(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"", 10, ""},
		{"one", 10, "one"},
		{"one two three", 7, "one two\n  three"},
		{"ε = 1 ε = 2", 5, "ε = 1\n  ε = 2"},
		{"averyveryverylongword x", 5, "averyveryverylongword\n  x"},
	}
	for _, tt := range tests {
		got := wrapText(tt.in, tt.width, 2)
		if got != tt.want {
			t.Errorf("wrapText(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
		for _, line := range strings.Split(got, "\n") {
			if n := utf8.RuneCountInString(strings.TrimSpace(line)); n > tt.width && !strings.Contains(line, "averyvery") {
				t.Errorf("line %q has %d runes > %d", line, n, tt.width)
			}
		}
	}
}
