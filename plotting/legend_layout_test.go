package plotting

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestTradeoffShortPlotKeepsData renders a tradeoff with a 10-entry
// legend at the size the curator's preview gives it at 1024×700 (about
// 490×320 px; walkthrough REPORT 9: the legend left the data 30 px) and
// checks, from the drawn layout, that the legend takes at most a quarter
// of the height and the data area at least 45%; a tall plot keeps every
// legend entry.
func TestTradeoffShortPlotKeepsData(t *testing.T) {
	eps := []float64{0.03, 0.1, 0.3, 1, 3, 10, 30}
	var curves []Curve
	for h := 1; h <= 9; h++ {
		y := make([]float64, len(eps))
		for i := range y {
			y[i] = 0.5 + 0.04*float64(h) - 0.01*float64(i)
		}
		curves = append(curves, Curve{Label: fmt.Sprintf("agreement, h = %d, a long description of the curve", h), Y: y})
	}
	tr := &Tradeoff{Title: "Agreement vs privacy: k = 2, mean of 200 simulated releases", Epsilons: eps, Curves: curves,
		Share: true, MarkerEps: 1, MarkerErr: 0.6, MarkerLabel: "your setting (ε = 1, h = 1)"}
	for _, tc := range []struct {
		size    Size
		minData float64
	}{
		{Size{W: 490, H: 320, Scale: 1}, 0.45},
		{Size{W: 490, H: 240, Scale: 1}, 0.35},
		{Size{W: 980, H: 640, Scale: 2}, 0.45},
	} {
		var img, data, leg vg.Length
		drawnLayout = func(i, d, l vg.Length) { img, data, leg = i, d, l }
		if _, err := RenderTradeoff(tr, Dark(), tc.size); err != nil {
			t.Fatal(err)
		}
		drawnLayout = nil
		if img == 0 || leg > legendMaxShare*img+1e-9 || float64(data/img) < tc.minData {
			t.Errorf("%+v: image %.0f, data area %.0f (%.0f%%, want ≥ %.0f%%), legend %.0f (want ≤ %.0f%%)",
				tc.size, img, data, 100*data/img, 100*tc.minData, leg, 100*legendMaxShare)
		}
	}
}

// TestWrapTitle: a title wider than the plot is wrapped at spaces to lines
// no wider than it (walkthrough: "Error against k" was cut on the left).
func TestWrapTitle(t *testing.T) {
	p := newPlot(Light(), "Error against k: mean absolute error of 200 simulated releases at ε = 1, h = 1", "", "")
	w := vg.Points(180)
	wrapTitle(p, w)
	lines := strings.Split(p.Title.Text, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "Error against k") {
		t.Fatalf("title %q not wrapped", p.Title.Text)
	}
	for _, l := range lines {
		if p.Title.TextStyle.Width(l) > w {
			t.Errorf("title line %q is wider than %v", l, w)
		}
	}
}

// peersOverlay is a tradeoff like the curator's with the published peers
// compared at δ = 1e-6 (Gaussian noise): the marker, eleven (ε, δ) series
// and a pure one, with the labels the preview writes.
func peersOverlay() *Tradeoff {
	eps := []float64{0.03, 0.1, 0.3, 1, 3, 10, 30}
	y := func(a float64) []float64 {
		out := make([]float64, len(eps))
		for i, e := range eps {
			out[i] = a / (1 + e)
		}
		return out
	}
	const dd, pure = "(ε, δ = 1e-06)-DP", "pure ε-DP"
	var cs []Curve
	for h := 1; h <= 5; h++ {
		cs = append(cs, Curve{Label: fmt.Sprintf("Bernstein, h = %d", h), Y: y(float64(h)), Colour: h - 1, Group: dd})
	}
	cs = append(cs,
		Curve{Label: "nearest lattice point (baseline)", Y: y(2), Colour: 5, Dashed: true, Group: dd},
		Curve{Label: "95% bound (h = 1)", Y: y(3), Colour: -1, Dashed: true, Group: dd},
		Curve{Label: "lower bound S/ε (up to constants)", Y: y(0.1), Colour: -1, Dashed: true, Group: dd},
		Curve{Label: "Bernstein Laplace-approx, h = 1, k = 20", Y: y(1.5), Colour: 10, Group: dd},
		Curve{Label: "Hall et al. GP (δ = 1e-06, ε ≤ 1)", Y: y(0.05), Colour: 7, Dashed: true, Group: dd},
		Curve{Label: "Wang et al. trig (k = 7)", Y: y(0.7), Colour: 6, Dashed: true, Group: pure},
	)
	return &Tradeoff{Title: "Error vs privacy: k = 20, mean of 200 simulated releases", Epsilons: eps, Curves: cs,
		MarkerEps: 0.5, MarkerErr: 0.9, MarkerLabel: "your setting (ε = 0.5, h = 1)"}
}

