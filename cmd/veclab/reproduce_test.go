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
		"E02  ok", "E06  ok", "wrote " + out,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
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
	if code := run([]string{"reproduce", "-list"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "E06  Redis EF_RUNTIME") {
		t.Errorf("-list: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
}
