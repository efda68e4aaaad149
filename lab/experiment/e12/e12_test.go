package e12

import (
	"github.com/veclab/veclab/lab/experiment/internal/exptest"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE12Small runs E12 at the small scale and checks the promise: writes
// below the high watermark land, writes above it (or crossing it) are
// refused by the named watermark, and a refusal loses nothing.
func TestE12Small(t *testing.T) {
	env := exptest.Small(t)
	rows, err := Measure(env, DiskBytes, Disks)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*len(Disks) {
		t.Fatalf("%d rows, want %d", len(rows), 2*len(Disks))
	}
	want := map[string]struct{ op, watermark string }{
		"80 %": {}, "89 %": {},
		"just under 90 %, the save crosses it": {"write", "high"},
		"91 %":                                 {"create", "high"},
		"96 %":                                 {"create", "flood-stage"},
		"80 %, flooded to 96 % before the rename": {"rename", "flood-stage"}, // the index; the vectors then meet a flooded disk
	}
	for _, r := range rows {
		w, ok := want[r.Disk]
		if !ok {
			t.Fatalf("unexpected disk %q", r.Disk)
		}
		if r.Disk == "80 %, flooded to 96 % before the rename" && r.File == "vectors" {
			w = struct{ op, watermark string }{"create", "flood-stage"}
		}
		if r.Written != (w.op == "") || r.Op != w.op || r.Watermark != w.watermark {
			t.Errorf("%s %s: written %v at %q by %q, want at %q by %q", r.Disk, r.File, r.Written, r.Op, r.Watermark, w.op, w.watermark)
		}
		gen := "new"
		if !r.Written {
			gen = "previous"
			if !strings.Contains(r.Err, w.watermark+" watermark") || !strings.Contains(r.Err, map[string]string{"index": "index.hnsw", "vectors": "vectors.vec"}[r.File]) {
				t.Errorf("%s %s: error %q does not name the watermark and the file", r.Disk, r.File, r.Err)
			}
			if strings.Contains(r.Err, "veclab-e12") {
				t.Errorf("error carries the machine's temporary path: %q", r.Err)
			}
		}
		if r.OnDisk != gen || !r.Loads || !r.Identical || r.TempLeft != 0 {
			t.Errorf("%s %s: path holds %q (loads %v, identical %v, %d temp files), want the %s generation intact", r.Disk, r.File, r.OnDisk, r.Loads, r.Identical, r.TempLeft, gen)
		}
	}
	rep := experiment.Run(env, e12)
	if rep.Status != experiment.OK || len(rep.Tables) != 1 {
		t.Fatalf("E12: %s: %s", rep.Status, rep.Err)
	}
	if s := rep.String(); !strings.Contains(s, "REFUSED") || !strings.Contains(s, "every refused save left the previous file") {
		t.Errorf("report lacks the refusals or the no-loss note:\n%s", s)
	}
	if _, err := Measure(env, DiskBytes, nil); err == nil {
		t.Error("Measure with no disks succeeded")
	}
}
