package advise

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
)

// BenchmarkAdvise runs the whole advice — exact truth, the four stores on
// their defaults (pgvector, Redis, Qdrant, Elasticsearch), each knob
// searched for recall@10 0.95 — on clustered 768-d vectors with 1,000
// queries, and reports the wall time and the process's peak resident
// memory against the raw vectors (the targets: 100,000 × 768 in
// ≤ 10 minutes on 2 cores, peak ≤ 3× the raw vectors). The hypothesis:
// the graph builds dominate (one store at a time, so memory is the raw
// vectors, one store's copy and its graph, and during Qdrant's merge half
// a copy more: see MemoryLimitFactor); the knob searches cost about
// 2·log2(range) passes over the queries each.
//
// The size is VECLAB_ADVISE_N (default 100,000): a smaller set checks the
// benchmark itself quickly. VECLAB_ADVISE_STORES, space-separated profiles,
// replaces the four stores (one store alone gives that store's peak). Peak memory is read from /proc/self/status
// (VmHWM, Linux), so run it alone: -bench BenchmarkAdvise -benchtime 1x.
func BenchmarkAdvise(b *testing.B) {
	n := 100_000
	if s := os.Getenv("VECLAB_ADVISE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	const dim, queries = 768, 1000
	ds, err := dataset.Generate(dataset.Config{N: n, Queries: queries, Dim: dim, Clusters: 100, Seed: 7})
	if err != nil {
		b.Fatal(err)
	}
	d := &Data{Name: fmt.Sprintf("generated %d × %d", n, dim), Source: "lab/dataset.Generate", Metric: engine.Cosine, Base: ds.Base, Queries: ds.Queries, QuerySource: "1,000 generated queries"}
	stores := []string{"pgvector", "redis", "qdrant", "elasticsearch"}
	if s := strings.Fields(os.Getenv("VECLAB_ADVISE_STORES")); len(s) > 0 {
		stores = s
	}
	raw := float64(n) * dim * 4
	// As `veclab advise` does: the collection being measured holds a copy
	// of the vectors beside the caller's, so the default GOGC (100) lets
	// the heap grow to about twice that before collecting.
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	// And its soft memory limit (MemoryLimit), unless VECLAB_ADVISE_NOLIMIT
	// is set, to measure without it.
	if os.Getenv("VECLAB_ADVISE_NOLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(MemoryLimit(d)))
	}
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		rep, err := Run(context.Background(), d, Options{K: 10, Target: 0.95, Profiles: stores, Workers: 2, BuildWorkers: 2})
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(t0)
		b.ReportMetric(el.Seconds(), "s/advice")
		if hwm := peakRSS(); hwm > 0 {
			b.ReportMetric(float64(hwm)/1e6, "peak-MB")
			b.ReportMetric(float64(hwm)/raw, "peak/raw")
		}
		b.ReportMetric(raw/1e6, "raw-MB")
		if i == 0 {
			b.Log("\n" + rep.String())
		}
	}
}

// peakRSS is the process's peak resident set (VmHWM) in bytes, 0 where
// /proc/self/status does not say.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}
