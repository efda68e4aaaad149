package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestBenchIVFSmall(t *testing.T) {
	var out, errb bytes.Buffer
	err := runBenchIVF([]string{"-n", "1500", "-queries", "10", "-dim", "32", "-clusters", "5", "-warmup", "2",
		"-bits", "0,2", "-nprobe", "1,4", "-visit", "5,50", "-model", "nvme", "-conc", "4"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"recall@10", "recall@100", "float32", "osq-2bit", "nprobe=4", "visit=50%",
		"cold page cache, sequential", "O_DIRECT, concurrent(4)", "simulated local-nvme", "E13 budget", "E27, posting lists on disk", "list reads/q"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestBenchIVFSpillHierarchical(t *testing.T) {
	var out, errb bytes.Buffer
	err := runBenchIVF([]string{"-n", "2000", "-queries", "5", "-dim", "16", "-clusters", "4", "-warmup", "1",
		"-bits", "1", "-nprobe", "2", "-visit", "50", "-model", "off", "-spill", "-hierarchical", "-io-bits", "0"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if s := out.String(); !strings.Contains(s, "hierarchical k-means") || !strings.Contains(s, "osq-1bit") {
		t.Fatalf("unexpected output:\n%s", s)
	}
}

func TestBenchIVFBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-bits", "x"},
		{"-visit", "nan"},
		{"-peer", "annoy"},
		{"-model", "floppy"},
		{"-queries", "0"},
	} {
		var out, errb bytes.Buffer
		if err := runBenchIVF(args, &out, &errb); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("%v: got %v, want ErrInvalidArgument", args, err)
		}
	}
}
