package e12

import (
	"github.com/veclab/veclab/lab/chart"
)

// e12ShortLabels shortens the Disks labels that would crowd a bar
// chart's axis; the others are short already.
var e12ShortLabels = map[string]string{
	"just under 90 %, the save crosses it":    "just under 90 % (crosses)",
	"80 %, flooded to 96 % before the rename": "80 %, flooded to 96 %",
}

// SaveChart draws, per disk, its usage before the index save beside
// whether the path holds the new generation afterwards (100) or the
// previous one (0): a refused save keeps the old file, whatever the usage
// that refused it.
func SaveChart(rows []Row) *chart.Bars {
	var disks []string
	var usedPct, newPct []float64
	for _, r := range rows {
		if r.File != "index" {
			continue
		}
		label := r.Disk
		if s, ok := e12ShortLabels[r.Disk]; ok {
			label = s
		}
		kept := 0.0
		if r.OnDisk == "new" {
			kept = 100
		}
		disks, usedPct, newPct = append(disks, label), append(usedPct, 100*r.Before), append(newPct, kept)
	}
	c := chart.NewBars("E12 index save by disk (lab): usage before; new generation kept = 100, previous = 0", "%", disks...)
	c.Add("used before", usedPct)
	c.Add("new kept", newPct)
	c.Width, c.Height = 840, 400
	return c
}
