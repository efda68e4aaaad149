package chart

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
)

// VegaLiteSchema is the $schema of every spec this package writes: the
// specs are Vega-Lite v5, the version JupyterLab's and JupyterLite's
// built-in renderer (@jupyterlab/vega5-extension) compiles. A renderer does
// not fetch it: it names the grammar.
const VegaLiteSchema = "https://vega.github.io/schema/vega-lite/v5.json"

// Vega-Lite spec of a chart: the same figure as the PNG and SVG, with the
// data inline (a spec loads nothing from the network), so a front end that
// renders application/vnd.vegalite.v5+json can show tooltips with each
// point's exact figures, zoom and pan (an interval selection bound to the
// scales: drag, scroll), and a legend whose entries toggle their series
// (a point selection bound to the legend: click, shift-click). The
// grammar: Satyanarayan, Moritz, Wongsuphasawat and Heer, "Vega-Lite: A
// Grammar of Interactive Graphics", IEEE TVCG 23(1), 2017, and the
// reference at https://vega.github.io/vega-lite/docs/ (params, bind:
// "legend" and bind: "scales" are documented under "Parameters" and
// "Selections").
//
// The titles and axis labels are the PNG's, the colours and point shapes
// the PNG's palette, log axes where the PNG has them; the article's figures
// (a [Bars] series added with AddArticle, a [Line] series added with
// [Line.AddArticle] or named as the lab names them, see [Series]) are
// marked: grey bars, a dashed line with large open diamonds, and "source:
// article" in the tooltip.

// spec is a Vega-Lite (sub-)specification as JSON objects; encoding/json
// writes map keys sorted, so a chart always gives the same bytes.
type spec = map[string]any

// Symbol sizes are areas in square pixels; a gonum/plot radius r points
// draws a glyph 2r points across, (2r·4/3)² px² at 96 px to the inch.
func symbolSize(radius float64) float64 {
	d := 2 * radius * 4 / 3
	return math.Round(d * d)
}

// px converts points (1/72 inch) to CSS pixels (1/96 inch).
func px(pt float64) int { return int(math.Round(pt * 4 / 3)) }

func hexColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// edgePad is the room, in pixels, a line or scatter chart's scales leave
// beyond the data, as gonum/plot's axes do, so a point on the edge of the
// data is drawn whole.
const edgePad = 8

// vegaShapes are the Vega symbol shapes nearest gonum/plot's glyphs in
// [shapes], in the same order.
var vegaShapes = []string{"circle", "square", "triangle-up", "triangle-down", "diamond", "square", "cross", "cross"}

// VegaLite returns the chart as a Vega-Lite v5 spec (JSON). A chart with
// bad data gives a spec that shows the error as its title, as the PNG
// does.
func (c *Line) VegaLite() []byte {
	w, h := c.size()
	return topLevel(func() (spec, error) { return c.vegaLite(0) }, float64(w), float64(h))
}

// VegaLite returns the chart as a Vega-Lite v5 spec (JSON); bad data
// gives a spec that shows the error as its title.
func (c *Bars) VegaLite() []byte {
	w, h := c.size()
	return topLevel(func() (spec, error) { return c.vegaLite(0) }, float64(w), float64(h))
}

// VegaLite returns the chart as a Vega-Lite v5 spec (JSON); bad data
// gives a spec that shows the error as its title.
func (c *Scatter) VegaLite() []byte {
	w, h := c.size()
	return topLevel(func() (spec, error) { return c.vegaLite(0) }, float64(w), float64(h))
}

// VegaLiteWidth is the widest, in CSS pixels, that a Vega-Lite spec of
// this package is drawn, everything included (axes, titles, legends,
// padding). The PNG's [MaxWidth] (900 px) does not bound it: a notebook
// shows the PNG in an img its CSS scales down to the output area, but
// vega-embed draws a canvas at the spec's own size, and JupyterLab's
// output area is narrower than the PNG's 900 px (840 px in the JupyterLite
// site at 1280 px, measured): grids drawn at the PNG's size came out
// 853–900 px wide there, their right-hand panels cut at the edge.
const VegaLiteWidth = 800

