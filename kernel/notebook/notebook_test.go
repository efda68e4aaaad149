package notebook

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/veclab/veclab/kernel/eval"
)

func session(t *testing.T) *eval.Session {
	t.Helper()
	s, err := eval.New(eval.Options{Capture: eval.CaptureGo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

type nbDoc struct {
	Cells []struct {
		CellType       string           `json:"cell_type"`
		ExecutionCount *int             `json:"execution_count"`
		Outputs        []map[string]any `json:"outputs"`
		Metadata       map[string]any   `json:"metadata"`
	} `json:"cells"`
	Metadata map[string]any `json:"metadata"`
}

func parse(t *testing.T, b []byte) nbDoc {
	t.Helper()
	var d nbDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func join(v any) string {
	var b strings.Builder
	for _, l := range v.([]any) {
		b.WriteString(l.(string))
	}
	return b.String()
}

func TestRunSmokeNotebook(t *testing.T) {
	in, err := os.ReadFile("../testdata/smoke.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(in, session(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := parse(t, out)
	if d.Metadata["kernelspec"] == nil {
		t.Error("notebook metadata lost")
	}
	c := d.Cells
	if c[0].CellType != "markdown" || c[0].ExecutionCount != nil {
		t.Errorf("markdown cell touched: %+v", c[0])
	}
	if *c[1].ExecutionCount != 1 || *c[4].ExecutionCount != 4 {
		t.Errorf("execution counts %d %d", *c[1].ExecutionCount, *c[4].ExecutionCount)
	}
	if o := c[1].Outputs; len(o) != 1 || o[0]["output_type"] != "stream" || join(o[0]["text"]) != "hello from nbconvert\n" {
		t.Errorf("cell 1: %v", o)
	}
	if o := c[2].Outputs; len(o) != 1 || !strings.Contains(join(o[0]["data"].(map[string]any)["text/html"]), "0.999") {
		t.Errorf("cell 2: %v", o)
	}
	if o := c[3].Outputs; len(o) != 2 || join(o[0]["data"].(map[string]any)["text/markdown"]) != "step **3** of 3" {
		t.Errorf("cell 3 (display updated in place): %v", o)
	}
	if o := c[4].Outputs; len(o) != 1 || o[0]["output_type"] != "execute_result" || o[0]["execution_count"].(float64) != 4 {
		t.Errorf("cell 4: %v", o)
	}
}

func nb(cells ...string) []byte {
	var cs []map[string]any
	for _, c := range cells {
		cs = append(cs, map[string]any{"cell_type": "code", "metadata": map[string]any{}, "outputs": []any{}, "source": c})
	}
	b, _ := json.Marshal(map[string]any{"nbformat": 4, "nbformat_minor": 5, "metadata": map[string]any{}, "cells": cs})
	return b
}

func TestRunStopsAtError(t *testing.T) {
	s := session(t)
	out, err := Run(nb(`fmt.Println("a")`, `panic("stop")`, `fmt.Println("never")`), s, Options{})
	if !errors.Is(err, ErrCell) {
		t.Fatalf("err %v, want ErrCell", err)
	}
	c := parse(t, out).Cells
	if e := c[1].Outputs; len(e) != 1 || e[0]["output_type"] != "error" || e[0]["evalue"] != `stop (cell line 1: panic("stop"))` {
		t.Errorf("error output: %v", e)
	}
	if len(c[2].Outputs) != 0 || c[2].ExecutionCount != nil {
		t.Errorf("cell after the error ran: %+v", c[2])
	}
	out, err = Run(nb(`panic("stop")`, `"ran"`), s, Options{AllowErrors: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := parse(t, out).Cells; len(c[1].Outputs) != 1 {
		t.Errorf("AllowErrors did not run the next cell: %+v", c[1])
	}
}

func TestRunRejects(t *testing.T) {
	s := session(t)
	for _, tc := range []struct{ name, in, want string }{
		{"not json", "{", "not JSON"},
		{"truncated, says where", "{\n \"cells\": [", "not JSON at line 2, column 12"},
		{"syntax error, says where", "{\n\"nbformat\": 4,\n\"cells\": [}\n}", "not JSON at line 3, column 11"},
		{"nbformat 3", `{"nbformat":3,"cells":[]}`, "nbformat 3"},
		{"no cells", `{"nbformat":4}`, "no cells"},
		{"bad source", `{"nbformat":4,"cells":[{"cell_type":"code","source":7}]}`, "source is float64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run([]byte(tc.in), s, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

func TestProgressAndSourceLines(t *testing.T) {
	s := session(t)
	in := []byte(`{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"outputs":[],"source":["x := 2\n","x * 21"]}]}`)
	var log strings.Builder
	out, err := Run(in, s, Options{Progress: &log})
	if err != nil {
		t.Fatal(err)
	}
	if o := parse(t, out).Cells[0].Outputs; len(o) != 1 || join(o[0]["data"].(map[string]any)["text/plain"]) != "42" {
		t.Errorf("outputs %v", o)
	}
	if !strings.Contains(log.String(), "── cell 0 [1]\n42\n") {
		t.Errorf("progress %q", log.String())
	}
}

// TestRunChartBundle: a chart in a saved notebook carries its Vega-Lite
// spec (as a JSON object, as nbformat stores application/*+json) beside
// the PNG and SVG that nbconvert and plain viewers show.
func TestRunChartBundle(t *testing.T) {
	out, err := Run(nb("import (\n\t\"github.com/veclab/veclab/kernel/display\"\n\t\"github.com/veclab/veclab/lab/chart\"\n)",
		`c := chart.NewLine("recall@10 vs ef", "ef", "recall@10").Add("lab", []float64{10, 40}, []float64{0.7, 0.95})
display.Any(c)
c`), session(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := parse(t, out).Cells[1].Outputs
	if len(o) != 2 || o[0]["output_type"] != "display_data" || o[1]["output_type"] != "execute_result" {
		t.Fatalf("outputs %v, want a display and the cell's value", o)
	}
	for _, out := range o {
		data := out["data"].(map[string]any)
		spec, ok := data["application/vnd.vegalite.v5+json"].(map[string]any)
		if !ok || spec["title"] != "recall@10 vs ef" || !strings.Contains(spec["$schema"].(string), "vega-lite/v5") {
			t.Errorf("%s: Vega-Lite %v, want the chart's spec as an object", out["output_type"], data["application/vnd.vegalite.v5+json"])
		}
		if p, ok := data["image/png"].(string); !ok || !strings.HasPrefix(p, "iVBORw0KGgo") {
			t.Errorf("%s: no PNG fallback (%T)", out["output_type"], data["image/png"])
		}
		if _, ok := data["image/svg+xml"]; !ok {
			t.Errorf("%s: no SVG", out["output_type"])
		}
	}
}

// TestRunSavesWidgetState runs cells that make an Interact over a slider
// and move the slider, as `veclab run` does without a front end: the
// notebook's metadata holds the widgets' state in the form of ipywidgets'
// state schema v2, with the slider at its last value and the Output
// holding the last output of Interact's function (replaced, not
// appended); the cell shows the view with a text/plain a plain viewer
// can read.
func TestRunSavesWidgetState(t *testing.T) {
	s := session(t)
	in := nb(`import "github.com/veclab/veclab/kernel/widget"
n := widget.NewIntSlider("n", 3, 0, 10)
widget.Interact(func() { fmt.Println("n is", n.Value()) }, n)`,
		`fmt.Println("moving")
n.SetValue(7)
fmt.Println("moved")`)
	out, err := Run(in, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := parse(t, out)
	ws, _ := d.Metadata["widgets"].(map[string]any)
	st, _ := ws["application/vnd.jupyter.widget-state+json"].(map[string]any)
	if st == nil {
		t.Fatalf("no widget state in the metadata: %v", d.Metadata)
	}
	if st["version_major"] != 2.0 || st["version_minor"] != 0.0 {
		t.Errorf("state version %v.%v, want 2.0", st["version_major"], st["version_minor"])
	}
	models, _ := st["state"].(map[string]any)
	byName := map[string][]map[string]any{}
	for id, m := range models {
		e := m.(map[string]any)
		for _, k := range []string{"model_name", "model_module", "model_module_version", "state"} {
			if e[k] == nil {
				t.Errorf("model %s has no %s", id, k)
			}
		}
		byName[e["model_name"].(string)] = append(byName[e["model_name"].(string)], e["state"].(map[string]any))
	}
	sl := byName["IntSliderModel"]
	if len(sl) != 1 || sl[0]["value"] != 7.0 {
		t.Fatalf("slider state %v, want one slider at 7", sl)
	}
	outw := byName["OutputModel"]
	if len(outw) != 1 {
		t.Fatalf("%d Output models, want 1", len(outw))
	}
	outs, _ := outw[0]["outputs"].([]any)
	if len(outs) != 1 || join(outs[0].(map[string]any)["text"]) != "n is 7\n" {
		t.Errorf("Output's outputs %v, want the one stream \"n is 7\"", outs)
	}
	if len(byName["VBoxModel"]) != 1 || len(byName["LayoutModel"]) == 0 || len(byName["SliderStyleModel"]) != 1 {
		t.Errorf("models saved: %v", byName)
	}
	c0 := d.Cells[0].Outputs
	if len(c0) != 1 {
		t.Fatalf("cell 0 outputs %v, want the view only (Interact's output is the Output's)", c0)
	}
	data := c0[0]["data"].(map[string]any)
	view, _ := data["application/vnd.jupyter.widget-view+json"].(map[string]any)
	if view == nil || view["version_major"] != 2.0 || models[view["model_id"].(string)] == nil {
		t.Errorf("cell 0 view %v does not name a saved model", data)
	}
	if got, want := join(data["text/plain"]), "IntSlider(description=\"n\", value=7)\nn is 7"; got != want {
		t.Errorf("text/plain %q, want %q", got, want)
	}
	c1 := d.Cells[1].Outputs
	if len(c1) == 0 || join(c1[0]["text"]) != "moving\nmoved\n" {
		t.Errorf("cell 1 outputs %v: the cell's own prints stay in the cell", c1)
	}
}

// TestRunDropsStaleWidgetState: a notebook saved by a front end with
// widget state, run with no widget, loses the state (its model ids name
// widgets of another session) and keeps the rest of its metadata.
func TestRunDropsStaleWidgetState(t *testing.T) {
	in := []byte(`{"nbformat":4,"nbformat_minor":5,"metadata":{"kernelspec":{"name":"veclab"},"widgets":{"application/vnd.jupyter.widget-state+json":{"version_major":2,"version_minor":0,"state":{}}}},"cells":[{"cell_type":"code","metadata":{},"outputs":[],"source":"1+1"}]}`)
	out, err := Run(in, session(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := parse(t, out)
	if _, ok := d.Metadata["widgets"]; ok || d.Metadata["kernelspec"] == nil {
		t.Errorf("metadata %v: want the widget state gone and the kernelspec kept", d.Metadata)
	}
}
