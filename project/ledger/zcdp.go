package ledger

import (
	"fmt"
	"math"

	"github.com/google/differential-privacy/go/v3/noise"
)

// zCDP accounting beside basic composition (docs/ledger.md, "zCDP
// accounting"; Bun & Steinke 2016, "Concentrated differential privacy:
// simplifications, extensions, and lower bounds", TCC). Each dataset keeps
// two accounts of the same entries; both are valid guarantees of the whole
// (adaptive) sequence, so a release is admitted when either stays within
// the dataset's budgets.

// AdmittedByZCDP is the value of Entry.AdmittedBy for a release admitted
// by the zCDP account alone (basic composition would have refused it).
const AdmittedByZCDP = "zcdp"

// gaussianRhoMargin raises the ρ of a Gaussian release against the
// accuracy of the library's σ search (noise.SigmaForGaussian returns σ
// within a relative 10⁻³ above the tight σ): (1 + 10⁻²)² ≥ (1 + 10⁻³)².
const gaussianRhoMargin = (1 + 1e-2) * (1 + 1e-2)

// RhoOf returns the zCDP cost ρ of a spending entry, and false if it has
// none (it joins the zCDP account by basic composition as (ε, δ)):
//
//   - an entry of a spending kind other than repair with δ = 0 is pure
//     ε-DP (Laplace, exponential mechanism): ρ = ε²/2 (Bun & Steinke 2016,
//     Proposition 1.4);
//   - a release or validation with noise "gaussian" and δ > 0 added
//     Gaussian noise of σ = noise.SigmaForGaussian(m, S, ε, δ) for the L2
//     sensitivity Δ = S·√m (mechanism.NoiseScale): ρ = Δ²/(2σ²)
//     (Proposition 1.6). The analytic Gaussian's σ is proportional to Δ
//     (its δ depends on Δ/σ only), so ρ = 1/(2σ₁²) with σ₁ the σ for
//     Δ = 1 at the entry's (ε, δ): the ledger needs no more than the
//     entry's ε and δ, and old lines are accounted too. ρ is raised by
//     gaussianRhoMargin against the accuracy of the σ search;
//   - anything else (Laplace with an (ε, δ) guarantee, "laplace-approx";
//     repair entries, whose ε and δ bound entries nobody can read; an
//     unknown noise) has only its (ε, δ) guarantee.
func RhoOf(e Entry) (float64, bool) {
	if !e.Kind.spends() || e.Kind == KindRepair {
		return 0, false
	}
	if e.Delta == 0 {
		return e.Epsilon * e.Epsilon / 2, true
	}
	if e.Noise == "gaussian" && (e.Kind == KindRelease || e.Kind == KindValidation) {
		s := noise.SigmaForGaussian(1, 1, e.Epsilon, e.Delta)
		if s > 0 && isFinite(s) {
			return gaussianRhoMargin / (2 * s * s), true
		}
	}
	return 0, false
}

// ZCDPEpsilon converts a ρ-zCDP guarantee to (ε, δ)-DP: ε = ρ +
// 2√(ρ·ln(1/δ)) (Bun & Steinke 2016, Proposition 1.3), for δ in (0, 1);
// +Inf for δ ≤ 0.
func ZCDPEpsilon(rho, delta float64) float64 {
	if delta <= 0 || delta >= 1 || !isFinite(rho) || rho < 0 {
		return math.Inf(1)
	}
	return rho + 2*math.Sqrt(rho*math.Log(1/delta))
}

// Accounts are a dataset's two accounts of the same entries.
type Accounts struct {
	// Epsilon and Delta are basic composition: Σε and Σδ (Spent).
	Epsilon, Delta float64
	// Rho is the Σρ of the entries with a zCDP cost (RhoOf); ApproxEpsilon
	// and ApproxDelta are Σε and Σδ of the others (and of what damaged or
	// torn lines are charged), which join by basic composition.
	Rho, ApproxEpsilon, ApproxDelta float64
	// DeltaBudget is the dataset's δ budget; ZCDPEpsilon is the zCDP
	// account's ε at it: ρ converted at δ′ = DeltaBudget − ApproxDelta,
	// plus ApproxEpsilon, so that the whole is (ZCDPEpsilon,
	// DeltaBudget)-DP; +Inf if no δ is left for the conversion.
	DeltaBudget, ZCDPEpsilon float64
}

