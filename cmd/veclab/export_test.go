package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/internal/testenv"
)

// testBundle stands in for the built script and style where only the
// page's structure is checked (TestExportBrowser runs the real bundle).
var testBundle = pageBundle{JS: []byte("/* page.js */"), CSS: []byte("/* page.css */"), Vega: []byte("/* vega.js */")}

func TestExportPageRejects(t *testing.T) {
	for _, tc := range []struct{ name, nb, want string }{
		{"not json", "{", "not nbformat JSON"},
		{"nbformat 3", `{"nbformat":3,"cells":[]}`, "nbformat 3"},
		{"widget state version 1", `{"nbformat":4,"metadata":{"widgets":{"application/vnd.jupyter.widget-state+json":{"version_major":1,"state":{}}}},"cells":[]}`, "version 1"},
		{"widget state without state", `{"nbformat":4,"metadata":{"widgets":{"application/vnd.jupyter.widget-state+json":{"version_major":2}}},"cells":[]}`, "no state object"},
		{"unknown cell type", `{"nbformat":4,"cells":[{"cell_type":"sql","source":""}]}`, `unknown cell_type "sql"`},
		{"bad source", `{"nbformat":4,"cells":[{"cell_type":"code","source":7}]}`, "cell 0: source"},
		{"bad png", `{"nbformat":4,"cells":[{"cell_type":"code","source":"","outputs":[{"output_type":"display_data","data":{"image/png":"%%%"}}]}]}`, "image/png is not base64"},
		{"unknown output", `{"nbformat":4,"cells":[{"cell_type":"code","source":"","outputs":[{"output_type":"pager"}]}]}`, "unknown output_type"},
		{"vega-lite not an object", `{"nbformat":4,"cells":[{"cell_type":"code","source":"","outputs":[{"output_type":"display_data","data":{"application/vnd.vegalite.v5+json":"{}"}}]}]}`, "want a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := exportPage([]byte(tc.nb), "x", testBundle)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := exportPage([]byte(`{"nbformat":4,"cells":[]}`), "x", pageBundle{}); err == nil {
		t.Error("an empty bundle was accepted")
	}
	chart := `{"nbformat":4,"cells":[{"cell_type":"code","source":"","outputs":[{"output_type":"display_data","data":{"application/vnd.vegalite.v5+json":{}}}]}]}`
	if _, err := exportPage([]byte(chart), "x", pageBundle{JS: testBundle.JS, CSS: testBundle.CSS}); err == nil || !strings.Contains(err.Error(), "vega.js is empty") {
		t.Errorf("a chart without vega.js: %v", err)
	}
}

// TestExportPage checks what the page holds for each kind of output: the
// richest type it can draw, a widget view only for a saved model (with
// its text after it), the saved state in a script no "</script>" in the
// data can end, the bundle as data: URLs and nothing from another host.
func TestExportPage(t *testing.T) {
	png := base64.StdEncoding.EncodeToString([]byte("\x89PNG fake"))
	nb := `{"nbformat":4,"nbformat_minor":5,
	 "metadata":{"widgets":{"application/vnd.jupyter.widget-state+json":{"version_major":2,"version_minor":0,"state":{
	   "m1":{"model_name":"LabelModel","model_module":"@jupyter-widgets/controls","model_module_version":"2.0.0","state":{"value":"</script><b>x"}}}}}},
	 "cells":[
	  {"cell_type":"markdown","source":["# The title\n","a <b>bold</b> claim"]},
	  {"cell_type":"code","execution_count":3,"source":"x < 1 && y > 2","outputs":[
	    {"output_type":"stream","name":"stdout","text":["\u001b[31mred\u001b[0m\n"]},
	    {"output_type":"display_data","data":{"text/plain":"Label()","application/vnd.jupyter.widget-view+json":{"version_major":2,"version_minor":0,"model_id":"m1"}}},
	    {"output_type":"display_data","data":{"text/plain":"Gone()","application/vnd.jupyter.widget-view+json":{"version_major":2,"version_minor":0,"model_id":"unsaved"}}},
	    {"output_type":"display_data","data":{"text/plain":"table","text/html":["<table>","<tr><td>0.999</td></tr></table>"],"text/markdown":"| 0.999 |"}},
	    {"output_type":"display_data","data":{"text/plain":"chart","image/png":"` + png + `\n","application/vnd.vegalite.v5+json":{"mark":"</script>"}}},
	    {"output_type":"display_data","data":{"text/plain":"chart","image/svg+xml":"<svg id=\"s\"></svg>","image/png":"` + png + `"}},
	    {"output_type":"execute_result","execution_count":3,"data":{"text/plain":"a < b"}},
	    {"output_type":"error","ename":"panic","evalue":"boom","traceback":["\u001b[31mpanic\u001b[0m: boom"]}]},
	  {"cell_type":"code","execution_count":null,"source":"","outputs":[]}]}`
	page, err := exportPage([]byte(nb), "fallback", testBundle)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, want := range []string{
		"<title>The title</title>",
		`<pre class="vl-md"># The title` + "\na &lt;b&gt;bold&lt;/b&gt; claim</pre>",
		`<div class="vl-prompt">[3]:</div><pre class="vl-source">x &lt; 1 &amp;&amp; y &gt; 2</pre>`,
		`<pre class="vl-stream vl-stdout">red` + "\n</pre>",
		`<script type="application/vnd.jupyter.widget-view+json">{"model_id":"m1","version_major":2,"version_minor":0}</script><pre class="vl-widget-text">Label()</pre>`,
		`<pre class="vl-output vl-plain">Gone()</pre>`,
		`<div class="vl-output vl-html"><table><tr><td>0.999</td></tr></table></div>`,
		`<div class="vl-output vl-vega"><div class="vl-vega-fallback">` + "\n" + `<div class="vl-output"><img src="data:image/png;base64,` + png + `" alt="chart"></div>` + "\n" +
			`</div><script type="application/vnd.vegalite.v5+json">{"mark":"\u003c/script\u003e"}</script></div>`,
		`<div class="vl-output vl-html"><svg id="s"></svg></div>`,
		`<pre class="vl-output vl-plain">a &lt; b</pre>`,
		`<pre class="vl-error">panic: boom</pre>`,
		`<div class="vl-prompt">[ ]:</div>`,
		`\u003c/script\u003e\u003cb\u003ex`,
		`href="data:text/css;base64,` + base64.StdEncoding.EncodeToString(testBundle.CSS) + `"`,
		`src="data:text/javascript;base64,` + base64.StdEncoding.EncodeToString(testBundle.JS) + `"`,
		`src="data:text/javascript;base64,` + base64.StdEncoding.EncodeToString(testBundle.Vega) + `"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Count(s, "</script>") != 5 { // one view, one chart, the state, page.js, vega.js
		t.Errorf("%d </script> in the page, want 5", strings.Count(s, "</script>"))
	}
	for _, bad := range []string{"http://", "https://", "\x1b"} {
		if strings.Contains(s, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	// Without a heading the fallback titles the page.
	page, err = exportPage([]byte(`{"nbformat":4,"cells":[{"cell_type":"markdown","source":"no heading"}]}`), "fallback", testBundle)
	if err != nil || !bytes.Contains(page, []byte("<title>fallback</title>")) || bytes.Contains(page, []byte("widget-state")) ||
		bytes.Contains(page, []byte(base64.StdEncoding.EncodeToString(testBundle.Vega))) {
		t.Errorf("a notebook without heading or widgets: %v\n%s", err, page)
	}
}

func TestExportCommandRejects(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"a.ipynb"},         // no -html
		{"-html", "x.html"}, // no notebook
		{"-html", "x.html", "a.ipynb", "b.ipynb"},   // two notebooks
		{"-html", "x.html", "does-not-exist.ipynb"}, // missing file
	} {
		var o, e bytes.Buffer
		if err := runExport(args, &o, &e); err == nil {
			t.Errorf("export %q accepted", args)
		}
	}
}

// TestExportBrowser runs testdata/export-widgets.ipynb with `veclab run`
// (an Interact over a slider that a later cell moves from 3 to 7),
// exports it with `veclab export -html` (bundling wasm/export's script
// into a fresh cache) and opens the page in chromium from a file: URL
// with every non-local request blocked (wasm/browsertest/export.js): the
// slider shows 7 and the Output its last content, "n squared is 49", and
// the notebook's lab/chart line chart is drawn by vega-embed.
func TestExportBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test is not short")
	}
	testenv.Need(t, testenv.Node, testenv.Chromium, testenv.BrowserTest, testenv.Export)
	root, err := moduleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	dir := t.TempDir()
	nb := filepath.Join(dir, "run.ipynb")
	var o, e bytes.Buffer
	if err := runNotebook([]string{filepath.Join("testdata", "export-widgets.ipynb"), "-o", nb, "-q"}, &o, &e); err != nil {
		t.Fatalf("run: %v\n%s", err, e.String())
	}
	page := filepath.Join(dir, "page.html")
	if err := runExport([]string{"-html", page, "-cache", filepath.Join(dir, "cache"), "-src", root, nb}, &o, &e); err != nil {
		t.Fatalf("export: %v\n%s", err, e.String())
	}
	t.Logf("run and export in %.1f s: %s%s", time.Since(start).Seconds(), e.String(), o.String())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Node.Path(), "export.js", page, "7", "n squared is 49", "1")
	cmd.Dir = filepath.Join(root, "wasm", "browsertest")
	cmd.Env = append(os.Environ(), "CHROMIUM="+testenv.Chromium.Path())
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("node export.js (%.1f s):\n%s", time.Since(t0).Seconds(), out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}
}
