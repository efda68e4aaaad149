package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/veclab/veclab/lab/table"
)

// ErrData is wrapped by every error about a chart's data.
var ErrData = errors.New("chart: invalid data")

// Default size of a chart, in points (1/72 inch).
const (
	DefaultWidth  = 480
	DefaultHeight = 320
)

// MaxWidth is the widest, in points, that a chart is drawn: 675 pt is
// 900 px at the web's 96 px to the inch, which fits the output column of a
// notebook (JupyterLab's is about 970 px wide in a 1280 px window). A
// chart set wider is laid out at its size and drawn scaled down as a
// whole, text with it; a [Grid] first puts fewer charts to a row.
const MaxWidth = 675

// palette is a fixed colour-blind-friendly palette (Okabe & Ito, 2008), so
// series keep their colours from run to run.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	{0x00, 0x00, 0x00, 0xFF}, // black
}

// articleGrey is the colour of an article's figures in bar charts.
var articleGrey = color.RGBA{0xB0, 0xB0, 0xB0, 0xFF}

func colorOf(i int) color.Color { return palette[i%len(palette)] }

// Series is one line of a [Line] chart: points (X[i], Y[i]) drawn in order,
// with optional per-point labels (e.g. "ef=40").
//
// A series holds an article's figures when Article is set ([Line.AddArticle])
// or, as the lab has named such series, its name is "article" or begins
// with "article:" or "article " ("article: redis 0.616"); the Vega-Lite
// spec marks those points (see [Line.VegaLite]).
type Series struct {
	Name    string
	X, Y    []float64
	Labels  []string
	Article bool
}

// Line is a line chart of one or more series.
type Line struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// Width and Height in points; zero means DefaultWidth × DefaultHeight.
	Width, Height float64
	Series        []Series
}

// NewLine returns an empty line chart.
func NewLine(title, xlabel, ylabel string) *Line {
	return &Line{Title: title, XLabel: xlabel, YLabel: ylabel}
}

// Add appends a series and returns the chart, so calls chain in a notebook
// cell. Problems with the data are reported by [Line.Err] and drawn in the
// chart, not panicked.
func (c *Line) Add(name string, x, y []float64) *Line {
	c.Series = append(c.Series, Series{Name: name, X: append([]float64(nil), x...), Y: append([]float64(nil), y...)})
	return c
}

// AddArticle is Add for a series of an article's figures.
func (c *Line) AddArticle(name string, x, y []float64) *Line {
	c.Add(name, x, y)
	c.Series[len(c.Series)-1].Article = true
	return c
}

// AddLabeled is Add with a label beside each point.
func (c *Line) AddLabeled(name string, x, y []float64, labels []string) *Line {
	c.Add(name, x, y)
	c.Series[len(c.Series)-1].Labels = append([]string(nil), labels...)
	return c
}

// Err reports the first problem with the chart's data, or nil.
func (c *Line) Err() error {
	if len(c.Series) == 0 {
		return fmt.Errorf("chart: line chart %q has no series: %w", c.Title, ErrData)
	}
	for _, s := range c.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("chart: series %q has %d x values and %d y values: %w", s.Name, len(s.X), len(s.Y), ErrData)
		}
		if len(s.X) == 0 {
			return fmt.Errorf("chart: series %q is empty: %w", s.Name, ErrData)
		}
		if len(s.Labels) != 0 && len(s.Labels) != len(s.X) {
			return fmt.Errorf("chart: series %q has %d labels for %d points: %w", s.Name, len(s.Labels), len(s.X), ErrData)
		}
		for i := range s.X {
			if err := checkValue(s.Name, "x", i, s.X[i], c.LogX); err != nil {
				return err
			}
			if err := checkValue(s.Name, "y", i, s.Y[i], c.LogY); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkValue(series, axis string, i int, v float64, log bool) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("chart: series %q point %d has %s = %v: %w", series, i, axis, v, ErrData)
	}
	if log && v <= 0 {
		return fmt.Errorf("chart: series %q point %d has %s = %v on a log axis (must be > 0): %w", series, i, axis, v, ErrData)
	}
	return nil
}

func (c *Line) size() (vg.Length, vg.Length) { return dims(c.Width, c.Height) }

func dims(w, h float64) (vg.Length, vg.Length) {
	if w <= 0 {
		w = DefaultWidth
	}
	if h <= 0 {
		h = DefaultHeight
	}
	return vg.Length(w), vg.Length(h)
}

