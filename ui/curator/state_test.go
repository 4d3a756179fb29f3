package curator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/release"
	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

func TestParseParam(t *testing.T) {
	bw := learners.ParamSpec{Name: "bandwidth", Min: 0, MinExclusive: true, Max: 1, PerAxis: true}
	c := learners.ParamSpec{Name: "C", Min: 0.001, Max: 1000}
	n := learners.ParamSpec{Name: "n", Min: 1, Max: 10, Integer: true}
	tests := []struct {
		p    learners.ParamSpec
		text string
		dim  int
		want []float64
		err  string
	}{
		{bw, "0.05", 2, []float64{0.05}, ""},
		{bw, " 0.05 , 0.1 ", 2, []float64{0.05, 0.1}, ""},
		{bw, "0.05, 0.1, 0.2", 2, nil, "one per feature (2)"},
		{bw, "0", 1, nil, "must be > 0"},
		{bw, "", 1, nil, "enter a value"},
		{bw, "abc", 1, nil, `"abc" is not a number`},
		{bw, "NaN", 1, nil, "not a finite number"},
		{bw, "0x1p-4", 1, nil, "not a plain decimal number"},
		{bw, "0_1", 1, nil, "not a plain decimal number"},
		{c, "1,2", 1, nil, "single value"},
		{c, "1e6", 1, nil, "between 0.001 and 1000"},
		{n, "2.5", 1, nil, "whole number"},
		{n, "3", 1, []float64{3}, ""},
	}
	for _, tt := range tests {
		got, err := parseParam(tt.p, tt.text, tt.dim)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s %q: error %v, want %q", tt.p.Name, tt.text, err, tt.err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s %q = %v, %v; want %v", tt.p.Name, tt.text, got, err, tt.want)
		}
	}
}

// TestRequestFieldErrors: incomplete settings name the wizard step and the
// field; complete settings give the request release.Prepare validates.
func TestRequestFieldErrors(t *testing.T) {
	ds := dataset.DemoTwoClass2D(1)
	base := func() *curatorState {
		s := newCuratorState()
		s.Learner = learners.KindSVM
		s.Features = []string{"x1", "x2"}
		s.Label, s.Negative, s.Positive = "label", "0", "1"
		s.bound("x1").Lo, s.bound("x1").Hi = "0", "1"
		s.bound("x2").Lo, s.bound("x2").Hi = "0", "1"
		return s
	}
	tests := []struct {
		name  string
		edit  func(s *curatorState)
		ds    *dataset.Table
		step  string
		field string
	}{
		{"no dataset", func(*curatorState) {}, nil, stepData, "dataset"},
		{"no features", func(s *curatorState) { s.Features = nil }, ds, stepData, "features"},
		{"no label", func(s *curatorState) { s.Label = "" }, ds, stepData, "label"},
		{"no positive class", func(s *curatorState) { s.Positive = "" }, ds, stepData, "classes"},
		{"classes the same value", func(s *curatorState) { s.Negative = "1.0" }, ds, stepData, "classes"},
		{"fill not a number", func(s *curatorState) { s.bound("x1").Fill = "abc" }, ds, stepBounds, "fill value of x1"},
		{"missing bounds", func(s *curatorState) { delete(s.Bounds, "x2") }, ds, stepBounds, "bounds of x2"},
		{"bad bounds", func(s *curatorState) { s.bound("x1").Hi = "-1" }, ds, stepBounds, "bounds of x1"},
		{"bad parameter", func(s *curatorState) { s.setParamText("C", "-3") }, ds, stepLearner, "Regularisation C"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			tt.edit(s)
			_, err := s.request(tt.ds)
			var fe *fieldError
			if !errors.As(err, &fe) || fe.Step != tt.step || !strings.HasPrefix(fe.Field, tt.field) {
				t.Fatalf("error %v, want a field error at step %s for %q", err, tt.step, tt.field)
			}
		})
	}
	s := base()
	s.Noise, s.Delta, s.KAuto, s.K = mechanism.NoiseGaussian, 1e-6, false, 7
	x1 := s.bound("x1")
	x1.setEnds(x1.Lo, x1.Hi, synopsis.EndFromData, nil, nil)
	s.AckDataBounds = true
	req, err := s.request(ds)
	if err != nil {
		t.Fatal(err)
	}
	if req.Privacy.Delta != 1e-6 || len(req.Privacy.K) != 1 || req.Privacy.K[0] != 7 || req.KAuto ||
		!req.BoundsFromData["x1"] || req.BoundsFromData["x2"] || !req.AcknowledgedDataBounds || req.Classes == nil || *req.Classes != (dataset.Classes{Negative: "0", Positive: "1"}) || req.FillClass != "" {
		t.Errorf("request %+v", req)
	}
	s.Noise = mechanism.NoiseLaplace
	if req, _ := s.request(ds); req.Privacy.Delta != 0 {
		t.Errorf("pure Laplace request has δ = %v, want 0", req.Privacy.Delta)
	}
}

