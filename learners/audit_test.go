package learners

// Neighbour-search audit of a learner's sensitivity bound (shared by the
// tests of every learner in this package).
//
// API (package learners, test files only):
//
//	func auditSensitivity(t *testing.T, l Learner, cfg auditConfig) (maxRatio float64)
//	func runAudit(l Learner, cfg auditConfig) auditResult   // same search, no *testing.T
//	func auditPairsPerCase(cases int) int                   // pairs per config for ≥ 10⁴ in total
//	var auditLong *bool                                      // the -long flag (defined here only)
//	type underReporting struct{ Learner; factor float64 }   // scales S, to test that audits fail
//
// auditSensitivity fits l to many replace-one neighbouring datasets D ~ D′
// (same n, one record replaced) and evaluates |F_D(y) − F_D′(y)| / S at many
// query points y, where S is Fitted.Sensitivity (which must be identical for
// D and D′: it may depend on n and the parameters only). It fails the test
// if the ratio ever exceeds 1 + auditSlack, if S differs between D and D′ or
// is not finite and positive, or if F leaves Fitted.OutputRange (by more
// than auditSlack relative to the range); it logs the largest ratio seen and
// the pair that produced it, and returns that ratio.
//
// Pairs are drawn from these scenarios, mixed at random:
//   - base datasets from cfg.Gen (default: uniform features, labels of the
//     learner's kind with ±1 extremes half of the time), sometimes rewritten
//     to be stacked on one spot (which maximises kernel averages) or on a
//     corner, made of duplicates of a few points, or — for binary labels —
//     all in one class or with a singleton class (then often replacing the
//     singleton, which empties the class);
//   - sizes from cfg.Ns (default 2, 3, 4, 5, 8, 13, 21, 34, 50);
//   - the replacement record: uniform; a corner of [0,1]^ℓ; a point on an
//     edge; a duplicate of another record (same or flipped label); the
//     replaced record with its label flipped; a small move; the opposite
//     corner;
//   - queries: a fixed grid, both changed records, small offsets from them,
//     two other records and two uniform points.
//
// Then cfg.Climbs hill climbs each start from one of the worst pairs found
// (or a fresh one) and for cfg.Steps steps perturb, with a shrinking step,
// the query point, the replacement record, the replaced record, another
// record, or a label, or snap a changed record onto another record or a
// corner (ties matter for Priestley–Chao), keeping any change that does not lower the ratio.
// A pair for which Fit fails on D or D′ is skipped and counted; the audit
// fails if fewer than cfg.Pairs valid scenario pairs are found.
//
// With -long the numbers of pairs and climbs are multiplied by 10. A
// learner's tests should together run at least 10⁴ scenario pairs by
// default (e.g. several configurations of 2000); each configuration takes
// well under a second without -race.

