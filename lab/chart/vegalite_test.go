package chart

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/veclab/veclab/internal/testenv"
)

// articleCurve is a sweep as lab/experiment draws it: the article's
// figures (added both ways the lab adds them) beside the lab's.
func articleCurve() *Line {
	c := NewLine("Elasticsearch num_candidates vs recall@10 (bbq_hnsw)", "num_candidates", "recall@10")
	c.LogX = true
	c.AddArticle("article", []float64{10, 100}, []float64{0.491, 0.82})
	c.Add("article: redis 0.616", []float64{10, 1000}, []float64{0.616, 0.616})
	c.Add("lab", []float64{10, 50, 100, 1000}, []float64{0.5, 0.71, 0.83, 0.97})
	return c
}

// vegaCharts are the charts whose specs are kept in testdata and
// compiled by the real Vega-Lite: one of each kind and feature.
func vegaCharts() []struct {
	name string
	spec func() []byte
} {
	unnamed := NewLine("", "", "").Add("", []float64{1, 2}, []float64{3, 4}).Add("", []float64{1, 2}, []float64{4, 3})
	walk := graphPicture()
	walk.NoLegend = true
	// Grids as the notebooks draw them: three pictures to a row with a
	// legend each (00's layers), four line charts asked for in a row
	// (laid out two by two), and a line chart set wider than MaxWidth.
	layers := NewGrid("the layers of one graph, M = 4", 3)
	for i := range 5 {
		p := graphPicture()
		p.Title = fmt.Sprintf("layer %d · nodes ringed, links in grey", i)
		layers.Charts = append(layers.Charts, p)
	}
	curves := NewGrid("recall@10 against ef for four values of M", 4, efCurve(), articleCurve(), efCurve(), articleCurve())
	wide := efCurve()
	wide.Width, wide.Height = 900, 400
	return []struct {
		name string
		spec func() []byte
	}{
		{"line", func() []byte { return efCurve().VegaLite() }},
		{"line-article", func() []byte { return articleCurve().VegaLite() }},
		{"line-unnamed", unnamed.VegaLite},
		{"bars", func() []byte { return storeBars().VegaLite() }},
		{"scatter", func() []byte { return graphPicture().VegaLite() }},
		{"scatter-nolegend", walk.VegaLite},
		{"grid", func() []byte { return NewGrid("two pictures", 2, graphPicture(), efCurve(), storeBars()).VegaLite() }},
		{"grid-layers", layers.VegaLite},
		{"grid-curves", curves.VegaLite},
		{"line-wide", wide.VegaLite},
		{"error", func() []byte {
			return NewLine("bad", "x", "y").Add("s", []float64{1}, []float64{math.NaN()}).VegaLite()
		}},
	}
}

// TestVegaLiteGolden keeps each spec in testdata (indented there, to read
// and diff; the method writes it compact) and checks that a chart gives
// the same bytes every time.
func TestVegaLiteGolden(t *testing.T) {
	for _, tt := range vegaCharts() {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.spec()
			if !json.Valid(got) {
				t.Fatalf("not JSON: %.200q", got)
			}
			if again := tt.spec(); !bytes.Equal(again, got) {
				t.Error("two specs of the same chart differ")
			}
			var ind bytes.Buffer
			if err := json.Indent(&ind, got, "", "  "); err != nil {
				t.Fatal(err)
			}
			ind.WriteByte('\n')
			golden(t, tt.name+".vl.json", ind.String())
		})
	}
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("spec is not a JSON object: %v", err)
	}
	return s
}

// get walks a decoded spec by keys (objects) and indexes (arrays).
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %q: %T is not an object", k, v)
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("at [%d]: %T is not an array that long", k, v)
			}
			v = a[k]
		}
	}
	return v
}

