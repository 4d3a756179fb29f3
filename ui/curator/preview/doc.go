// Package preview is the curator's preview computation: it turns a
// release.Request into the data of the preview plots (the error-vs-ε
// tradeoff over study, with the published peers — beside an (ε, δ) peer
// the Bernstein mechanism at the same (ε, δ), legend grouped by guarantee —
// and the automatic-k curve; for a classifier the agreement with the
// non-private classifier and the accuracy on the records; the simulated
// release against F_D, for a regression over the scatter of the records;
// the error against k at the current ε) and the numbers beside them, every
// error in the function plot's units and as a share of the public range
// (measures.go), and renders them (Render, RenderSweep).
//
// # Contract
//
// It never releases anything and never touches widgets. The fit goes
// through release.Prepare (the one pipeline shared with the release);
// every release it shows is simulated with seeded simulation noise
// (study, mechanism.SimulationNoise), a type no release function accepts.
// The same Input always gives the same Result (fixed seed). Engine caches
// what does not change between calls (the fit, F_D, the study models and
// curves) and is safe for concurrent use; Compute honours its context's
// cancellation. Bad settings come back as errors from release.Prepare and
// mechanism, never as panics.
package preview
