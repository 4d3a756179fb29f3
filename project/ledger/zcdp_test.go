package ledger

import (
	"errors"
	"math"
	mrand "math/rand/v2"
	"testing"
)

// stdNormalCDF is Φ, from math.Erfc (independent of the noise library).
func stdNormalCDF(x float64) float64 { return math.Erfc(-x/math.Sqrt2) / 2 }

// analyticGaussianDelta is the δ of the Gaussian mechanism with σ for L2
// sensitivity 1 at ε: Φ(1/(2σ) − εσ) − e^ε·Φ(−1/(2σ) − εσ) (Balle & Wang
// 2018, Theorem 8), the exact privacy profile the library's σ search
// inverts.
func analyticGaussianDelta(sigma, eps float64) float64 {
	return stdNormalCDF(1/(2*sigma)-eps*sigma) - math.Exp(eps)*stdNormalCDF(-1/(2*sigma)-eps*sigma)
}

// TestZCDPFormulas checks the zCDP costs and the conversion against the
// formulas of Bun & Steinke 2016 (Propositions 1.3, 1.4, 1.6) and Balle &
// Wang 2018 (Theorem 8), computed here independently: a pure ε release
// costs ε²/2; a Gaussian release at (ε, δ) costs 1/(2σ²) for the σ of
// unit sensitivity whose exact δ is at most δ, never less than the tight
// σ gives (the margin), and at least the classical bound's
// ε²/(4·ln(1.25/δ)) would; ρ converts to ε = ρ + 2√(ρ ln(1/δ)).
// Tolerances: 1e-12 relative on closed forms (rounding).
func TestZCDPFormulas(t *testing.T) {
	for _, tc := range []struct {
		rho, delta, want float64
	}{
		{0.5, 1e-6, 5.756521769756932},   // 0.5 + 2√(0.5·ln 10⁶), by hand
		{0.01, 1e-5, 0.6886140424415113}, // 0.01 + 2√(0.01·ln 10⁵)
		{0, 1e-6, 0},
	} {
		if got := ZCDPEpsilon(tc.rho, tc.delta); math.Abs(got-tc.want) > 1e-12*math.Max(1, tc.want) {
			t.Errorf("ZCDPEpsilon(%g, %g) = %v, want %v", tc.rho, tc.delta, got, tc.want)
		}
	}
	if !math.IsInf(ZCDPEpsilon(0.1, 0), 1) || !math.IsInf(ZCDPEpsilon(0.1, -1e-7), 1) {
		t.Error("no δ left must convert to ε = +Inf")
	}
	for _, tc := range []struct {
		e    Entry
		want float64 // -1: no zCDP cost
	}{
		{Entry{Kind: KindRelease, Epsilon: 0.5, Noise: "laplace"}, 0.125},
		{Entry{Kind: KindBounds, Epsilon: 0.2, Noise: "exponential"}, 0.02},
		{Entry{Kind: KindValidation, Epsilon: 1, Noise: "laplace"}, 0.5},
		{Entry{Kind: KindRelease, Epsilon: 0.5, Delta: 1e-6, Noise: "laplace-approx"}, -1},
		{Entry{Kind: KindRepair, Epsilon: 0.5}, -1},
		{Entry{Kind: KindBudget, Budget: 2}, -1},
	} {
		rho, ok := RhoOf(tc.e)
		if tc.want < 0 && ok || tc.want >= 0 && (!ok || math.Abs(rho-tc.want) > 1e-15) {
			t.Errorf("RhoOf(%+v) = %v, %v; want %v", tc.e, rho, ok, tc.want)
		}
	}
	for _, tc := range []struct{ eps, delta float64 }{{1, 1e-5}, {0.1, 1e-8}, {0.5, 1e-6}, {3, 1e-10}, {0.01, 1e-3}} {
		rho, ok := RhoOf(Entry{Kind: KindRelease, Epsilon: tc.eps, Delta: tc.delta, Noise: "gaussian"})
		if !ok {
			t.Fatalf("a Gaussian release at (%g, %g) has no zCDP cost", tc.eps, tc.delta)
		}
		sigma := math.Sqrt(gaussianRhoMargin / (2 * rho)) // the σ₁ charged
		if d := analyticGaussianDelta(sigma, tc.eps); d > tc.delta {
			t.Errorf("(%g, %g): σ₁ = %v gives δ %v > δ: not (ε, δ)-DP", tc.eps, tc.delta, sigma, d)
		}
		// Tight: at σ₁ reduced by 0.2 % the exact δ exceeds δ, so ρ is at
		// least the tight σ's ρ (the margin covers the 0.1 % search accuracy).
		if d := analyticGaussianDelta(sigma*(1-2e-3), tc.eps); d <= tc.delta {
			t.Errorf("(%g, %g): σ₁ = %v is not within 0.2 %% of the tight σ (δ %v there)", tc.eps, tc.delta, sigma, d)
		}
		if tc.eps < 1 {
			if classical := tc.eps * tc.eps / (4 * math.Log(1.25/tc.delta)); rho < classical {
				t.Errorf("(%g, %g): ρ = %v below the classical Gaussian's %v (σ = √(2 ln(1.25/δ))/ε, Dwork & Roth Theorem A.1)", tc.eps, tc.delta, rho, classical)
			}
		}
	}
}