// TestVegaLiteLine checks what a reader of the line chart relies on: the
// PNG's title, axis labels and log axis; every point's exact figures in
// the data the tooltips show; the article's points marked; a legend that
// toggles series and scales that zoom.
func TestVegaLiteLine(t *testing.T) {
	c := articleCurve()
	s := decode(t, c.VegaLite())
	if s["$schema"] != VegaLiteSchema {
		t.Errorf("$schema = %v", s["$schema"])
	}
	if s["title"] != c.Title || get(t, s, "encoding", "x", "title") != c.XLabel || get(t, s, "encoding", "y", "title") != c.YLabel {
		t.Errorf("titles %v / %v / %v, the PNG's are %q / %q / %q", s["title"], get(t, s, "encoding", "x", "title"), get(t, s, "encoding", "y", "title"), c.Title, c.XLabel, c.YLabel)
	}
	if get(t, s, "encoding", "x", "scale", "type") != "log" || get(t, s, "encoding", "y", "scale", "type") != nil {
		t.Errorf("scales x %v y %v: want log x (LogX), linear y", get(t, s, "encoding", "x", "scale"), get(t, s, "encoding", "y", "scale"))
	}
	rows := get(t, s, "data", "values").([]any)
	var want []map[string]any
	for _, sr := range c.Series {
		src := "lab"
		if strings.HasPrefix(sr.Name, "article") {
			src = "article"
		}
		for j := range sr.X {
			want = append(want, map[string]any{"series": sr.Name, "source": src, "x": sr.X[j], "y": sr.Y[j], "i": float64(j)})
		}
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		for k, v := range want[i] {
			if r.(map[string]any)[k] != v {
				t.Errorf("row %d: %s = %v, want %v", i, k, r.(map[string]any)[k], v)
			}
		}
	}
	layers := get(t, s, "layer").([]any)
	var tooltip []any
	marked := false
	for _, l := range layers {
		if tt, ok := get(t, l, "encoding", "tooltip").([]any); ok && tooltip == nil {
			tooltip = tt
		}
		if f, ok := get(t, l, "transform").([]any); ok && strings.Contains(get(t, f[0], "filter").(string), "'article'") &&
			get(t, l, "mark", "shape") == "diamond" {
			marked = true
		}
	}
	fields := map[any]bool{}
	for _, f := range tooltip {
		fields[get(t, f, "field")] = true
	}
	for _, f := range []string{"series", "x", "y", "source"} {
		if !fields[f] {
			t.Errorf("the tooltip lacks %s: %v", f, tooltip)
		}
	}
	if !marked {
		t.Error("no layer marks the article's points")
	}
	params := get(t, layers[0], "params").([]any)
	binds := map[any]bool{}
	for _, p := range params {
		binds[get(t, p, "bind")] = true
	}
	if !binds["legend"] || !binds["scales"] {
		t.Errorf("params %v: want a selection bound to the legend and one to the scales", params)
	}
	if get(t, s, "encoding", "opacity", "condition", "param") != "legend0" {
		t.Errorf("opacity %v does not follow the legend's selection", get(t, s, "encoding", "opacity"))
	}
}

// TestVegaLiteBars checks the bar chart's data (a NaN is no bar, as in the
// PNG), the article's grey and the category order.
func TestVegaLiteBars(t *testing.T) {
	c := storeBars()
	s := decode(t, c.VegaLite())
	rows := get(t, s, "data", "values").([]any)
	if len(rows) != 7 { // 4 article figures, 3 of the lab's (one NaN)
		t.Fatalf("%d rows, want 7", len(rows))
	}
	for _, r := range rows {
		m := r.(map[string]any)
		if (m["series"] == "article") != (m["source"] == "article") {
			t.Errorf("row %v: series and source disagree", m)
		}
	}
	if r := rows[3].(map[string]any); r["category"] != "elasticsearch" || r["value"] != 0.491 {
		t.Errorf("row 3 = %v, want elasticsearch's article figure 0.491", r)
	}
	if got := get(t, s, "encoding", "color", "scale", "range", 0); got != "#B0B0B0" {
		t.Errorf("the article's bars are %v, want the PNG's grey #B0B0B0", got)
	}
	if got := get(t, s, "encoding", "x", "sort").([]any); len(got) != 4 || got[0] != "pgvector" {
		t.Errorf("categories sorted %v, want the chart's order", got)
	}
	if s["title"] != c.Title || get(t, s, "encoding", "y", "title") != c.YLabel {
		t.Errorf("titles %v / %v", s["title"], get(t, s, "encoding", "y", "title"))
	}
}

