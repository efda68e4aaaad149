package chart

import (
	"bytes"
	"errors"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/table"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func efCurve() *Line {
	c := NewLine("recall@10 vs ef", "ef", "recall@10")
	c.LogX = true
	c.AddLabeled("redis", []float64{10, 50, 200}, []float64{0.616, 0.962, 1.0}, []string{"10", "50", "200"})
	c.Add("pgvector", []float64{10, 40, 100}, []float64{0.7, 0.951, 0.99})
	return c
}

func storeBars() *Bars {
	b := NewBars("recall@10 per store", "recall@10", "pgvector", "redis", "qdrant", "elasticsearch")
	b.AddArticle("article", []float64{0.951, 0.616, 0.999, 0.491})
	b.Add("lab", []float64{0.95, 0.6, 1, math.NaN()})
	return b
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update after checking the picture)", name)
	}
}

func TestGoldenSVG(t *testing.T) {
	tests := []struct {
		name string
		svg  func() string
	}{
		{"line.svg", func() string { return efCurve().SVG() }},
		{"bars.svg", func() string { return storeBars().SVG() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.svg()
			if !strings.Contains(got, "<svg") {
				t.Fatalf("not an SVG document: %.100q", got)
			}
			if again := tt.svg(); again != got {
				t.Error("two renders of the same chart differ")
			}
			golden(t, tt.name, got)
		})
	}
}

func TestPNG(t *testing.T) {
	for _, img := range [][]byte{efCurve().PNG(), storeBars().PNG()} {
		cfg, err := png.DecodeConfig(bytes.NewReader(img))
		if err != nil {
			t.Fatalf("PNG does not decode: %v", err)
		}
		if cfg.Width <= 0 || cfg.Height <= 0 {
			t.Errorf("PNG size %dx%d", cfg.Width, cfg.Height)
		}
	}
	if !bytes.Equal(efCurve().PNG(), efCurve().PNG()) {
		t.Error("two PNG renders of the same chart differ")
	}
}

func TestBadData(t *testing.T) {
	tests := []struct {
		name  string
		chart interface {
			Err() error
			SVG() string
			PNG() []byte
		}
		want string
	}{
		{"no series", NewLine("t", "x", "y"), "no series"},
		{"length mismatch", NewLine("t", "x", "y").Add("s", []float64{1, 2}, []float64{1}), "2 x values and 1 y values"},
		{"log of zero", func() *Line {
			c := NewLine("t", "x", "y").Add("s", []float64{0, 1}, []float64{1, 2})
			c.LogX = true
			return c
		}(), "log axis"},
		{"nan", NewLine("t", "x", "y").Add("s", []float64{1}, []float64{math.NaN()}), "NaN"},
		{"labels", NewLine("t", "x", "y").AddLabeled("s", []float64{1}, []float64{1}, []string{"a", "b"}), "2 labels"},
		{"bars mismatch", NewBars("t", "y", "a", "b").Add("s", []float64{1}), "1 values for 2 categories"},
		{"bars none", NewBars("t", "y"), "no categories"},
		{"bars inf", NewBars("t", "y", "a").Add("s", []float64{math.Inf(1)}), "+Inf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.chart.Err()
			if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Err() = %v, want ErrData containing %q", err, tt.want)
			}
			svg := tt.chart.SVG()
			if !strings.Contains(svg, "<svg") || !strings.Contains(svg, "chart: invalid data") {
				t.Errorf("bad chart's SVG does not show the error: %.200q", svg)
			}
			if _, err := png.DecodeConfig(bytes.NewReader(tt.chart.PNG())); err != nil {
				t.Errorf("bad chart's PNG does not decode: %v", err)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	tb := table.New("E02", table.Col("store", ""))
	tb.AddColumns(table.Pair("recall@10", "", 3)...)
	_ = tb.AddValues("pgvector", 0.951, 0.95)
	_ = tb.AddValues("redis", 0.616, nil)
	b, err := Compare(tb, "recall@10")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Series) != 2 || !b.Series[0].Article || b.Series[1].Values[0] != 0.95 || !math.IsNaN(b.Series[1].Values[1]) {
		t.Errorf("Compare built %+v", b.Series)
	}
	if _, err := Compare(tb, "p50 ms"); !errors.Is(err, ErrData) {
		t.Errorf("Compare on a missing measure: err = %v", err)
	}
}

func graphPicture() *Scatter {
	c := NewScatter("a graph and a walk", "x", "y")
	c.Equal = true
	c.Width, c.Height = 320, 320
	c.Add("points", Background, []float64{0, 1, 2, 0.5, 1.5}, []float64{0, 1, 0, 2, 2})
	c.AddSegments("edges", []float64{0, 1, 1}, []float64{0, 1, 1}, []float64{1, 2, 0.5}, []float64{1, 0, 2})
	c.Add("visited", Dots, []float64{1, 2}, []float64{1, 0})
	c.Add("path", Path, []float64{0, 1, 2}, []float64{0, 1, 0})
	c.Add("query", Star, []float64{1.8}, []float64{0.3})
	c.Add("result", Marks, []float64{2}, []float64{0})
	c.Add("y = x", Reference, []float64{0, 2}, []float64{0, 2})
	return c
}

func TestScatterAndGrid(t *testing.T) {
	s := graphPicture()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	svg := s.SVG()
	if svg != graphPicture().SVG() {
		t.Error("two renders of the same scatter differ")
	}
	golden(t, "scatter.svg", svg)
	g := NewGrid("two pictures", 2, graphPicture(), efCurve())
	gs := g.SVG()
	if !strings.Contains(gs, "<svg") || !strings.Contains(gs, "two pictures") || !strings.Contains(gs, "a graph and a walk") || !strings.Contains(gs, "recall@10 vs ef") {
		t.Fatalf("grid SVG lacks its title or a chart's: %.200q", gs)
	}
	golden(t, "grid.svg", gs)
	img, err := g.Render("png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.DecodeConfig(bytes.NewReader(img)); err != nil {
		t.Fatalf("grid PNG: %v", err)
	}
}

func TestScatterBadData(t *testing.T) {
	tests := []struct {
		name string
		c    *Scatter
		want string
	}{
		{"empty", NewScatter("e", "", ""), "no groups"},
		{"lengths", NewScatter("l", "", "").Add("a", Dots, []float64{1, 2}, []float64{1}), "2 x values and 1 y values"},
		{"nan", NewScatter("n", "", "").Add("a", Dots, []float64{math.NaN()}, []float64{1}), "NaN"},
		{"segments", NewScatter("s", "", "").AddSegments("e", []float64{1}, []float64{1}, nil, nil), "edge group"},
		{"role", NewScatter("r", "", "").Add("a", Role(99), []float64{1}, []float64{1}), "unknown role"},
		{"log x", func() *Scatter {
			c := NewScatter("g", "", "").Add("a", Dots, []float64{1, 0}, []float64{1, 2})
			c.LogX = true
			return c
		}(), "log axis"},
	}
	for _, tt := range tests {
		err := tt.c.Err()
		if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Err() = %v, want ErrData mentioning %q", tt.name, err, tt.want)
		}
		if svg := tt.c.SVG(); !strings.Contains(svg, "<svg") {
			t.Errorf("%s: bad data does not render as a picture of the error", tt.name)
		}
	}
	g := NewGrid("g", 2, NewScatter("e", "", ""))
	if err := g.Err(); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "chart 0") {
		t.Errorf("grid with a bad chart: %v", err)
	}
	if err := NewGrid("g", 0, graphPicture()).Err(); !errors.Is(err, ErrData) {
		t.Errorf("grid with 0 columns: %v", err)
	}
}

