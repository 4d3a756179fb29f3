package synopsis

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/mechanism/peers"
)

// Synopsis kinds beside the Bernstein polynomial (issue 19, item 2): the
// published peers of docs/peers.md, released through the same signed file,
// ledger entry and noise description. mechanism.name says which kind a
// file holds; each peer kind has its own metadata block (gp, trig,
// output_perturbation), present exactly for that kind, and its own meaning
// of the value lines. docs/synopsis-format.md, "Synopsis kinds", documents
// the bytes.
const (
	// MechanismGP is Hall, Rinaldo & Wasserman's Gaussian-process release:
	// the values are the released sample path on the public grid
	// ν/k_j (the Bernstein lattice of mechanism.k), evaluated anywhere by
	// multilinear interpolation (peers.GPGrid).
	MechanismGP = peers.KindGP
	// MechanismTrig is Wang et al.'s trigonometric summary: the values are
	// the t noisy moments S̃_0..S̃_{t−1} (S̃_0 = 1 public), evaluated as the
	// KDE query Σ_m w_m(y)·S̃_m (peers.TrigKDEWeights).
	MechanismTrig = peers.KindTrig
	// MechanismOutputPerturbation is Chaudhuri & Vinterbo's output
	// perturbation of logistic regression: the values are the ℓ+1 noisy
	// weights on the public lift, evaluated as the logistic score or
	// probability (learners.LinearModel).
	MechanismOutputPerturbation = peers.KindOutputPerturbation
)

// NoiseL2Laplace is the noise kind of output perturbation: a vector b with
// density ∝ exp(−‖b‖₂/θ), θ = mechanism.scale (peers.OutputPerturbationNoise).
const NoiseL2Laplace = "l2-laplace"

// Value orders of the peer kinds (lattice.order).
const (
	TrigOrder   = "moments m = 0 to t-1"
	LinearOrder = "lift coordinates j = 1 to l, then the intercept"
)

// GPInfo is the public description of a hall-gp file's noise: the
// covariance kernel K (amplitude A, widths σ_j per axis, in [0,1] units),
// the jitter τ_j per axis added to K_j before factoring (peers.GPFactor),
// and the RKHS-norm sensitivity Δ_H that the scale √c is calibrated to. A
// and σ_j and Δ_H must equal learners.RKHSPeer's for the file's learner,
// parameters and n (relative 10⁻¹²).
type GPInfo struct {
	Amplitude       float64   `json:"amplitude"`
	Sigmas          []float64 `json:"sigmas"`
	Jitter          []float64 `json:"jitter"`
	RKHSSensitivity float64   `json:"rkhs_sensitivity"`
}

// TrigInfo is the public evaluation rule of a wang-trig file: the
// smoothness order K of the Jackson operator (the KDE bandwidth is the
// learner parameter bandwidth).
type TrigInfo struct {
	Jackson int `json:"jackson"`
}

// LinearInfo is the public description of an output-perturbation file: Δ₂,
// the certified L2 sensitivity of the weights, to which the scale θ = Δ₂/ε
// is calibrated.
type LinearInfo struct {
	Sensitivity2 float64 `json:"sensitivity2"`
}

// Function is a released function on [0,1]^ℓ, whatever its kind:
// *mechanism.Synopsis for the Bernstein kind, and the peers' functions.
// All methods are safe for concurrent use.
type Function interface {
	// Eval returns the released function at y ∈ [0,1]^ℓ.
	Eval(y []float64) (float64, error)
	// EvalBatch evaluates n points given row-major in points into out.
	EvalBatch(ctx context.Context, points, out []float64) error
	// NoiseStdAt returns the standard deviation of the privacy noise of the
	// released value at y, from the public noise description only.
	NoiseStdAt(y []float64) (float64, error)
}

// IsBernstein reports whether f holds a Bernstein polynomial release.
func (f *File) IsBernstein() bool { return f.Mechanism.Name == MechanismBernstein }

