package kernel_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/veclab/veclab/internal/testenv"
)

// TestNotebooksValid reads every notebook of the course (and the kernel's
// test notebooks) with Jupyter's own validator, strictly: nbformat's
// schema for the notebook's version, nothing repaired (a 4.5 notebook
// whose cells lack the "id" 4.5 requires fails), and the saved widget
// state and widget views against the ipywidgets project's JSON schemas
// (@jupyter-widgets/schema, pinned in wasm/export). A notebook written by
// hand or by a tool that drops ids fails here; `veclab run` keeps ids.
func TestNotebooksValid(t *testing.T) {
	testenv.Need(t, testenv.JupyterClient, testenv.Export)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	books, _ := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	tests, _ := filepath.Glob(filepath.Join(root, "kernel", "testdata", "*.ipynb"))
	books = append(books, tests...)
	if len(books) < 17 {
		t.Fatalf("found %d notebooks, want the course's 17 and more", len(books))
	}
	// Two notebooks the validator must refuse, so a pass means something:
	// a cell without an id, and a saved widget state without its version.
	bad := t.TempDir()
	noID := filepath.Join(bad, "no-id.ipynb")
	badState := filepath.Join(bad, "bad-state.ipynb")
	for path, nb := range map[string]string{
		noID:     `{"nbformat":4,"nbformat_minor":5,"metadata":{},"cells":[{"cell_type":"code","metadata":{},"execution_count":null,"outputs":[],"source":"1"}]}`,
		badState: `{"nbformat":4,"nbformat_minor":5,"metadata":{"widgets":{"application/vnd.jupyter.widget-state+json":{"state":{}}}},"cells":[]}`,
	} {
		if err := os.WriteFile(path, []byte(nb), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	schema := filepath.Join(root, "wasm", "export", "node_modules", "@jupyter-widgets", "schema")
	if _, err := os.Stat(filepath.Join(schema, "v2", "state.schema.json")); err != nil {
		t.Fatalf("the widget schemas: %v", err)
	}
	var res struct {
		Notebooks []struct {
			Path    string   `json:"path"`
			Minor   int      `json:"minor"`
			Cells   int      `json:"cells"`
			Errors  []string `json:"errors"`
			Widgets int      `json:"widgets"`
			Views   int      `json:"views"`
		} `json:"notebooks"`
	}
	runPyCheck(t, os.Environ(), &res, "nbvalid.py", append([]string{schema, noID, badState}, books...)...)
	if len(res.Notebooks) != len(books)+2 {
		t.Fatalf("the validator read %d of %d notebooks", len(res.Notebooks), len(books)+2)
	}
	for _, nb := range res.Notebooks[:2] {
		if len(nb.Errors) == 0 {
			t.Errorf("%s: the validator found nothing wrong", filepath.Base(nb.Path))
		}
	}
	valid, widgets := 0, 0
	for _, nb := range res.Notebooks[2:] {
		rel, _ := filepath.Rel(root, nb.Path)
		for _, e := range nb.Errors {
			t.Errorf("%s: %s", rel, e)
		}
		if nb.Minor < 5 {
			t.Errorf("%s: nbformat 4.%d, want 4.5 (cell ids)", rel, nb.Minor)
		}
		if len(nb.Errors) == 0 && nb.Minor >= 5 {
			valid++
		}
		widgets += nb.Widgets
	}
	t.Logf("%d of %d notebooks valid nbformat 4.5; %d saved widget models checked against @jupyter-widgets/schema", valid, len(books), widgets)
}
