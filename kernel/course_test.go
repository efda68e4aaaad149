package kernel_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
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
		nb, err := readCells(filepath.Join(dir, name+".ipynb"))
		if err != nil {
			t.Fatalf("README.md lists %s: %v", name, err)
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

// TestCourseFacts keeps the facts several notebooks state in step with
// the one place each comes from, so the course does not contradict
// itself (issue: notebook 03 and 04 once said the article used real
// embeddings, notebook 14 and lab/dataset said synthetic clusters):
//
//   - the Spring AI article's data is synthetic (its own words, quoted in
//     lab/dataset/doc.go): no Markdown cell says the article used real
//     embeddings, and every notebook that describes "The data set" calls
//     it synthetic;
//   - Elasticsearch centres its BBQ codes on the plain segment mean (it
//     hands Lucene a cosine field as DOT_PRODUCT; lab/profile): no cell
//     says Elasticsearch or bbq_hnsw normalises the centroid;
//   - every "N queries" a Markdown cell states is a query count the code
//     runs: the article scale's queries and warm-up (experiment.Article),
//     the small scale's (experiment.Small), the simulated devices' cap
//     (20, simulatedCap in lab/experiment/notebook.go) and the real sets'
//     (200, OpenRealSets), or a figure's own count listed below.
func TestCourseFacts(t *testing.T) {
	dir := filepath.Join("..", "notebooks")
	books, _ := filepath.Glob(filepath.Join(dir, "*.ipynb"))
	if len(books) == 0 {
		t.Fatal("no notebooks")
	}
	forbidden := []struct {
		re  *regexp.Regexp
		why string
	}{
		{regexp.MustCompile(`(?i)article(?:'s)?\b[^.]{0,60}\b(?:used|uses|ran on|runs on|measured on|is|are|was|were) real embeddings`),
			"the Spring AI article's data is synthetic (clustered random vectors, no embedding model)"},
		{regexp.MustCompile(`(?i)(?:elasticsearch|bbq_hnsw)\b[^.]{0,100}\bnormali[sz]e[sd]? (?:the |its )?(?:centroid|mean)`),
			"Elasticsearch centres BBQ codes on the plain segment mean (cosine is handed to Lucene as DOT_PRODUCT)"},
	}
	counts := map[int]string{
		experiment.Article.Queries: "experiment.Article.Queries", experiment.Article.Warmup: "experiment.Article.Warmup",
		experiment.Small.Queries: "experiment.Small.Queries", experiment.Small.Warmup: "experiment.Small.Warmup",
		20: "the simulated devices' cap", 200: "the real sets' queries",
	}
	figureCounts := map[string][]int{"00b-quantization-by-picture": {5}} // the distance-distortion picture's 5 queries
	queries := regexp.MustCompile(`\b(\d[\d,]*) queries\b`)
	described := 0
	for _, path := range books {
		name := strings.TrimSuffix(filepath.Base(path), ".ipynb")
		nb, err := readCells(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, c := range nb.Cells {
			if c.CellType != "markdown" {
				continue
			}
			text := nbText(c.Source)
			for _, f := range forbidden {
				if m := f.re.FindString(text); m != "" {
					t.Errorf("%s cell %d: %q — %s", name, i, m, f.why)
				}
			}
			if strings.HasPrefix(text, "## The data set") {
				described++
				if low := strings.ToLower(text); !strings.Contains(low, "synthetic") && !strings.Contains(low, "real") {
					t.Errorf("%s cell %d: \"The data set\" does not say the data is synthetic", name, i)
				}
			}
			for _, m := range queries.FindAllStringSubmatch(text, -1) {
				n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := counts[n]; ok || slices.Contains(figureCounts[name], n) {
					continue
				}
				t.Errorf("%s cell %d: %q is no query count the code runs (%v)", name, i, m[0], counts)
			}
		}
	}
	if described == 0 {
		t.Error("no notebook has a \"The data set\" section: the synthetic-data check checked nothing")
	}
}

// TestCourseTakeaways keeps a learner's summary in every notebook: one
// Markdown cell marked "<!-- veclab: takeaways -->" with 3–5 takeaway
// points and 2–3 numbered "Try this" prompts, each prompt saying what
// the learner should see.
func TestCourseTakeaways(t *testing.T) {
	books, _ := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if len(books) == 0 {
		t.Fatal("no notebooks")
	}
	for _, path := range books {
		name := strings.TrimSuffix(filepath.Base(path), ".ipynb")
		nb, err := readCells(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var box string
		for _, c := range nb.Cells {
			if text := nbText(c.Source); c.CellType == "markdown" && strings.HasPrefix(text, "<!-- veclab: takeaways -->") {
				box = text
			}
		}
		if box == "" {
			t.Errorf("%s: no takeaways cell", name)
			continue
		}
		take, try, ok := strings.Cut(box, "### Try this")
		if !ok {
			t.Errorf("%s: the takeaways cell has no \"Try this\" section", name)
			continue
		}
		points := len(regexp.MustCompile(`(?m)^\* `).FindAllString(take, -1))
		prompts := regexp.MustCompile(`(?m)^\d\. `).Split(try, -1)[1:]
		if points < 3 || points > 5 {
			t.Errorf("%s: %d takeaway points, want 3–5", name, points)
		}
		if len(prompts) < 2 || len(prompts) > 3 {
			t.Errorf("%s: %d try-this prompts, want 2–3", name, len(prompts))
		}
		for i, p := range prompts {
			if !strings.Contains(strings.ToLower(strings.Join(strings.Fields(p), " ")), "you should see") {
				t.Errorf("%s: try-this prompt %d does not say what the learner should see", name, i+1)
			}
		}
	}
}

// nbCells is what the course tests read of a notebook: its cells' types
// and sources.
type nbCells struct {
	Cells []struct {
		CellType string `json:"cell_type"`
		Source   any    `json:"source"`
	} `json:"cells"`
}

// readCells reads a notebook's cells.
func readCells(path string) (nbCells, error) {
	var nb nbCells
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &nb)
	}
	return nb, err
}