// TestVegaLiteScatterAndGrid checks the scatter's layers (one per group,
// two for a path), its equal axes, and a grid's layout and unique
// selection names.
func TestVegaLiteScatterAndGrid(t *testing.T) {
	c := graphPicture()
	s := decode(t, c.VegaLite())
	layers := get(t, s, "layer").([]any)
	if len(layers) != len(c.Groups)+1 {
		t.Errorf("%d layers for %d groups (one a path)", len(layers), len(c.Groups))
	}
	dx, dy := get(t, s, "encoding", "x", "scale", "domain"), get(t, s, "encoding", "y", "scale", "domain")
	if dx == nil || get(t, dx, 0) != 0.0 || get(t, dx, 1) != 2.0 || get(t, dy, 0) != 0.0 || get(t, dy, 1) != 2.0 {
		t.Errorf("Equal: domains %v and %v, want [0 2] both", dx, dy)
	}
	// The edges, inline CSV, one segment a row.
	if got := strings.Split(get(t, layers[1], "data", "values").(string), "\n"); len(got) != 5 || got[0] != "x,y,x2,y2" || got[3] != "1,1,0.5,2" {
		t.Errorf("edges %q, want a header and (0,0)–(1,1), (1,1)–(2,0), (1,1)–(0.5,2)", got)
	}
	if got := get(t, layers[1], "data", "format", "type"); got != "csv" {
		t.Errorf("edges' format %v", got)
	}
	if get(t, s, "encoding", "x", "title") != "x" {
		t.Errorf("x title %v", get(t, s, "encoding", "x", "title"))
	}
	// LogX gives the scatter a log x scale over the data's range, as a
	// Line's; y stays linear.
	lc := NewScatter("ranks", "rank", "query").Add("a", Dots, []float64{1, 30, 400}, []float64{0, 1, 2})
	lc.LogX = true
	ls := decode(t, lc.VegaLite())
	if get(t, ls, "encoding", "x", "scale", "type") != "log" || get(t, ls, "encoding", "y", "scale", "type") != nil {
		t.Errorf("LogX: scales x %v y %v, want log x, linear y", get(t, ls, "encoding", "x", "scale"), get(t, ls, "encoding", "y", "scale"))
	}
	if err := lc.Err(); err != nil || !strings.Contains(lc.SVG(), "<svg") {
		t.Errorf("LogX scatter: %v", err)
	}
	g := NewGrid("two pictures", 2, graphPicture(), efCurve(), storeBars())
	gs := decode(t, g.VegaLite())
	views := get(t, gs, "concat").([]any)
	if len(views) != 3 || gs["columns"] != 2.0 || get(t, gs, "title", "text") != "two pictures" {
		t.Fatalf("grid: %d views, %v columns, title %v", len(views), gs["columns"], gs["title"])
	}
	names := map[string]bool{}
	var collect func(v any)
	collect = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ps, ok := x["params"].([]any); ok {
				for _, p := range ps {
					n := get(t, p, "name").(string)
					if names[n] {
						t.Errorf("selection %q defined twice in the grid", n)
					}
					names[n] = true
				}
			}
			for _, y := range x {
				collect(y)
			}
		case []any:
			for _, y := range x {
				collect(y)
			}
		}
	}
	collect(gs)
	if len(names) != 6 {
		t.Errorf("selections %v, want a zoom and a legend per chart", names)
	}
}

// TestVegaLiteBadData: a chart with bad data gives a spec (as its PNG is
// a picture) whose title is the error.
func TestVegaLiteBadData(t *testing.T) {
	tests := []struct {
		name string
		spec []byte
		want string
	}{
		{"line nan", NewLine("l", "", "").Add("s", []float64{1}, []float64{math.NaN()}).VegaLite(), "NaN"},
		{"line log", func() []byte { c := efCurve(); c.Series[0].X[0] = 0; return c.VegaLite() }(), "log axis"},
		{"bars", NewBars("b", "").VegaLite(), "no categories"},
		{"scatter", NewScatter("s", "", "").VegaLite(), "no groups"},
		{"grid", NewGrid("g", 1, NewScatter("s", "", "")).VegaLite(), "no groups"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := decode(t, tt.spec)
			if txt, _ := get(t, s, "title", "text").(string); !strings.Contains(txt, tt.want) {
				t.Errorf("title %v, want the error (%q)", s["title"], tt.want)
			}
		})
	}
}

