package experiment

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/table"
)

// e15 is async (io_uring-style) rescoring reads on and off (Elastic's reply to Qdrant).
var e15 = Experiment{
	ID:      "E15",
	Title:   "rescoring reads: sequential vs concurrent, warm vs cold page cache, device reads counted",
	Article: "Elastic's reply to Qdrant: Qdrant's async io_uring reads off/on gave 31.6 vs 35.8 QPS at ef = 50, and the disk served 0 IOPS during the run because the page cache was warm",
	Figures: []Figure{
		{Row: "warm page cache, sequential", Measure: "QPS", Value: 31.6},
		{Row: fmt.Sprintf("warm page cache, concurrent(%d)", e15Conc), Measure: "QPS", Value: 35.8},
		{Row: "warm page cache, sequential", Measure: "device reads/q", Value: 0},
		{Row: fmt.Sprintf("warm page cache, concurrent(%d)", e15Conc), Measure: "device reads/q", Value: 0},
	},
}

const e15Conc = 16

func init() { e15.Run, e15.Notebook = runE15, "07-disk-rescore-budget.ipynb"; Register(e15) }

// E15Modes measures the 2-bit HNSW (ef, k, oversample) with its
// rescoring reads served each way: warm page cache or cold (the file's
// pages evicted before every query, untimed), sequential preads or conc
// in flight; sim adds a simulated device (e.g. "gp3"; "" for none) on up
// to 20 queries.
func E15Modes(env *Env, ef int, oversample float64, conc int, sim string) ([]DiskPoint, error) {
	if ef < 1 || conc < 1 {
		return nil, fmt.Errorf("experiment: E15: ef %d and concurrency %d must be ≥ 1: %w", ef, conc, ErrBadArgument)
	}
	if err := checkOversample("E15", []float64{oversample}); err != nil {
		return nil, err
	}
	var model store.Model
	if sim != "" {
		m, err := store.ParseModel(sim)
		if err != nil {
			return nil, fmt.Errorf("experiment: E15: %v: %w", err, ErrBadArgument)
		}
		model = m
	}
	hn, err := HNSWCodes(env, 2)
	if err != nil {
		return nil, err
	}
	_, path, cleanup, err := vectorFile(env)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	type mode struct {
		name string
		opt  store.Options
		conc int
		cold bool
		nq   int
	}
	nq := env.Scale.Queries
	modes := []mode{
		{"warm page cache, sequential", store.Options{}, 1, false, nq},
		{fmt.Sprintf("warm page cache, concurrent(%d)", conc), store.Options{}, conc, false, nq},
		{"cold page cache, sequential", store.Options{}, 1, true, nq},
		{fmt.Sprintf("cold page cache, concurrent(%d)", conc), store.Options{}, conc, true, nq},
	}
	if model.Enabled() {
		modes = append(modes,
			mode{"simulated " + model.Name + ", sequential", store.Options{Model: model}, 1, false, simulatedCap(nq)},
			mode{fmt.Sprintf("%s, concurrent(%d)", "simulated "+model.Name, conc), store.Options{Model: model}, conc, false, simulatedCap(nq)})
	}
	var out []DiskPoint
	for i, m := range modes {
		env.progress(i, len(modes), "E15 modes")
		f, err := store.Open(path, m.opt)
		if err != nil {
			return nil, err
		}
		var before func() error
		if m.cold {
			before = evictAll(f)
		} else if _, err := f.Warm(); err != nil {
			f.Close()
			return nil, err
		}
		rs, err := rescore.New(f, engine.Cosine, rescore.Options{Concurrency: m.conc})
		if err != nil {
			f.Close()
			return nil, err
		}
		p, err := measureDisk(env, m.name, float64(m.conc), env.Scale.K, m.nq, before, hnswSearch(hn, ef, oversample, rs))
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	env.progress(len(modes), len(modes), "E15 modes")
	return out, nil
}

// E15Table puts the modes beside the article's figures.
func E15Table(env *Env, ef int, oversample float64, ps []DiskPoint) *table.Table {
	t := table.New(fmt.Sprintf("E15 rescoring reads (HNSW, 2-bit codes in RAM, originals on disk, ef=%d, k=%d, oversample %g)", ef, env.Scale.K, oversample),
		table.Col("reads served by", ""))
	t.AddColumns(table.Pair("QPS", "", 0)...)
	t.AddColumns(table.Column{Header: "recall@10", Source: table.Lab, Prec: 3},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 3},
		table.Column{Header: "reads/q", Source: table.Lab, Prec: 1})
	t.AddColumns(table.Pair("device reads/q", "", 1)...)
	t.AddColumns(table.Column{Header: "queries", Source: table.Lab, Prec: -1})
	for _, p := range ps {
		_ = t.AddValues(p.Label, e15.ArticleValue(p.Label, "QPS"), p.QPS, p.Recall, p.P50ms, p.Reads,
			e15.ArticleValue(p.Label, "device reads/q"), p.DeviceReads, p.Queries)
	}
	t.Note("article: Qdrant on a 3-node cluster, 21 M vectors, a load generator; its async reads changed little because the page cache served them (0 device IOPS). Lab: one process, one query at a time, %d vectors; device reads/q = reads whose pages were not all resident (a mincore probe before each read: a resident row is copied from the file's mapping, a missing one read with pread)", env.Scale.N)
	t.Note("cold = the vector file's pages evicted (fsync + posix_fadvise DONTNEED, checked by mincore) before every query, untimed; simulated rows add an engine/store latency model to every read (SIMULATED, not a measured device; gp3 = %s)", store.GP3Baseline)
	return t
}