// TestFitsNotebook checks that every chart comes out at most MaxWidth
// points (SVG) and 900 pixels (PNG) wide, and that a grid too wide puts
// fewer charts to a row before it draws them small.
func TestFitsNotebook(t *testing.T) {
	wide := efCurve()
	wide.Width = 960
	grid := func(n, cols int) *Grid {
		cs := make([]Chart, n)
		for i := range cs {
			cs[i] = graphPicture()
		}
		return NewGrid("g", cols, cs...)
	}
	tests := []struct {
		name string
		c    interface {
			SVG() string
			PNG() []byte
		}
		rows, cols int     // of a grid; 0 for a chart
		cell       float64 // a grid's cell width
		svgW, svgH string  // the SVG's width and height attributes
	}{
		{"line 480", efCurve(), 0, 0, 0, `width="480pt"`, `height="320pt"`},
		{"line 960 scaled", wide, 0, 0, 0, `width="675pt"`, `height="225pt"`},
		{"scatter", graphPicture(), 0, 0, 0, `width="320pt"`, `height="320pt"`},
		{"grid 2 of 2", grid(2, 2), 1, 2, 300, `width="600pt"`, `height="324pt"`},
		{"grid 3 of 3 shrinks", grid(3, 3), 1, 3, 225, `width="675pt"`, `height="249pt"`},
		{"grid 4 of 4 wraps", grid(4, 4), 2, 2, 300, `width="600pt"`, `height="624pt"`},
		{"grid 5 of 3", grid(5, 3), 2, 3, 225, `width="675pt"`, `height="474pt"`},
		{"grid 6 of 6 wraps", grid(6, 6), 2, 3, 225, `width="675pt"`, `height="474pt"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if g, ok := tt.c.(*Grid); ok {
				rows, cols, cw, _ := g.layout()
				if rows != tt.rows || cols != tt.cols || cw != tt.cell {
					t.Errorf("layout: %d rows × %d columns of %g pt, want %d × %d of %g", rows, cols, cw, tt.rows, tt.cols, tt.cell)
				}
			}
			svg := tt.c.SVG()
			head := svg[:strings.Index(svg, "xmlns")]
			if !strings.Contains(head, tt.svgW) || !strings.Contains(head, tt.svgH) {
				t.Errorf("SVG header %q, want %s %s", head, tt.svgW, tt.svgH)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(tt.c.PNG()))
			if err != nil {
				t.Fatalf("PNG: %v", err)
			}
			if cfg.Width > 900 || cfg.Width < 400 {
				t.Errorf("PNG %d × %d px, want 400 to 900 px wide", cfg.Width, cfg.Height)
			}
		})
	}
}