// ZCDPInForce reports whether the zCDP account gives the smaller ε (at the
// δ budget): the guarantee shown as in force.
func (a Accounts) ZCDPInForce() bool { return a.ZCDPEpsilon < a.Epsilon }

// add returns the accounts with e appended.
func (a Accounts) add(e Entry) Accounts {
	if !e.Kind.spends() {
		return a
	}
	a.Epsilon += e.Epsilon
	a.Delta += e.Delta
	if rho, ok := RhoOf(e); ok {
		a.Rho += rho
	} else {
		a.ApproxEpsilon += e.Epsilon
		a.ApproxDelta += e.Delta
	}
	return a.converted()
}

// converted sets ZCDPEpsilon from the other fields.
func (a Accounts) converted() Accounts {
	a.ZCDPEpsilon = ZCDPEpsilon(a.Rho, a.DeltaBudget-a.ApproxDelta) + a.ApproxEpsilon
	if a.Rho == 0 && a.ApproxDelta < a.DeltaBudget {
		a.ZCDPEpsilon = a.ApproxEpsilon
	}
	return a
}

// accounts returns the accounts of dataset h over entries, plus the
// charges of damaged and torn lines (basic composition in both accounts).
func (st *ledgerState) accounts(h string) Accounts {
	a := Accounts{DeltaBudget: deltaBudget(st.entries, h)}
	for _, e := range st.entries {
		if e.charges(h) {
			a = a.add(e)
		}
	}
	extra := func(eps, delta float64) {
		a.Epsilon += eps
		a.Delta += delta
		a.ApproxEpsilon += eps
		a.ApproxDelta += delta
	}
	if t := st.torn; t != nil && t.DatasetHash == h {
		extra(t.Epsilon, t.Delta)
	}
	for _, c := range st.charges {
		if c.hash == h || c.all {
			extra(c.eps, c.delta)
		}
	}
	return a.converted()
}

// Accounts returns both accounts of a dataset as the ledger was last read
// (see Spent for what damaged and torn lines add).
func (l *Ledger) Accounts(datasetHash string) Accounts {
	return l.state().accounts(datasetHash)
}

// admit decides whether e (its DatasetHash set) fits the dataset's
// budgets: by basic composition (checkBudgets' rule, on the accounts'
// Σε and Σδ), or else by the zCDP account (its ε at the δ budget within
// the ε budget, with the same slack). It returns whether only the zCDP
// account admits it, or the *BudgetError of basic composition, which
// names the zCDP account's ε too.
func (st *ledgerState) admit(path string, e Entry) (zcdpOnly bool, err error) {
	if e.Kind == "" {
		e.Kind = KindRelease // as Reserve defaults it
	}
	a := st.accounts(e.DatasetHash)
	berr := checkSpent(path, st.entries, e, a.Epsilon, a.Delta)
	if berr == nil {
		return false, nil
	}
	after := a.add(e)
	b := budget(st.entries, e.DatasetHash)
	if after.ZCDPEpsilon <= b*(1+budgetSlack) {
		return true, nil
	}
	if be, ok := berr.(*BudgetError); ok {
		be.ZCDP = after.ZCDPEpsilon
	}
	return false, berr
}

// Admits reports whether a release e (DatasetHash, Epsilon, Delta, Noise,
// Kind set) would now fit its dataset's budgets by either account, as
// Reserve decides it (nil), or the *BudgetError Reserve would refuse it
// with. Callers that check before a prompt use it so as never to refuse
// what Reserve allows; Reserve remains the authoritative check.
func (l *Ledger) Admits(e Entry) error {
	_, err := l.state().admit(l.path, e)
	return err
}

// zcdpNote describes the zCDP account of a refused release, for
// BudgetError.
func zcdpNote(eps float64) string {
	if math.IsInf(eps, 1) || eps == 0 {
		return ""
	}
	return fmt.Sprintf(" (zCDP accounting would reach ε %s at the δ budget, also over the ε budget)", FormatAmount(eps))
}
