package experiment

import (
	"fmt"
	"path/filepath"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/table"
)

// e27 is the regime no article measured: the searchable index itself no
// longer in RAM.
var e27 = Experiment{
	ID:      "E27",
	Title:   "IVF with its posting lists on disk vs HNSW, warm, cold cache and a simulated network device: where the designs diverge",
	Article: "none: seeds 003 and 004 stop where the index fits in RAM (codes resident, only the rescoring originals on disk); this is the lab's own experiment",
}

func init() { e27.Run, e27.Notebook = runE27, "13-beyond-ram.ipynb"; Register(e27) }

// E27Measure measures, with 2-bit codes, k = env's K and ⌈oversample·k⌉
// candidates rescored from the vector file:
//   - IVF with its posting lists (ids + codes) in a list file read with one
//     pread per probed list, scanning visit % of the vectors;
//   - HNSW walked with its codes and graph in RAM (the lab's HNSW cannot
//     page them from disk), beam ef;
//
// each with the files warm, cold (both evicted before every query,
// untimed) and, when sim names a model ("gp3"), on that simulated device
// (up to 20 queries).
func E27Measure(env *Env, visit float64, ef int, oversample float64, sim string) ([]DiskPoint, error) {
	if !(visit > 0 && visit <= 100) || ef < 1 {
		return nil, fmt.Errorf("experiment: E27: visit %v must be in (0, 100] and ef %d ≥ 1: %w", visit, ef, ErrBadArgument)
	}
	if err := checkOversample("E27", []float64{oversample}); err != nil {
		return nil, err
	}
	var model store.Model
	if sim != "" {
		m, err := store.ParseModel(sim)
		if err != nil {
			return nil, fmt.Errorf("experiment: E27: %v: %w", err, ErrBadArgument)
		}
		model = m
	}
	hn, err := HNSWCodes(env, 2)
	if err != nil {
		return nil, err
	}
	// A fresh IVF: switching its lists to disk must not change the cached
	// in-memory one E26 uses.
	iv, err := buildIVF(env, 2)
	if err != nil {
		return nil, err
	}
	dir, vpath, cleanup, err := vectorFile(env)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	lpath := filepath.Join(dir, "lists.ivf")
	if err := iv.WriteLists(lpath); err != nil {
		return nil, err
	}
	defer iv.CloseLists()
	type mode struct {
		name string
		opt  store.Options
		cold bool
		nq   int
	}
	nq := env.Scale.Queries
	modes := []mode{{"warm", store.Options{}, false, nq}, {"cold", store.Options{}, true, nq}}
	if model.Enabled() {
		modes = append(modes, mode{"simulated " + model.Name, store.Options{Model: model}, false, min(nq, 20)})
	}
	var out []DiskPoint
	for i, m := range modes {
		env.progress(i, len(modes), "E27 modes")
		if err := iv.UseDiskLists(lpath, m.opt); err != nil {
			return nil, err
		}
		vf, err := store.Open(vpath, m.opt)
		if err != nil {
			return nil, err
		}
		lists := iv.ListFile()
		var before func() error
		if m.cold {
			before = evictAll(lists, vf)
		} else {
			lists.Warm()
			vf.Warm()
		}
		rs, err := rescore.New(vf, engine.Cosine, rescore.Options{})
		if err != nil {
			vf.Close()
			return nil, err
		}
		a, err := measureDisk(env, "IVF, lists on disk, "+m.name, visit, env.Scale.K, m.nq, before, ivfSearch(iv, visit, oversample, rs))
		if err != nil {
			vf.Close()
			return nil, err
		}
		var hb func() error
		if m.cold {
			hb = evictAll(vf)
		}
		b, err := measureDisk(env, "HNSW, codes+graph in RAM, "+m.name, float64(ef), env.Scale.K, m.nq, hb, hnswSearch(hn, ef, oversample, rs))
		vf.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, a, b)
	}
	env.progress(len(modes), len(modes), "E27 modes")
	return out, nil
}

// E27Table tabulates the points with their resident memory per vector.
func E27Table(env *Env, visit float64, ef int, oversample float64, ps []DiskPoint, ivfResident, hnswResident float64) *table.Table {
	t := table.New(fmt.Sprintf("E27 index on disk (lab only): 2-bit codes, k=%d, oversample %g, IVF visit %g%%, HNSW ef %d", env.Scale.K, oversample, visit, ef),
		table.Col("index, storage", ""),
		table.Column{Header: "recall@10", Source: table.Lab, Prec: 3},
		table.Column{Header: "QPS", Source: table.Lab, Prec: -1},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 3},
		table.Column{Header: "list reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "list device reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "vector reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "vector device reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "simulated ms/q", Source: table.Lab, Prec: 2},
		table.Column{Header: "resident B/vector", Source: table.Lab, Prec: 0})
	for i, p := range ps {
		res := ivfResident
		if i%2 == 1 {
			res = hnswResident
		}
		_ = t.AddValues(p.Label, p.Recall, p.QPS, p.P50ms, p.ListReads, p.ListDevice, p.Reads, p.DeviceReads, p.Simulated, res)
	}
	t.Note("IVF keeps only centroids and per-list quantizers resident and reads each probed list with one pread; the HNSW's resident bytes are its codes and links (one definition with E14 and the budget table; the lab's float32 build slab, 4·dim B, is not counted, since a disk deployment reads the originals from the vector file): it has no on-disk graph, so its cold rows only evict the vector file — a disk-resident HNSW (DiskANN-style) would add one dependent read per hop, which this lab does not implement")
	t.Note("simulated rows: engine/store latency model (%s) on every read of both files (SIMULATED, not a measured device), first %d queries only, so their recall differs slightly; cold: files evicted before every query, untimed", store.GP3Baseline, min(env.Scale.Queries, 20))
	t.Note("HNSW: graph built with float32 vectors, walked with 2-bit codes (ef %d), ⌈%g·k⌉ candidates rescored: rescoring only re-ranks what the quantized walk found, while IVF scores every code of the lists it scans", ef, oversample)
	return t
}

func runE27(env *Env) (*Report, error) {
	const visit, ef, over = 5.0, 100, 3.0
	ps, err := E27Measure(env, visit, ef, over, "gp3")
	if err != nil {
		return nil, err
	}
	iv, err := buildIVF(env, 2)
	if err != nil {
		return nil, err
	}
	fp := iv.Footprint()
	ivfRes := float64(fp.Centroids+fp.Quantizer) / float64(max(fp.Vectors, 1))
	hn, err := HNSWCodes(env, 2)
	if err != nil {
		return nil, err
	}
	// Resident = what a disk deployment keeps in RAM: codes and links (the
	// lab's float32 build slab is left out, as in E14 and notebook 13's
	// budget table).
	hnswRes := hn.Index.GraphBytesPerVector() + hn.Codes.BytesPerVector()
	r := NewReport(e27, env)
	r.AddTable(E27Table(env, visit, ef, over, ps, ivfRes, hnswRes))
	r.Note("no article figure: the seeds measured both designs with their codes in RAM; here IVF's lists leave RAM and each query pays one read per probed list, which a warm page cache hides and a cold cache or a network device exposes")
	return r, nil
}