// TestZCDPAdmitsSmallGaussianReleases is issue 19 item 3's test: 50
// Gaussian releases of ε = 0.1, δ = 10⁻⁸ on one dataset (budget ε 1, δ
// 10⁻⁶) are all admitted by the zCDP account — basic composition (Σε = 5)
// refuses from the 11th on — and are marked admitted_by zcdp; pure ε
// releases of 0.1 stop at 10, as before. Every release is recorded with
// its ε and δ: the basic account keeps counting.
func TestZCDPAdmitsSmallGaussianReleases(t *testing.T) {
	l := openTestLedger(t)
	for i := range 50 {
		e, err := l.Reserve(Entry{DatasetHash: hashA, Epsilon: 0.1, Delta: 1e-8, Noise: "gaussian"}, false)
		if err != nil {
			t.Fatalf("Gaussian release %d refused: %v", i+1, err)
		}
		if basic := 0.1 * float64(i+1); (basic > 1+1e-9) != (e.AdmittedBy == AdmittedByZCDP) {
			t.Errorf("release %d (Σε %g): admitted_by %q", i+1, basic, e.AdmittedBy)
		}
	}
	a := l.Accounts(hashA)
	// ρ = 50/(2σ₁²)·1.0201 with σ₁ ≈ 45.94 for (0.1, 10⁻⁸): 0.01209, which
	// converts at δ 10⁻⁶ to 0.8293 (docs/ledger.md).
	if math.Abs(a.Epsilon-5) > 1e-9 || math.Abs(a.Rho-0.01209) > 1e-4 || math.Abs(a.ZCDPEpsilon-0.8293) > 1e-3 || !a.ZCDPInForce() || a.ApproxEpsilon != 0 {
		t.Errorf("accounts %+v: want Σε 5, ρ 0.01209, the zCDP ε 0.8293 and in force", a)
	}
	// Basic composition alone refuses the same sequence from the 11th on.
	st := &ledgerState{entries: l.Entries(hashA)[:10]}
	if err := checkBudgets("l", st.entries, Entry{DatasetHash: hashA, Epsilon: 0.1, Delta: 1e-8}); err == nil {
		t.Error("basic composition admits an 11th release of ε 0.1")
	}
	// Pure ε: ρ = Σε²/2 converts to more than Σε for few releases.
	for i := range 11 {
		_, err := l.Reserve(Entry{DatasetHash: hashB, Epsilon: 0.1, Noise: "laplace"}, false)
		var be *BudgetError
		if i < 10 && err != nil || i == 10 && !errors.As(err, &be) {
			t.Fatalf("pure ε release %d: %v", i+1, err)
		}
	}
	// (ε, δ)-only releases count in both accounts by basic composition.
	_, err := l.Reserve(Entry{DatasetHash: hashC, Epsilon: 0.1, Delta: 6e-7, Noise: "laplace-approx"}, false)
	if err != nil {
		t.Fatal(err)
	}
	var be *BudgetError
	if _, err := l.Reserve(Entry{DatasetHash: hashC, Epsilon: 0.1, Delta: 6e-7, Noise: "laplace-approx"}, false); !errors.As(err, &be) || !be.Delta {
		t.Fatalf("a second (ε, δ)-only release past the δ budget: %v, want the δ budget's refusal", err)
	}
}

// TestZCDPAccountsNeverDecrease is the property test of issue 19 item 3:
// along random ledgers (releases pure, Gaussian and (ε, δ)-only,
// validations, bounds, repairs, budget entries), appending an entry never
// lowers Σε, Σδ, ρ or the (ε, δ)-only sums of any dataset, nor the zCDP
// account's ε while the dataset's δ budget stays the same (raising the δ
// budget converts ρ at a larger δ: a smaller ε for the same ρ). Seeded.
func TestZCDPAccountsNeverDecrease(t *testing.T) {
	r := mrand.New(mrand.NewPCG(19, 3))
	hashes := []string{hashA, hashB}
	for seq := range 300 {
		var es []Entry
		prev := map[string]Accounts{}
		for range 25 {
			e := Entry{DatasetHash: hashes[r.IntN(2)], Epsilon: math.Exp(-4 * r.Float64()), Kind: KindRelease}
			switch r.IntN(7) {
			case 0:
				e.Noise = "laplace"
			case 1, 2:
				e.Noise, e.Delta = "gaussian", math.Exp(-20*r.Float64()-2)
			case 3:
				e.Noise, e.Delta = "laplace-approx", math.Exp(-20*r.Float64()-2)
			case 4:
				e.Kind = []EntryKind{KindValidation, KindBounds}[r.IntN(2)]
			case 5:
				e.Kind, e.Delta = KindRepair, r.Float64()*1e-6
			case 6:
				e = Entry{DatasetHash: e.DatasetHash, Kind: KindBudget, Budget: 1 + r.Float64(), DeltaBudget: math.Exp(-12 * r.Float64())}
			}
			es = append(es, e)
			st := &ledgerState{entries: es}
			for _, h := range hashes {
				a, p := st.accounts(h), prev[h]
				if a.Epsilon < p.Epsilon || a.Delta < p.Delta || a.Rho < p.Rho || a.ApproxEpsilon < p.ApproxEpsilon || a.ApproxDelta < p.ApproxDelta ||
					a.DeltaBudget == p.DeltaBudget && a.ZCDPEpsilon < p.ZCDPEpsilon {
					t.Fatalf("sequence %d, after %+v: dataset %s accounts %+v fell from %+v", seq, e, ShortHash(h), a, p)
				}
				prev[h] = a
			}
		}
	}
}
