package e12

import (
	"reflect"
	"testing"
)

// TestE12SaveChart checks the index rows only are drawn, in order, with
// the long labels shortened and the generation kept as 100 or 0.
func TestE12SaveChart(t *testing.T) {
	rows := []Row{
		{Disk: "80 %", File: "index", Before: 0.8, OnDisk: "new"},
		{Disk: "80 %", File: "vectors", Before: 0.81, OnDisk: "new"},
		{Disk: "just under 90 %, the save crosses it", File: "index", Before: 0.899, OnDisk: "previous"},
	}
	c := SaveChart(rows)
	if !reflect.DeepEqual(c.Categories, []string{"80 %", "just under 90 % (crosses)"}) {
		t.Fatalf("categories %q", c.Categories)
	}
	if got := c.Series[1].Values; !reflect.DeepEqual(got, []float64{100, 0}) {
		t.Errorf("new kept %v, want [100 0]", got)
	}
	if got := c.Series[0].Values; len(got) != 2 || got[0] != 80 || got[1] < 89.89 || got[1] > 89.91 {
		t.Errorf("used before %v, want [80 89.9]", got)
	}
	for _, d := range Disks {
		if s, ok := e12ShortLabels[d.Label]; ok && len(s) >= len(d.Label) {
			t.Errorf("short label %q is not shorter than %q", s, d.Label)
		}
	}
	if len(e12ShortLabels) != 2 {
		t.Errorf("%d short labels: one of Disks' labels changed", len(e12ShortLabels))
	}
	n := 0
	for _, d := range Disks {
		if _, ok := e12ShortLabels[d.Label]; ok {
			n++
		}
	}
	if n != len(e12ShortLabels) {
		t.Errorf("only %d of the %d short labels name a disk of Disks", n, len(e12ShortLabels))
	}
}
