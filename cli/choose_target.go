package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/privacywords"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
	"github.com/bernsteinrelease/bernstein/study"
)

// choose --target-error (issue 19 item 3): from the error a curator can
// accept to the smallest ε, with the mechanism (Bernstein or a published
// peer that applies: `release --mechanism`), the noise kind, h and k, by
// study.FindEpsilon on simulated releases. Nothing is released or spent.
// By default the simulations run on the public uniform stand-in (n, the
// columns, the bounds and a fixed seed: nothing private), so the proposal
// may go to standard output; on the private data (--target-data private)
// every number that depends on the records goes to standard error,
// labelled like the curator's preview of the private data.

// Seeds of the search, the curator's preview's: the uniform stand-in
// (ui/curator standInSeed) and the simulated releases (previewSeed).
const (
	targetStandInSeed = 20261124
	targetSimSeed     = 20170204
)

// targetPrivateLabel marks output computed from the private records.
const targetPrivateLabel = "curator only; from the private records, not covered by ε"

// parseTargetError reads --target-error: a number in the plot's units, or
// a percentage of the public range ("5%"; a classifier's disagreement as a
// share or a percentage of the records).
func parseTargetError(s string) (v float64, share bool, err error) {
	t := strings.TrimSpace(s)
	share = strings.HasSuffix(t, "%")
	v, err = dataset.ParseNumber(strings.TrimSpace(strings.TrimSuffix(t, "%")))
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, false, usagef("--target-error %q: must be a positive number, or a percentage such as 5%%", s)
	}
	if share {
		v /= 100
	}
	return v, share, nil
}

func runChooseTarget(ctx context.Context, e *env, f *chooseFlags) error {
	target, share, err := parseTargetError(f.targetError)
	if err != nil {
		return err
	}
	switch {
	case f.epsilon.Given:
		return usagef("--target-error finds ε: leave out --epsilon")
	case f.epsSelect.Given || f.bandwidths || f.parameters || f.private.used():
		return usagef("--target-error spends nothing: leave out --epsilon-select, --bandwidths, --parameters and --bounds-private")
	}
	// ε is what the search finds; the request needs a valid one to
	// prepare the fit (it does not depend on ε).
	f.epsilon.Value, f.epsilon.Given = 1, true
	onPrivate := f.targetData == "private"
	req, spec, err := f.request(e)
	if err != nil {
		return err
	}
	req.Privacy.H, req.KAuto = 1, true
	what := "the private data (" + targetPrivateLabel + ")"
	switch f.targetData {
	case "private":
	case "", "uniform":
		if req.Dataset, err = release.UniformStandIn(req, spec, targetStandInSeed); err != nil {
			return usagef("--target-data uniform: %v", err)
		}
		what = fmt.Sprintf("public stand-in: a uniform sample of n = %d records within the public bounds", req.Dataset.Rows)
	default:
		g := *f
		g.data = f.targetData
		pub, _, err := g.request(e)
		if err != nil {
			return err
		}
		req.Dataset = pub.Dataset
		what = "public stand-in: " + f.targetData
	}
	line := newProgressLine(e, "fitting:")
	prep, err := release.Prepare(ctx, req, line.callback())
	line.finish()
	if err != nil {
		return err
	}
	if onPrivate {
		printPrivateCounts(e.Stderr, f.columns(), prep.Clipped, prep.Filled)
	}
	pr, err := study.TargetProblemOf(ctx, prep.Fitted, prep.Spec.Output.Kind, prep.LearnerData())
	if err != nil {
		return err
	}
	if req.Privacy.Noise != mechanism.NoiseLaplace {
		pr.Delta = req.Privacy.Delta
	}
	pr.Beta, pr.Seed = req.Beta, targetSimSeed
	// The published peers that apply are candidates too; the search
	// builds them at the k of every ε it tries, as in the curator
	// (study.TargetProblem.AddPeers: the automatic k at that ε with h = 1,
	// and for the proposal every k it minimises the error over; the trig
	// peer's t = k + 1 moments, the GP's grid of k). prep's k (at ε = 1)
	// only names the peers that apply.
	if _, err := pr.AddPeers(study.PeerData{Kind: prep.Spec.Kind, Title: prep.Spec.Title, Data: prep.LearnerData(), Fitted: prep.Fitted,
		Values: learners.Values(prep.Resolved), K: prep.Params.K}); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(e.Stderr, "the published peers are not searched: %v\n", err)
	}
	units := targetUnits(prep)
	t := target
	switch {
	case pr.Points != nil: // a disagreement: a share either way
	case share:
		t = target * units.Width()
	default:
		t = target / math.Abs(units.Scale) // plot units → learner units
	}
	line = newProgressLine(e, "simulating releases:")
	res, err := study.FindEpsilon(ctx, pr, t, line.callback())
	line.finish()
	if err != nil {
		return err
	}
	out := e.Stdout
	if onPrivate {
		out = e.Stderr
		fmt.Fprintf(e.Stdout, "proposal on standard error: it is computed from the private records (%s)\n", targetPrivateLabel)
	}
	printTargetProposal(out, res, prep, units, what)
	return nil
}

