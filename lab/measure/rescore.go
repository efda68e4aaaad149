package measure

import (
	"fmt"
	"strconv"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
)

// Rescoring is a measurement of a quantized search rescored with
// full-precision vectors read from a vector file: the Result, and per
// query the reads of full vectors it cost and how many of them reached
// the device.
type Rescoring struct {
	Result
	Oversample float64 // the rescore knob: ⌈Oversample·k⌉ candidates rescored
	Candidates int     // ⌈Oversample·k⌉ (engine.RescoreDepth)
	Cold       bool    // the file's pages were evicted before every query
	// Reads is the full-vector reads per query (one per rescored candidate,
	// duplicates aside); KiB the bytes they requested.
	Reads, KiB float64
	// DeviceReads is the reads per query whose pages were not all resident
	// in the page cache (store.IOStats.DeviceReads); DevicePages the 4 KiB
	// pages per query the reads touched that were not resident.
	DeviceReads, DevicePages float64
}

// Rescored runs the queries on ix, a graph walked with its attached codes
// at breadth (ef; raised to the candidates when fewer), and rescores
// ⌈oversample·k⌉ candidates of each with the float32 vectors rs reads
// (engine/rescore over a vector file, engine/store, whose reads are
// counted): the warm-up, then every query once, timed and scored against
// the exact answers (as [Index] does), with the reads per query. With cold
// set, cold's pages are evicted from the page cache before every query,
// untimed, and checked gone (File.Evict); with cold nil the page cache is
// left as it is (File.Warm reads the file in first).
//
// ix's keys must be the data set's row numbers (as the queries' answers
// are); oversample must be ≥ 1 (1 rescores the k results themselves).
func Rescored(ix *hnsw.Index, breadth int, oversample float64, rs *rescore.Rescorer, q *Queries, cold *store.File) (Rescoring, error) {
	switch {
	case ix == nil || rs == nil:
		return Rescoring{}, fmt.Errorf("measure: Rescored: an index and a rescorer are needed: %w", engine.ErrInvalidArgument)
	case breadth < 1:
		return Rescoring{}, fmt.Errorf("measure: Rescored(ix, %d, …): the breadth (ef) must be ≥ 1: %w", breadth, engine.ErrInvalidArgument)
	case !(oversample >= 1):
		return Rescoring{}, fmt.Errorf("measure: Rescored(ix, %d, %g, …): the oversample must be ≥ 1 (1 rescores the k results themselves): %w", breadth, oversample, engine.ErrInvalidArgument)
	}
	if err := q.check("Rescored"); err != nil {
		return Rescoring{}, err
	}
	loop := q.loop()
	if cold != nil {
		loop.Before = func() error {
			left, err := cold.Evict()
			if err != nil {
				return err
			}
			if left != 0 {
				return fmt.Errorf("measure: Rescored: %d pages of %s still cached after eviction", left, cold.Path())
			}
			return nil
		}
	}
	var io store.IOStats
	dist := 0
	m, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		p := &hnsw.Rescore{Rescorer: rs, Oversample: oversample}
		res, st, err := ix.Query(q.Vectors.Row(i), engine.Request{K: q.K, Breadth: max(breadth, q.K), Params: p})
		if err != nil {
			return nil, err
		}
		if pass == 0 {
			io.Add(p.Stats.IO)
			dist += st.DistComps
		}
		for j := range res {
			res[j].ID = engine.ID(ix.Key(res[j].ID))
		}
		return res, nil
	})
	if err != nil {
		return Rescoring{}, fmt.Errorf("measure: Rescored: %w", err)
	}
	n := float64(q.Vectors.N)
	depth := engine.RescoreDepth(q.K, oversample)
	r := Rescoring{
		Result: Result{Label: strconv.FormatFloat(oversample, 'g', -1, 64), Knob: "oversample", Warmup: q.warmup(), Measured: m,
			DistComps: float64(dist) / n, BytesPerVector: ix.BytesPerVector(),
			Plan: fmt.Sprintf("k=%d ef=%d oversample=%g candidates=%d", q.K, max(breadth, q.K), oversample, depth)},
		Oversample: oversample, Candidates: depth, Cold: cold != nil,
		Reads: float64(io.Reads) / n, KiB: float64(io.Bytes) / 1024 / n,
		DeviceReads: float64(io.DeviceReads()) / n, DevicePages: float64(io.Pages-io.CachedPages) / n,
	}
	return r, nil
}

// String prints the measurement on one line, e.g. "oversample 10 (100
// candidates), cold: recall@10 0.738, 97 QPS, 100.0 reads/q (150.4 KiB),
// 99.8 device reads/q, 136.2 device pages/q".
func (r Rescoring) String() string {
	cache := "warm"
	if r.Cold {
		cache = "cold"
	}
	return fmt.Sprintf("oversample %g (%d candidates), %s: recall@%d %.3f, %.0f QPS, %.1f reads/q (%.1f KiB), %.1f device reads/q, %.1f device pages/q",
		r.Oversample, r.Candidates, cache, r.K, r.Recall, r.QPS, r.Reads, r.KiB, r.DeviceReads, r.DevicePages)
}
