// Package privacywords is the one home of the plain-language wording of the
// privacy figures ε and δ: the reading under the curator's slider, what a
// published file's ε and δ mean for one person in the data, what a
// budget's remainder still allows, the direction mark of every privacy
// control, and the sentence said wherever ε is split between steps.
//
// Contract: every function is pure (text from numbers), never reads data
// and never fails; an out-of-range figure yields a sentence saying so.
// The curator and the viewer (package ui) and the command line (package
// cli) import it; it imports only mechanism (for NoiseKind), so the import
// direction ui, cli -> privacywords -> mechanism holds and the CLI does not
// depend on the GUI toolkit.
//
// Source: the definition of (ε, δ)-differential privacy (Dwork & Roth 2014,
// Definition 2.4): for datasets differing in one person's record, every
// set of outputs is at most e^ε times more likely under one than the
// other, plus δ; and sequential composition (Theorem 3.16): the ε of
// several releases on the same data add up.
package privacywords