// classifierPlot is a tradeoff like the curator's classifier preview:
// agreement on a share axis, ten labelled curves and the marker
// (walkthrough: "accuracy of the released classifier" had no entry at
// 1024 wide).
func classifierPlot() *Tradeoff {
	eps := []float64{0.03, 0.1, 0.3, 1, 3, 10, 30}
	y := func(a float64) []float64 {
		out := make([]float64, len(eps))
		for i, e := range eps {
			out[i] = a + 0.3*e/(1+e)
		}
		return out
	}
	var cs []Curve
	for h := 1; h <= 5; h++ {
		cs = append(cs, Curve{Label: fmt.Sprintf("agreement, h = %d", h), Y: y(0.55 + 0.01*float64(h)), Colour: h - 1})
	}
	cs = append(cs,
		Curve{Label: "agreement, nearest lattice point (baseline)", Y: y(0.5), Colour: 5, Dashed: true},
		Curve{Label: "accuracy of the released classifier, h = 1", Y: y(0.45), Colour: 6, Dashed: true},
		Curve{Label: "accuracy of the non-private classifier", Y: y(0.6), Colour: -1, Dashed: true},
		Curve{Label: "agreement, h = 1, automatic k at each ε (k = 1…13)", Y: y(0.56), Colour: 0, Dashed: true},
	)
	return &Tradeoff{Title: "Agreement vs privacy: k = 3, mean of 200 simulated releases", Epsilons: eps, Curves: cs, Share: true,
		MarkerEps: 1, MarkerErr: 0.7, MarkerLabel: "your setting (ε = 1, h = 1)"}
}

// TestTradeoffLegendWholeAndGrouped renders the peers overlay at the
// widths the curator's preview gives its plot at 1024×700 and 1280×800
// (about 470 and 570 px) and at the height TradeoffHeight asks for, and
// checks the drawn legend: every series and the marker are listed (no
// "… n more"), each under its guarantee heading (the heading's piece
// above and left of its columns, its columns holding exactly the group's
// series), within the width and height it had, and the data area keeps
// at least 110 pt. The old legend cut the last series ("… 1 more") and
// left headings at the foot of a column.
func TestTradeoffLegendWholeAndGrouped(t *testing.T) {
	for _, tr := range []*Tradeoff{peersOverlay(), classifierPlot()} {
		checkLegendWhole(t, tr)
	}
}

// checkLegendWhole is TestTradeoffLegendWholeAndGrouped for one plot.
func checkLegendWhole(t *testing.T, tr *Tradeoff) {
	t.Helper()
	groups := map[string][]string{}
	var all []string
	for _, e := range tr.Legend() {
		if !e.Heading {
			g := tr.Curves[e.Curve].Group
			groups[g] = append(groups[g], e.Text)
			all = append(all, e.Text)
		}
	}
	all = append(all, tr.MarkerLabel)
	for _, s := range []Size{{W: 470, H: 320, Scale: 1}, {W: 570, H: 320, Scale: 1}, {W: 940, H: 640, Scale: 2}} {
		h, err := TradeoffHeight(tr, Dark(), s)
		if err != nil {
			t.Fatal(err)
		}
		s.H = h
		var lo legendLayout
		var roomW, roomH, data vg.Length
		drawnLegend = func(l legendLayout, w, h vg.Length) { lo, roomW, roomH = l, w, h }
		drawnLayout = func(_, d, _ vg.Length) { data = d }
		_, err = RenderTradeoff(tr, Dark(), s)
		drawnLegend, drawnLayout = nil, nil
		if err != nil {
			t.Fatal(err)
		}
		var drawn []string
		heading := ""
		var hx, hy vg.Length
		for _, p := range lo.pieces {
			if len(p.items) == 1 && p.items[0].heading {
				heading, hx, hy = p.items[0].text, p.x, p.y
				continue
			}
			var texts []string
			for _, it := range p.items {
				texts = append(texts, it.text)
			}
			drawn = append(drawn, texts...)
			if heading == "" {
				continue
			}
			if p.y <= hy || p.x < hx {
				t.Errorf("%+v: column %q at (%.0f, %.0f) is not under its heading %q at (%.0f, %.0f)", s, texts, p.x, p.y, heading, hx, hy)
			}
			for _, tx := range texts {
				if !slices.Contains(groups[heading], tx) {
					t.Errorf("%+v: %q is listed under %q", s, tx, heading)
				}
			}
		}
		slices.Sort(drawn)
		want := slices.Sorted(slices.Values(all))
		if !slices.Equal(drawn, want) {
			t.Errorf("%+v: legend lists\n%q\nwant\n%q", s, drawn, want)
		}
		if lo.w > roomW || lo.h > roomH {
			t.Errorf("%+v: legend %.0f×%.0f pt in room %.0f×%.0f", s, lo.w, lo.h, roomW, roomH)
		}
		if data < vg.Points(110) {
			t.Errorf("%+v: data area %.0f pt high, want ≥ 110", s, data)
		}
		t.Logf("%+v: legend %.0f×%.0f pt, data area %.0f pt", s, lo.w, lo.h, data)
	}
}

// TestWrapTitleKeepsParentheses: a parenthesised group that fits on a line
// is not broken ("simulated release (ε = 1, h = 1)" broke before "1)");
// one wider than the line still breaks at its spaces.
func TestWrapTitleKeepsParentheses(t *testing.T) {
	for _, tc := range []struct {
		title string
		w     vg.Length
		want  string
	}{
		{"simulated release (ε = 1, h = 1)", 150, "simulated release\n(ε = 1, h = 1)"},
		{"release (a b c d e f g h i j k l m n o p)", 60, ""},
	} {
		p := newPlot(Light(), tc.title, "", "")
		wrapTitle(p, vg.Points(float64(tc.w)))
		if tc.want != "" && p.Title.Text != tc.want {
			t.Errorf("%q at %v: %q, want %q", tc.title, tc.w, p.Title.Text, tc.want)
		}
		for _, l := range strings.Split(p.Title.Text, "\n") {
			if p.Title.TextStyle.Width(l) > vg.Points(float64(tc.w)) {
				t.Errorf("%q at %v: line %q is wider than the plot", tc.title, tc.w, l)
			}
		}
	}
}