// LatticeSensitivityPossible reports whether Learner.Sensitivity may be the
// lattice bound L(k) ≤ S(F) the noise was calibrated to rather than S(F)
// itself: a logistic regression's linear score or an SVM's decision
// function (docs/sensitivity.md, "Lattice sensitivity of the affine
// logistic score", "Lattice sensitivity of the SVM's kernel score").
func (f *File) LatticeSensitivityPossible() bool {
	return (f.Learner.Kind == string(learners.KindLogistic) || f.Learner.Kind == string(learners.KindSVM)) &&
		f.Output.Kind == string(learners.OutputClassScore)
}

// valueCount is the number of value lines the kind's metadata declares,
// or −1 when the mechanism block is too large.
func (f *File) valueCount() int {
	switch f.Mechanism.Name {
	case MechanismTrig:
		return f.Mechanism.Moments
	case MechanismOutputPerturbation:
		return len(f.Domain.Features) + 1
	}
	return LatticeSize(f.Mechanism.K)
}

// ValueOrder is the order of the values, the lattice.order of the kind:
// LatticeOrder (Bernstein, GP), TrigOrder or LinearOrder.
func (f *File) ValueOrder() string {
	switch f.Mechanism.Name {
	case MechanismTrig:
		return TrigOrder
	case MechanismOutputPerturbation:
		return LinearOrder
	}
	return LatticeOrder
}