// targetUnits are the error units of prep's plots (study.Units: the
// output map of the synopsis and the public range).
func targetUnits(prep *release.Prepared) study.Units {
	f := &synopsis.File{Domain: prep.Domain}
	f.Output.Kind = string(prep.Spec.Output.Kind)
	_, scale := f.OutputAffine()
	return study.Units{Scale: scale, Range: prep.Fitted.OutputRange}
}

// printTargetProposal writes the proposal (or why there is none) with the
// error as a number and as a share of the public range, what ε means, the
// release flags and what the simulations ran on.
func printTargetProposal(w io.Writer, res *study.TargetResult, prep *release.Prepared, u study.Units, what string) {
	p := res.Proposal
	errText := func(v float64) string {
		if res.Classifier {
			return fmt.Sprintf("%.3g of the records (%.3g%%)", v, 100*v)
		}
		s := fmt.Sprintf("%.4g (%s)", u.Plot(v), prep.Spec.Output.Name)
		if sh := u.Share(v); !math.IsNaN(sh) {
			s += fmt.Sprintf(", %.3g%% of the public range", 100*sh)
		}
		return s
	}
	measure := "sup-norm error of 95% of the simulated releases"
	if res.Classifier {
		measure = "disagreement with the non-private classifier in 95% of the simulated releases"
	}
	fmt.Fprintf(w, "target: %s ≤ %s\n", measure, errText(res.Target))
	if !res.Reached {
		fmt.Fprintf(w, "not reachable within ε ≤ %g: the best reachable error is %s, at ε = %g (%s noise, h = %d, k = %s)\n",
			res.EpsMax, errText(p.Error), p.Epsilon, p.Noise, p.H, kText(p.K))
		fmt.Fprintln(w, "what would help: a larger target, more records (n), wider smoothing parameters, fewer features, or (ε, δ) noise (--noise gaussian --delta D)")
	} else {
		fmt.Fprintf(w, "proposal: ε = %g, ", p.Epsilon)
		if p.Mechanism != "" {
			fmt.Fprintf(w, "mechanism %s (%s), ", p.Mechanism, p.Label)
		}
		fmt.Fprintf(w, "%s noise", p.Noise)
		if p.Delta > 0 {
			fmt.Fprintf(w, ", δ = %g", p.Delta)
		}
		switch {
		case p.Mechanism != "":
			fmt.Fprintf(w, ", k = %s\n", kText(p.K))
		case p.KAuto:
			fmt.Fprintf(w, ", h = %d, k = %s (the automatic k at this ε)\n", p.H, kText(p.K))
		default:
			fmt.Fprintf(w, ", h = %d, k = %s (the k with the least simulated error at this ε)\n", p.H, kText(p.K))
		}
		fmt.Fprintf(w, "predicted error: %s (±%.2g Monte-Carlo error of the 95%% quantile; mean %s)\n",
			errText(p.Error), u.Plot(p.MCError()), errText(p.Mean))
		fmt.Fprintf(w, "what ε = %g means: %s\n", p.Epsilon, privacywords.Reading(p.Epsilon, p.Delta, p.Noise))
		flags := fmt.Sprintf("--epsilon %g --noise %s", p.Epsilon, p.Noise)
		if p.Delta > 0 {
			flags += fmt.Sprintf(" --delta %g", p.Delta)
		}
		switch {
		case p.Mechanism != "":
			fmt.Fprintf(w, "release with: bernstein release … --mechanism %s %s --k %s\n", p.Mechanism, flags, kText(p.K))
		case p.KAuto:
			fmt.Fprintf(w, "release with: bernstein release … %s --h %d --k auto\n", flags, p.H)
		default:
			fmt.Fprintf(w, "release with: bernstein release … %s --h %d --k %s\n", flags, p.H, kText(p.K))
		}
	}
	fmt.Fprintf(w, "simulated on %s: %d seeded simulated releases per setting (nothing is released or spent); "+
		"the proposal was re-checked with independent draws\n", what, res.Repeats)
	if strings.HasPrefix(what, "public stand-in") {
		fmt.Fprintln(w, "the stand-in is not the private data: its F_D can be smoother or rougher, so the error of the real release can differ")
	}
}

// kText writes a cover size for people ("20", or "20x10").
func kText(k []int) string {
	s := make([]string, len(k))
	for i, v := range k {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, "x")
}
