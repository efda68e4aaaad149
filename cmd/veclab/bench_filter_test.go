package main

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestBenchFilterTiny runs the command at a tiny scale and checks the shape
// the article predicts: post-filter collapses to ≈ ef·s hits, the planners
// and exact search return every true neighbour.
func TestBenchFilterTiny(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "filter", "-n", "3000", "-queries", "10", "-dim", "32", "-warmup", "2",
		"-sel", "article,0.1", "-strategies", "exact,postfilter,iterative-relaxed,qdrant,redis,acorn-1"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	rowRE := func(filter, strategy string) []string {
		re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(filter) + `\s+(\d+)\s+` + regexp.QuoteMeta(strategy) + `\s+\S+\s+([0-9.]+)\s+([0-9.]+)`)
		m := re.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no row %q / %q:\n%s", filter, strategy, s)
		}
		return m
	}
	for _, st := range []string{"exact", "qdrant", "qdrant (no payload index)", "redis"} {
		m := rowRE("category == 'c3' && year >= 2022", st)
		if r, _ := strconv.ParseFloat(m[2], 64); r != 1 {
			t.Errorf("%s recall %v, want 1:\n%s", st, r, s)
		}
	}
	m := rowRE("bucket < 100", "postfilter")
	matching, _ := strconv.Atoi(m[1])
	hits, _ := strconv.ParseFloat(m[3], 64)
	if want := 40 * float64(matching) / 3000; hits > 2*want+1 {
		t.Errorf("post-filter mean hits %v, want ≈ 40·s = %.1f", hits, want)
	}
	m = rowRE("bucket < 100", "iterative-relaxed")
	if hits, _ := strconv.ParseFloat(m[3], 64); hits != 10 {
		t.Errorf("relaxed iterative scan mean hits %v, want 10", hits)
	}
}

func TestBenchFilterBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-sel", "2"}, `-sel "2"`},
		{[]string{"-sel", "abc"}, `-sel "abc"`},
		{[]string{"-sel", ""}, "-sel is empty"},
		{[]string{"-strategies", "magic"}, `unknown strategy "magic"`},
		{[]string{"-k", "0"}, "-k"},
		{[]string{"-gamma", "0"}, "-gamma"},
		{[]string{"-n", "-5"}, "n must be"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-efs", "40,x"}, `-efs "x"`},
		{[]string{"-efs", "0"}, `-efs "0"`},
		{[]string{"-threshold", "-1"}, "-threshold"},
		{[]string{"-acorn-nbhd", "fixed"}, `-acorn-nbhd: filtered: ACORN neighbourhood "fixed"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var errb bytes.Buffer
			_, err := parseBenchFilter(tc.args, &errb)
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestBenchFilterEfSweep checks that -efs gives one row per beam for the
// graph strategies (exact once) and -acorn-nbhd the other neighbourhood
// rows.
func TestBenchFilterEfSweep(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "filter", "-n", "2000", "-queries", "5", "-dim", "16", "-warmup", "0", "-seeds", "0",
		"-sel", "0.1", "-strategies", "exact,acorn-1", "-efs", "20,60", "-acorn-nbhd", "paper,new-only"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, row := range []string{"exact ", "acorn-1 ef=20 ", "acorn-1 ef=60 ", "acorn-1 ef=20 paper-nbhd", "acorn-1 ef=60 paper-nbhd", "acorn-1 ef=20 new-only-nbhd"} {
		if !strings.Contains(s, row) {
			t.Errorf("no row %q:\n%s", row, s)
		}
	}
	if strings.Contains(s, "exact ef=") {
		t.Errorf("exact repeated per beam:\n%s", s)
	}
}

// TestBenchFilterPayloadLinks: with a full_scan_threshold below the tag
// block (75 of 3,000 points) Qdrant walks the graph; the run over the
// graph with payload-block links finds the true neighbours the plain walk
// misses.
func TestBenchFilterPayloadLinks(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "filter", "-n", "3000", "-queries", "10", "-dim", "32", "-warmup", "2", "-workers", "1",
		"-sel", "tag", "-strategies", "qdrant", "-threshold", "30", "-noindex=false"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	recall := func(strategy string) float64 {
		re := regexp.MustCompile(`(?m)^tag == 't07'\s+\d+\s+` + regexp.QuoteMeta(strategy) + `\s+qdrant-graph\s+([0-9.]+)`)
		m := re.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no row %q on the graph path:\n%s", strategy, s)
		}
		r, _ := strconv.ParseFloat(m[1], 64)
		return r
	}
	plain, linked := recall("qdrant"), recall("qdrant +payload links")
	if linked < 0.9 || linked < plain+0.3 {
		t.Errorf("recall with payload links %.3f, without %.3f: want ≥ 0.9 and ≥ without + 0.3\n%s", linked, plain, s)
	}
	if !strings.Contains(errb.String(), "payload links:") {
		t.Errorf("no payload-links report on stderr:\n%s", errb.String())
	}
}