// relClose reports |a − b| ≤ 10⁻¹²·max(|a|, |b|).
func relClose(a, b float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

// validateKind checks the mechanism block of any kind: Bernstein's rules
// (MechanismInfo.validate) or a peer kind's (validatePeer).
func (f *File) validateKind() error {
	if f.Mechanism.Name == MechanismBernstein && f.GP == nil && f.Trig == nil && f.Linear == nil && f.Mechanism.Moments == 0 {
		return f.Mechanism.validate()
	}
	return f.validatePeer()
}

// validatePeer checks a peer kind's mechanism block, its own metadata
// block and its learner (the metadata only; the values are checked by
// checkPeerValues). Bernstein files have no peer block.
func (f *File) validatePeer() error {
	m := &f.Mechanism
	switch m.Name {
	case MechanismBernstein, MechanismGP, MechanismTrig, MechanismOutputPerturbation:
	default:
		return fieldErr(ErrMalformed, "mechanism.name", "%q is not a known mechanism; want %q, %q, %q or %q", m.Name,
			MechanismBernstein, MechanismGP, MechanismTrig, MechanismOutputPerturbation)
	}
	blocks := 0
	for _, present := range []bool{f.GP != nil, f.Trig != nil, f.Linear != nil} {
		if present {
			blocks++
		}
	}
	want := map[string]bool{MechanismGP: f.GP != nil, MechanismTrig: f.Trig != nil, MechanismOutputPerturbation: f.Linear != nil}
	if ok, known := want[m.Name]; (known && (!ok || blocks != 1)) || (!known && blocks != 0) {
		return fieldErr(ErrMalformed, "mechanism.name", "a %q file needs exactly its own block (gp for %s, trig for %s, output_perturbation for %s) and no other",
			m.Name, MechanismGP, MechanismTrig, MechanismOutputPerturbation)
	}
	if m.Name == MechanismBernstein {
		if m.Moments != 0 {
			return fieldErr(ErrMalformed, "mechanism.moments", "must be absent for a %q file", m.Name)
		}
		return nil
	}
	if err := mechanism.ValidateEpsilon(m.Epsilon); err != nil {
		return mechanismParamErr(err)
	}
	if !positiveFinite(m.Scale) {
		return fieldErr(ErrMalformed, "mechanism.scale", "noise scale %v must be a finite number > 0", m.Scale)
	}
	if m.Neighbouring != NeighbouringReplaceOne {
		return fieldErr(ErrMalformed, "mechanism.neighbouring", "%q is not a known neighbouring relation; want %q", m.Neighbouring, NeighbouringReplaceOne)
	}
	if m.Name != MechanismGP && (m.K != nil || m.H != 0) {
		return fieldErr(ErrMalformed, "mechanism.k", "must be null, with h = 0, for a %q file", m.Name)
	}
	if m.Name != MechanismTrig && m.Moments != 0 {
		return fieldErr(ErrMalformed, "mechanism.moments", "must be absent for a %q file", m.Name)
	}
	switch m.Name {
	case MechanismGP:
		return f.validateGP()
	case MechanismTrig:
		return f.validateTrig()
	}
	return f.validateLinear()
}

func (f *File) validateGP() error {
	m, g := &f.Mechanism, f.GP
	if len(m.K) < 1 || len(m.K) > mechanism.MaxDim {
		return fieldErr(tooLargeIf(len(m.K) > mechanism.MaxDim), "mechanism.k", "has %d axes; need between 1 and %d", len(m.K), mechanism.MaxDim)
	}
	total := 1
	for j, kj := range m.K {
		if kj < 1 || kj+1 > peers.MaxGPAxisPoints {
			return fieldErr(tooLargeIf(kj >= 1), fmt.Sprintf("mechanism.k[%d]", j), "k = %d: a GP grid axis has k+1 points, 2 to %d", kj, peers.MaxGPAxisPoints)
		}
		total *= kj + 1
		if total > peers.MaxGPGridPoints {
			return fieldErr(ErrTooLarge, "mechanism.k", "the GP grid (the product of k_j+1 over the axes) exceeds %d points", peers.MaxGPGridPoints)
		}
	}
	if m.H != 0 {
		return fieldErr(ErrMalformed, "mechanism.h", "h = %d: must be 0 for a %q file (no Bernstein order)", m.H, m.Name)
	}
	if m.Noise != string(mechanism.NoiseGaussian) {
		return fieldErr(ErrMalformed, "mechanism.noise", "%q: a %q file has %q noise", m.Noise, m.Name, mechanism.NoiseGaussian)
	}
	if err := mechanism.ValidateDelta(m.Delta, mechanism.NoiseGaussian); err != nil {
		return mechanismParamErr(err)
	}
	if m.Epsilon > peers.GPMaxEpsilon {
		return fieldErr(ErrMalformed, "mechanism.epsilon", "ε = %v: Hall et al.'s theorem covers ε ≤ %v only", m.Epsilon, peers.GPMaxEpsilon)
	}
	dim := len(m.K)
	if len(g.Sigmas) != dim || len(g.Jitter) != dim {
		return fieldErr(ErrMalformed, "gp", "has %d widths and %d jitters for %d axes; need one of each per axis", len(g.Sigmas), len(g.Jitter), dim)
	}
	for j, tau := range g.Jitter {
		if !(tau >= 0 && tau <= peers.GPMaxJitter) {
			return fieldErr(ErrMalformed, fmt.Sprintf("gp.jitter[%d]", j), "τ = %v must be between 0 and %g", tau, peers.GPMaxJitter)
		}
	}
	rs, err := learners.RKHSPeer(learners.Kind(f.Learner.Kind), f.Learner.N, learners.Values(f.Learner.Params), dim)
	if err != nil {
		return fieldErr(ErrMalformed, "learner", "a %q release needs a learner with a Gaussian RKHS sensitivity: %v", m.Name, err)
	}
	if !relClose(g.Amplitude, rs.Amplitude) || !relClose(g.RKHSSensitivity, rs.Delta) {
		return fieldErr(ErrMalformed, "gp", "amplitude %v and Δ_H %v differ from the learner's %v and %v", g.Amplitude, g.RKHSSensitivity, rs.Amplitude, rs.Delta)
	}
	for j, s := range g.Sigmas {
		if !relClose(s, rs.Sigmas[j]) {
			return fieldErr(ErrMalformed, fmt.Sprintf("gp.sigmas[%d]", j), "σ = %v differs from the learner's kernel width %v", s, rs.Sigmas[j])
		}
	}
	want, err := peers.GPNoiseScale(g.RKHSSensitivity, m.Epsilon, m.Delta)
	if err != nil || !relClose(m.Scale, want) {
		return fieldErr(ErrMalformed, "mechanism.scale", "%v is not √c = Δ_H·√(2 ln(2/δ))/ε = %v", m.Scale, want)
	}
	return nil
}

func (f *File) validateTrig() error {
	m := &f.Mechanism
	if m.Noise != string(mechanism.NoiseLaplace) || m.Delta != 0 {
		return fieldErr(ErrMalformed, "mechanism.noise", "%q with δ = %v: a %q file has %q noise and δ = 0", m.Noise, m.Delta, m.Name, mechanism.NoiseLaplace)
	}
	if m.Moments < 1 || m.Moments > peers.MaxTrigDegree {
		return fieldErr(tooLargeIf(m.Moments > peers.MaxTrigDegree), "mechanism.moments", "t = %d must be between 1 and %d", m.Moments, peers.MaxTrigDegree)
	}
	if k := f.Trig.Jackson; k < 0 || k > peers.MaxJacksonK {
		return fieldErr(ErrMalformed, "trig.jackson", "K = %d must be between 0 and %d", k, peers.MaxJacksonK)
	}
	if f.Learner.Kind != string(learners.KindKDE) || len(f.Domain.Features) != 1 {
		return fieldErr(ErrMalformed, "learner.kind", "a %q file answers the one-dimensional KDE query; got %q with %d features", m.Name, f.Learner.Kind, len(f.Domain.Features))
	}
	if bw := f.Learner.Params["bandwidth"]; len(bw) != 1 || !(bw[0] >= peers.MinTrigBandwidth && bw[0] <= 1) {
		return fieldErr(ErrMalformed, "learner.params.bandwidth", "%v: a %q file needs one bandwidth in [%g, 1]", bw, m.Name, peers.MinTrigBandwidth)
	}
	want, err := peers.TrigNoiseScale(f.Learner.N, m.Moments, m.Epsilon)
	if err != nil || !relClose(m.Scale, want) {
		return fieldErr(ErrMalformed, "mechanism.scale", "%v is not λ = 2(t−1)/(nε) = %v", m.Scale, want)
	}
	return nil
}

func (f *File) validateLinear() error {
	m := &f.Mechanism
	if m.Noise != NoiseL2Laplace || m.Delta != 0 {
		return fieldErr(ErrMalformed, "mechanism.noise", "%q with δ = %v: a %q file has %q noise and δ = 0", m.Noise, m.Delta, m.Name, NoiseL2Laplace)
	}
	if f.Learner.Kind != string(learners.KindLogistic) {
		return fieldErr(ErrMalformed, "learner.kind", "%q: a %q file releases logistic regression only", f.Learner.Kind, m.Name)
	}
	if d := len(f.Domain.Features); d < 1 || d > mechanism.MaxDim {
		return fieldErr(tooLargeIf(d > mechanism.MaxDim), "domain.features", "has %d bounds; need between 1 and %d", d, mechanism.MaxDim)
	}
	want, err := peers.OutputPerturbationScale(f.Linear.Sensitivity2, m.Epsilon)
	if err != nil || !relClose(m.Scale, want) {
		return fieldErr(ErrMalformed, "mechanism.scale", "%v is not θ = Δ₂/ε = %v (Δ₂ = %v)", m.Scale, want, f.Linear.Sensitivity2)
	}
	return nil
}

// checkPeerValues checks the values of a peer kind beyond finiteness: the
// public moment S̃_0 = 1 of a trig summary.
func (f *File) checkPeerValues() error {
	if f.Mechanism.Name == MechanismTrig && len(f.Values) > 0 && f.Values[0] != 1 {
		return fieldErr(ErrMalformed, "values[0]", "S̃_0 = %v: the zeroth moment is public and equals 1", f.Values[0])
	}
	return nil
}

// restoreFunction returns the released function of a validated file.
func (f *File) restoreFunction() (Function, *mechanism.Synopsis, error) {
	m := f.Mechanism
	switch m.Name {
	case MechanismGP:
		axes, err := peers.GPReleaseAxes(m.K)
		if err != nil {
			return nil, nil, err
		}
		g, err := peers.NewGPGrid(axes, f.Values)
		if err != nil {
			return nil, nil, err
		}
		return &gpFunction{grid: g, noise: peers.GPNoise{
			Kernel: peers.GPKernel{Amplitude: f.GP.Amplitude, Sigmas: slices.Clone(f.GP.Sigmas)},
			Jitter: slices.Clone(f.GP.Jitter), Scale: m.Scale}}, nil, nil
	case MechanismTrig:
		mu, err := peers.JacksonMultipliers(len(f.Values), f.Trig.Jackson)
		if err != nil {
			return nil, nil, err
		}
		return &trigFunction{coef: slices.Clone(f.Values), bandwidth: f.Learner.Params["bandwidth"][0],
			jackson: mu, scale: m.Scale}, nil, nil
	case MechanismOutputPerturbation:
		d := len(f.Domain.Features)
		b := 1.0 // the logistic default intercept (docs/synopsis-format.md)
		if v, ok := f.Learner.Params["intercept"]; ok && len(v) == 1 {
			b = v[0]
		}
		return &linearFunction{model: learners.LinearModel{Dim: d, W: slices.Clone(f.Values),
			Sigmoid: f.Output.Kind == string(learners.OutputProbability), Intercept: b}, scale: m.Scale}, nil, nil
	}
	rel, err := mechanism.RestoreSynopsis(m.K, m.H, f.Values, mechanism.NoiseKind(m.Noise),
		m.Scale, m.Epsilon, m.Delta, f.Learner.Sensitivity)
	if err != nil {
		return nil, nil, err
	}
	return rel, rel, nil
}

// checkUnit checks a query in [0,1]^dim.
func checkUnit(y []float64, dim int) error {
	if len(y) != dim {
		return fmt.Errorf("query has %d coordinates; the release has %d", len(y), dim)
	}
	for j, v := range y {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("coordinate %d = %v is outside [0, 1]", j, v)
		}
	}
	return nil
}