// Layout of a [Grid]'s concatenation, in CSS pixels, set in the spec
// rather than left to Vega-Lite's defaults (the same values) so that the
// width budget below holds: the view's padding on each side, the space
// between two charts of a row, and the room left of each plot for the y
// axis: its ticks and labels, held to exactly gridAxisExtent by the axis's
// minExtent and maxExtent (labels longer than gridAxisLabels are cut with
// an ellipsis), its title's padding and the title (11 px text); and the
// room right of each plot for the x axis's last label, centred on its
// tick (measured with vega: 5 px on a linear axis, 12 on a log axis whose
// scale pads the data by edgePad).
const (
	gridPadding    = 5
	gridSpacing    = 20
	gridAxisExtent = 40
	gridAxisLabels = gridAxisExtent - 8 // the tick (5) and the label's padding (2), and a pixel
	gridAxisRoom   = gridAxisExtent + 4 + 14
	gridOverhang   = 14
)

// vegaSize returns w × h points as the CSS pixels of a chart's Vega-Lite
// spec: at most [VegaLiteWidth] wide, the height scaled with the width.
func vegaSize(w, h float64) (int, int) {
	pw, ph := px(w), px(h)
	if pw > VegaLiteWidth {
		pw, ph = VegaLiteWidth, int(math.Round(float64(ph)*VegaLiteWidth/float64(pw)))
	}
	return pw, ph
}

// topLevel completes the spec of one chart drawn w × h points: the
// schema, and a size that includes the axes and the legend, as the PNG's
// does (autosize "fit", "contains": "padding"), scaled down to
// [VegaLiteWidth].
func topLevel(build func() (spec, error), w, h float64) []byte {
	s, err := build()
	if err != nil {
		return errorSpec(err, w, h)
	}
	s["$schema"] = VegaLiteSchema
	s["width"], s["height"] = vegaSize(w, h)
	s["autosize"] = spec{"type": "fit", "contains": "padding"}
	return marshal(s, w, h)
}

func marshal(s spec, w, h float64) []byte {
	b, err := json.Marshal(s)
	if err != nil { // a NaN that slipped past Err: still show something
		return errorSpec(fmt.Errorf("chart: writing the Vega-Lite spec: %w", err), w, h)
	}
	return b
}

// errorSpec is a spec with no data whose title is the error, in the red of
// the PNG's error picture.
func errorSpec(err error, w, h float64) []byte {
	pw, ph := vegaSize(w, h)
	s := spec{
		"$schema": VegaLiteSchema,
		"title":   spec{"text": err.Error(), "color": "#B00020", "limit": pw},
		"width":   pw, "height": ph,
		"data": spec{"values": []any{}},
		"mark": "point",
	}
	b, _ := json.Marshal(s) // strings and numbers only: cannot fail
	return b
}

func title(s spec, t string) {
	if t != "" {
		s["title"] = t
	}
}

// axisTitle is a field's title on an axis: the PNG's label, none when the
// PNG has none (Vega-Lite would print the field's name).
func axisTitle(label string) any {
	if label == "" {
		return nil
	}
	return label
}

// tooltipTitle names a field in a tooltip: the axis label, or the axis.
func tooltipTitle(label, axis string) string {
	if label == "" {
		return axis
	}
	return label
}

// seriesNames returns names to key the series by in a spec: their own,
// with "" named by position and a repeated name made unique, since
// Vega-Lite groups lines and legend entries by the value.
func seriesNames(names []string) []string {
	out := make([]string, len(names))
	seen := map[string]int{}
	for i, n := range names {
		if n == "" {
			n = fmt.Sprintf("series %d", i+1)
		}
		base := n
		for k := 2; seen[n] > 0; k++ {
			n = fmt.Sprintf("%s (%d)", base, k)
		}
		seen[n]++
		out[i] = n
	}
	return out
}

// legendParams are the selections of a chart's unit (or first layer):
// "zoom<id>", an interval selection bound to the scales (of the
// encodings given, all when none: a bar chart's nominal axis does not
// zoom), and with legend "legend<id>", a point selection of the field's
// values bound to the legend. The id keeps the names unique among the
// charts of a [Grid].
func legendParams(id int, field string, legend bool, zoom ...string) []any {
	var sel any = "interval"
	if len(zoom) > 0 {
		sel = spec{"type": "interval", "encodings": zoom}
	}
	ps := []any{spec{"name": fmt.Sprintf("zoom%d", id), "select": sel, "bind": "scales"}}
	if legend {
		ps = append(ps, spec{"name": fmt.Sprintf("legend%d", id),
			"select": spec{"type": "point", "fields": []string{field}}, "bind": "legend"})
	}
	return ps
}

