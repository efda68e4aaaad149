package e26

import (
	"strings"

	"github.com/veclab/veclab/lab/chart"
)

// storageChart draws each design's QPS at its best point (e26Best,
// as [ByStorage] tabulates it) per storage: where the rescoring reads
// are the same for both designs, a slow device narrows the gap their
// in-memory searches leave. The title names the simulated devices.
func storageChart(runs []StorageRun) *chart.Bars {
	var storages, simulated []string
	var qpsIVF, qpsHNSW []float64
	for _, r := range runs {
		storages = append(storages, r.Storage)
		if r.Storage != "local" {
			simulated = append(simulated, r.Storage)
		}
		qpsIVF, qpsHNSW = append(qpsIVF, e26Best(r.IVF).QPS), append(qpsHNSW, e26Best(r.HNSW).QPS)
	}
	title := "E26 QPS by storage, oversample 1 (lab)"
	if len(simulated) > 0 {
		title = "E26 QPS by storage, oversample 1 (lab; " + andList(simulated) + " simulated)"
	}
	c := chart.NewBars(title, "QPS (one goroutine)", storages...)
	c.Add("IVF 2-bit", qpsIVF)
	c.Add("HNSW 2-bit codes", qpsHNSW)
	return c
}

// andList joins names as prose: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
