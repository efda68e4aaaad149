package kernel_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCourseNavigation keeps the course's reading order in one place,
// notebooks/README.md: every notebook is listed there once, the listing's
// order is the order the notebooks link each other in, and each notebook
// ends with the navigation cell pointing at the one before and the one
// after it in that order (and at the README).
func TestCourseNavigation(t *testing.T) {
	dir := filepath.Join("..", "notebooks")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\]\(([\w-]+)\.ipynb\)`).FindAllStringSubmatch(string(readme), -1) {
		if !seen[m[1]] {
			order = append(order, m[1])
			seen[m[1]] = true
		}
	}
	books, _ := filepath.Glob(filepath.Join(dir, "*.ipynb"))
	if len(books) == 0 || len(books) != len(order) {
		t.Fatalf("notebooks/README.md lists %d notebooks, the directory holds %d", len(order), len(books))
	}
	const mark = "<!-- veclab: course navigation -->"
	link := func(name string) string { return "(" + name + ".ipynb)" }
	for i, name := range order {
		b, err := os.ReadFile(filepath.Join(dir, name+".ipynb"))
		if err != nil {
			t.Fatalf("README.md lists %s: %v", name, err)
		}
		var nb struct {
			Cells []struct {
				CellType string `json:"cell_type"`
				Source   any    `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		last := nb.Cells[len(nb.Cells)-1]
		text := nbText(last.Source)
		if last.CellType != "markdown" || !strings.HasPrefix(text, mark) {
			t.Errorf("%s: the last cell is not the course navigation", name)
			continue
		}
		if !strings.Contains(text, "(README.md)") {
			t.Errorf("%s: the navigation does not link the README", name)
		}
		if i > 0 && !strings.Contains(text, "previous: [") || i > 0 && !strings.Contains(text, link(order[i-1])) {
			t.Errorf("%s: previous should be %s: %q", name, order[i-1], text)
		}
		if i+1 < len(order) && !strings.Contains(text, link(order[i+1])) {
			t.Errorf("%s: next should be %s: %q", name, order[i+1], text)
		}
		if i == 0 && strings.Contains(text, "previous:") || i == len(order)-1 && strings.Contains(text, "next:") {
			t.Errorf("%s: links beyond the ends of the course: %q", name, text)
		}
	}
}