// fade shows the selected series (all of them while none is selected)
// and fades the others.
func fade(id int) spec {
	return spec{"condition": spec{"param": fmt.Sprintf("legend%d", id), "value": 1}, "value": 0.15}
}

// isArticle reports whether a line series holds an article's figures.
func (s Series) isArticle() bool {
	return s.Article || s.Name == "article" || strings.HasPrefix(s.Name, "article:") || strings.HasPrefix(s.Name, "article ")
}

type lineRow struct {
	Series string  `json:"series"`
	Source string  `json:"source"`
	I      int     `json:"i"`
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Label  string  `json:"label,omitempty"`
}

func source(article bool) string {
	if article {
		return "article"
	}
	return "lab"
}

func (c *Line) vegaLite(id int) (spec, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	names := make([]string, len(c.Series))
	for i, s := range c.Series {
		names[i] = s.Name
	}
	keys := seriesNames(names)
	var rows []lineRow
	var colors, shapes []string
	labels, article := false, false
	for i, s := range c.Series {
		colors = append(colors, hexColor(colorOf(i)))
		shapes = append(shapes, vegaShapes[i%len(vegaShapes)])
		art := s.isArticle()
		article = article || art
		for j := range s.X {
			r := lineRow{Series: keys[i], Source: source(art), I: j, X: s.X[j], Y: s.Y[j]}
			if len(s.Labels) > 0 {
				r.Label = s.Labels[j]
				labels = labels || r.Label != ""
			}
			rows = append(rows, r)
		}
	}
	scale := func(log bool) spec {
		if log {
			// The data's range, as the PNG's log axis: a nice log
			// domain would run on to the next power of ten.
			return spec{"type": "log", "nice": false, "padding": edgePad}
		}
		return spec{"zero": false, "padding": edgePad}
	}
	tooltip := []any{
		spec{"field": "series", "type": "nominal"},
		spec{"field": "x", "type": "quantitative", "title": tooltipTitle(c.XLabel, "x")},
		spec{"field": "y", "type": "quantitative", "title": tooltipTitle(c.YLabel, "y")},
	}
	if labels {
		tooltip = append(tooltip, spec{"field": "label", "type": "nominal"})
	}
	tooltip = append(tooltip, spec{"field": "source", "type": "nominal"})
	// The PNG's legend sits inside the plot, lower right: recall curves
	// rise to the right.
	legend := spec{"title": nil, "orient": "bottom-right", "fillColor": "white"}
	layers := []any{
		spec{
			"params": legendParams(id, "series", true),
			"mark":   spec{"type": "line", "strokeWidth": 2},
			"encoding": spec{
				"order":      spec{"field": "i", "type": "quantitative"}, // as added, not sorted by x
				"strokeDash": spec{"field": "source", "type": "nominal", "scale": spec{"domain": []string{"article", "lab"}, "range": [][]int{{6, 3}, {1, 0}}}, "legend": nil},
			},
		},
		spec{
			"mark": spec{"type": "point", "filled": true, "size": symbolSize(2.5)},
			"encoding": spec{
				"shape":   spec{"field": "series", "type": "nominal", "scale": spec{"domain": keys, "range": shapes}, "legend": legend},
				"tooltip": tooltip,
			},
		},
	}
	if article {
		layers = append(layers, spec{
			"transform": []any{spec{"filter": "datum.source === 'article'"}},
			"mark":      spec{"type": "point", "shape": "diamond", "filled": false, "size": symbolSize(6), "strokeWidth": 2},
			"encoding":  spec{"tooltip": tooltip},
		})
	}
	if labels {
		layers = append(layers, spec{
			"transform": []any{spec{"filter": "isValid(datum.label) && datum.label !== ''"}},
			"mark":      spec{"type": "text", "align": "left", "baseline": "bottom", "dx": 4, "dy": -4, "fontSize": 9},
			"encoding":  spec{"text": spec{"field": "label"}},
		})
	}
	s := spec{
		"data": spec{"values": rows},
		"encoding": spec{
			"x":       spec{"field": "x", "type": "quantitative", "title": axisTitle(c.XLabel), "scale": scale(c.LogX)},
			"y":       spec{"field": "y", "type": "quantitative", "title": axisTitle(c.YLabel), "scale": scale(c.LogY)},
			"color":   spec{"field": "series", "type": "nominal", "scale": spec{"domain": keys, "range": colors}, "legend": legend},
			"opacity": fade(id),
		},
		"layer": layers,
	}
	title(s, c.Title)
	return s, nil
}