// evalBatch is EvalBatch by point-wise eval, checking ctx every 256 points.
func evalBatch(ctx context.Context, dim int, points, out []float64, eval func([]float64) (float64, error)) error {
	if len(points) != len(out)*dim {
		return fmt.Errorf("%d coordinates for %d outputs of dimension %d", len(points), len(out), dim)
	}
	for i := range out {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		v, err := eval(points[i*dim : (i+1)*dim])
		if err != nil {
			return err
		}
		out[i] = v
	}
	return nil
}

// gpFunction is a hall-gp release: the multilinear interpolant of the
// released grid values (post-processing) and its noise (peers.GPNoise).
type gpFunction struct {
	grid  *peers.GPGrid
	noise peers.GPNoise
}

func (g *gpFunction) Eval(y []float64) (float64, error) {
	if err := checkUnit(y, len(g.grid.Axes)); err != nil {
		return 0, err
	}
	return g.grid.Eval(y), nil
}

func (g *gpFunction) EvalBatch(ctx context.Context, points, out []float64) error {
	return evalBatch(ctx, len(g.grid.Axes), points, out, g.Eval)
}

func (g *gpFunction) NoiseStdAt(y []float64) (float64, error) {
	if err := checkUnit(y, len(g.grid.Axes)); err != nil {
		return 0, err
	}
	return g.noise.StdAt(g.grid, y), nil
}