func runE15(env *Env) (*Report, error) {
	const ef, over = 50, 3
	ps, err := E15Modes(env, ef, over, e15Conc, "gp3")
	if err != nil {
		return nil, err
	}
	r := newReport(e15, env)
	r.AddTable(E15Table(env, ef, over, ps))
	if len(ps) >= 4 {
		r.Note("lab: warm %0.f → %0.f QPS with %d reads in flight (the article's 31.6 → 35.8: little to gain when the cache serves every read); cold %0.f → %0.f QPS with %.1f device reads per query",
			ps[0].QPS, ps[1].QPS, e15Conc, ps[2].QPS, ps[3].QPS, ps[2].DeviceReads)
	}
	E15Verdicts(env, ps)
	return r, nil
}

// E15Verdicts compares E15Modes's points with the article's finding: with
// a warm page cache the disk served 0 IOPS (0 device reads per query,
// sequential and concurrent) and concurrent rescoring reads changed QPS
// little (31.6 → 35.8, 1.13× ± 0.37: under 1.5× either way). Cold, and on
// the simulated device (the lab's additions), concurrent reads should be
// faster, because each read then waits for the device.
func E15Verdicts(env *Env, ps []DiskPoint) Verdicts {
	if len(ps) < 4 {
		return Verdicts{env.Holds("E15", "warm, concurrent reads change QPS little", "1.13×", "not measured", false, fmt.Sprintf("%d of the 4 modes measured", len(ps)))}
	}
	seqW, conW, seqC, conC := ps[0], ps[1], ps[2], ps[3]
	// The article's warm sequential and concurrent QPS (its first two figures).
	art := e15.Figures[1].Value / e15.Figures[0].Value
	out := Verdicts{
		env.Within("E15", "warm page cache: no device read per query, sequential or concurrent (the article's 0 IOPS)", 0, math.Max(seqW.DeviceReads, conW.DeviceReads), 0, "reads/q"),
		env.Within("E15", "warm page cache: concurrent reads change QPS little (concurrent / sequential QPS)", art, conW.QPS/seqW.QPS, 0.37, "×"),
		env.Holds("E15", "cold page cache (lab's addition): concurrent reads are faster than sequential", "faster",
			fmt.Sprintf("%.2f× (%.0f vs %.0f QPS)", conC.QPS/seqC.QPS, conC.QPS, seqC.QPS), conC.QPS > seqC.QPS,
			fmt.Sprintf("%.1f device reads/q overlap", seqC.DeviceReads)),
	}
	if len(ps) >= 6 {
		out = append(out, env.Holds("E15", "simulated device (lab's addition): concurrent reads are faster than sequential", "faster",
			fmt.Sprintf("%.2f× (%.0f vs %.0f QPS)", ps[5].QPS/ps[4].QPS, ps[5].QPS, ps[4].QPS), ps[5].QPS > ps[4].QPS,
			"each read waits for the device's latency"))
	}
	return out
}