type barRow struct {
	Category string  `json:"category"`
	Series   string  `json:"series"`
	Source   string  `json:"source"`
	Value    float64 `json:"value"`
}

func (c *Bars) vegaLite(id int) (spec, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	names := make([]string, len(c.Series))
	for i, s := range c.Series {
		names[i] = s.Name
	}
	keys := seriesNames(names)
	var rows []barRow
	var colors []string
	lab := 0
	for i, s := range c.Series {
		if s.Article {
			colors = append(colors, hexColor(articleGrey))
		} else {
			colors = append(colors, hexColor(colorOf(lab)))
			lab++
		}
		for j, v := range s.Values {
			if math.IsNaN(v) {
				continue // a figure nobody gave: no bar, as in the PNG
			}
			rows = append(rows, barRow{Category: c.Categories[j], Series: keys[i], Source: source(s.Article), Value: v})
		}
	}
	if rows == nil {
		rows = []barRow{}
	}
	s := spec{
		"data":   spec{"values": rows},
		"params": legendParams(id, "series", true, "y"),
		"mark":   spec{"type": "bar"},
		"encoding": spec{
			"x":       spec{"field": "category", "type": "nominal", "sort": c.Categories, "title": nil, "axis": spec{"labelAngle": 0}},
			"xOffset": spec{"field": "series", "type": "nominal", "sort": keys},
			"y":       spec{"field": "value", "type": "quantitative", "title": axisTitle(c.YLabel)},
			"color":   spec{"field": "series", "type": "nominal", "scale": spec{"domain": keys, "range": colors}, "legend": spec{"title": nil, "orient": "top-right", "fillColor": "white"}},
			"opacity": fade(id),
			"tooltip": []any{
				spec{"field": "category", "type": "nominal", "title": "category"},
				spec{"field": "series", "type": "nominal"},
				spec{"field": "value", "type": "quantitative", "title": tooltipTitle(c.YLabel, "value")},
				spec{"field": "source", "type": "nominal"},
			},
		},
	}
	title(s, c.Title)
	return s, nil
}

// csvData is a scatter group's data inline as CSV text, one row a point
// (x,y), a point and its step along a path (x,y,step), or a segment
// (x,y,x2,y2) from consecutive points. A picture has thousands of points:
// as JSON objects they cost some 40 bytes each in a saved notebook (the
// rows indented one key to a line), as CSV text some 20, one string. The
// coordinates are positions in a picture, not figures, and are written in
// float32's shortest form.
func csvData(g Group, kind string) spec {
	var b []byte
	num := func(v float64) { b = strconv.AppendFloat(b, float64(float32(v)), 'g', -1, 32) }
	parse := spec{"x": "number", "y": "number"}
	switch kind {
	case "segments":
		b = append(b, "x,y,x2,y2\n"...)
		parse["x2"], parse["y2"] = "number", "number"
		for j := 0; j+1 < len(g.X); j += 2 {
			num(g.X[j])
			b = append(b, ',')
			num(g.Y[j])
			b = append(b, ',')
			num(g.X[j+1])
			b = append(b, ',')
			num(g.Y[j+1])
			b = append(b, '\n')
		}
	case "steps":
		b = append(b, "x,y,step\n"...)
		parse["step"] = "number"
		for j := range g.X {
			num(g.X[j])
			b = append(b, ',')
			num(g.Y[j])
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(j), 10)
			b = append(b, '\n')
		}
	default:
		b = append(b, "x,y\n"...)
		for j := range g.X {
			num(g.X[j])
			b = append(b, ',')
			num(g.Y[j])
			b = append(b, '\n')
		}
	}
	return spec{"values": string(b), "format": spec{"type": "csv", "parse": parse}}
}