// TestWorkspaceRoundTrip: the state survives a project file.
func TestWorkspaceRoundTrip(t *testing.T) {
	ds := dataset.DemoKDE1D(1)
	s := newCuratorState()
	s.CSVPath = "/data/kde.csv"
	s.Features = []string{"x"}
	// Per end: the lower end typed, the upper end from the data.
	s.bound("x").Lo, s.bound("x").Hi = "-1", "2"
	s.bound("x").HiEnd = endSetting{Source: synopsis.EndFromData, Value: "2"}
	s.bound("x").Unit = "mm"
	s.bound("x").Fill = "0.5"
	s.AckDataBounds = true
	s.setParamText("bandwidth", "0.07")
	s.Epsilon, s.Noise, s.Delta, s.H, s.KAuto, s.K = 0.3, mechanism.NoiseLaplaceApprox, 1e-5, 4, false, 12
	s.Title, s.Note = "t", "n"
	w, err := s.toWorkspace(ds)
	if err != nil {
		t.Fatal(err)
	}
	got := stateFromWorkspace(w)
	if got.CSVPath != s.CSVPath || got.Epsilon != 0.3 || got.Noise != mechanism.NoiseLaplaceApprox || got.Delta != 1e-5 ||
		got.H != 4 || got.KAuto || got.K != 12 || got.Title != "t" || got.Note != "n" ||
		got.Bounds["x"].Lo != "-1" || got.Bounds["x"].Hi != "2" || !got.Bounds["x"].fromData() || !got.AckDataBounds ||
		got.Bounds["x"].LoEnd.source() != synopsis.EndTyped || got.Bounds["x"].HiEnd.source() != synopsis.EndFromData ||
		got.Bounds["x"].Unit != "mm" || got.Bounds["x"].Fill != "0.5" ||
		got.paramText(learners.NewKDE().Spec().Params[0]) != "0.07" {
		t.Errorf("round trip: %+v", got)
	}
	if _, err := s.toWorkspace(nil); err == nil {
		t.Error("a project without a dataset was accepted")
	}
	// Declared classes and the fill class survive too.
	s.Learner, s.Label, s.Negative, s.Positive, s.FillPositive = learners.KindSVM, "label", "no", "yes", true
	w, err = s.toWorkspace(ds)
	if err != nil {
		t.Fatal(err)
	}
	if got := stateFromWorkspace(w); got.Negative != "no" || got.Positive != "yes" || !got.FillPositive {
		t.Errorf("classes round trip: %q %q %v", got.Negative, got.Positive, got.FillPositive)
	}
}

func TestBudgetLine(t *testing.T) {
	if got := budgetLine(0.25, 0, 1); got != "Privacy budget for this dataset: ε spent 0.25 of 1, 0.75 left" {
		t.Errorf("got %q", got)
	}
	if got := budgetLine(1.5, 1e-6, 1); strings.Contains(got, "0 left") || !strings.Contains(got, "OVER BUDGET by 0.5") || !strings.Contains(got, "δ spent 1e-06") {
		t.Errorf("over budget: %q", got)
	}
}

func TestSuggestedFileName(t *testing.T) {
	for title, want := range map[string]string{
		"Demo: private SVM classifier": "demo-private-svm-classifier.synopsis",
		"":                             "release.synopsis",
		"../../etc/passwd":             "etc-passwd.synopsis",
		"Ωμέγα":                        "release.synopsis",
	} {
		if got := suggestedFileName(title); got != want {
			t.Errorf("suggestedFileName(%q) = %q, want %q", title, got, want)
		}
	}
}

// TestRequestPublicDefaults (issue 17): a parameter the curator did not
// touch reaches the request — and so the preview, which fits through
// release.Prepare — with the exact data-independent default of
// learners/defaults.go, the value release.Prepare resolves for the command
// line's request without it; the form shows it to three digits. A project
// file leaves it out (it is resolved again from n, ℓ and ε) and keeps a
// typed value.
func TestRequestPublicDefaults(t *testing.T) {
	ds := dataset.DemoTwoClass2D(1)
	for _, kind := range []learners.Kind{learners.KindSVM, learners.KindKDE, learners.KindNaiveBayes} {
		t.Run(string(kind), func(t *testing.T) {
			s := newCuratorState()
			s.Learner, s.Rows, s.Epsilon = kind, ds.Rows, 0.5
			s.Features = []string{"x1", "x2"}
			s.Label, s.Negative, s.Positive = "label", "0", "1"
			s.bound("x1").Lo, s.bound("x1").Hi = "-4", "4"
			s.bound("x2").Lo, s.bound("x2").Hi = "-4", "4"
			if kind == learners.KindKDE {
				s.Label = ""
			}
			req, err := s.request(ds)
			if err != nil {
				t.Fatal(err)
			}
			cli := req
			cli.Params = nil
			p, err := release.Prepare(context.Background(), cli, nil)
			if err != nil {
				t.Fatal(err)
			}
			spec := p.Spec
			auto := 0
			for _, ps := range spec.Params {
				got, want := req.Params[ps.Name], p.Resolved[ps.Name]
				if ps.PerAxis && len(got) == 1 {
					got = slices.Repeat(got, len(want)) // one value for every axis
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: the curator's request has %v, the command line resolves %v", ps.Name, got, want)
				}
				if ps.Auto == nil {
					continue
				}
				auto++
				v, _ := ps.PublicDefault(learners.Public{N: ds.Rows, Dim: 2, Epsilon: 0.5})
				if want := strconv.FormatFloat(roundSig(v, 3), 'g', -1, 64); s.paramText(ps) != want {
					t.Errorf("%s: form text %q, want %q", ps.Name, s.paramText(ps), want)
				}
				w, err := s.toWorkspace(ds)
				if err != nil {
					t.Fatal(err)
				}
				if _, saved := w.Learner.Params[ps.Name]; saved {
					t.Errorf("%s: the untouched default was saved in the project (%v)", ps.Name, w.Learner.Params[ps.Name])
				}
				s.setParamText(ps.Name, "0.3")
				if w, err = s.toWorkspace(ds); err != nil || !slices.Equal(w.Learner.Params[ps.Name], []float64{0.3}) {
					t.Errorf("%s: typed 0.3, saved %v (%v)", ps.Name, w.Learner.Params[ps.Name], err)
				}
			}
			if auto == 0 {
				t.Fatalf("%s has no parameter with a public rule: the test checks nothing", kind)
			}
		})
	}
}
