package synopsis

import (
	"bytes"
	"errors"
	"math"
	"os"
	"testing"
	"time"
)

// Golden files of the peer kinds (issue 19): one per kind, signed with the
// golden TEST key, content written out literally (numbers from
// learners.RKHSPeer, peers.GPNoiseScale, peers.TrigNoiseScale by hand).
var kindGoldenPaths = map[string]string{
	MechanismGP:                 goldenDir + "/golden-v1-gp.synopsis",
	MechanismTrig:               goldenDir + "/golden-v1-trig.synopsis",
	MechanismOutputPerturbation: goldenDir + "/golden-v1-output-perturbation.synopsis",
}

// kindGoldenFile returns the content of the golden file of a peer kind.
func kindGoldenFile(kind string) *File {
	f := &File{
		Format:     1,
		AppVersion: "0.1.0",
		Created:    time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC),
		Title:      "Golden " + kind + " file",
		Learner:    LearnerInfo{Kind: "kde", Params: map[string][]float64{"bandwidth": {0.2}}, Sensitivity: 0.0079788456080286535, N: 500},
		Domain:     DomainInfo{Features: []Bound{{Name: "age", Unit: "years", Lo: 0, Hi: 100}}},
		Output:     OutputInfo{Name: "density", Meaning: "Density of age.", Kind: "density", Range: [2]float64{0, 0.02}},
	}
	switch kind {
	case MechanismGP:
		// KDE, b = 0.2, n = 500: A = 1/(√(2π)·0.2), Δ_H = √(2A(1 − e^{−12.5}))/n·(1+10⁻¹²);
		// √c = Δ_H·√(2 ln(2/δ))/ε at ε = 0.5, δ = 10⁻⁶; grid ν/4.
		f.Mechanism = MechanismInfo{Name: MechanismGP, K: []int{4}, Noise: "gaussian", Scale: 0.043037083296999505,
			Epsilon: 0.5, Delta: 1e-6, Neighbouring: NeighbouringReplaceOne}
		f.GP = &GPInfo{Amplitude: 1.9947114020071635, Sigmas: []float64{0.2}, Jitter: []float64{0}, RKHSSensitivity: 0.003994700457770099}
		f.Values = []float64{0.61, 1.02, 1.21, 0.98, 0.57}
	case MechanismTrig:
		// t = 5 moments, λ = 2(t−1)/(nε) = 8/250 = 0.032; S̃_0 = 1.
		f.Learner.Params["bandwidth"] = []float64{0.1}
		f.Mechanism = MechanismInfo{Name: MechanismTrig, Moments: 5, Noise: "laplace", Scale: 0.032,
			Epsilon: 0.5, Neighbouring: NeighbouringReplaceOne}
		f.Trig = &TrigInfo{Jackson: 2}
		f.Values = []float64{1, 0.0312, -0.4875, 0.0521, 0.1204}
	case MechanismOutputPerturbation:
		// Logistic on two features, probability output, intercept 1:
		// θ = Δ₂/ε = 0.05/1.
		f.Learner = LearnerInfo{Kind: "logistic", Params: map[string][]float64{"C": {1}, "intercept": {1}, "output": {1}},
			Sensitivity: 0.0125, N: 400}
		f.Domain = DomainInfo{Features: []Bound{{Name: "age", Unit: "years", Lo: 0, Hi: 100}, {Name: "bmi", Unit: "kg/m²", Lo: 15, Hi: 45}}}
		f.Output = OutputInfo{Name: "p", Meaning: "P(recovered | age, bmi)", Kind: "probability", Range: [2]float64{0, 1},
			ClassLabels: []string{"no", "yes"}}
		f.Mechanism = MechanismInfo{Name: MechanismOutputPerturbation, Noise: NoiseL2Laplace, Scale: 0.05,
			Epsilon: 1, Neighbouring: NeighbouringReplaceOne}
		f.Linear = &LinearInfo{Sensitivity2: 0.05}
		f.Values = []float64{1.25, -0.75, 0.125}
	}
	return f
}

