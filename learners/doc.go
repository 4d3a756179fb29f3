// Package learners provides the target functions F_D of Section 6 of Aldà &
// Rubinstein, "The Bernstein Mechanism: Function Release under Differential
// Privacy" (AAAI 2017), as oracles on [0,1]^ℓ with a proven sensitivity.
//
// Contract. A Learner describes itself (Spec: kind, dimensions, label kind,
// parameters, output meaning) and fits a Dataset whose features are already
// mapped to [0,1]^ℓ by the curator's public bounds (out-of-bounds values
// clipped) and whose labels are mapped to [−1, 1] (LabelReal; the paper's
// B = 1 in mapped units) or to exactly −1/+1 (LabelBinary); the features
// are X, or for the KDE (ReadsSource) a RecordSource read in chunks, so a
// large release holds no mapped copy (issue 20). Fit validates
// the parameters (Spec.Resolve) and the data once, where they come in, and
// returns errors naming the parameter or record, the value and the rule; it
// never panics on user input. The result, Fitted, carries:
//
//   - Oracle, F_D on [0,1]^ℓ, safe for concurrent use; it satisfies
//     mechanism.Oracle and, where a separable evaluation is faster
//     (kde, naive-bayes), mechanism.GridOracle;
//   - Sensitivity, a proven bound S(F) ≥ sup_y |F_D(y) − F_D′(y)| over
//     replace-one neighbours D ~ D′ of the same size n, depending on n, the
//     parameters and the public bounds only — never on data values — so it
//     may be published and used to calibrate noise;
//   - OutputRange, a public range for plots.
//
// Every bound holds for every dataset that passes the public checks
// (features in [0,1]^ℓ, labels in range, n large enough): Fit never refuses
// because of data values. Priestley–Chao caps its spacing weights at c/n
// instead of assuming densely spaced data; the ERM learners fall back to a
// solver with an a-priori accuracy guarantee when the certificate is not
// reached within the public budget.
//
// This package adds no noise and does not import mechanism; the interfaces
// match structurally. Derivations of every bound, where they differ from the
// paper, and the largest ratio |F_D − F_D′|/S found by the neighbour-search
// audit (audit_test.go) are in docs/sensitivity.md and
// docs/sensitivity.md (regularised ERM learners).
//
// Defaults. A parameter's ParamSpec.Default is its value without a release
// context; a scale parameter may also state a data-independent rule
// (ParamSpec.Auto) from the public n, ℓ and ε, which Spec.PublicDefaults
// applies to parameters given no value (defaults.go; docs/sensitivity.md,
// "Data-independent defaults").
//
// Validation scores. ValidationScore and AccuracyScore (classifiers: a
// smoothed balanced accuracy) are the bounded scores of the private choice
// of settings, with their stability bounds (docs/validation.md).
//
// Learners: kde (NewKDE), priestley-chao (NewPriestleyChao), naive-bayes
// (NewNaiveBayes), svm (NewSVM), logistic (NewLogistic), ridge (NewRidge);
// All lists them in this order and Lookup finds one by Kind.
package learners