func (c *Scatter) vegaLite(id int) (spec, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	// The colours as the PNG assigns them: the palette in order to the
	// groups that take one, an empty group too.
	col := 0
	colors := make([]string, len(c.Groups))
	for i, g := range c.Groups {
		switch g.Role {
		case Background:
			colors[i] = hexColor(backgroundGrey)
		case Edges:
			colors[i] = hexColor(edgeGrey)
		case Reference:
			colors[i] = "#000000"
		default:
			colors[i] = hexColor(colorOf(col))
			col++
		}
	}
	var domain, rangeColors []string
	seen := map[string]bool{}
	for i, g := range c.Groups {
		if g.Name != "" && len(g.X) > 0 && !seen[g.Name] {
			seen[g.Name] = true
			domain, rangeColors = append(domain, g.Name), append(rangeColors, colors[i])
		}
	}
	legend := !c.NoLegend && len(domain) > 0
	var legendSpec any = nil
	if legend {
		legendSpec = spec{"title": nil, "orient": "top-right", "fillColor": "white"}
	}
	xTitle, yTitle := tooltipTitle(c.XLabel, "x"), tooltipTitle(c.YLabel, "y")
	var layers []any
	firstNamed := -1 // the index of the first layer of a named group
	for i, g := range c.Groups {
		if len(g.X) == 0 {
			continue
		}
		enc := spec{}
		var transform []any
		if g.Name != "" {
			// The group's name as a field of every row, computed in the
			// browser rather than repeated in the data.
			name, _ := json.Marshal(g.Name)
			transform = []any{spec{"calculate": string(name), "as": "group"}}
			enc["color"] = spec{"field": "group", "type": "nominal", "scale": spec{"domain": domain, "range": rangeColors}, "legend": legendSpec}
			if legend {
				enc["opacity"] = fade(id)
			}
		} else {
			enc["color"] = spec{"value": colors[i]}
		}
		tooltip := []any{}
		if g.Name != "" {
			tooltip = append(tooltip, spec{"field": "group", "type": "nominal"})
		}
		tooltip = append(tooltip,
			spec{"field": "x", "type": "quantitative", "title": xTitle},
			spec{"field": "y", "type": "quantitative", "title": yTitle})
		layer := func(mark spec, data spec, extra spec) spec {
			e := spec{}
			for k, v := range enc {
				e[k] = v
			}
			for k, v := range extra {
				e[k] = v
			}
			l := spec{"data": data, "mark": mark, "encoding": e}
			if transform != nil {
				l["transform"] = transform
				if firstNamed < 0 {
					firstNamed = len(layers)
				}
			}
			return l
		}
		switch g.Role {
		case Background, Dots, Marks, Star:
			mark := spec{"type": "point", "filled": true}
			switch g.Role {
			case Background:
				mark["size"] = symbolSize(1.5)
			case Dots:
				mark["size"] = symbolSize(2)
			case Marks:
				mark["filled"], mark["size"], mark["strokeWidth"] = false, symbolSize(4), 1.5
			case Star:
				mark["shape"], mark["angle"], mark["size"] = "cross", 45, symbolSize(6)
			}
			layers = append(layers, layer(mark, csvData(g, "points"), spec{"tooltip": tooltip}))
		case Edges:
			layers = append(layers, layer(spec{"type": "rule", "strokeWidth": 0.67}, csvData(g, "segments"),
				spec{"x2": spec{"field": "x2"}, "y2": spec{"field": "y2"}}))
		case Path:
			p := csvData(g, "steps")
			steps := append(tooltip, spec{"field": "step", "type": "quantitative"})
			layers = append(layers,
				layer(spec{"type": "line", "strokeWidth": 3}, p, spec{"order": spec{"field": "step", "type": "quantitative"}}),
				layer(spec{"type": "point", "filled": true, "size": symbolSize(3)}, p, spec{"tooltip": steps}))
		case Reference:
			p := csvData(g, "steps")
			layers = append(layers, layer(spec{"type": "line", "strokeWidth": 1.33, "strokeDash": []int{5, 4}}, p,
				spec{"order": spec{"field": "step", "type": "quantitative"}}))
		}
	}
	if layers == nil {
		// Every group is empty: draw the axes with nothing on them, as
		// the PNG does.
		layers = []any{spec{"data": spec{"values": []any{}}, "mark": "point"}}
		legend = false
	}
	// The selections live in the first layer, the legend's in the first
	// layer with the legend's field.
	zoom := legendParams(id, "group", legend)
	layers[0].(spec)["params"] = zoom[:1]
	if legend {
		ls := layers[firstNamed].(spec)
		ps, _ := ls["params"].([]any)
		ls["params"] = append(ps, zoom[1])
	}
	x := spec{"zero": false, "padding": edgePad}
	y := spec{"zero": false, "padding": edgePad}
	if c.LogX {
		x = spec{"type": "log", "nice": false, "padding": edgePad} // as the Line's log axis
	}
	if c.Equal {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, g := range c.Groups {
			for j := range g.X {
				lo = math.Min(lo, math.Min(g.X[j], g.Y[j]))
				hi = math.Max(hi, math.Max(g.X[j], g.Y[j]))
			}
		}
		if lo <= hi {
			x["domain"], y["domain"] = []float64{lo, hi}, []float64{lo, hi}
			x["nice"], y["nice"] = false, false
		}
	}
	s := spec{
		"encoding": spec{
			"x": spec{"field": "x", "type": "quantitative", "title": axisTitle(c.XLabel), "scale": x},
			"y": spec{"field": "y", "type": "quantitative", "title": axisTitle(c.YLabel), "scale": y},
		},
		"layer": layers,
	}
	title(s, c.Title)
	return s, nil
}

