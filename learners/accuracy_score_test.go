package learners

import (
	"math"
	rand "math/rand/v2" // seeded: adversarial search only
	"testing"
)

func TestAccuracyScoreValues(t *testing.T) {
	s, err := NewAccuracyScore(OutputClassScore, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// One record of each class (M = 1): far on the right side 1, far wrong
	// 0, on the threshold ½, halfway into the margin ¾ or ¼.
	for _, c := range []struct {
		pred []float64
		want float64
	}{
		{[]float64{2, -2}, 1}, {[]float64{-2, 2}, 0}, {[]float64{0, 0}, 0.5},
		{[]float64{0.25, -0.25}, 0.75}, {[]float64{-0.25, 0.25}, 0.25}, {[]float64{2, 2}, 0.5},
	} {
		q, err := s.Score(c.pred, []float64{1, -1})
		if err != nil || q != c.want {
			t.Errorf("Score(%v) = %g, %v; want %g", c.pred, q, err, c.want)
		}
	}
	// A constant classifier scores ½ on any class mix with both classes
	// at least M = ⌈m/4⌉ (the majority earns nothing).
	labels := []float64{-1, -1, -1, -1, -1, 1, 1, 1}
	for _, v := range []float64{-3, -0.1, 0, 0.2, 5} {
		pred := []float64{v, v, v, v, v, v, v, v}
		if q, _ := s.Score(pred, labels); math.Abs(q-0.5) > 1e-15 {
			t.Errorf("constant %g: score %g, want ½", v, q)
		}
	}
	// A class below the floor counts at most m_l/M: one positive of 8
	// (M = 2), classified right, adds ½·(1/2) to the negatives' ½.
	if q, _ := s.Score([]float64{-9, -9, -9, -9, -9, -9, -9, 9}, []float64{-1, -1, -1, -1, -1, -1, -1, 1}); q != 0.75 {
		t.Errorf("floored class: %g, want 0.75", q)
	}
	p, _ := NewAccuracyScore(OutputProbability, 0.1)
	if q, _ := p.Score([]float64{0.9, 0.1, 0.5, 0.5}, []float64{1, -1, 1, -1}); q != 0.75 {
		t.Errorf("probability score %g, want 0.75 (threshold ½)", q)
	}
	if MinClassSize(171) != 43 || MinClassSize(1) != 1 || MinClassSize(8) != 2 {
		t.Errorf("MinClassSize(171, 1, 8) = %d, %d, %d", MinClassSize(171), MinClassSize(1), MinClassSize(8))
	}
	if s.BetaV(200) != 1.0/50 || s.BetaT(0.1) != 0.1 || s.BetaT(5) != 1 {
		t.Errorf("β_V = %g, β_T(0.1) = %g, β_T(5) = %g", s.BetaV(200), s.BetaT(0.1), s.BetaT(5))
	}
	for _, bad := range []struct {
		kind   OutputKind
		margin float64
	}{{OutputDensity, 1}, {OutputRegression, 1}, {OutputClassScore, 0}, {OutputClassScore, math.Inf(1)}, {OutputClassScore, math.NaN()}} {
		if _, err := NewAccuracyScore(bad.kind, bad.margin); err == nil {
			t.Errorf("NewAccuracyScore(%s, %g) accepted", bad.kind, bad.margin)
		}
	}
	for _, c := range []struct{ pred, labels []float64 }{
		{nil, nil}, {[]float64{1}, []float64{1, 1}}, {[]float64{math.NaN()}, []float64{1}}, {[]float64{1}, []float64{0.5}},
	} {
		if _, err := s.Score(c.pred, c.labels); err == nil {
			t.Errorf("Score(%v, %v) accepted", c.pred, c.labels)
		}
	}
}

// TestAccuracyScoreNeighbourAudit searches adversarially for score changes
// beyond the stated bounds: (a) one validation record replaced — its value
// and its label, so that the class sizes move across the floor M — with f
// fixed must move q by at most BetaV(m); (b) f moved by at most d at every
// record (the training side) by at most BetaT(d). Class mixes range from
// balanced to a single record of one class; the moves put records at the
// threshold, across it, on the margin's edges and at random. Attainment:
// β_V by a record of a class of exactly M records switching class, β_T by
// moving every record across the whole margin.
func TestAccuracyScoreNeighbourAudit(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	worstV, worstT := 0.0, 0.0
	for trial := range 20000 {
		kind := OutputClassScore
		if trial%2 == 1 {
			kind = OutputProbability
		}
		gamma := math.Exp(r.Float64()*6 - 4)
		s, _ := NewAccuracyScore(kind, gamma)
		m := 1 + r.IntN(40)
		share := r.Float64()
		pred, labels := make([]float64, m), make([]float64, m)
		for i := range pred {
			switch r.IntN(4) {
			case 0:
				pred[i] = s.Threshold
			case 1:
				pred[i] = s.Threshold + gamma*float64(2*r.IntN(2)-1)
			default:
				pred[i] = s.Threshold + gamma*(4*r.Float64()-2)
			}
			labels[i] = -1
			if r.Float64() < share {
				labels[i] = 1
			}
		}
		q, _ := s.Score(pred, labels)
		// (a) replace record i by a record of either class anywhere.
		i := r.IntN(m)
		p2, l2 := append([]float64(nil), pred...), append([]float64(nil), labels...)
		l2[i] = float64(2*r.IntN(2) - 1)
		p2[i] = s.Threshold + gamma*float64(r.IntN(5)-2)*3
		q2, _ := s.Score(p2, l2)
		worstV = max(worstV, math.Abs(q-q2)/s.BetaV(m))
		if math.Abs(q-q2) > s.BetaV(m)*(1+1e-12) {
			t.Fatalf("validation record replaced (m = %d): |Δq| = %g > β_V = %g", m, math.Abs(q-q2), s.BetaV(m))
		}
		// (b) move f by ≤ d at every record.
		d := gamma * math.Exp(r.Float64()*5-3)
		p3 := make([]float64, m)
		for j := range pred {
			switch r.IntN(3) {
			case 0:
				p3[j] = pred[j] - labels[j]*d
			case 1:
				p3[j] = pred[j] + labels[j]*d
			default:
				p3[j] = pred[j] + d*(2*r.Float64()-1)
			}
		}
		q3, _ := s.Score(p3, labels)
		worstT = max(worstT, math.Abs(q-q3)/s.BetaT(d))
		if math.Abs(q-q3) > s.BetaT(d)*(1+1e-12)+1e-15 {
			t.Fatalf("f moved by ≤ %g: |Δq| = %g > β_T = %g", d, math.Abs(q-q3), s.BetaT(d))
		}
	}
	s, _ := NewAccuracyScore(OutputClassScore, 0.3)
	// Near β_V: m = 8, M = 2; two positives (≤ M) and six negatives, all
	// right. A right positive becomes a wrong negative: the positive side
	// loses a full 1/M (1/2 → … of its floored mean), the negative side
	// 1/(m₋ + 1) (6/6 → 6/7): Δq = ½(1/2 + 1/7). The largest possible
	// change is ½(1/M + 1/(M + 1)) ≤ β_V = 1/M.
	pred := []float64{1, 1, -1, -1, -1, -1, -1, -1}
	labels := []float64{1, 1, -1, -1, -1, -1, -1, -1}
	q, _ := s.Score(pred, labels)
	pred[0], labels[0] = 1, -1
	q2, _ := s.Score(pred, labels)
	if got := q - q2; math.Abs(got-(0.25+0.5/7)) > 1e-15 || got > s.BetaV(8) {
		t.Errorf("class switch: Δq = %g, want %g ≤ β_V = %g", got, 0.25+0.5/7, s.BetaV(8))
	}
	// β_T attained: every record at the margin's correct edge, moved by 2γ.
	pred, labels = []float64{0.3, -0.3}, []float64{1, -1}
	moved := []float64{-0.3, 0.3}
	q, _ = s.Score(pred, labels)
	q2, _ = s.Score(moved, labels)
	if math.Abs(q-q2) != s.BetaT(0.6) {
		t.Errorf("moving by 2γ changed q by %g, want β_T = %g (attained)", math.Abs(q-q2), s.BetaT(0.6))
	}
	t.Logf("largest |Δq|/β: validation side %.4f, training side %.4f", worstV, worstT)
}

func TestPublicDefaults(t *testing.T) {
	svm := NewSVM().Spec()
	got := svm.PublicDefaults(Values{"C": {3}}, Public{N: 569, Dim: 2, Epsilon: 1})
	if got["C"][0] != 3 || math.Abs(got["sigma"][0]-0.2*math.Sqrt2) > 1e-15 {
		t.Errorf("svm defaults %v: want C as given (3) and σ = 0.2·√2", got)
	}
	if _, ok := got["intercept"]; ok {
		t.Errorf("intercept has no public rule but got %v", got["intercept"])
	}
	// A saved value stays as saved.
	if got := svm.PublicDefaults(Values{"sigma": {1}}, Public{N: 569, Dim: 2, Epsilon: 1}); got["sigma"][0] != 1 {
		t.Errorf("explicit σ = 1 became %v", got["sigma"])
	}
	kde := NewKDE().Spec()
	for _, c := range []struct {
		pub  Public
		want float64
	}{
		{Public{N: 569, Dim: 1, Epsilon: 1}, 0.25 * math.Pow(569, -0.2)},
		{Public{N: 569, Dim: 1, Epsilon: 5}, 0.25 * math.Pow(569, -0.2)},
		{Public{N: 569, Dim: 1, Epsilon: 0.1}, 0.25 * math.Pow(56.9, -0.2)},
		{Public{N: 1000, Dim: 2, Epsilon: 1}, 0.25 * math.Pow(1000, -1.0/6)},
	} {
		if got := kde.PublicDefaults(nil, c.pub)["bandwidth"][0]; math.Abs(got-c.want) > 1e-15 {
			t.Errorf("kde %+v: bandwidth %g, want %g", c.pub, got, c.want)
		}
	}
	// Naive Bayes smooths per feature: the one-dimensional rule at any ℓ.
	if got := NewNaiveBayes().Spec().PublicDefaults(nil, Public{N: 569, Dim: 3, Epsilon: 1})["bandwidth"][0]; math.Abs(got-0.25*math.Pow(569, -0.2)) > 1e-15 {
		t.Errorf("naive-bayes bandwidth %g", got)
	}
	// Clamped into the range (σ ≤ 100 holds; the bandwidth ≥ its minimum).
	if got := kde.PublicDefaults(nil, Public{N: 1 << 60, Dim: 1, Epsilon: 1})["bandwidth"][0]; kde.Params[0].Check(got) != nil {
		t.Errorf("bandwidth %g outside its range", got)
	}
	// Without a release context nothing is filled.
	if got := svm.PublicDefaults(nil, Public{}); len(got) != 0 {
		t.Errorf("no context: %v", got)
	}
	// Every rule's value is valid for its parameter over a range of n, ℓ, ε.
	for _, l := range All() {
		sp := l.Spec()
		for _, n := range []int{1, 10, 569, 1e7} {
			for dim := sp.MinDim; dim <= sp.MaxDim; dim++ {
				for _, eps := range []float64{1e-3, 1, 1e3} {
					v := sp.PublicDefaults(nil, Public{N: n, Dim: dim, Epsilon: eps})
					if _, err := sp.Resolve(v, dim); err != nil {
						t.Errorf("%s n=%d ℓ=%d ε=%g: %v", sp.Kind, n, dim, eps, err)
					}
				}
			}
		}
	}
}
