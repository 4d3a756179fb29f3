package ui

import (
	"fmt"
	"math"
	"strconv"

	"github.com/bernsteinrelease/bernstein/mechanism"
)

// epsilonReading is the one-line, plain-language reading of ε (and δ) shown
// under the privacy slider. It states the definition of differential
// privacy in words: for any two datasets that differ in one person's
// record, every published result is at most e^ε times more (or less)
// likely under one than under the other — plus, for (ε, δ), a small
// probability δ that this fails.
func epsilonReading(eps, delta float64, kind mechanism.NoiseKind) string {
	if !(eps > 0) || math.IsInf(eps, 0) {
		return "ε must be a positive number."
	}
	f := math.Exp(eps)
	var factor string
	switch {
	case f < 10:
		factor = strconv.FormatFloat(f, 'f', 2, 64)
	case f < 1e6:
		factor = strconv.FormatFloat(f, 'f', 0, 64)
	default:
		factor = strconv.FormatFloat(f, 'g', 2, 64)
	}
	var strength string
	switch {
	case eps <= 0.1:
		strength = "Very strong privacy"
	case eps <= 1:
		strength = "Strong privacy"
	case eps <= 3:
		strength = "Moderate privacy"
	case eps <= 10:
		strength = "Weak privacy"
	default:
		strength = "Very weak privacy"
	}
	s := fmt.Sprintf("%s: adding or changing any one person's record makes any published result at most %s× more or less likely.", strength, factor)
	if kind != mechanism.NoiseLaplace && delta > 0 {
		s += fmt.Sprintf(" δ = %s: probability %s that the ε guarantee fails.", strconv.FormatFloat(delta, 'g', 3, 64), oneIn(delta))
	}
	return s
}

// oneIn writes a small probability as "1 in N" ("1 in a million").
func oneIn(p float64) string {
	if !(p > 0) || p >= 1 {
		return strconv.FormatFloat(p, 'g', 3, 64)
	}
	n := 1 / p
	switch {
	case math.Abs(n-1e9) < 1e-6*1e9:
		return "1 in a billion"
	case math.Abs(n-1e6) < 1e-6*1e6:
		return "1 in a million"
	case n >= 1e9:
		return fmt.Sprintf("1 in %s billion", strconv.FormatFloat(n/1e9, 'g', 3, 64))
	case n >= 1e6:
		return fmt.Sprintf("1 in %s million", strconv.FormatFloat(n/1e6, 'g', 3, 64))
	}
	return fmt.Sprintf("1 in %s", strconv.FormatFloat(n, 'f', 0, 64))
}

// budgetLine is the status-bar text for the dataset's privacy budget.
func budgetLine(spent, delta, budget float64) string {
	left := budget - spent
	status := fmtBudget(math.Max(left, 0)) + " left"
	if left < -1e-12 {
		status = "OVER BUDGET by " + fmtBudget(-left)
	}
	s := fmt.Sprintf("Privacy budget for this dataset: ε spent %s of %s, %s", fmtBudget(spent), fmtBudget(budget), status)
	if delta > 0 {
		s += fmt.Sprintf(" (δ spent %s)", strconv.FormatFloat(delta, 'g', 3, 64))
	}
	return s
}

func fmtBudget(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
