package chart

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Role says how a [Scatter] group is drawn.
type Role uint8

const (
	// Background: small light-grey dots (the whole data set behind a
	// picture); takes no palette colour.
	Background Role = iota
	// Dots: small dots in the group's palette colour.
	Dots
	// Marks: large rings in the group's palette colour (nodes to point out:
	// a layer's nodes, the results).
	Marks
	// Star: a large cross in the group's palette colour (the query).
	Star
	// Edges: thin grey segments (X[2i], Y[2i]) – (X[2i+1], Y[2i+1]); takes
	// no palette colour.
	Edges
	// Path: a thick polyline through the points in order, with markers, in
	// the group's palette colour (a walk through a graph).
	Path
	// Reference: a dashed black line through the points in order (y = x).
	Reference
)

var roleNames = [...]string{"background", "dots", "marks", "star", "edges", "path", "reference"}

func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// Group is one set of points of a [Scatter], drawn by its Role.
type Group struct {
	Name string // legend entry; "" draws no legend entry
	Role Role
	X, Y []float64
}

// Scatter is a picture of points in the plane: groups of points, segments
// between points (a graph's edges) and highlighted paths, drawn in the
// order they were added (the last on top). Groups that take a colour take
// the palette's next one in that order, an empty group too, so a picture
// keeps its colours from run to run and pictures built alike match.
type Scatter struct {
	Title, XLabel, YLabel string
	// Equal gives both axes the same range (the union of the data's), so a
	// square chart shows distances undistorted.
	Equal bool
	// NoLegend hides the legend.
	NoLegend bool
	// LogX draws the x axis on a log scale; every x must then be > 0
	// (ranks, counts spanning decades).
	LogX bool
	// Width and Height in points; zero means DefaultWidth × DefaultHeight.
	Width, Height float64
	Groups        []Group

	addErr error // the first bad call of AddSegments
}

// NewScatter returns an empty scatter chart.
func NewScatter(title, xlabel, ylabel string) *Scatter {
	return &Scatter{Title: title, XLabel: xlabel, YLabel: ylabel}
}

// Add appends a group of points drawn by role and returns the chart.
func (c *Scatter) Add(name string, role Role, x, y []float64) *Scatter {
	c.Groups = append(c.Groups, Group{Name: name, Role: role,
		X: append([]float64(nil), x...), Y: append([]float64(nil), y...)})
	return c
}

// AddSegments appends segments (x1[i], y1[i]) – (x2[i], y2[i]) drawn as
// [Edges].
func (c *Scatter) AddSegments(name string, x1, y1, x2, y2 []float64) *Scatter {
	n := len(x1)
	if len(y1) != n || len(x2) != n || len(y2) != n {
		if c.addErr == nil {
			c.addErr = fmt.Errorf("chart: edge group %q has %d x1, %d y1, %d x2 and %d y2 values: %w", name, n, len(y1), len(x2), len(y2), ErrData)
		}
		return c
	}
	g := Group{Name: name, Role: Edges, X: make([]float64, 0, 2*n), Y: make([]float64, 0, 2*n)}
	for i := 0; i < n; i++ {
		g.X = append(g.X, x1[i], x2[i])
		g.Y = append(g.Y, y1[i], y2[i])
	}
	c.Groups = append(c.Groups, g)
	return c
}