// trigFunction is a wang-trig release: the KDE query at y answered from
// the noisy moments, Σ_m w_m(y)·S̃_m (peers.TrigKDEWeights, the recurrence
// of the Figure 1 peer). Its noise std is √2·λ·‖(w_1..w_{t−1})‖₂ (Laplace
// noise of scale λ on S̃_1..S̃_{t−1}, S̃_0 exact).
type trigFunction struct {
	coef      []float64
	bandwidth float64
	jackson   []float64 // the Jackson multipliers μ_m (once per file)
	scale     float64
}

func (t *trigFunction) weights(y []float64) ([]float64, error) {
	if err := checkUnit(y, 1); err != nil {
		return nil, err
	}
	return peers.TrigKDEWeightsWith(y[0], t.bandwidth, t.jackson, nil)
}

func (t *trigFunction) Eval(y []float64) (float64, error) {
	w, err := t.weights(y)
	if err != nil {
		return 0, err
	}
	var s float64
	for m, v := range w {
		s += v * t.coef[m]
	}
	return s, nil
}

func (t *trigFunction) EvalBatch(ctx context.Context, points, out []float64) error {
	return evalBatch(ctx, 1, points, out, t.Eval)
}

func (t *trigFunction) NoiseStdAt(y []float64) (float64, error) {
	w, err := t.weights(y)
	if err != nil {
		return 0, err
	}
	var s float64
	for _, v := range w[1:] {
		s += v * v
	}
	return math.Sqrt2 * t.scale * math.Sqrt(s), nil
}

