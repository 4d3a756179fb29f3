// Package audit holds the statistical privacy audits of Bernstein Release
// (issue 8). It has no API: everything is in its tests, which import only
// the public packages mechanism and learners, like any outside auditor.
//
// dp_audit_test.go draws many releases from the real release sampler
// (mechanism.SanitizeValues, secure noise of
// github.com/google/differential-privacy/go/v3/noise) on worst-case
// replace-one neighbours D, D′ computed by the real learners (kde, svm;
// ℓ = 1, k = 1, h = 1), estimates P[M(D) ∈ E] and P[M(D′) ∈ E] for a
// fixed family of output events E, and turns them into a lower confidence
// bound on the effective ε with one-sided Clopper–Pearson bounds at overall
// confidence 1 − 10⁻⁶ (Bonferroni over the events). The audit fails when
// that bound exceeds the claimed ε; a second group of tests runs the same
// audit on deliberately broken mechanisms (sensitivity understated 2×,
// noise scale halved) and requires it to detect them.
//
// The default run draws 5·10⁴ releases per dataset (about 10 s, 40 s under
// -race); `go test ./audit -long` draws 10⁶. Figures are in
// docs/security.md.
package audit
