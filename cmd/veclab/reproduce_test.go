package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReproduceSmall runs two experiments at the small scale, checks that
// every table prints the article's column beside the lab's, and that the
// Markdown report is written.
func TestReproduceSmall(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.md")
	js := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	code := run([]string{"reproduce", "-scale", "small", "-only", "E02,E06", "-out", out, "-json", js, "-seed", "3"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
	}
	s := stdout.String()
	for _, want := range []string{
		"scale small", "seed 3",
		"recall@10 (article)  recall@10 (lab)",
		"wrote " + out, "summary: per experiment, the article's claim, the lab's figure, and whether they agree",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// The closing line counts the experiments and claims.
	if !regexp.MustCompile(`(?m)^[0-9] of 2 experiments agree in every claim; [0-9]+ claims checked, [0-9]+ differ`).MatchString(s) {
		t.Errorf("no closing count line:\n%s", s)
	}
	// The summary line of each experiment is its headline verdict: the
	// claim, the article's figure and the lab's.
	for _, id := range []string{"E02", "E06"} {
		if !regexp.MustCompile(`(?m)^` + id + `  (agrees|differs) [0-9]+/[0-9]+ .*: article .*, lab `).MatchString(s) {
			t.Errorf("no verdict summary line for %s:\n%s", id, s)
		}
	}
	// The article's Redis row keeps the article's figure; the lab's is measured.
	row := regexp.MustCompile(`(?m)^redis\s+0\.616\s+([0-9.]+)\s`).FindStringSubmatch(s)
	if row == nil {
		t.Fatalf("no redis row with the article's 0.616 beside a lab figure:\n%s", s)
	}
	if r, _ := strconv.ParseFloat(row[1], 64); r <= 0 || r > 1 {
		t.Errorf("lab recall %v", r)
	}
	md, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# veclab reproduce", "## E02", "## E06", "| recall@10 (article) | recall@10 (lab) |", "data:image/svg+xml;base64,"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	if _, err := os.Stat(out + ".tmp"); !os.IsNotExist(err) {
		t.Error("temporary report file left behind")
	}
	var saved struct {
		Summary struct {
			Experiments int    `json:"experiments"`
			Claims      int    `json:"claims"`
			Line        string `json:"line"`
		} `json:"summary"`
		Reports []struct {
			ID     string  `json:"id"`
			Seed   float64 `json:"seed"`
			Status string  `json:"status"`
			Tables []any   `json:"tables"`
		} `json:"reports"`
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	if len(saved.Reports) != 2 || saved.Reports[0].ID != "E02" || saved.Reports[0].Seed != 3 || saved.Reports[1].Status != "ok" || len(saved.Reports[1].Tables) == 0 {
		t.Errorf("saved JSON: %+v", saved)
	}
	if saved.Summary.Experiments != 2 || saved.Summary.Claims == 0 || !strings.Contains(s, saved.Summary.Line) {
		t.Errorf("saved JSON's summary %+v is not the printed one", saved.Summary)
	}
}

func TestReproduceFlags(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"reproduce", "-only", "E02,E99"}, 1, "experiment: E99 (registered: "},
		{[]string{"reproduce", "-scale", "galactic"}, 1, "neither a scale name"},
		{[]string{"reproduce", "-scale", "n=0"}, 1, "n must be ≥ 1"},
		{[]string{"reproduce", "E02"}, 1, "experiments are chosen with -only"},
		{[]string{"reproduce", "-nope"}, 1, "flag provided but not defined"},
		{[]string{"reproduce", "-scale", "small", "-only", "E04", "-out", filepath.Join(os.DevNull, "x.md")}, 1, "writing report"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d containing %q", tt.args, code, stderr.String(), tt.code, tt.want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"reproduce", "-list"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "E06  Redis EF_RUNTIME") ||
		!strings.Contains(stdout.String(), "· E01 qdrant: docs/s = 17382\n") || !strings.Contains(stdout.String(), "· E15 warm page cache, sequential: QPS = 31.6\n") ||
		!strings.Contains(stdout.String(), "claim E15: warm page cache: concurrent reads are faster than sequential (the direction of the article's 31.6 → 35.8 QPS) — article 1.13× (direction > 1×)\n") {
		t.Errorf("-list: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestCatalogueUpToDate checks that docs/experiments.md is the output of
// `veclab reproduce -list -md` (regenerate it with that command).
func TestCatalogueUpToDate(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"reproduce", "-list", "-md"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	committed, err := os.ReadFile(filepath.Join("..", "..", "docs", "experiments.md"))
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(committed) {
		t.Errorf("docs/experiments.md is stale: run `go run ./cmd/veclab reproduce -list -md > docs/experiments.md`")
	}
	for _, want := range []string{"| E01 |", "| E27 |", "(../notebooks/11-lucene-quantization.ipynb)", "| verdicts |"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("catalogue lacks %q", want)
		}
	}
	if code := run([]string{"reproduce", "-md"}, &stdout, &stderr); code == 0 {
		t.Error("-md without -list accepted")
	}
}

// TestProgressBar drives the bar with a fake clock: it redraws in place,
// extrapolates the time left from the step's elapsed time and ends its
// line when the step is done.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := newProgressBar(&b)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return now }
	p.update(0, 4, "truth")
	now = now.Add(10 * time.Second)
	p.update(1, 4, "truth")
	if s := b.String(); !strings.Contains(s, "\r  truth [#######.......................] 1/4, 30s left") {
		t.Errorf("after 1 of 4 in 10 s: %q", s)
	}
	now = now.Add(30 * time.Second)
	p.update(4, 4, "truth")
	if s := b.String(); !strings.HasSuffix(s, "4/4, 0s left\x1b[K\n") {
		t.Errorf("done: %q", s)
	}
	b.Reset()
	p.update(0, 2, "build")
	p.update(1, 2, "build") // within 100 ms of the last redraw: skipped
	if s := b.String(); strings.Count(s, "\r") != 1 {
		t.Errorf("redrawn within 100 ms: %q", s)
	}
}