// linearFunction is an output-perturbation release: y ↦ ⟨w̃, lift(y)⟩, or
// its sigmoid for a probability output (learners.LinearModel). The noise b
// has density ∝ exp(−‖b‖/θ): direction uniform, norm Gamma(p, θ) with p =
// ℓ+1 weights, so E‖b‖² = θ²p(p+1) spreads evenly over the p coordinates,
// Cov(b) = θ²·(p+1)·I, and the score's noise std is
// θ·√(p+1)·‖lift(y)‖. For a probability the std is carried through the
// sigmoid to first order, σ(z)(1 − σ(z)) times the score's std, at the
// released z (post-processing of the release).
type linearFunction struct {
	model learners.LinearModel
	scale float64
}

func (l *linearFunction) margin(y []float64) (z float64, lift []float64, err error) {
	if err := checkUnit(y, l.model.Dim); err != nil {
		return 0, nil, err
	}
	lift = make([]float64, l.model.Dim+1)
	l.model.Lift(y, lift)
	for i, v := range lift {
		z += l.model.W[i] * v
	}
	return z, lift, nil
}

func (l *linearFunction) Eval(y []float64) (float64, error) {
	z, _, err := l.margin(y)
	if err != nil {
		return 0, err
	}
	return l.model.Link(z), nil
}

func (l *linearFunction) EvalBatch(ctx context.Context, points, out []float64) error {
	return evalBatch(ctx, l.model.Dim, points, out, l.Eval)
}

func (l *linearFunction) NoiseStdAt(y []float64) (float64, error) {
	z, lift, err := l.margin(y)
	if err != nil {
		return 0, err
	}
	var n2 float64
	for _, v := range lift {
		n2 += v * v
	}
	std := l.scale * math.Sqrt(float64(len(lift)+1)*n2)
	if l.model.Sigmoid {
		p := learners.Sigmoid(z)
		std *= p * (1 - p)
	}
	return std, nil
}

// PeerRelease is a peer kind's release as the release path hands it to
// NewPeerFile: the mechanism block (Name a peer kind; K the GP grid, nil
// otherwise; Moments t for a trig summary), S(F) of the learner, the
// released values in the kind's order and the kind's own public block.
type PeerRelease struct {
	Mechanism   MechanismInfo
	Sensitivity float64
	Values      []float64
	GP          *GPInfo
	Trig        *TrigInfo
	Linear      *LinearInfo
}

// NewPeerFile is NewFile for a peer kind: it copies the released values,
// the mechanism block and the kind's block from rel and the public
// descriptions from meta, and validates the result (every rule of the
// kind: kinds.go). Errors are *FormatError naming the field and rule.
func NewPeerFile(rel PeerRelease, meta Meta) (*File, error) {
	if rel.Mechanism.Name == MechanismBernstein {
		return nil, fieldErr(ErrMalformed, "mechanism.name", "a %q release is made by NewFile", MechanismBernstein)
	}
	mech := rel.Mechanism
	mech.K = slices.Clone(mech.K)
	mech.Neighbouring = NeighbouringReplaceOne
	return assembleFile(mech, rel.Sensitivity, rel.Values, meta, func(f *File) {
		if rel.GP != nil {
			g := *rel.GP
			g.Sigmas, g.Jitter = slices.Clone(g.Sigmas), slices.Clone(g.Jitter)
			f.GP = &g
		}
		if rel.Trig != nil {
			t := *rel.Trig
			f.Trig = &t
		}
		if rel.Linear != nil {
			l := *rel.Linear
			f.Linear = &l
		}
	})
}
