package main

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestBenchPQFlags: every bad flag is refused before any work, with an
// error naming the flag and the value; good flags reach the lab's
// configuration.
func TestBenchPQFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", "x"}, `-m "x" is not an integer`},
		{[]string{"-m", "8,0"}, "-m 0 < 1"},
		{[]string{"-bits", "9"}, "-bits 9: want 1 to 8"},
		{[]string{"-nprobe", "0"}, "-nprobe 0 < 1"},
		{[]string{"-iters", "0"}, "-iters 0"},
		{[]string{"-peer", "annoy"}, `-peer "annoy"`},
		{[]string{"-queries", "0"}, "-queries 0 must be positive"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"-data", "glove-3k", "-n", "0"}, "-n 0: want a positive count"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runBenchPQ(tc.args, &out, &errb)
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalidArgument with %q", err, tc.want)
			}
			if out.Len() > 0 || errb.Len() > 0 {
				t.Errorf("work done before the error: %q %q", out.String(), errb.String())
			}
		})
	}
	f, err := parseBenchPQ([]string{"-m", "4,12", "-seed", "7", "-peer", "faiss", "-nlist", "-1"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if c := f.cfg; !slices.Equal(c.M, []int{4, 12}) || c.Seed != 7 || !c.Faiss || c.Nlist != -1 {
		t.Errorf("config %+v", c)
	}
}

// TestBenchPQSmall runs the command on a tiny set without the peer: 30
// dimensions padded to 36 for M = 4 and 12, the PQ and IVF-PQ rows.
func TestBenchPQSmall(t *testing.T) {
	var out, errb bytes.Buffer
	err := runBenchPQ([]string{"-n", "600", "-queries", "20", "-dim", "30", "-clusters", "5", "-warmup", "2",
		"-m", "4,12", "-bits", "6", "-nprobe", "1,24", "-iters", "5"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"600 base vectors, 20 queries, 30 dimensions, cosine",
		"6 zero components appended (30 → 36 dimensions)", "IVF-PQ  12      24"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

// TestBenchPQRealSubset runs the command on the compiled-in glove-3k's
// first 1,000 vectors: the truth is recomputed over them, and the 100
// dimensions are padded to 104 for M = 8 and 4.
func TestBenchPQRealSubset(t *testing.T) {
	var out, errb bytes.Buffer
	err := runBenchPQ([]string{"-data", "glove-3k", "-n", "1000", "-m", "8,4", "-bits", "6", "-nlist", "-1", "-iters", "3", "-warmup", "0"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"its first 1000 base vectors, exact truth recomputed", "1000 base vectors, 100 queries, 100 dimensions, cosine",
		"(100 → 104 dimensions)"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}