func (c *Line) plot() (*plot.Plot, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	p.Legend.Top = false // recall curves rise to the right: the lower right is free
	if c.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range c.Series {
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j] = plotter.XY{X: s.X[j], Y: s.Y[j]}
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("chart: series %q: %v: %w", s.Name, err, ErrData)
		}
		l.Color = colorOf(i)
		l.Width = vg.Points(1.5)
		pts.Color = colorOf(i)
		pts.Shape = shapes[i%len(shapes)]
		pts.Radius = vg.Points(2.5)
		p.Add(l, pts)
		if s.Name != "" {
			p.Legend.Add(s.Name, l, pts)
		}
		if len(s.Labels) > 0 {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: s.Labels})
			if err != nil {
				return nil, fmt.Errorf("chart: series %q labels: %v: %w", s.Name, err, ErrData)
			}
			for k := range lb.TextStyle {
				lb.TextStyle[k].Font.Size = vg.Points(7)
				lb.TextStyle[k].Color = colorOf(i)
			}
			lb.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(3)}
			p.Add(lb)
		}
	}
	return p, nil
}

var shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{},
}

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	return p
}

// Render draws the chart as "svg" or "png" (or any format gonum/plot
// writes: "pdf", "eps", "jpg", "tif").
func (c *Line) Render(format string) ([]byte, error) {
	w, h := c.size()
	p, err := c.plot()
	if err != nil {
		return nil, err
	}
	return render(p, w, h, format)
}

// SVG returns the chart as an SVG document; a chart with bad data renders
// as a picture of the error.
func (c *Line) SVG() string { return string(mustRender(c.Render, c.size, "svg")) }

// PNG returns the chart as a PNG image; a chart with bad data renders as a
// picture of the error.
func (c *Line) PNG() []byte { return mustRender(c.Render, c.size, "png") }

// render draws p, turning a panic inside the plotting library into an error.
func render(p *plot.Plot, w, h vg.Length, format string) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("chart: rendering %s failed: %v", format, r)
		}
	}()
	cw, dc, err := newCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	p.Draw(dc)
	return write(cw, format)
}

// newCanvas returns a canvas of format for a picture laid out w × h
// points, and the drawing area on it of that size. An SVG or PNG picture
// wider than [MaxWidth] comes out MaxWidth wide: the SVG's size is scaled
// (its drawing keeps its coordinates, under a scale transform), the PNG is
// drawn at a lower resolution than vgimg's 96 dots per inch (rounded
// down, so that it is no wider).
func newCanvas(w, h vg.Length, format string) (vg.CanvasWriterTo, draw.Canvas, error) {
	if w > MaxWidth && (format == "svg" || format == "png") {
		s := MaxWidth / w
		if format == "svg" {
			c := vgsvg.New(w*s, h*s)
			c.Scale(float64(s), float64(s))
			return c, draw.NewCanvas(c, w, h), nil
		}
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(int(float64(vgimg.DefaultDPI*s))))
		return vgimg.PngCanvas{Canvas: c}, draw.New(c), nil
	}
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, draw.Canvas{}, fmt.Errorf("chart: %w", err)
	}
	return c, draw.New(c), nil
}

// write returns the bytes of the picture drawn on c.
func write(c vg.CanvasWriterTo, format string) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart: writing %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// mustRender renders with fn, or on error a chart whose title is the error.
func mustRender(fn func(string) ([]byte, error), size func() (vg.Length, vg.Length), format string) []byte {
	out, err := fn(format)
	if err == nil {
		return out
	}
	w, h := size()
	p := plot.New()
	p.Title.Text = err.Error()
	p.Title.TextStyle.Color = color.RGBA{0xB0, 0x00, 0x20, 0xFF}
	p.HideAxes()
	out, err2 := render(p, w, h, format)
	if err2 != nil {
		return nil
	}
	return out
}

// BarSeries is one set of bars of a [Bars] chart, one value per category.
// A NaN value draws no bar (a figure nobody gave).
type BarSeries struct {
	Name    string
	Values  []float64
	Article bool // the article's figures: drawn grey, marked in the legend
}

// Bars is a grouped bar chart: for each category (e.g. a store) one bar
// per series (e.g. the article's figure and the lab's).
type Bars struct {
	Title, YLabel string
	Categories    []string
	Series        []BarSeries
	// Width and Height in points; zero means DefaultWidth × DefaultHeight.
	Width, Height float64
}

// NewBars returns an empty grouped bar chart over categories.
func NewBars(title, ylabel string, categories ...string) *Bars {
	return &Bars{Title: title, YLabel: ylabel, Categories: append([]string(nil), categories...)}
}

// Add appends a series of the lab's values, one per category.
func (c *Bars) Add(name string, values []float64) *Bars {
	c.Series = append(c.Series, BarSeries{Name: name, Values: append([]float64(nil), values...)})
	return c
}

