package plotting

import (
	"math"
	"reflect"
	"testing"
)

// TestTradeoffLegendGroups checks the legend order: ungrouped curves first
// in their order, then every group (first appearance) with its heading and
// its curves in their order; unlabelled curves are not listed. The plot
// is rendered too, so a heading without a thumbnail is accepted by the
// legend.
func TestTradeoffLegendGroups(t *testing.T) {
	y := []float64{1, 0.5}
	tr := &Tradeoff{Epsilons: []float64{0.1, 1}, Curves: []Curve{
		{Label: "h = 1", Y: y, Group: "pure ε-DP"},
		{Label: "GP", Y: []float64{0.3, math.NaN()}, Group: "(ε, δ)-DP"},
		{Label: "bound", Y: y, Colour: -1},
		{Label: "h = 2", Y: y, Group: "pure ε-DP"},
		{Label: "", Y: y, Group: "unlabelled only"},
		{Label: "Gaussian", Y: y, Group: "(ε, δ)-DP"},
	}}
	want := []LegendEntry{
		{Text: "bound", Curve: 2},
		{Heading: true, Text: "pure ε-DP", Curve: -1},
		{Text: "h = 1", Curve: 0},
		{Text: "h = 2", Curve: 3},
		{Heading: true, Text: "(ε, δ)-DP", Curve: -1},
		{Text: "GP", Curve: 1},
		{Text: "Gaussian", Curve: 5},
	}
	if got := tr.Legend(); !reflect.DeepEqual(got, want) {
		t.Fatalf("legend:\n got %+v\nwant %+v", got, want)
	}
	if _, err := RenderTradeoff(tr, Light(), Size{W: 640, H: 420, Scale: 1}); err != nil {
		t.Fatal(err)
	}
}
