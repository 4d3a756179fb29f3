package figure

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/bernsteinrelease/bernstein/learners"
	"github.com/bernsteinrelease/bernstein/mechanism"
	"github.com/bernsteinrelease/bernstein/project/dataset"
	"github.com/bernsteinrelease/bernstein/project/fileio"
	"github.com/bernsteinrelease/bernstein/study"
)

// Figure 2 of Aldà & Rubinstein (2017, Section 6, "Regularized Empirical
// Risk Minimization"): an RBF SVM (C = σ = 1, learners.NewSVM) fitted to
// dataset.DemoTwoClass2D (1500 points per class; columns mapped to [0,1]²
// with bounds [0,1] like the app does), its non-private decision boundary
// and that of Bernstein releases. The CSV reports, per (k, h) and ε, the
// mean fraction of a 200×200 grid on [0,1]² where the released classifier
// (class +1 where the released function is ≥ 0) agrees with the non-private
// one, averaged over repeats.
//
// This is a SIMULATION STUDY: releases are simulated by the study engine
// (the polynomials mechanism.Simulate would return) with the seeded
// mechanism.SimulationNoise (Laplace, scale S(F)·(k+1)²/ε, as in Algorithm
// 1); nothing is released and no privacy budget is spent.
const (
	figure2Grid        = 200 // grid points per axis
	DefaultRepeats2    = 100
	figure2MaxRepeats  = 100000
	DefaultSeed2       = 1
	figure2PlotEpsilon = 10 // ε of the released boundaries drawn in the PNG
)

// figure2Epsilons are the privacy budgets of the CSV.
var figure2Epsilons = []float64{0.1, 0.3, 1, 3, 10}

// figure2Shapes are the (k, h) choices: cover size per axis and iterated
// Bernstein order.
var figure2Shapes = []struct{ K, H int }{{5, 1}, {10, 1}, {10, 2}, {20, 2}}

// Config2 are the command-line parameters of Figure 2.
type Config2 struct {
	Repeats int    // simulated releases per (k, h, ε), ≥ 1
	Seed    uint64 // seed of the simulation noise
}

// Validate checks the configuration; its errors name the flag, the value
// and the rule (the figure command reports them as usage errors).
func (c Config2) Validate() error {
	if c.Repeats < 1 || c.Repeats > figure2MaxRepeats {
		return fmt.Errorf("--repeats %d: must be between 1 and %d", c.Repeats, figure2MaxRepeats)
	}
	return nil
}

// figure2Row is one line of the CSV.
type figure2Row struct {
	K, H          int
	Epsilon       float64
	MeanAgreement float64
}

// figure2Result holds the rows and what the PNG draws: the non-private
// decision function on the grid and one simulated release per shape at
// figure2PlotEpsilon.
type figure2Result struct {
	Rows     []figure2Row
	Exact    []float64   // F_D on the grid, lattice order (x2 fastest)
	Released [][]float64 // per shape, the first simulated release at figure2PlotEpsilon
}

// figure2Setup is everything computed once from the data: the sensitivity,
// the non-private decision function on the grid and the exact lattice values
// of each shape in figure2Shapes.
type figure2Setup struct {
	Sensitivity float64
	Exact       []float64   // F_D on the 200×200 grid, lattice order (x2 fastest)
	Lattices    [][]float64 // per shape, F_D on the (k+1)² lattice
}

// newFigure2Setup fits the SVM (C = σ = 1) to the demo data, mapped to
// [0,1]² with bounds [0,1] (records outside are clipped, as in the app), and
// evaluates it with mechanism.EvaluateLattice on the grid and the lattices.
func newFigure2Setup(ctx context.Context) (*figure2Setup, error) {
	d := dataset.DemoTwoClass2D(dataset.DemoTwoClass2DSeed)
	x, _, err := d.MapToUnit([]string{"x1", "x2"}, []dataset.Bounds{{Lo: 0, Hi: 1}, {Lo: 0, Hi: 1}})
	if err != nil {
		return nil, err
	}
	labels, err := d.BinaryLabels("label", 1)
	if err != nil {
		return nil, err
	}
	fit, err := learners.NewSVM().Fit(ctx, learners.Dataset{Dim: 2, X: x, Labels: labels}, learners.Values{"C": {1}, "sigma": {1}})
	if err != nil {
		return nil, err
	}
	// The 200×200 grid {i/199}² is the lattice of cover size 199.
	exact, err := mechanism.EvaluateLattice(ctx, fit.Oracle, mechanism.Lattice{K: []int{figure2Grid - 1, figure2Grid - 1}}, nil)
	if err != nil {
		return nil, err
	}
	s := &figure2Setup{Sensitivity: fit.Sensitivity, Exact: exact}
	for _, sh := range figure2Shapes {
		v, err := mechanism.EvaluateLattice(ctx, fit.Oracle, mechanism.Lattice{K: []int{sh.K, sh.K}}, nil)
		if err != nil {
			return nil, err
		}
		s.Lattices = append(s.Lattices, v)
	}
	return s, nil
}

// runFigure2 fits the SVM to the demo data and simulates the releases.
func runFigure2(ctx context.Context, cfg Config2) (*figure2Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s, err := newFigure2Setup(ctx)
	if err != nil {
		return nil, err
	}
	return simulateFigure2(ctx, s, cfg)
}