// TestVegaLiteCompiles compiles every spec of the golden set with the real
// vega-lite and runs it headless with vega (lab/chart/vega/check.mjs):
// a compile error, a warning (a dropped channel or selection), an empty
// picture, or a picture wider than VegaLiteWidth (as vega draws it,
// everything included) fails.
func TestVegaLiteCompiles(t *testing.T) {
	testenv.Need(t, testenv.Vega)
	dir := t.TempDir()
	var files []string
	for _, tt := range vegaCharts() {
		f := filepath.Join(dir, tt.name+".json")
		if err := os.WriteFile(f, tt.spec(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	cmd := exec.Command(testenv.Node.Path(), append([]string{filepath.Join(testenv.Vega.Dir(), "check.mjs")}, files...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	n := 0
	for sc.Scan() {
		var r struct {
			File     string
			OK       bool
			Warnings []string
			Error    string
			Marks    int
			Width    float64
			Height   float64
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("check.mjs printed %q: %v", sc.Text(), err)
		}
		n++
		name := strings.TrimSuffix(filepath.Base(r.File), ".json")
		if !r.OK {
			t.Errorf("%s: %s %v", name, r.Error, r.Warnings)
		}
		if r.Marks == 0 && name != "error" {
			t.Errorf("%s: rendered no marks", name)
		}
		if r.Width > VegaLiteWidth || r.Width < 100 {
			t.Errorf("%s: drawn %.0f × %.0f px, want 100 to %d px wide", name, r.Width, r.Height, VegaLiteWidth)
		}
		t.Logf("%s: %.0f × %.0f px", name, r.Width, r.Height)
	}
	if n != len(files) {
		t.Fatalf("check.mjs reported %d of %d specs (%v): %s", n, len(files), err, stderr.String())
	}
	if err != nil && !t.Failed() {
		t.Fatalf("check.mjs: %v: %s", err, stderr.String())
	}
}

// TestVegaPinsMatchSite: the vega-lite and vega that compile the specs in
// TestVegaLiteCompiles are the versions the JupyterLite site's renderer
// (@jupyterlab/vega5-extension in wasm/lite) bundles, so a spec that
// passes here is one the site draws.
func TestVegaPinsMatchSite(t *testing.T) {
	pins := func(dir string) map[string]string {
		b, err := os.ReadFile(filepath.Join(testenv.Root(), dir, "package-lock.json"))
		if err != nil {
			t.Fatal(err)
		}
		var lock struct {
			Packages map[string]struct{ Version string } `json:"packages"`
		}
		if err := json.Unmarshal(b, &lock); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out := map[string]string{}
		for k, v := range lock.Packages {
			out[k] = v.Version
		}
		return out
	}
	here, site := pins("lab/chart/vega"), pins("wasm/lite")
	if site["node_modules/@jupyterlab/vega5-extension"] == "" {
		t.Fatal("wasm/lite does not pin @jupyterlab/vega5-extension: the site has no Vega-Lite renderer")
	}
	for _, p := range []string{"node_modules/vega-lite", "node_modules/vega"} {
		if here[p] == "" || here[p] != site[p] {
			t.Errorf("%s: lab/chart/vega pins %q, wasm/lite %q", p, here[p], site[p])
		}
	}
}

// TestWrapTitle: a grid chart's title goes on lines no wider than its plot
// (at titleCharWidth a character), broken at spaces; one that fits stays
// a string.
func TestWrapTitle(t *testing.T) {
	for _, tt := range []struct {
		title string
		width int
		want  any
	}{
		{"layer 0", 192, "layer 0"},
		{"", 192, ""},
		{"layer 0 · nodes ringed, links in grey", 192, []string{"layer 0 · nodes ringed,", "links in grey"}},
		{"recall@10 against ef for M = 16", 120, []string{"recall@10", "against ef for", "M = 16"}},
		{"a_single_word_longer_than_the_plot", 80, "a_single_word_longer_than_the_plot"}, // cut by the title's limit
	} {
		got := wrapTitle(tt.title, tt.width)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("wrapTitle(%q, %d) = %#v, want %#v", tt.title, tt.width, got, tt.want)
		}
		if lines, ok := got.([]string); ok {
			for _, l := range lines {
				if n := len([]rune(l)); n*titleCharWidth > tt.width {
					t.Errorf("wrapTitle(%q, %d): line %q is %d characters, over %d px", tt.title, tt.width, l, n, tt.width)
				}
			}
		}
	}
}
