package main

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestBenchIVFFlags: every bad flag is refused before any work (no
// output), with an error naming the flag and the value; good flags reach
// the lab's configuration.
func TestBenchIVFFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-bits", "x"}, `-bits "x" is not an integer`},
		{[]string{"-bits", "0,3"}, "-bits 3: want 0 (float32 lists) or 1, 2, 4, 8"},
		{[]string{"-bits", "0,4", "-io-bits", "2"}, "-io-bits 2 is not among -bits [0 4]"},
		{[]string{"-nprobe", "0"}, "-nprobe 0 < 1"},
		{[]string{"-visit", "nan"}, `-visit "nan" is not a number`},
		{[]string{"-visit", "101"}, "-visit 101 outside (0, 100]"},
		{[]string{"-peer-oversample", "3,x"}, `-peer-oversample "x" is not a number`},
		{[]string{"-oversample", "0"}, "-oversample 0"},
		{[]string{"-peer", "annoy"}, `-peer "annoy"`},
		{[]string{"-model", "floppy"}, "-model"},
		{[]string{"-queries", "0"}, "-queries 0 must be positive"},
		{[]string{"-conc", "0"}, "-conc 0"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runBenchIVF(tc.args, &out, &errb)
			if !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalidArgument with %q", err, tc.want)
			}
			if out.Len() > 0 || errb.Len() > 0 {
				t.Errorf("work done before the error: %q %q", out.String(), errb.String())
			}
		})
	}
	f, err := parseBenchIVF([]string{"-bits", "0,1", "-seed", "7", "-peer", "faiss", "-visit", ""}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	// -io-bits left at its default, 2, which -bits does not sweep: no I/O table.
	if c := f.cfg; !slices.Equal(c.Bits, []int{0, 1}) || c.IOBits != 0 || c.Seed != 7 || !c.Faiss || len(c.Visits) != 0 {
		t.Errorf("config %+v", c)
	}
}

// TestBenchIVFSmall runs the command on a tiny set: the data set's line,
// then the lab's report.
func TestBenchIVFSmall(t *testing.T) {
	var out, errb bytes.Buffer
	err := runBenchIVF([]string{"-n", "1500", "-queries", "10", "-dim", "32", "-clusters", "5", "-warmup", "2",
		"-bits", "0,2", "-nprobe", "1,4", "-visit", "5,50", "-model", "off", "-conc", "2"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"veclab bench ivf — 1500×32 unit vectors (5 clusters, seed 0), 10 queries (+2 warm-up)",
		"IVF: nlist 4,", "osq-2bit  visit=50%", "O_DIRECT, concurrent(2)", "E27, posting lists on disk"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}
