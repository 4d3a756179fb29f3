// Package study is the one utility-simulation engine of Bernstein Release:
// the mean error of SIMULATED releases of the Bernstein mechanism (Aldà &
// Rubinstein, AAAI 2017) per (ε, h, k), with common random numbers, and of
// published peer mechanisms on the same grid. Figure 1 and Figure 2 of the
// paper (`bernstein figure 1|2`) and the curator's preview are
// configurations of it.
//
// # Contract
//
//   - What is simulated. For exact lattice values F_D(ν/k) and F_D on a
//     tensor grid (both in mechanism's lattice order), Model.Run scores the
//     iterated Bernstein polynomials mechanism.Simulate would return for the
//     same parameters and unit draws — c_ν = F_D(ν/k) + λ·Z_ν with
//     λ = mechanism.NoiseScale(S, ε, δ, noise, k) — up to floating-point
//     rounding (TestModelMatchesSimulate), and the nearest-lattice baseline
//     of Section 4.2 on the same draws. Measures: SupError (the paper's
//     sup_grid |F_D − release|), SignAgreement (Figure 2), RMSError (the
//     root-mean-square difference on the grid, for regressions) and, at
//     evaluation points off the grid (Model.AtPoints: the records, curator
//     only), PointAgreement (the released classifier against the
//     non-private one) and PointAccuracy (against the labels). One Run
//     scores several measures on the SAME simulated releases (Spec.Also;
//     TestPointMeasuresMatchSimulate).
//   - Error against k. SweepK simulates one spec at each candidate cover
//     size (KCandidates), the chosen k marked.
//   - Units. Errors are in the learner's units; Units converts them to the
//     units of the plot beside them and to a share of the function's
//     public range; NoBetterThanZero says when a release would show no
//     more than publishing zero (ZeroError).
//   - Common random numbers. Every order, the baseline and (with the same
//     plan) every peer of one repeat use the same unit draws; the Draws plan
//     says whether one repeat's draws also serve every ε (PerRepeat, Stream
//     with Common) or each ε draws afresh (Interleaved, Stream). Results
//     depend only on the inputs and seeds, never on scheduling: sums run in
//     repeat order.
//   - Accuracy first. FindEpsilon (target.go) returns the smallest ε at
//     which the TargetQuantile (95 %) quantile of the simulated releases'
//     error — sup-norm on the grid, or a classifier's disagreement with
//     the non-private one at the points — reaches a target, over the noise
//     kinds (pure ε; with δ > 0 the (ε, δ) variants), h and the automatic
//     k; the proposal is re-checked with independent draws and carries the
//     Monte-Carlo error of its quantile. TargetProblemOf builds its inputs
//     from a fit.
//   - Peers. BuildPeers prepares the published peers that apply to a
//     learner (Wang et al.'s trigonometric summary, Chaudhuri & Vinterbo's
//     histogram and output perturbation, Hall et al.'s Gaussian process;
//     docs/peers.md) and RunPeers scores them like the Bernstein curves.
//   - Privacy. Nothing here is a release: every draw comes from the seeded
//     mechanism.SimulationNoise (or a replay of its values), a type the
//     release functions of mechanism do not accept. The inputs (F_D on the
//     lattice and the grid, the data) are private: results are for the
//     curator's preview and for figures on public demo data, never for an
//     analyst.
//
// # Imports
//
// study imports mechanism, mechanism/peers and learners (the peers need a
// learner's fit); never project or ui. Callers validate their own
// configuration (repeats, ε grid) where it enters; the engine checks shapes
// and ranges and returns errors naming the value and the rule. Only
// programmer misuse panics (Linspace01 with n < 2, drawing more than an
// Interleaved plan's Units in one repeat).
package study
