package all

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../../.."

// nbVerdict is one verdict line of a notebook's saved output: the
// notebooks are executed at article scale (seed 1) and committed with
// their outputs, so they hold the lab's measured figures that docs quote.
type nbVerdict struct {
	where, lab, word, margin, reason string
}

// verdictFields splits a verdict table line ("E02  claim  article  lab
// agrees  +0.04  why") at its runs of two or more spaces and returns the
// key (experiment and claim), lab figure, word, margin and reason.
func verdictFields(line string) (key string, v nbVerdict, ok bool) {
	f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
	if len(f) < 5 || !regexp.MustCompile(`^E\d\d$`).MatchString(f[0]) {
		return "", v, false
	}
	for i := 3; i < len(f); i++ {
		if f[i] != "agrees" && f[i] != "differs" {
			continue
		}
		v = nbVerdict{lab: f[i-1], word: f[i]}
		rest := f[i+1:]
		if len(rest) > 0 && (strings.HasPrefix(rest[0], "+") || strings.HasPrefix(rest[0], "−")) {
			v.margin, rest = rest[0], rest[1:]
		}
		v.reason = strings.Join(rest, "  ")
		return f[0] + " " + f[1], v, true
	}
	return "", v, false
}

// notebookVerdicts reads every verdict line of every committed
// notebook's outputs.
func notebookVerdicts(t *testing.T) map[string][]nbVerdict {
	t.Helper()
	nbs, err := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	if err != nil || len(nbs) == 0 {
		t.Fatalf("no notebooks under %s/notebooks: %v", root, err)
	}
	out := map[string][]nbVerdict{}
	for _, nb := range nbs {
		b, err := os.ReadFile(nb)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Cells []struct {
				ID      string `json:"id"`
				Type    string `json:"cell_type"`
				Outputs []struct {
					Text json.RawMessage            `json:"text"`
					Data map[string]json.RawMessage `json:"data"`
				} `json:"outputs"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", nb, err)
		}
		for _, c := range d.Cells {
			for _, o := range c.Outputs {
				for _, raw := range []json.RawMessage{o.Text, o.Data["text/plain"]} {
					for _, line := range strings.Split(multiline(raw), "\n") {
						if key, v, ok := verdictFields(line); ok {
							v.where = filepath.Base(nb) + " cell " + c.ID
							out[key] = append(out[key], v)
						}
					}
				}
			}
		}
	}
	return out
}

// multiline reads a notebook's text field, a string or a list of lines.
func multiline(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var ls []string
	_ = json.Unmarshal(raw, &ls)
	return strings.Join(ls, "")
}

// numbers returns the figures written in s (0.668, 1,304, 4.66).
func numbers(s string) []string {
	return regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`).FindAllString(s, -1)
}

// TestQuotedFigures fails when a figure a document quotes from a
// measured run no longer matches the committed article-scale run it
// quotes: the notebooks' saved outputs (seed 1), which `veclab run`
// rewrites whenever a notebook is re-executed. It covers the README's
// example verdict table and summary lines (every lab figure, verdict and
// margin, and every figure of a summary line's reason) and the figures
// lab/dataset's doc quotes for seed 1. A figure that moves because the
// code changed is then caught the next time the notebooks are re-run,
// before a reader meets the stale one.
func TestQuotedFigures(t *testing.T) {
	nv := notebookVerdicts(t)
	if len(nv) < 100 {
		t.Fatalf("only %d verdict lines in the notebooks' outputs", len(nv))
	}
	lookup := func(key string) (nbVerdict, bool) {
		vs := nv[key]
		if len(vs) == 0 {
			return nbVerdict{}, false
		}
		return vs[len(vs)-1], true
	}

	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	summary := regexp.MustCompile(`^(E\d\d)\s+(agrees|differs) \d+/\d+\s+(.*): article (.*?), lab (.*?) — (.*)$`)
	var tableLines, summaryLines int
	for _, line := range strings.Split(string(readme), "\n") {
		if key, v, ok := verdictFields(line); ok {
			tableLines++
			n, found := lookup(key)
			switch {
			case !found:
				t.Errorf("README quotes a verdict no notebook output has: %q", key)
			case n.lab != v.lab || n.word != v.word || n.margin != v.margin:
				t.Errorf("README quotes %s: lab %s, %s, margin %s; %s measured lab %s, %s, margin %s",
					key, v.lab, v.word, v.margin, n.where, n.lab, n.word, n.margin)
			}
			continue
		}
		m := summary.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		summaryLines++
		key := m[1] + " " + m[3]
		n, found := lookup(key)
		if !found {
			t.Errorf("README's summary quotes a verdict no notebook output has: %q", key)
			continue
		}
		if n.lab != m[5] {
			t.Errorf("README's summary quotes %s: lab %s; %s measured %s", key, m[5], n.where, n.lab)
		}
		have := map[string]bool{}
		for _, x := range numbers(n.reason) {
			have[x] = true
		}
		for _, x := range numbers(m[6]) {
			if !have[x] {
				t.Errorf("README's summary quotes %s with %s in its reason; %s's reason has no %s: %q", key, x, n.where, x, n.reason)
			}
		}
	}
	if tableLines < 6 || summaryLines < 4 {
		t.Errorf("README: %d verdict table lines and %d summary lines recognised, want its example's 6 and 4", tableLines, summaryLines)
	}

	doc, err := os.ReadFile(filepath.Join(root, "lab", "dataset", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(strings.ReplaceAll(string(doc), "//", " ")), " ")
	for _, q := range []struct {
		what  string
		quote *regexp.Regexp // the first group is the seed-1 figure
		key   string         // the verdict that measures it
	}{
		{"Elasticsearch's default recall@10, seed 1", regexp.MustCompile(`\(lab/profile: bbq_hnsw, ten segments\) reads recall@10 (\d\.\d+) /`),
			"E02 elasticsearch on its defaults: recall@10 is 0.491"},
		{"int8_hnsw's filtered recall@10, seed 1", regexp.MustCompile(`int8_hnsw under the article's filter .*? reads (\d\.\d+) /`),
			"E10 int8_hnsw (index type): filtered recall@10 is 0.974"},
	} {
		m := q.quote.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("lab/dataset/doc.go no longer quotes %s where this test looks (%s)", q.what, q.quote)
			continue
		}
		n, found := lookup(q.key)
		if !found {
			t.Errorf("no notebook output measures %q", q.key)
			continue
		}
		if m[1] != n.lab {
			t.Errorf("lab/dataset/doc.go quotes %s as %s; %s measured %s", q.what, m[1], n.where, n.lab)
		}
	}
}
