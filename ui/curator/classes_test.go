package curator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/project"
	"github.com/bernsteinrelease/bernstein/project/dataset"
)

// TestCuratorDeclaredTextClasses drives the class form with real widgets on
// a file with text labels, a third label value and a missing feature value:
// the label values are offered from the preview rows, the curator picks
// "no" and types "yes", and the preview fits on every row (n = rows in the
// file) with the invalid values filled, the counts shown to the curator
// only.
func TestCuratorDeclaredTextClasses(t *testing.T) {
	f := newCuratorFixture(t)
	c := f.c
	var b strings.Builder
	b.WriteString("x,outcome\n")
	for i := range 40 {
		x, label := formatValue(float64(i%10)/10+0.05), []string{"no", "yes"}[i%2]
		switch i {
		case 7:
			x = "" // missing feature: filled with the midpoint
		case 11:
			label = "maybe" // neither class: filled with the negative class
		}
		b.WriteString(x + "," + label + "\n")
	}
	path := filepath.Join(f.dir, "text-labels.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f.do(func() { c.loadDataset(path, true) })
	f.waitDataset()
	f.waitIdle()
	if c.ds.Rows != 40 || !strings.Contains(c.pages[stepData].(*dataPage).counts.Text, "private") {
		t.Fatalf("rows %d, counts %q: want 40 rows and the private count of invalid values", c.ds.Rows, c.pages[stepData].(*dataPage).counts.Text)
	}

	lp := c.pages[stepLearner].(*learnerPage)
	f.do(func() { lp.choose.SetSelected(learners.NewNaiveBayes().Spec().Title) })
	dp := c.pages[stepData].(*dataPage)
	f.do(func() { dp.label.SetSelected("outcome") })
	form := dp.classes
	if !form.box.Visible() {
		t.Fatal("the class form is hidden for a binary label")
	}
	// The data's values are offered only on request, and asking marks the
	// declaration as read from the data (walkthrough finding: they were
	// offered unasked and published as if declared).
	if len(form.picks) != 0 {
		t.Errorf("picks %q offered before the curator asked for the data's values", form.picks)
	}
	f.do(func() { test.Tap(form.show) })
	if got := form.picks; !slices.Equal(got, []string{"maybe", "no", "yes"}) {
		t.Errorf("picks %q; want the preview's values maybe, no, yes", got)
	}
	if !c.state.ClassesFromData {
		t.Error("asking for the data's values does not mark the classes as read from the data")
	}
	if !strings.Contains(dp.colErrs.Text, "declare the two label values") {
		t.Errorf("column errors %q; want a request to declare the classes", dp.colErrs.Text)
	}
	f.do(func() { form.negative.SetText("no") }) // picked from the list
	f.do(func() {
		form.positive.SetText("")
		test.Type(form.positive, "yes") // typed
	})
	if c.state.Negative != "no" || c.state.Positive != "yes" || dp.colErrs.Text != "" {
		t.Fatalf("declaration %q, %q; errors %q", c.state.Negative, c.state.Positive, dp.colErrs.Text)
	}
	bp := c.pages[stepBounds].(*boundsPage)
	f.do(func() { c.showStep(stepBounds) })
	f.do(func() { curatorType(bp.editors["x"].lo, "0") })
	f.do(func() { curatorType(bp.editors["x"].hi, "1") })
	res := f.preview()
	if res.N != 40 {
		t.Errorf("n = %d; want 40, every row of the file", res.N)
	}
	if res.Filled["x"] != 1 || res.Filled["outcome"] != 1 {
		t.Errorf("filled %v; want x: 1, outcome: 1 (curator only)", res.Filled)
	}
	req, err := c.state.request(c.ds)
	if err != nil {
		t.Fatal(err)
	}
	if req.Classes == nil || *req.Classes != (dataset.Classes{Negative: "no", Positive: "yes"}) {
		t.Errorf("request classes %+v", req.Classes)
	}
	if !req.ClassesFromData {
		t.Error("the request does not record that the classes were read from the data")
	}
	// The project file keeps the provenance.
	if w, err := c.state.toWorkspace(c.ds); err != nil {
		t.Fatal(err)
	} else if s := stateFromWorkspace(w); !s.ClassesFromData {
		t.Error("the project file loses that the classes were read from the data")
	}
}

// TestOlderProjectPositiveLabel: a project file from before declared
// classes (positive_label only) opens with the positive value filled in
// and asks the curator to declare the negative one.
func TestOlderProjectPositiveLabel(t *testing.T) {
	one := 1.0
	w := project.NewWorkspace(dataset.DemoKDE1D(1))
	w.Features, w.Label = []string{"x"}, "label"
	w.Learner = project.LearnerSettings{Kind: learners.KindSVM, PositiveLabel: &one}
	s := stateFromWorkspace(w)
	if s.Positive != "1" || s.Negative != "" {
		t.Fatalf("classes %q, %q; want the positive value 1 and no negative", s.Negative, s.Positive)
	}
	if _, err := s.classes(); err == nil || !strings.Contains(err.Error(), "declare the two label values") {
		t.Errorf("classes() err = %v; want a request to declare both values", err)
	}
}