// AddArticle appends a series of an article's figures (drawn grey).
func (c *Bars) AddArticle(name string, values []float64) *Bars {
	c.Add(name, values)
	c.Series[len(c.Series)-1].Article = true
	return c
}

// Err reports the first problem with the chart's data, or nil.
func (c *Bars) Err() error {
	if len(c.Categories) == 0 {
		return fmt.Errorf("chart: bar chart %q has no categories: %w", c.Title, ErrData)
	}
	if len(c.Series) == 0 {
		return fmt.Errorf("chart: bar chart %q has no series: %w", c.Title, ErrData)
	}
	for _, s := range c.Series {
		if len(s.Values) != len(c.Categories) {
			return fmt.Errorf("chart: series %q has %d values for %d categories: %w", s.Name, len(s.Values), len(c.Categories), ErrData)
		}
		for i, v := range s.Values {
			if math.IsInf(v, 0) {
				return fmt.Errorf("chart: series %q category %q is %v: %w", s.Name, c.Categories[i], v, ErrData)
			}
		}
	}
	return nil
}

func (c *Bars) size() (vg.Length, vg.Length) { return dims(c.Width, c.Height) }

func (c *Bars) plot() (*plot.Plot, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	p := newPlot(c.Title, "", c.YLabel)
	w, _ := c.size()
	n := len(c.Series)
	// Leave a third of each category's slot empty between groups.
	slot := (w - vg.Points(80)) / vg.Length(len(c.Categories))
	bw := slot * 2 / 3 / vg.Length(n)
	if bw < 1 {
		bw = 1
	}
	lab := 0
	for i, s := range c.Series {
		vals := make(plotter.Values, len(s.Values))
		for j, v := range s.Values {
			if !math.IsNaN(v) {
				vals[j] = v
			}
		}
		b, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return nil, fmt.Errorf("chart: series %q: %v: %w", s.Name, err, ErrData)
		}
		b.LineStyle.Width = 0
		if s.Article {
			b.Color = articleGrey
		} else {
			b.Color = colorOf(lab)
			lab++
		}
		b.Offset = (vg.Length(i) - vg.Length(n-1)/2) * bw
		p.Add(b)
		if s.Name != "" {
			p.Legend.Add(s.Name, b)
		}
	}
	p.NominalX(c.Categories...)
	p.Y.Min = math.Min(p.Y.Min, 0)
	p.Y.Max += (p.Y.Max - p.Y.Min) * 0.12 // headroom for the legend
	return p, nil
}

// Render draws the chart as "svg" or "png" (or another gonum/plot format).
func (c *Bars) Render(format string) ([]byte, error) {
	w, h := c.size()
	p, err := c.plot()
	if err != nil {
		return nil, err
	}
	return render(p, w, h, format)
}

// SVG returns the chart as an SVG document; bad data renders as a picture
// of the error.
func (c *Bars) SVG() string { return string(mustRender(c.Render, c.size, "svg")) }

// PNG returns the chart as a PNG image; bad data renders as a picture of
// the error.
func (c *Bars) PNG() []byte { return mustRender(c.Render, c.size, "png") }

// Compare builds the grouped bars of one measure of a table that follows
// the article/lab convention: one category per row (named by the row's
// first cell), an "article" series from the column header+" (article)"
// and a "lab" series from header+" (lab)"; measure is the column header
// with its unit, e.g. "recall@10" or "p50 ms". Missing cells draw no bar.
func Compare(t *table.Table, measure string) (*Bars, error) {
	ai, li := t.Column(measure+" (article)"), t.Column(measure+" (lab)")
	if li < 0 {
		return nil, fmt.Errorf("chart: table %q has no column %q: %w", t.Title, measure+" (lab)", ErrData)
	}
	cats := make([]string, len(t.Rows))
	art := make([]float64, len(t.Rows))
	lab := make([]float64, len(t.Rows))
	for r := range t.Rows {
		cats[r] = t.Cell(r, 0).String()
		art[r] = number(t.Cell(r, ai))
		lab[r] = number(t.Cell(r, li))
	}
	title := t.Title
	if title == "" {
		title = measure
	}
	b := NewBars(title, measure, cats...)
	if ai >= 0 {
		b.AddArticle("article", art)
	}
	b.Add("lab", lab)
	return b, b.Err()
}

func number(c table.Cell) float64 {
	switch c.Kind {
	case table.IntKind:
		return float64(c.Int)
	case table.FloatKind:
		if math.IsInf(c.Float, 0) {
			return math.NaN()
		}
		return c.Float
	}
	return math.NaN()
}