// simulateFigure2 simulates cfg.Repeats releases per shape and ε, a
// configuration of the study engine: one seeded mechanism.SimulationNoise
// stream (study.Stream) feeds the shapes in order, fresh draws for each ε,
// and the measure is the grid agreement (study.SignAgreement).
func simulateFigure2(ctx context.Context, s *figure2Setup, cfg Config2) (*figure2Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	grid := [][]float64{study.Linspace01(figure2Grid), study.Linspace01(figure2Grid)}
	res := &figure2Result{Exact: s.Exact}
	draws := study.Stream{Src: mechanism.NewSimulationNoise(cfg.Seed)}
	plotAt := slices.Index(figure2Epsilons, figure2PlotEpsilon)
	for j, sh := range figure2Shapes {
		md, err := study.NewModel([]int{sh.K, sh.K}, s.Lattices[j], grid, s.Exact, []int{sh.H})
		if err != nil {
			return nil, err
		}
		r, err := md.Run(ctx, study.Spec{Sensitivity: s.Sensitivity, Noise: mechanism.NoiseLaplace, Epsilons: figure2Epsilons,
			Orders: []int{sh.H}, Repeats: cfg.Repeats, Draws: draws, Measure: study.SignAgreement, KeepFirst: true}, nil)
		if err != nil {
			return nil, err
		}
		for i, eps := range figure2Epsilons {
			res.Rows = append(res.Rows, figure2Row{K: sh.K, H: sh.H, Epsilon: eps, MeanAgreement: r.Mean[0][i]})
		}
		res.Released = append(res.Released, r.First[0][plotAt])
	}
	return res, nil
}

// figure2CSV renders the rows with columns k, h, epsilon, mean_agreement.
func figure2CSV(rows []figure2Row) []byte {
	var b strings.Builder
	b.WriteString("k,h,epsilon,mean_agreement\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%d,%d,%s,%.6f\n", r.K, r.H, strconv.FormatFloat(r.Epsilon, 'g', -1, 64), r.MeanAgreement)
	}
	return []byte(b.String())
}

// figure2GridXYZ adapts lattice-order grid values to plotter.GridXYZ
// (column c is x1, row r is x2).
type figure2GridXYZ struct{ v []float64 }

func (g figure2GridXYZ) Dims() (int, int)     { return figure2Grid, figure2Grid }
func (g figure2GridXYZ) Z(c, r int) float64   { return g.v[c*figure2Grid+r] }
func (g figure2GridXYZ) X(c int) float64      { return float64(c) / (figure2Grid - 1) }
func (g figure2GridXYZ) Y(r int) float64      { return float64(r) / (figure2Grid - 1) }
func (g figure2GridXYZ) Min() (float64, bool) { return 0, false }

// renderFigure2 draws the non-private boundary (black, thick) and one
// simulated released boundary per (k, h) at ε = figure2PlotEpsilon.
func renderFigure2(res *figure2Result, cfg Config2) ([]byte, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Figure 2: RBF SVM (C = σ = 1), ε = %g, one simulated release each (seed %d)",
		float64(figure2PlotEpsilon), cfg.Seed)
	p.X.Label.Text = "x1"
	p.Y.Label.Text = "x2"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Legend.Top = true
	colours := []color.Color{
		color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
		color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
		color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	}
	add := func(v []float64, label string, c color.Color, width vg.Length, dashed bool) error {
		ct := plotter.NewContour(figure2GridXYZ{v}, []float64{0}, nil)
		ct.LineStyles = []draw.LineStyle{{Color: c, Width: width}}
		if dashed {
			ct.LineStyles[0].Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(ct)
		l, err := plotter.NewLine(plotter.XYs{{X: -1, Y: -1}, {X: -1, Y: -1}})
		if err != nil {
			return err
		}
		l.LineStyle = ct.LineStyles[0]
		p.Legend.Add(label, l)
		return nil
	}
	if err := add(res.Exact, "non-private", color.Black, vg.Points(3), false); err != nil {
		return nil, err
	}
	for i, sh := range figure2Shapes {
		if err := add(res.Released[i], fmt.Sprintf("released k = %d, h = %d", sh.K, sh.H), colours[i%len(colours)], vg.Points(1.5), true); err != nil {
			return nil, err
		}
	}
	c := vgimg.PngCanvas{Canvas: vgimg.New(7*vg.Inch, 7*vg.Inch)}
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write2 runs Figure 2 and writes the CSV and PNG into dir
// (atomically; existing files are refused unless overwrite). It returns the
// paths written.
func Write2(ctx context.Context, dir string, cfg Config2, overwrite bool) ([]string, error) {
	if dir == "" {
		return nil, errors.New("figure 2: empty output directory")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !overwrite { // fail before the computation; WriteFileAtomic checks again
		for _, name := range []string{CSV2File, PNG2File} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return nil, &fileio.ExistsError{Path: filepath.Join(dir, name)}
			}
		}
	}
	res, err := runFigure2(ctx, cfg)
	if err != nil {
		return nil, err
	}
	img, err := renderFigure2(res, cfg)
	if err != nil {
		return nil, err
	}
	return fileio.WriteInto(dir, overwrite, fileio.Named{Name: CSV2File, Data: figure2CSV(res.Rows)}, fileio.Named{Name: PNG2File, Data: img})
}
