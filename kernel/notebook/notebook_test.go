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
