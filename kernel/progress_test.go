package kernel_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestProgressNbconvert executes testdata/progress.ipynb with nbconvert
// (nbclient): the saved notebook has no progress display and every other
// output in order, and a display of the cell whose bar was removed still
// takes the update a later cell sends it.
func TestProgressNbconvert(t *testing.T) {
	needJupyter(t)
	env := jupyterEnv(t)
	outDir := t.TempDir()
	cmd := exec.Command(python, "-Xfrozen_modules=off", "-m", "nbconvert", "--to", "notebook", "--execute",
		"--ExecutePreprocessor.kernel_name=veclab", "--ExecutePreprocessor.timeout=120",
		"--output-dir", outDir, filepath.Join("testdata", "progress.ipynb"))
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nbconvert: %v\n%s", err, b)
	}
	checkProgressOutputs(t, filepath.Join(outDir, "progress.ipynb"), "step 2")
}

// TestProgressVeclabRun runs testdata/progress.ipynb with `veclab run`:
// the same outputs, except that veclab run does not apply an update from a
// later cell to an earlier one.
func TestProgressVeclabRun(t *testing.T) {
	needJupyter(t)
	bin := veclabBinary(t)
	out := filepath.Join(t.TempDir(), "progress.run.ipynb")
	if b, err := exec.Command(bin, "run", "-q", "-o", out, filepath.Join("testdata", "progress.ipynb")).CombinedOutput(); err != nil {
		t.Fatalf("veclab run: %v\n%s", err, b)
	}
	checkProgressOutputs(t, out, "step 1")
}

func checkProgressOutputs(t *testing.T, path, step string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "<progress") || strings.Contains(string(b), "build: ") || strings.Contains(string(b), "later: ") {
		t.Errorf("%s keeps a progress display:\n%s", path, b)
	}
	var nb struct {
		Cells []struct {
			Outputs []map[string]any `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	type out struct{ typ, key, text string }
	sum := func(o []map[string]any) []out {
		var s []out
		for _, x := range o {
			switch x["output_type"] {
			case "stream":
				s = append(s, out{"stream", x["name"].(string), nbText(x["text"])})
			case "display_data", "execute_result":
				d := x["data"].(map[string]any)
				key := "text/plain"
				for _, k := range []string{"text/markdown", "text/html"} {
					if d[k] != nil {
						key = k
						break
					}
				}
				s = append(s, out{x["output_type"].(string), key, nbText(d[key])})
			default:
				s = append(s, out{x["output_type"].(string), "", ""})
			}
		}
		return s
	}
	want := [][]out{
		nil,
		{{"stream", "stdout", "before\nbetween\n"}, {"display_data", "text/markdown", step},
			{"display_data", "text/html", "<em>after</em>"}, {"stream", "stdout", "end\n"}, {"execute_result", "text/plain", "42"}},
		nil,
		nil,
		{{"stream", "stdout", "plain\n"}},
	}
	if len(nb.Cells) != len(want) {
		t.Fatalf("%d cells, want %d", len(nb.Cells), len(want))
	}
	for i, w := range want {
		got := sum(nb.Cells[i].Outputs)
		if len(got) != len(w) {
			t.Errorf("cell %d: outputs %+v, want %+v", i, got, w)
			continue
		}
		for j := range w {
			if got[j] != w[j] {
				t.Errorf("cell %d output %d: %+v, want %+v", i, j, got[j], w[j])
			}
		}
	}
}

// progressLine is the text of a progress display: display.ProgressBundle's
// ("build: 300 of 2000 (15 %) · 1.2 s, …") and, alone in a bundle, the
// notebooks' earlier helper's ("build: 2000 of 2000"), whose last update
// stayed in the saved outputs.
var progressLine = regexp.MustCompile(`^[^\n]*: \d+ of \d+( \(\d+ %\) · [^\n]*)?\n?$`)

// TestNotebooksKeepNoProgress checks the saved outputs of notebooks/: no
// display of a progress bar (the kernels take it away when its cell ends)
// nor the final "what: N of N" line of the displays the notebooks used
// before. A notebook run on a kernel that left them would fail it.
func TestNotebooksKeepNoProgress(t *testing.T) {
	books, _ := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if len(books) == 0 {
		t.Fatal("no notebooks in notebooks/")
	}
	for _, book := range books {
		b, err := os.ReadFile(book)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Outputs []struct {
					OutputType string         `json:"output_type"`
					Data       map[string]any `json:"data"`
				} `json:"outputs"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", book, err)
		}
		for i, c := range nb.Cells {
			for _, o := range c.Outputs {
				if o.OutputType != "display_data" && o.OutputType != "update_display_data" {
					continue
				}
				html, text := nbText(o.Data["text/html"]), nbText(o.Data["text/plain"])
				bar := strings.Contains(html, "veclab-progress") || strings.Contains(html, "<progress")
				line := progressLine.MatchString(text) && (len(o.Data) == 1 || bar)
				if bar || line {
					t.Errorf("%s: cell %d keeps a progress display: %q", filepath.Base(book), i, text)
				}
			}
		}
	}
}
