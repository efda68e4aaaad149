package e13

import (
	"math"
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE13Bandwidth checks the bandwidth verdict against what the device
// read: the rows of the article's width when measured (the kernel's count,
// else the pages not resident), the bytes requested otherwise.
func TestE13Bandwidth(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	warm := experiment.DiskPoint{Reads: 100, KB: 150.4}
	for _, c := range []struct {
		name   string
		wide   *experiment.RowReads
		kb     float64 // requested KiB per query
		agrees bool
		reason string
	}{
		{"device bytes of 768-dim rows, 1.75 pages a read", &experiment.RowReads{Dim: 768, RowBytes: 3076, Reads: 100, DevPages: 175, DevKB: 700}, 150.4, true, "7168 B per read (/proc/self/io read_bytes; 1.75 pages"},
		{"no kernel count: the pages", &experiment.RowReads{Dim: 768, RowBytes: 3076, Reads: 100, DevPages: 175, DevKB: math.NaN()}, 150.4, true, "1.75 pages of 4 KiB per read not resident; the kernel's count unknown here"},
		{"one page a read", &experiment.RowReads{Dim: 768, RowBytes: 3076, Reads: 100, DevPages: 100, DevKB: 400}, 150.4, false, "4096 B per read"},
		{"not measured: the bytes requested", nil, 150.4, false, "the device bytes of rows of the article's width were not measured"},
		{"not measured, 8 KB requested", nil, 800, true, "within the tolerance"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cold := experiment.DiskPoint{Reads: 100, DeviceReads: 100, KB: c.kb, DevPages: 137, DevKB: 548, Wide: c.wide}
			vs := Verdicts(env, warm, cold)
			v := vs[0] // the bandwidth verdict, E13's headline
			if v.Agrees != c.agrees || !strings.Contains(v.Reason, c.reason) {
				t.Errorf("%s: %s (%s), want agrees=%t and %q", v.Claim, v.Word(), v.Reason, c.agrees, c.reason)
			}
		})
	}
}