// VegaLite returns the grid as a Vega-Lite v5 spec (JSON): the charts
// concatenated, Cols to a row as [Grid] lays them out, each with its own
// scales, legend and selections. Bad data gives a spec that shows the
// error as its title.
func (g *Grid) VegaLite() []byte {
	w, h := g.size()
	s, err := g.vegaLite()
	if err != nil {
		return errorSpec(err, float64(w), float64(h))
	}
	return marshal(s, float64(w), float64(h))
}

func (g *Grid) vegaLite() (spec, error) {
	if err := g.Err(); err != nil {
		return nil, err
	}
	_, cols, cw, ch := g.layout()
	pw, ph := gridPlot(cols, cw, ch)
	views := make([]any, len(g.Charts))
	for i, c := range g.Charts {
		v, err := c.vegaLite(i)
		if err != nil {
			return nil, fmt.Errorf("grid %q chart %d: %w", g.Title, i, err)
		}
		// In a concatenation the size is the plot's, without the axes
		// and title the cell of the PNG also holds.
		v["width"], v["height"] = pw, ph
		// A chart's title wider than its plot would widen the row (it
		// is centred on the plot): it goes on as many lines as it
		// needs, and a word longer than the plot is cut (an ellipsis).
		if t, ok := v["title"].(string); ok {
			v["title"] = spec{"text": wrapTitle(t, pw), "limit": pw}
		}
		views[i] = v
	}
	s := spec{
		"$schema": VegaLiteSchema,
		"columns": cols,
		"concat":  views,
		"padding": gridPadding,
		"spacing": gridSpacing,
		"resolve": spec{"scale": spec{"color": "independent", "shape": "independent", "strokeDash": "independent"},
			"legend": spec{"color": "independent", "shape": "independent"}},
		"config": spec{"axisY": spec{"minExtent": gridAxisExtent, "maxExtent": gridAxisExtent, "labelLimit": gridAxisLabels}},
	}
	if g.Title != "" {
		// Centred above the charts, as in the PNG.
		s["title"] = spec{"text": g.Title, "anchor": "middle", "limit": VegaLiteWidth - 2*gridPadding}
	}
	return s, nil
}

// titleCharWidth is the width, in CSS pixels, wrapTitle allows a
// character of a chart's title: Vega-Lite's titles are 13 px bold
// sans-serif, whose letters average about 7 px; 8 leaves room for the wide
// ones.
const titleCharWidth = 8

// wrapTitle breaks a title into lines at spaces so that each line is at
// most w pixels wide at titleCharWidth a character: the text itself when
// it fits on one line, else the lines (Vega-Lite draws a list of strings
// as lines).
func wrapTitle(t string, w int) any {
	n := max(w/titleCharWidth, 1)
	if len([]rune(t)) <= n {
		return t
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(t) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return lines
}

// gridPlot returns the size, in CSS pixels, of each plot of a grid of cols
// charts laid out cw × ch points each ([Grid.layout]): the PNG's, the
// axes and title taken off, unless the row would then be wider than
// [VegaLiteWidth] (padding, spacing and each chart's y axis included);
// then the widest that fits, the height scaled with it. (The legends are
// drawn inside the plots, so they do not widen a chart.)
func gridPlot(cols int, cw, ch float64) (int, int) {
	pw, ph := max(px(cw)-60, 60), max(px(ch)-70, 60)
	fit := (VegaLiteWidth-2*gridPadding-(cols-1)*gridSpacing)/cols - gridAxisRoom - gridOverhang
	if pw > fit {
		pw, ph = fit, int(math.Round(float64(ph)*float64(fit)/float64(pw)))
	}
	return max(pw, 60), max(ph, 60)
}