import (
	"context"
	"flag"
	"fmt"
	"math"
	rand "math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// auditLong enables the long audits; other test files use it instead of
// defining their own flag.
var auditLong = flag.Bool("long", false, "run long sensitivity audits (10× more neighbouring pairs)")

// auditSlack is the relative slack allowed on the ratio |F_D − F_D′|/S and
// on the output range. Justification: every learner here computes F as a sum
// of at most n ≤ auditMaxN = 50 non-negative or signed terms and a product of
// at most ℓ ≤ 4 factors, so each value has absolute rounding error at most
// about (n+ℓ+2)·u·R with u = 2⁻⁵³ ≈ 1.1e-16 and R the output-range bound.
// The difference of two values therefore errs by ≤ 2(n+6)·u·R, and R/S ≤ n
// for every learner here (KDE: R = nS; naive Bayes: R ≤ nS/2; Priestley–Chao:
// R/S ≤ max(n/(4c), 1/2)·(1 + 2κc/n)/κ ≤ n for c ≥ 1/4), giving
// 2·50·56·1.1e-16 ≈ 6.2e-13 < 1e-12. A genuine violation of a bound is
// larger by orders of magnitude.
const auditSlack = 1e-12

// auditMaxN is the largest dataset size the harness accepts (see auditSlack).
const auditMaxN = 50

// auditConfig configures one audit run.
type auditConfig struct {
	Name   string // label in logs, e.g. "ℓ=2 b=0.05"
	Values Values // learner parameters (nil: defaults)
	Dim    int    // ℓ (0: the learner's MinDim)
	Ns     []int  // dataset sizes, each in [2, auditMaxN] (nil: default list)
	// Gen returns a base dataset of n records of dimension dim and a
	// preferred index to replace (−1 for none; used half of the time). Nil:
	// uniform features, labels of the learner's kind.
	Gen    func(r *rand.Rand, n, dim int) (Dataset, int)
	Pairs  int    // valid scenario pairs (0: 2000), ×10 with -long
	Climbs int    // hill climbs (0: 20), ×10 with -long
	Steps  int    // steps per climb (0: 150)
	Seed   uint64 // PCG seed
}

// auditResult is what runAudit found.
type auditResult struct {
	MaxRatio    float64
	Worst       string // description of the worst pair
	Pairs       int    // valid scenario pairs evaluated
	Skipped     int    // pairs skipped because Fit failed on D or D′
	ClimbSteps  int    // hill-climb steps evaluated
	Queries     int    // total |F_D − F_D′| evaluations
	Violations  []string
	MaxRangeOut float64 // largest relative excursion outside OutputRange
}

var auditDefaultNs = []int{2, 3, 4, 5, 8, 13, 21, 34, 50}

// auditSensitivity runs runAudit and reports through t; see the file comment.
func auditSensitivity(t *testing.T, l Learner, cfg auditConfig) (maxRatio float64) {
	t.Helper()
	return auditReport(t, l, cfg, runAudit(l, cfg))
}

// auditReport reports the result res of runAudit(l, cfg) through t (as
// auditSensitivity does) and returns its largest ratio; for tests that
// also inspect res.
func auditReport(t *testing.T, l Learner, cfg auditConfig, res auditResult) float64 {
	t.Helper()
	for i, v := range res.Violations {
		if i == 10 {
			t.Errorf("… and %d more violations", len(res.Violations)-10)
			break
		}
		t.Error(v)
	}
	if res.Pairs < cfg.pairs() {
		t.Errorf("audit %s %s: only %d valid pairs (%d skipped), want %d", l.Spec().Kind, cfg.Name, res.Pairs, res.Skipped, cfg.pairs())
	}
	t.Logf("audit %s %s: %d scenario pairs (%d skipped: Fit failed), %d climb steps, %d evaluations; max |F_D−F_D′|/S = %.12f at %s",
		l.Spec().Kind, cfg.Name, res.Pairs, res.Skipped, res.ClimbSteps, res.Queries, res.MaxRatio, res.Worst)
	return res.MaxRatio
}

// auditPairsPerCase returns the scenario pairs each of cases configurations
// runs so that a learner's audits total at least 10⁴ pairs (10³ with
// -short).
func auditPairsPerCase(cases int) int {
	total := 10000
	if testing.Short() {
		total = 1000
	}
	return (total + cases - 1) / cases
}

func (c auditConfig) pairs() int {
	p := c.Pairs
	if p == 0 {
		p = 2000
	}
	if *auditLong {
		p *= 10
	}
	return p
}

// auditPair is one neighbouring pair: D is base, D′ is base with record r
// replaced by (x, lab).
type auditPair struct {
	base Dataset
	r    int
	x    []float64
	lab  float64
	y    []float64 // current query (climbs)
	kind string
}

func (p auditPair) neighbour() Dataset {
	d := Dataset{Dim: p.base.Dim, X: slices.Clone(p.base.X)}
	copy(d.X[p.r*d.Dim:], p.x)
	if p.base.Labels != nil {
		d.Labels = slices.Clone(p.base.Labels)
		d.Labels[p.r] = p.lab
	}
	return d
}

func (p auditPair) clone() auditPair {
	q := p
	q.base = Dataset{Dim: p.base.Dim, X: slices.Clone(p.base.X), Labels: slices.Clone(p.base.Labels)}
	q.x = slices.Clone(p.x)
	q.y = slices.Clone(p.y)
	return q
}

func (p auditPair) String() string {
	n := p.base.N()
	rec := p.base.X[p.r*p.base.Dim : (p.r+1)*p.base.Dim]
	s := fmt.Sprintf("[%s] n=%d replace record %d x=%.4g", p.kind, n, p.r, rec)
	if p.base.Labels != nil {
		s += fmt.Sprintf(" l=%.3g", p.base.Labels[p.r])
	}
	s += fmt.Sprintf(" by x=%.4g", p.x)
	if p.base.Labels != nil {
		s += fmt.Sprintf(" l=%.3g", p.lab)
	}
	if p.y != nil {
		s += fmt.Sprintf(", y=%.4g", p.y)
	}
	if n <= 8 {
		s += fmt.Sprintf(", D.X=%.4g", p.base.X)
		if p.base.Labels != nil {
			s += fmt.Sprintf(" D.labels=%g", p.base.Labels)
		}
	}
	return s
}

// auditor holds the state of one runAudit call.
type auditor struct {
	l     Learner
	spec  Spec
	cfg   auditConfig
	dim   int
	rng   *rand.Rand
	grid  [][]float64
	res   auditResult
	worst []scoredPair // best starting points for climbs
}

type scoredPair struct {
	p     auditPair
	ratio float64
}

// runAudit performs the search described in the file comment.
func runAudit(l Learner, cfg auditConfig) auditResult {
	a := &auditor{l: l, spec: l.Spec(), cfg: cfg}
	a.dim = cfg.Dim
	if a.dim == 0 {
		a.dim = a.spec.MinDim
	}
	if cfg.Ns == nil {
		a.cfg.Ns = auditDefaultNs
	}
	for _, n := range a.cfg.Ns {
		if n < 2 || n > auditMaxN {
			panic(fmt.Sprintf("auditConfig.Ns: n = %d outside [2, %d] (see auditSlack)", n, auditMaxN))
		}
	}
	if a.cfg.Gen == nil {
		a.cfg.Gen = a.defaultGen
	}
	if a.cfg.Climbs == 0 {
		a.cfg.Climbs = 20
	}
	if *auditLong {
		a.cfg.Climbs *= 10
	}
	if a.cfg.Steps == 0 {
		a.cfg.Steps = 150
	}
	a.rng = rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	a.grid = auditGrid(a.dim)
	a.res.MaxRatio = math.Inf(-1)

	want := a.cfg.pairs()
	for attempts := 0; a.res.Pairs < want && attempts < 50*want; attempts++ {
		p := a.scenario()
		ratio, ok := a.evalPair(&p, a.queries(p))
		if !ok {
			a.res.Skipped++
			continue
		}
		a.res.Pairs++
		a.keep(p, ratio)
	}
	for range a.cfg.Climbs {
		a.climb()
	}
	return a.res
}

func (a *auditor) keep(p auditPair, ratio float64) {
	const top = 32
	if len(a.worst) < top || ratio > a.worst[len(a.worst)-1].ratio {
		a.worst = append(a.worst, scoredPair{p, ratio})
		sort.Slice(a.worst, func(i, j int) bool { return a.worst[i].ratio > a.worst[j].ratio })
		if len(a.worst) > top {
			a.worst = a.worst[:top]
		}
	}
}

// auditGrid returns fixed query points: a tensor grid with 5 values per axis
// for ℓ ≤ 2 and 3 for ℓ ≥ 3.
func auditGrid(dim int) [][]float64 {
	vals := []float64{0, 0.25, 0.5, 0.75, 1}
	if dim >= 3 {
		vals = []float64{0, 0.5, 1}
	}
	var pts [][]float64
	idx := make([]int, dim)
	for {
		y := make([]float64, dim)
		for j, k := range idx {
			y[j] = vals[k]
		}
		pts = append(pts, y)
		j := dim - 1
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < len(vals) {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return pts
		}
	}
}

func (a *auditor) label() float64 {
	switch a.spec.Label {
	case LabelBinary:
		if a.rng.IntN(2) == 0 {
			return -1
		}
		return 1
	case LabelReal:
		if a.rng.IntN(2) == 0 {
			return float64(2*a.rng.IntN(2) - 1)
		}
		return 2*a.rng.Float64() - 1
	}
	return 0
}

func (a *auditor) defaultGen(r *rand.Rand, n, dim int) (Dataset, int) {
	d := Dataset{Dim: dim, X: make([]float64, n*dim)}
	for i := range d.X {
		d.X[i] = r.Float64()
	}
	if a.spec.Label != LabelNone {
		d.Labels = make([]float64, n)
		for i := range d.Labels {
			d.Labels[i] = a.label()
		}
	}
	return d, -1
}

func (a *auditor) point() []float64 {
	x := make([]float64, a.dim)
	for j := range x {
		x[j] = a.rng.Float64()
	}
	return x
}

func (a *auditor) corner() []float64 {
	x := make([]float64, a.dim)
	for j := range x {
		x[j] = float64(a.rng.IntN(2))
	}
	return x
}

// scenario draws one neighbouring pair.
func (a *auditor) scenario() auditPair {
	n := a.cfg.Ns[a.rng.IntN(len(a.cfg.Ns))]
	base, pref := a.cfg.Gen(a.rng, n, a.dim)
	p := auditPair{base: base, r: a.rng.IntN(n)}
	if pref >= 0 && a.rng.IntN(2) == 0 {
		p.r = pref
	}
	var kinds []string
	// Rewrite the base dataset (a third of the time).
	switch a.rng.IntN(9) {
	case 0: // stacked on one spot (random or a corner)
		s := a.point()
		if a.rng.IntN(2) == 0 {
			s = a.corner()
		}
		for i := range n {
			copy(base.X[i*a.dim:], s)
		}
		kinds = append(kinds, "stacked")
	case 1: // duplicates of a few points
		k := 1 + a.rng.IntN(3)
		for i := k; i < n; i++ {
			src := a.rng.IntN(k)
			copy(base.X[i*a.dim:(i+1)*a.dim], base.X[src*a.dim:(src+1)*a.dim])
		}
		kinds = append(kinds, "duplicates")
	case 2: // one class / singleton class (binary labels)
		if a.spec.Label == LabelBinary {
			c := a.label()
			for i := range base.Labels {
				base.Labels[i] = c
			}
			if a.rng.IntN(2) == 0 {
				base.Labels[p.r] = -c // r is the singleton of its class
				kinds = append(kinds, "singleton-class")
			} else {
				kinds = append(kinds, "one-class")
			}
		}
	}
	// The replacement record.
	rec := base.X[p.r*a.dim : (p.r+1)*a.dim]
	lab := 0.0
	if base.Labels != nil {
		lab = base.Labels[p.r]
	}
	p.lab = a.label()
	switch a.rng.IntN(7) {
	case 0:
		p.x = a.point()
		kinds = append(kinds, "uniform")
	case 1:
		p.x = a.corner()
		kinds = append(kinds, "corner")
	case 2:
		p.x = a.corner()
		p.x[a.rng.IntN(a.dim)] = a.rng.Float64()
		kinds = append(kinds, "edge")
	case 3:
		j := a.rng.IntN(n)
		p.x = slices.Clone(base.X[j*a.dim : (j+1)*a.dim])
		if base.Labels != nil {
			p.lab = base.Labels[j]
			if a.rng.IntN(2) == 0 {
				p.lab = -p.lab
			}
		}
		kinds = append(kinds, "duplicate")
	case 4:
		p.x = slices.Clone(rec)
		if base.Labels != nil {
			p.lab = -lab
			kinds = append(kinds, "label-flip")
		} else {
			p.x = a.point()
			kinds = append(kinds, "uniform")
		}
	case 5:
		p.x = slices.Clone(rec)
		for j := range p.x {
			p.x[j] = clamp01(p.x[j] + 0.01*a.rng.NormFloat64())
		}
		kinds = append(kinds, "small-move")
	case 6:
		p.x = make([]float64, a.dim)
		for j := range p.x {
			p.x[j] = 1 - math.Round(rec[j])
		}
		kinds = append(kinds, "opposite-corner")
	}
	p.kind = fmt.Sprint(kinds)
	return p
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// queries returns the query points for a scenario pair.
func (a *auditor) queries(p auditPair) [][]float64 {
	qs := slices.Clone(a.grid)
	rec := slices.Clone(p.base.X[p.r*a.dim : (p.r+1)*a.dim])
	qs = append(qs, rec, p.x)
	for _, c := range [][]float64{rec, p.x} {
		y := slices.Clone(c)
		for j := range y {
			y[j] = clamp01(y[j] + 0.02*a.rng.NormFloat64())
		}
		qs = append(qs, y)
	}
	n := p.base.N()
	for range 2 {
		j := a.rng.IntN(n)
		qs = append(qs, slices.Clone(p.base.X[j*a.dim:(j+1)*a.dim]))
		qs = append(qs, a.point())
	}
	return qs
}

// evalPair fits both datasets and returns the largest ratio over qs, setting
// p.y to the query achieving it; ok is false if Fit fails on either side.
func (a *auditor) evalPair(p *auditPair, qs [][]float64) (ratio float64, ok bool) {
	ctx := context.Background()
	f1, err1 := a.l.Fit(ctx, p.base, a.cfg.Values)
	if err1 != nil {
		return 0, false
	}
	f2, err2 := a.l.Fit(ctx, p.neighbour(), a.cfg.Values)
	if err2 != nil {
		return 0, false
	}
	s := f1.Sensitivity
	if s != f2.Sensitivity || !(s > 0) || math.IsInf(s, 0) {
		a.violation(fmt.Sprintf("sensitivity %g for D and %g for D′ (must be equal, finite, > 0): %v", s, f2.Sensitivity, *p))
		return 0, true
	}
	ratio = math.Inf(-1)
	for _, y := range qs {
		v1, v2 := f1.Oracle.Eval(y), f2.Oracle.Eval(y)
		a.checkRange(f1, v1, p)
		a.checkRange(f2, v2, p)
		a.res.Queries++
		r := math.Abs(v1-v2) / s
		if !(r <= ratio) { // also catches NaN
			ratio = r
			p.y = slices.Clone(y)
		}
	}
	if !(ratio <= 1+auditSlack) {
		a.violation(fmt.Sprintf("|F_D(y) − F_D′(y)|/S = %.12g > 1 (S = %.6g): %v", ratio, s, *p))
	}
	if ratio > a.res.MaxRatio {
		a.res.MaxRatio = ratio
		a.res.Worst = p.String()
	}
	return ratio, true
}

func (a *auditor) checkRange(f *Fitted, v float64, p *auditPair) {
	lo, hi := f.OutputRange[0], f.OutputRange[1]
	width := math.Max(math.Abs(lo), math.Abs(hi))
	out := math.Max(lo-v, v-hi) / width
	if out > a.res.MaxRangeOut {
		a.res.MaxRangeOut = out
	}
	if !(out <= auditSlack) {
		a.violation(fmt.Sprintf("F = %.12g outside OutputRange [%g, %g]: %v", v, lo, hi, *p))
	}
}

func (a *auditor) violation(s string) {
	if len(a.res.Violations) < 100 {
		a.res.Violations = append(a.res.Violations, s)
	}
}

// climb runs one hill climb from one of the worst pairs (or a fresh valid
// one) and records what it finds.
func (a *auditor) climb() {
	var cur auditPair
	var best float64
	if len(a.worst) > 0 && a.rng.IntN(4) != 0 {
		sp := a.worst[a.rng.IntN(len(a.worst))]
		cur, best = sp.p.clone(), sp.ratio
	} else {
		found := false
		for range 100 {
			cur = a.scenario()
			if r, ok := a.evalPair(&cur, a.queries(cur)); ok {
				best, found = r, true
				break
			}
		}
		if !found {
			return
		}
	}
	cur.kind = "climb from " + cur.kind
	steps := a.cfg.Steps
	for s := range steps {
		sigma := 0.3 * math.Pow(1e-4/0.3, float64(s)/float64(steps-1))
		next := a.mutate(cur, sigma)
		qs := [][]float64{next.y}
		rec := next.base.X[next.r*a.dim : (next.r+1)*a.dim]
		qs = append(qs, slices.Clone(rec), slices.Clone(next.x))
		r, ok := a.evalPair(&next, qs)
		a.res.ClimbSteps++
		if !ok {
			a.res.Skipped++
			continue
		}
		if r >= best {
			cur, best = next, r
		}
	}
}

// mutate returns a copy of p with one random change of size about sigma.
func (a *auditor) mutate(p auditPair, sigma float64) auditPair {
	q := p.clone()
	jiggle := func(x []float64) {
		for j := range x {
			x[j] = clamp01(x[j] + sigma*a.rng.NormFloat64())
		}
	}
	n := q.base.N()
	hasLabels := q.base.Labels != nil
	switch a.rng.IntN(9) {
	case 8: // snap the replacement or the replaced record onto another record or a corner
		dst := q.x
		if a.rng.IntN(2) == 0 {
			dst = q.base.X[q.r*a.dim : (q.r+1)*a.dim]
		}
		if a.rng.IntN(3) == 0 {
			copy(dst, a.corner())
		} else {
			j := a.rng.IntN(n)
			copy(dst, q.base.X[j*a.dim:(j+1)*a.dim])
		}
	case 0, 1:
		jiggle(q.y)
	case 2:
		jiggle(q.x)
	case 3:
		jiggle(q.base.X[q.r*a.dim : (q.r+1)*a.dim])
	case 4: // another record (changes D and D′ alike)
		j := a.rng.IntN(n)
		if j != q.r {
			jiggle(q.base.X[j*a.dim : (j+1)*a.dim])
		} else {
			jiggle(q.y)
		}
	case 5: // move the query onto a changed record
		if a.rng.IntN(2) == 0 {
			copy(q.y, q.x)
		} else {
			copy(q.y, q.base.X[q.r*a.dim:(q.r+1)*a.dim])
		}
		jiggle(q.y)
	case 6, 7: // labels
		if !hasLabels {
			jiggle(q.x)
			break
		}
		lab := func(v float64) float64 {
			if a.spec.Label == LabelBinary || a.rng.IntN(2) == 0 {
				return -v
			}
			return math.Max(-1, math.Min(1, v+sigma*a.rng.NormFloat64()))
		}
		switch a.rng.IntN(3) {
		case 0:
			q.lab = lab(q.lab)
		case 1:
			q.base.Labels[q.r] = lab(q.base.Labels[q.r])
		case 2:
			j := a.rng.IntN(n)
			q.base.Labels[j] = lab(q.base.Labels[j])
		}
	}
	return q
}

// underReporting wraps a learner and multiplies its sensitivity by factor;
// it lets the harness be tested against bounds known to be too small.
type underReporting struct {
	Learner
	factor float64
}

func (u underReporting) Fit(ctx context.Context, d Dataset, v Values) (*Fitted, error) {
	f, err := u.Learner.Fit(ctx, d, v)
	if err != nil {
		return nil, err
	}
	g := *f
	g.Sensitivity *= u.factor
	return &g, nil
}

// TestAuditDetectsTooSmallBounds checks that the harness can fail: a KDE, a
// Priestley–Chao and a naive Bayes whose reported sensitivity is 0.9 times
// the proven (and, at the bound, attained) value must each show a ratio
// above 1.
func TestAuditDetectsTooSmallBounds(t *testing.T) {
	cases := []struct {
		l   Learner
		cfg auditConfig
	}{
		{NewKDE(), auditConfig{Name: "ℓ=2", Dim: 2}},
		{NewNaiveBayes(), auditConfig{Name: "ℓ=1", Dim: 1}},
		{NewPriestleyChao(), auditConfig{Name: "c=n", Ns: []int{4}, Values: Values{"spacing": {4}}}},
	}
	for _, c := range cases {
		c.cfg.Pairs, c.cfg.Climbs, c.cfg.Seed = 500, 10, 7
		res := runAudit(underReporting{c.l, 0.9}, c.cfg)
		if res.MaxRatio <= 1+auditSlack || len(res.Violations) == 0 {
			t.Errorf("%s with sensitivity ×0.9: max ratio %.6f, %d violations; the harness should have found a ratio > 1",
				c.l.Spec().Kind, res.MaxRatio, len(res.Violations))
		}
	}
}
