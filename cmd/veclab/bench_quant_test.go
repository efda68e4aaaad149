package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/quantizers"
)

// TestBenchQuantTiny runs every quantizer on a tiny data set, flat and
// through HNSW, from RAM and from disk, and checks the table: one row per
// quantizer, the raw flat scan exact, recall non-decreasing with
// oversample on the flat scan (a rescored superset can only gain).
func TestBenchQuantTiny(t *testing.T) {
	for _, disk := range [][]string{{"-disk=false"}, {"-disk", "-cold"}} {
		var out, errb bytes.Buffer
		args := append([]string{"bench", "quant", "-n", "600", "-queries", "6", "-dim", "64", "-workers", "1"}, disk...)
		if rc := run(args, &out, &errb); rc != 0 {
			t.Fatalf("%s: rc %d, stderr:\n%s", disk, rc, errb.String())
		}
		// The recall table runs from its header to the first blank line.
		rows := map[string][]string{}
		in, done := false, false
		for _, line := range strings.Split(out.String(), "\n") {
			f := strings.Fields(line)
			switch {
			case done:
			case len(f) > 0 && f[0] == "quantizer" && !in:
				in = true
			case in && len(f) == 0:
				done = true
			case in:
				if len(f) != 12 {
					t.Fatalf("row %q has %d cells, want 12", line, len(f))
				}
				rows[f[0]] = f
			}
		}
		for _, name := range quantizers.Names() {
			if rows[name] == nil {
				t.Fatalf("%s: no row for %s in:\n%s", disk, name, out.String())
			}
		}
		if rows["raw"][2] != "1.000" {
			t.Errorf("raw flat recall %s, want 1.000", rows["raw"][2])
		}
		for name, f := range rows {
			prev := -1.0
			for _, cell := range f[3:7] { // flat ×1 … ×5
				v, err := strconv.ParseFloat(cell, 64)
				if err != nil || v < 0 || v > 1 {
					t.Fatalf("%s: bad recall cell %q", name, cell)
				}
				if v < prev {
					t.Errorf("%s: flat recall fell with oversample: %v", name, f[2:7])
				}
				prev = v
			}
		}
	}
}

func TestBenchQuantBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-oversample", "0.5"},
		{"-oversample", "x"},
		{"-only", "int3"},
		{"-k", "0"},
		{"-m", "1"},
		{"-n", "0"},
		{"-queries", "-1"},
		{"extra"},
		{"-cold"},
	} {
		var out, errb bytes.Buffer
		if rc := run(append([]string{"bench", "quant"}, args...), &out, &errb); rc == 0 {
			t.Errorf("%v accepted", args)
		} else if !strings.Contains(errb.String(), "bench quant") {
			t.Errorf("%v: error does not name the command: %s", args, errb.String())
		}
	}
}
