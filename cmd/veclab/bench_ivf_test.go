package main

import (
	"bytes"
	"errors"
	"regexp"
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
		{"-peer-oversample", "3,x"},
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

// TestBenchIVFFaissPeer runs the FAISS peer at a small scale and checks the
// ratio lines of the quantized lists against IVF-SQ8 and against float32
// lists are there.
func TestBenchIVFFaissPeer(t *testing.T) {
	var out, errb bytes.Buffer
	err := runBenchIVF([]string{"-n", "2000", "-queries", "20", "-dim", "32", "-clusters", "6", "-warmup", "2",
		"-bits", "0,2", "-nprobe", "2,8", "-visit", "10", "-io-bits", "0", "-peer", "faiss", "-peer-oversample", "3,5"}, &out, &errb)
	if err != nil {
		t.Fatalf("the FAISS peer needs Debian's python3-faiss: %v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`veclab osq-2bit \+ rescoring \(file\) +nprobe=8 os=5 +[01]\.\d{3} +\d+ +\d+`),
		regexp.MustCompile(`veclab osq-2bit \+ rescoring \(RAM\) +nprobe=8 os=5 +[01]\.\d{3} +\d+ +\d+`),
		regexp.MustCompile(`osq-2bit \+ rescoring \(file\) +FAISS IndexIVFScalarQuantizer\(QT_8bit\) +(not reached|\d+ \(nprobe=\d os=\d+\))`),
		regexp.MustCompile(`osq-2bit \+ rescoring \(RAM\) +veclab float32 lists +(not reached|\d+ \(nprobe=\d os=\d+\))`),
		regexp.MustCompile(`generic x86-64 build`),
	} {
		if !want.MatchString(s) {
			t.Errorf("output lacks %v:\n%s", want, s)
		}
	}
}