// Err reports the first problem with the chart's data, or nil. A group
// may be empty (a layer with no visited node draws nothing).
func (c *Scatter) Err() error {
	if c.addErr != nil {
		return c.addErr
	}
	if len(c.Groups) == 0 {
		return fmt.Errorf("chart: scatter %q has no groups: %w", c.Title, ErrData)
	}
	for _, g := range c.Groups {
		if g.Role > Reference {
			return fmt.Errorf("chart: group %q has unknown role %v: %w", g.Name, g.Role, ErrData)
		}
		if len(g.X) != len(g.Y) {
			return fmt.Errorf("chart: group %q has %d x values and %d y values: %w", g.Name, len(g.X), len(g.Y), ErrData)
		}
		if g.Role == Edges && len(g.X)%2 != 0 {
			return fmt.Errorf("chart: edge group %q has an odd number of end points (%d): %w", g.Name, len(g.X), ErrData)
		}
		for i := range g.X {
			if err := checkValue(g.Name, "x", i, g.X[i], c.LogX); err != nil {
				return err
			}
			if err := checkValue(g.Name, "y", i, g.Y[i], false); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Scatter) size() (vg.Length, vg.Length) { return dims(c.Width, c.Height) }

var (
	backgroundGrey = color.RGBA{0xC8, 0xC8, 0xC8, 0xFF}
	edgeGrey       = color.RGBA{0x90, 0x90, 0x90, 0xFF}
)

func xys(x, y []float64) plotter.XYs {
	p := make(plotter.XYs, len(x))
	for i := range x {
		p[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return p
}

func (c *Scatter) plot() (*plot.Plot, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	if c.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	col := 0
	next := func() color.Color { cl := colorOf(col); col++; return cl }
	legend := func(name string, thumbs ...plot.Thumbnailer) {
		if name != "" && !c.NoLegend {
			p.Legend.Add(name, thumbs...)
		}
	}
	for _, g := range c.Groups {
		if len(g.X) == 0 {
			if g.Role != Background && g.Role != Edges && g.Role != Reference {
				next() // an empty group keeps its colour, so pictures of one kind match
			}
			continue
		}
		pts := xys(g.X, g.Y)
		switch g.Role {
		case Background, Dots, Marks, Star:
			s, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, fmt.Errorf("chart: group %q: %v: %w", g.Name, err, ErrData)
			}
			switch g.Role {
			case Background:
				s.Color, s.Shape, s.Radius = backgroundGrey, draw.CircleGlyph{}, vg.Points(1.5)
			case Dots:
				s.Color, s.Shape, s.Radius = next(), draw.CircleGlyph{}, vg.Points(2)
			case Marks:
				s.Color, s.Shape, s.Radius = next(), draw.RingGlyph{}, vg.Points(4)
			case Star:
				s.Color, s.Shape, s.Radius = next(), draw.CrossGlyph{}, vg.Points(6)
			}
			p.Add(s)
			legend(g.Name, s)
		case Edges:
			var first *plotter.Line
			for i := 0; i+1 < len(pts); i += 2 {
				l, err := plotter.NewLine(pts[i : i+2])
				if err != nil {
					return nil, fmt.Errorf("chart: group %q: %v: %w", g.Name, err, ErrData)
				}
				l.Color, l.Width = edgeGrey, vg.Points(0.5)
				p.Add(l)
				if first == nil {
					first = l
				}
			}
			if first != nil {
				legend(g.Name, first)
			}
		case Path, Reference:
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, fmt.Errorf("chart: group %q: %v: %w", g.Name, err, ErrData)
			}
			if g.Role == Reference {
				l.Color, l.Width, l.Dashes = color.Black, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
				p.Add(l)
				legend(g.Name, l)
				continue
			}
			cl := next()
			l.Color, l.Width = cl, vg.Points(2.2)
			s, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, fmt.Errorf("chart: group %q: %v: %w", g.Name, err, ErrData)
			}
			s.Color, s.Shape, s.Radius = cl, draw.CircleGlyph{}, vg.Points(3)
			p.Add(l, s)
			legend(g.Name, l, s)
		}
	}
	if c.Equal {
		lo := math.Min(p.X.Min, p.Y.Min)
		hi := math.Max(p.X.Max, p.Y.Max)
		p.X.Min, p.Y.Min, p.X.Max, p.Y.Max = lo, lo, hi, hi
	}
	return p, nil
}

// Render draws the chart as "svg" or "png" (or another gonum/plot format).
func (c *Scatter) Render(format string) ([]byte, error) {
	w, h := c.size()
	p, err := c.plot()
	if err != nil {
		return nil, err
	}
	return render(p, w, h, format)
}

// SVG returns the chart as an SVG document; bad data renders as a picture
// of the error.
func (c *Scatter) SVG() string { return string(mustRender(c.Render, c.size, "svg")) }

// PNG returns the chart as a PNG image; bad data renders as a picture of
// the error. JupyterLab shows the SVG of a notebook only when it trusts
// the notebook (one the reader ran), the PNG always.
func (c *Scatter) PNG() []byte { return mustRender(c.Render, c.size, "png") }

// Chart is any chart of this package ([Line], [Bars], [Scatter]), for
// [Grid].
type Chart interface {
	plot() (*plot.Plot, error)
	vegaLite(id int) (spec, error) // id keeps selection names unique in a grid
	Err() error
}

// Grid lays charts out side by side, Cols to a row, in one picture
// (e.g. the same graph built with M = 4, 8 and 16).
//
// A grid is at most [MaxWidth] wide: when Cols charts of CellWidth do not
// fit, the charts shrink (keeping their shape) to as little as
// [MinCellWidth], and when that is still too wide fewer go to a row, the
// rows as even as they can be (four charts of four columns become two
// rows of two).
type Grid struct {
	Title  string
	Cols   int
	Charts []Chart
	// CellWidth and CellHeight are each chart's size in points; zero means
	// 300 × 300.
	CellWidth, CellHeight float64
}

// MinCellWidth is the narrowest, in points, that a [Grid] draws a chart
// to fit [MaxWidth] (a title of some 30 characters and the axes' labels
// still fit).
const MinCellWidth = 210

// NewGrid returns a grid of charts, cols to a row.
func NewGrid(title string, cols int, charts ...Chart) *Grid {
	return &Grid{Title: title, Cols: cols, Charts: append([]Chart(nil), charts...)}
}

// Err reports the first problem with the grid or one of its charts.
func (g *Grid) Err() error {
	if len(g.Charts) == 0 {
		return fmt.Errorf("chart: grid %q has no charts: %w", g.Title, ErrData)
	}
	if g.Cols < 1 {
		return fmt.Errorf("chart: grid %q has %d columns (want ≥ 1): %w", g.Title, g.Cols, ErrData)
	}
	for i, c := range g.Charts {
		if c == nil {
			return fmt.Errorf("chart: grid %q chart %d is nil: %w", g.Title, i, ErrData)
		}
		if err := c.Err(); err != nil {
			return fmt.Errorf("grid %q chart %d: %w", g.Title, i, err)
		}
	}
	return nil
}

const gridTitle = 24 // points above the tiles for the grid's title

// layout returns the grid's rows and columns and the size of a chart in it
// (see [Grid]).
func (g *Grid) layout() (rows, cols int, cw, ch float64) {
	cw, ch = g.CellWidth, g.CellHeight
	if cw <= 0 {
		cw = 300
	}
	if ch <= 0 {
		ch = 300
	}
	n := len(g.Charts)
	cols = max(g.Cols, 1)
	if n > 0 && n < cols {
		cols = n
	}
	if fit := max(int(MaxWidth/MinCellWidth), 1); cols > fit && float64(cols)*cw > MaxWidth {
		rows := (n + fit - 1) / fit
		cols = (n + rows - 1) / rows
	}
	if w := float64(cols) * cw; w > MaxWidth {
		s := min(max(MaxWidth/w, MinCellWidth/cw), 1)
		cw, ch = cw*s, ch*s
	}
	return (max(n, 1) + cols - 1) / cols, cols, cw, ch
}

func (g *Grid) size() (vg.Length, vg.Length) {
	rows, cols, cw, ch := g.layout()
	return vg.Length(cw * float64(cols)), vg.Length(ch*float64(rows) + gridTitle)
}

// Render draws the grid as "svg" or "png" (or another gonum/plot format).
func (g *Grid) Render(format string) (out []byte, err error) {
	if err := g.Err(); err != nil {
		return nil, err
	}
	rows, cols, _, _ := g.layout()
	plots := make([][]*plot.Plot, rows)
	for r := range plots {
		plots[r] = make([]*plot.Plot, cols)
	}
	for i, c := range g.Charts {
		p, err := c.plot()
		if err != nil {
			return nil, fmt.Errorf("grid %q chart %d: %w", g.Title, i, err)
		}
		plots[i/cols][i%cols] = p
	}
	w, h := g.size()
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("chart: rendering grid %s failed: %v", format, r)
		}
	}()
	cw, dc, err := newCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	if g.Title != "" {
		ts := plot.New().Title.TextStyle
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
		dc.FillText(ts, vg.Point{X: w / 2, Y: h - vg.Points(6)}, g.Title)
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6), PadTop: vg.Points(gridTitle)}
	canvases := plot.Align(plots, tiles, dc)
	for r := range plots {
		for c, p := range plots[r] {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
	return write(cw, format)
}

// SVG returns the grid as an SVG document; bad data renders as a picture
// of the error.
func (g *Grid) SVG() string { return string(mustRender(g.Render, g.size, "svg")) }

// PNG returns the grid as a PNG image; bad data renders as a picture of
// the error. JupyterLab shows the SVG of a notebook only when it trusts
// the notebook (one the reader ran), the PNG always.
func (g *Grid) PNG() []byte { return mustRender(g.Render, g.size, "png") }
