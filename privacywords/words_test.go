package privacywords_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/privacywords"
)

func TestReading(t *testing.T) {
	tests := []struct {
		eps, delta float64
		kind       mechanism.NoiseKind
		want       []string
	}{
		{0.05, 0, mechanism.NoiseLaplace, []string{"Very strong privacy", "1.05×"}},
		{1, 0, mechanism.NoiseLaplace, []string{"Strong privacy", "2.72×"}},
		{2, 1e-6, mechanism.NoiseGaussian, []string{"Moderate privacy", "7.39×", "probability 1 in a million that the ε guarantee fails"}},
		{2, 1e-9, mechanism.NoiseGaussian, []string{"probability 1 in a billion that the ε guarantee fails"}},
		{2, 4e-7, mechanism.NoiseLaplaceApprox, []string{"probability 1 in 2.5 million that the ε guarantee fails"}},
		{8, 1e-6, mechanism.NoiseLaplace, []string{"Weak privacy", "2981×"}},
		{50, 0, mechanism.NoiseLaplace, []string{"Very weak privacy", "5.2e+21×"}},
		{-1, 0, mechanism.NoiseLaplace, []string{"must be a positive number"}},
	}
	for _, tt := range tests {
		got := privacywords.Reading(tt.eps, tt.delta, tt.kind)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("ε = %g: %q lacks %q", tt.eps, got, w)
			}
		}
		if tt.kind == mechanism.NoiseLaplace && strings.Contains(got, "δ") {
			t.Errorf("ε = %g, pure Laplace: %q mentions δ", tt.eps, got)
		}
	}
}

func ExampleReading() {
	fmt.Println(privacywords.Reading(0.5, 0, mechanism.NoiseLaplace))
	fmt.Println(privacywords.Reading(1, 1e-6, mechanism.NoiseGaussian))
	// Output:
	// Strong privacy: adding or changing any one person's record makes any published result at most 1.65× more or less likely.
	// Strong privacy: adding or changing any one person's record makes any published result at most 2.72× more or less likely. δ = 1e-06: probability 1 in a million that the ε guarantee fails.
}

func TestOnePerson(t *testing.T) {
	got := privacywords.OnePerson(1, 1e-6, mechanism.NoiseGaussian)
	for _, w := range []string{"Strong privacy", "one person", "2.72×", "1 in a million", "add their own ε"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
	if got := privacywords.OnePerson(1, 1e-6, mechanism.NoiseLaplace); strings.Contains(got, "δ") {
		t.Errorf("pure Laplace mentions δ: %q", got)
	}
	if got := privacywords.OnePerson(0, 0, mechanism.NoiseLaplace); !strings.Contains(got, "no valid ε") {
		t.Errorf("ε = 0: %q", got)
	}
}

func TestBudgetLeft(t *testing.T) {
	tests := []struct {
		left float64
		want string
	}{
		{0.75, "ε = 0.75 left still allows releases that together make any published result at most 2.12× more or less likely"},
		{0.05, "very strong privacy"},
		{0, "Nothing is left"},
		{-0.5, "Nothing is left"},
		{math.NaN(), "Nothing is left"},
		{math.Inf(1), "No limit"},
	}
	for _, tt := range tests {
		if got := privacywords.BudgetLeft(tt.left); !strings.Contains(got, tt.want) {
			t.Errorf("BudgetLeft(%g) = %q, want it to contain %q", tt.left, got, tt.want)
		}
	}
}

func ExampleBudgetLeft() {
	fmt.Println(privacywords.BudgetLeft(0.5))
	// Output:
	// The ε = 0.5 left still allows releases that together make any published result at most 1.65× more or less likely because of any one person's record (strong privacy, for all of them combined).
}
