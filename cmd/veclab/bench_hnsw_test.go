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

// TestBenchHNSWTiny runs the command at a tiny scale and checks that it
// prints a row per ef with a recall that a working graph reaches.
func TestBenchHNSWTiny(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "hnsw", "-n", "2000", "-queries", "20", "-dim", "32", "-efc", "32",
		"-ef", "10,64", "-min-seconds", "0", "-timing", "best"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{"data set: n=2000 queries=20 dim=32", "M=16  efConstruction=32", "bytes/vector", "exact search (engine/flat"} {
		if !strings.Contains(s, want) {
			t.Fatalf("output lacks %q:\n%s", want, s)
		}
	}
	row := regexp.MustCompile(`(?m)^\s*64\s+([0-9.]+)\s+\d+`).FindStringSubmatch(s)
	if row == nil {
		t.Fatalf("no ef=64 row:\n%s", s)
	}
	if r, _ := strconv.ParseFloat(row[1], 64); r < 0.9 {
		t.Fatalf("recall@10 at ef=64 is %v on 2,000 points, want ≥ 0.9:\n%s", r, s)
	}
}

// TestBenchHNSWPeersFlag: "all" is the float peers, a list is taken as
// given.
func TestBenchHNSWPeersFlag(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"all", "hnswlib usearch usearch-f32acc faiss"},
		{"usearch-b1,faiss-sq8", "usearch-b1 faiss-sq8"},
		{"", ""},
	} {
		f, err := parseBenchHNSW([]string{"-peer", tc.arg}, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("-peer %q: %v", tc.arg, err)
		}
		if got := strings.Join(f.cfg.Peers, " "); got != tc.want {
			t.Errorf("-peer %q: peers %q, want %q", tc.arg, got, tc.want)
		}
	}
}

func TestBenchHNSWBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-ef", "10,x"}, `-ef "x" is not an integer`},
		{[]string{"-efc", ""}, "-efc is empty"},
		{[]string{"-k", "0"}, "-k must be ≥ 1"},
		{[]string{"-m", "1"}, "-m must be ≥ 2"},
		{[]string{"-peer", "hnswlib,annoy"}, `-peer "annoy": want hnswlib, usearch, usearch-f32acc, usearch-i8, usearch-b1, faiss, faiss-sq8 or all`},
		{[]string{"-rounds", "0"}, "-rounds must be ≥ 1"},
		{[]string{"-peer-rescore", "0"}, "-peer-rescore must be ≥ 1"},
		{[]string{"-timing", "fast"}, "want wall or best"},
		{[]string{"-n", "-5"}, "n must be ≥ 1"},
		{[]string{"extra"}, "unexpected arguments"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var errb bytes.Buffer
			_, err := parseBenchHNSW(tc.args, &errb)
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