// TestSynopsisGoldenKinds pins the bytes of one file per peer kind and
// checks that each evaluates with a positive noise band.
func TestSynopsisGoldenKinds(t *testing.T) {
	for kind, path := range kindGoldenPaths {
		t.Run(kind, func(t *testing.T) {
			v := checkGoldenSynopsis(t, path, kindGoldenFile(kind))
			if v.Release != nil || v.Function == nil {
				t.Fatalf("Release %v, Function %v", v.Release, v.Function)
			}
			x := make([]float64, v.File.Dim())
			for j, b := range v.File.Domain.Features {
				x[j] = (b.Lo + b.Hi) / 2
			}
			val, std, err := v.EvalData(x)
			if err != nil || math.IsNaN(val) || !(std > 0) {
				t.Fatalf("EvalData(%v) = %v ± %v, %v", x, val, std, err)
			}
		})
	}
}

// TestKindsEvalByHand checks each kind's evaluation against its formula:
// the GP interpolant halfway between grid values, the logistic probability
// σ(⟨w̃, lift(y)⟩) with lift (2y − 1, b)/√(ℓ + b²), and the trig value as
// the weighted sum of the moments.
func TestKindsEvalByHand(t *testing.T) {
	gp, err := kindGoldenFile(MechanismGP).restoreFunctionForTest()
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := gp.Eval([]float64{0.125}); math.Abs(v-(0.61+1.02)/2) > 1e-15 {
		t.Errorf("GP at 1/8: %v", v)
	}
	op, err := kindGoldenFile(MechanismOutputPerturbation).restoreFunctionForTest()
	if err != nil {
		t.Fatal(err)
	}
	y := []float64{0.3, 0.8}
	s := 1 / math.Sqrt(2+1)
	z := 1.25*(2*0.3-1)*s - 0.75*(2*0.8-1)*s + 0.125*s
	if v, _ := op.Eval(y); math.Abs(v-1/(1+math.Exp(-z))) > 1e-15 {
		t.Errorf("logistic at %v: %v", y, v)
	}
	std, _ := op.NoiseStdAt(y)
	p := 1 / (1 + math.Exp(-z))
	lift2 := ((2*0.3-1)*(2*0.3-1) + (2*0.8-1)*(2*0.8-1) + 1) / 3 // ‖lift(y)‖²
	// p(1 − p)·θ·√(weights + 1)·‖lift(y)‖, three weights.
	if want := p * (1 - p) * 0.05 * math.Sqrt(4*lift2); math.Abs(std-want) > 1e-15 {
		t.Errorf("logistic std %v, want %v", std, want)
	}
}

func (f *File) restoreFunctionForTest() (Function, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	fn, _, err := f.restoreFunction()
	return fn, err
}

// TestKindsRefuseInconsistent: a peer file whose fields disagree with its
// theorem or learner is refused with a typed error naming the field.
func TestKindsRefuseInconsistent(t *testing.T) {
	for _, c := range []struct {
		name, kind, field string
		edit              func(f *File)
	}{
		{"gp eps above 1", MechanismGP, "mechanism.epsilon", func(f *File) { f.Mechanism.Epsilon = 2 }},
		{"gp delta 0", MechanismGP, "mechanism.delta", func(f *File) { f.Mechanism.Delta = 0 }},
		{"gp scale", MechanismGP, "mechanism.scale", func(f *File) { f.Mechanism.Scale *= 0.5 }},
		{"gp kernel", MechanismGP, "gp.sigmas[0]", func(f *File) { f.GP.Sigmas[0] = 0.3 }},
		{"gp amplitude", MechanismGP, "gp", func(f *File) { f.GP.Amplitude = 1 }},
		{"gp jitter", MechanismGP, "gp.jitter[0]", func(f *File) { f.GP.Jitter[0] = 1 }},
		{"gp grid too large", MechanismGP, "mechanism.k[0]", func(f *File) { f.Mechanism.K = []int{5000} }},
		{"gp svm with intercept", MechanismGP, "learner", func(f *File) { f.Learner.Kind = "ridge" }},
		{"gp values", MechanismGP, "values", func(f *File) { f.Values = f.Values[:3] }},
		{"gp no block", MechanismGP, "mechanism.name", func(f *File) { f.GP = nil }},
		{"trig two blocks", MechanismTrig, "mechanism.name", func(f *File) { f.Linear = &LinearInfo{Sensitivity2: 1} }},
		{"trig S0", MechanismTrig, "values[0]", func(f *File) { f.Values[0] = 1.5 }},
		{"trig scale", MechanismTrig, "mechanism.scale", func(f *File) { f.Mechanism.Scale = 0.01 }},
		{"trig delta", MechanismTrig, "mechanism.noise", func(f *File) { f.Mechanism.Delta = 1e-6 }},
		{"trig moments cap", MechanismTrig, "mechanism.moments", func(f *File) { f.Mechanism.Moments = 1001 }},
		{"trig bandwidth", MechanismTrig, "learner.params.bandwidth", func(f *File) { f.Learner.Params["bandwidth"] = []float64{0.001} }},
		{"trig k", MechanismTrig, "mechanism.k", func(f *File) { f.Mechanism.K = []int{4} }},
		{"op learner", MechanismOutputPerturbation, "learner.kind", func(f *File) { f.Learner.Kind = "svm" }},
		{"op scale", MechanismOutputPerturbation, "mechanism.scale", func(f *File) { f.Linear.Sensitivity2 = 0.5 }},
		{"op values", MechanismOutputPerturbation, "values", func(f *File) { f.Values = append(f.Values, 1) }},
		{"bernstein with block", MechanismOutputPerturbation, "mechanism.name", func(f *File) { f.Mechanism.Name = MechanismBernstein }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := kindGoldenFile(c.kind)
			c.edit(f)
			err := f.Validate()
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Field != c.field || !(errors.Is(err, ErrMalformed) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("Validate = %v; want a FormatError on %q", err, c.field)
			}
			// The same content, signed, is refused on read.
			if c.name == "gp values" || c.name == "op values" {
				return
			}
			data := encodeUnchecked(t, f)
			if _, err := parseSynopsis(data, nil, synTime); !errors.As(err, &fe) {
				t.Fatalf("read: %v", err)
			}
		})
	}
}

// encodeUnchecked signs f's payload with the test key "alice" without
// validating it, to reach the reader's checks.
func encodeUnchecked(t *testing.T, f *File) []byte {
	t.Helper()
	payload, err := encodePayload(f)
	if err != nil {
		t.Fatal(err)
	}
	return resignSyn(t, payload, "alice")
}

// TestKindsSignatureCoversBlocks: changing a byte of a peer kind's own
// block in a signed golden file breaks the signature (the payload covers
// the new fields).
func TestKindsSignatureCoversBlocks(t *testing.T) {
	for kind, edit := range map[string][2]string{
		MechanismGP:                 {`"rkhs_sensitivity": 0.003994700457770099`, `"rkhs_sensitivity": 0.003994700457770098`},
		MechanismTrig:               {`"jackson": 2`, `"jackson": 3`},
		MechanismOutputPerturbation: {`"sensitivity2": 0.05`, `"sensitivity2": 0.06`},
	} {
		data, err := os.ReadFile(kindGoldenPaths[kind])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(edit[0])) {
			t.Fatalf("%s: golden file lacks %s", kind, edit[0])
		}
		bad := bytes.Replace(data, []byte(edit[0]), []byte(edit[1]), 1)
		if _, err := parseSynopsis(bad, nil, synTime); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s: edited block read with %v, want ErrBadSignature", kind, err)
		}
	}
}
