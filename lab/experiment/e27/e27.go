package e27

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// e27 is the regime no article measured: the searchable index itself no
// longer in RAM.
var e27 = experiment.Experiment{
	ID:      "E27",
	Claims:  claims,
	Title:   "IVF with its posting lists on disk vs HNSW, warm, cold cache and a simulated network device: where the designs diverge",
	Article: "none: Elastic's reply to Qdrant and Elastic's DiskBBQ article (\"DiskBBQ 7× faster than Qdrant on network-attached storage\") stop where the index fits in RAM (codes resident, only the rescoring originals on disk); this is the lab's own experiment",
}

func init() { e27.Run, e27.Notebook = runE27, "13-beyond-ram.ipynb"; experiment.Register(e27) }

// Measure measures, with 2-bit codes, k = env's K and ⌈oversample·k⌉
// candidates rescored from the vector file:
//   - IVF with its posting lists (ids + codes) in a list file read with one
//     pread per probed list, scanning visit % of the vectors;
//   - HNSW walked with its codes and graph in RAM (the lab's HNSW cannot
//     page them from disk), beam ef;
//
// each with the files warm, cold (both evicted before every query,
// untimed) and, when sim names a model ("gp3"), on that simulated device
// (up to 20 queries).
func Measure(env *experiment.Env, visit float64, ef int, oversample float64, sim string) ([]experiment.DiskPoint, error) {
	if !(visit > 0 && visit <= 100) || ef < 1 {
		return nil, fmt.Errorf("experiment: E27: visit %v must be in (0, 100] and ef %d ≥ 1: %w", visit, ef, experiment.ErrBadArgument)
	}
	if err := experiment.CheckOversample("E27", []float64{oversample}); err != nil {
		return nil, err
	}
	var model store.Model
	if sim != "" {
		m, err := store.ParseModel(sim)
		if err != nil {
			return nil, fmt.Errorf("experiment: E27: %v: %w", err, experiment.ErrBadArgument)
		}
		model = m
	}
	hn, err := experiment.HNSWCodes(env, 2)
	if err != nil {
		return nil, err
	}
	// A fresh IVF: switching its lists to disk must not change the cached
	// in-memory one E26 uses.
	iv, err := experiment.BuildIVFCentring(env, 2, false)
	if err != nil {
		return nil, err
	}
	dir, vpath, cleanup, err := experiment.VectorFile(env)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	lpath := dir.Join("lists.ivf")
	if err := iv.WriteListsFS(dir.FS, lpath); err != nil {
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
		modes = append(modes, mode{"simulated " + model.Name, store.Options{Model: model}, false, experiment.SimulatedCap(nq)})
	}
	var out []experiment.DiskPoint
	for i, m := range modes {
		env.Step(i, len(modes), "E27 modes")
		if err := iv.UseDiskListsFS(dir.FS, lpath, m.opt); err != nil {
			return nil, err
		}
		vf, err := store.OpenFS(dir.FS, vpath, m.opt)
		if err != nil {
			return nil, err
		}
		lists := iv.ListFile()
		var before func() error
		if m.cold {
			before = experiment.EvictAll(lists, vf)
		} else {
			lists.Warm()
			vf.Warm()
		}
		rs, err := rescore.New(vf, env.Metric(), rescore.Options{})
		if err != nil {
			vf.Close()
			return nil, err
		}
		a, err := experiment.MeasureDisk(env, "IVF, lists on disk, "+m.name, visit, env.Scale.K, m.nq, before, experiment.IvfSearch(iv, visit, oversample, rs))
		if err != nil {
			vf.Close()
			return nil, err
		}
		var hb func() error
		if m.cold {
			hb = experiment.EvictAll(vf)
		}
		b, err := experiment.MeasureDisk(env, "HNSW, codes+graph in RAM, "+m.name, float64(ef), env.Scale.K, m.nq, hb, experiment.HnswSearch(hn, ef, oversample, rs))
		vf.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, a, b)
	}
	env.Step(len(modes), len(modes), "E27 modes")
	return out, nil
}

// Table tabulates the points with their resident memory per vector.
func Table(env *experiment.Env, visit float64, ef int, oversample float64, ps []experiment.DiskPoint, ivfResident, hnswResident float64) *table.Table {
	t := table.New(fmt.Sprintf("E27 index on disk (lab only): 2-bit codes, k=%d, oversample %g, IVF visit %g%%, HNSW ef %d", env.Scale.K, oversample, visit, ef),
		table.Col("index, storage", ""),
		table.Column{Header: metrics.RecallHeader(env.Scale.K), Source: table.Lab, Prec: 3},
		table.Column{Header: "QPS", Source: table.Lab, Prec: -1},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 3},
		table.Column{Header: "list reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "list device reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "vector reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "vector device reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "simulated ms/q", Source: table.Lab, Prec: 2},
		table.Column{Header: "resident B/vector", Source: table.Lab, Prec: 0})
	measure.SimulatedNote(t)
	for i, p := range ps {
		res := ivfResident
		if i%2 == 1 {
			res = hnswResident
		}
		_ = t.AddValues(p.Label, p.Recall, p.QPS, p.P50ms, p.ListReads, p.ListDevice, p.Reads, p.DeviceReads, p.Simulated, res)
	}
	t.Note("IVF keeps only centroids and per-list quantizers resident and reads each probed list with one pread; the HNSW's resident bytes are its codes and links (one definition with E14 and the budget table; the lab's float32 build slab, 4·dim B, is not counted, since a disk deployment reads the originals from the vector file): it has no on-disk graph, so its cold rows only evict the vector file — a disk-resident HNSW (DiskANN-style) would add one dependent read per hop, which this lab does not implement")
	t.Note("simulated rows: engine/store latency model (%s) on every read of both files (SIMULATED, not a measured device), first %d queries only, so their recall differs slightly; cold: files evicted before every query, untimed", store.GP3Baseline, min(env.Scale.Queries, 20))
	t.Note("HNSW: graph built with float32 vectors, walked with Qdrant's two_bits codes (ef %d), ⌈%g·k⌉ candidates rescored: rescoring only re-ranks what the quantized walk found, while IVF scores every OSQ code of the lists it scans", ef, oversample)
	return t
}

func runE27(env *experiment.Env) (*experiment.Report, error) {
	const visit, ef, over = 5.0, 100, 3.0
	ps, err := Measure(env, visit, ef, over, "gp3")
	if err != nil {
		return nil, err
	}
	iv, err := experiment.BuildIVFCentring(env, 2, false)
	if err != nil {
		return nil, err
	}
	fp := iv.Footprint()
	ivfRes := float64(fp.Centroids+fp.Quantizer) / float64(max(fp.Vectors, 1))
	hn, err := experiment.HNSWCodes(env, 2)
	if err != nil {
		return nil, err
	}
	// Resident = what a disk deployment keeps in RAM: codes and links (the
	// lab's float32 build slab is left out, as in E14 and notebook 13's
	// budget table).
	hnswRes := hn.Index.GraphBytesPerVector() + hn.Codes.BytesPerVector()
	r := experiment.NewReport(e27, env)
	r.AddTable(Table(env, visit, ef, over, ps, ivfRes, hnswRes))
	r.Note("no article figure: the seeds measured both designs with their codes in RAM; here IVF's lists leave RAM and each query pays one read per probed list, which a warm page cache hides and a cold cache or a network device exposes")
	var model *Model
	if len(ps) >= 6 {
		if model, err = DiskHNSWModel(env, hn.Index, ps[4], []int{ef, 2 * ef, 4 * ef}, over, "gp3", 20); err != nil {
			return nil, err
		}
		r.AddTable(model.Table())
	}
	r.Verdicts = append(r.Verdicts, Verdicts(env, ps, iv.Nlist(), model)...)
	return r, nil
}

// Model prices a disk-resident HNSW (codes and graph paged from the
// device, which the lab's HNSW cannot do) from its measured walk: per ef,
// the codes scored (one index read each) and the dependent hops, at
// LatencyMs per read and an IOPS ceiling, beside IVF's measured simulated
// device time. The HNSW times are a MODEL, not a run.
type Model struct {
	LatencyMs, IOPS float64
	Queries, K      int
	Oversample      float64
	IVF             experiment.DiskPoint // IVF on the simulated device (Measure's fifth point)
	Efs             []int
	Reads, Hops     []float64 // HNSW index reads (codes scored) and hops per query, per ef
	SeqMs, ParMs    []float64 // modelled device ms per query: every read in turn; one round trip per hop
}

// DiskHNSWModel walks hn (with its attached codes) at each ef over the first nq queries and
// prices the walk (see [Model]) at the latency and IOPS ceiling of
// engine/store's model named device ("gp3", "io2", "nvme"); ivfSim is
// IVF's point on that simulated device, which it is compared with.
func DiskHNSWModel(env *experiment.Env, hn *hnsw.Index, ivfSim experiment.DiskPoint, efs []int, oversample float64, device string, nq int) (*Model, error) {
	dev, err := store.ParseModel(device)
	if err != nil {
		return nil, fmt.Errorf("experiment: DiskHNSWModel: %w", err)
	}
	latencyMs := float64(dev.Latency) / 1e6
	iops := dev.IOPS
	if iops == 0 {
		iops = math.Inf(1)
	}
	if hn == nil || len(efs) == 0 || latencyMs <= 0 || nq < 1 {
		return nil, fmt.Errorf("experiment: DiskHNSWModel: index %v, %d ef values, device %q (latency %g ms), %d queries: %w", hn != nil, len(efs), device, latencyMs, nq, experiment.ErrBadArgument)
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	nq = min(nq, ds.Queries.N)
	m := &Model{LatencyMs: latencyMs, IOPS: iops, Queries: nq, K: env.Scale.K, Oversample: oversample, IVF: ivfSim, Efs: efs}
	s := hn.NewSearcher()
	resc := oversample * float64(m.K)
	for _, ef := range efs {
		hops, scored := 0, 0
		for i := 0; i < nq; i++ {
			if _, err := s.Search(ds.Queries.Row(i), engine.Request{K: m.K, Breadth: ef}); err != nil {
				return nil, fmt.Errorf("experiment: DiskHNSWModel: ef %d, query %d: %w", ef, i, err)
			}
			st := s.Stats()
			hops += st.Hops
			scored += st.DistComps
		}
		h, r := float64(hops)/float64(nq), float64(scored)/float64(nq)
		par := math.Max(h*latencyMs, r/iops*1000) + resc*latencyMs
		m.Reads, m.Hops = append(m.Reads, r), append(m.Hops, h)
		m.SeqMs, m.ParMs = append(m.SeqMs, (r+resc)*latencyMs), append(m.ParMs, par)
	}
	return m, nil
}

// Table tabulates the model: IVF's row (its formula against its measured
// simulated time) and one MODELLED row per HNSW ef.
func (m *Model) Table() *table.Table {
	t := table.New(fmt.Sprintf("disk-resident HNSW MODELLED from the measured walk (2-bit codes, k=%d, %d queries), priced at %.2g ms/read, %.0f IOPS", m.K, m.Queries, m.LatencyMs, m.IOPS),
		table.Col("design", ""), table.Col("timing", ""),
		table.Column{Header: "index reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "dependent round trips/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "rescoring reads/q", Source: table.Lab, Prec: 0},
		table.Column{Header: "device ms/q, sequential", Source: table.Lab, Prec: 1},
		table.Column{Header: "device ms/q, per-hop parallel", Source: table.Lab, Prec: 1},
		table.Column{Header: "device ms/q, measured (simulated device)", Source: table.Lab, Prec: 1})
	iv := m.IVF
	_ = t.AddValues("IVF, lists on disk", "model vs measured", iv.ListReads, 1.0, iv.Reads,
		m.IVFModelMs(), m.LatencyMs+iv.Reads*m.LatencyMs, iv.Simulated)
	for i, ef := range m.Efs {
		_ = t.AddValues(fmt.Sprintf("HNSW on disk, ef=%d", ef), "MODELLED", m.Reads[i], m.Hops[i], m.Oversample*float64(m.K), m.SeqMs[i], m.ParMs[i], nil)
	}
	t.Note("IVF row: the list reads are independent (one round trip when issued together); its measured column is the lab's simulated device time from E27's table (lists and rescoring read one at a time), the check of the sequential formula")
	t.Note("HNSW rows: hops and codes scored measured on the lab's graph walked with its 2-bit codes; the times are a model (not run): rescoring reads are counted sequentially in both columns, as the lab's E27 reader issues them")
	return t
}

// IVFModelMs is the sequential formula for IVF: every list and rescoring
// read in turn at the model's latency.
func (m *Model) IVFModelMs() float64 { return (m.IVF.ListReads + m.IVF.Reads) * m.LatencyMs }

// Chart draws the modelled HNSW device time per query against ef, with
// IVF's measured simulated time as a flat line.
func (m *Model) Chart(device string) *chart.Line {
	efs := make([]float64, len(m.Efs))
	for i, ef := range m.Efs {
		efs[i] = float64(ef)
	}
	c := chart.NewLine(fmt.Sprintf("device ms per query, disk-resident HNSW (MODELLED) vs IVF (measured on the simulated %s)", device), "HNSW ef", "device ms per query")
	c.Add("HNSW on disk, sequential (model)", efs, m.SeqMs)
	c.Add("HNSW on disk, per-hop parallel (model)", efs, m.ParMs)
	c.Add("IVF lists on disk (measured, simulated device)", []float64{efs[0], efs[len(efs)-1]}, []float64{m.IVF.Simulated, m.IVF.Simulated})
	return c
}

// Verdicts states the lab's own claims (no article measured this
// regime) from Measure's points (warm IVF, warm HNSW, cold IVF, cold
// HNSW, then the simulated pair) and, when not nil, the model: IVF's
// lists cost a handful of reads per query (at most a tenth of its nlist
// lists, plus one), none from the device when warm, all when cold; the
// cache state changes no answer; the model does not overprice reads (IVF's
// measured simulated time ≥ 95 % of its formula), and a disk-resident
// HNSW costs more device time than IVF, growing with ef.
func Verdicts(env *experiment.Env, ps []experiment.DiskPoint, nlist int, m *Model) experiment.Verdicts {
	if len(ps) < 4 {
		return experiment.Verdicts{experiment.Holds("E27", "IVF's lists on disk cost a handful of reads per query", "(lab)", "not measured", false, fmt.Sprintf("%d of 4 points", len(ps)))}
	}
	wI, wH, cI, cH := ps[0], ps[1], ps[2], ps[3]
	out := experiment.Verdicts{
		experiment.AtMost("E27", "IVF's lists on disk cost a handful of reads per query (a tenth of the lists, plus one)", 0.1*float64(nlist)+1, cI.ListReads, 0, "reads/q"),
		experiment.Within("E27", "warm, the lists on disk cost IVF no device read", 0, wI.ListDevice, 0, "reads/q"),
		experiment.AtLeast("E27", "cold, every probed list is a device read", cI.ListReads, cI.ListDevice, 0.5, "reads/q"),
		experiment.Holds("E27", "the cache state does not change what either design finds", "same recall warm and cold",
			fmt.Sprintf("IVF %.3f/%.3f, HNSW %.3f/%.3f", wI.Recall, cI.Recall, wH.Recall, cH.Recall), wI.Recall == cI.Recall && wH.Recall == cH.Recall,
			"the same reads, served by the cache or the device"),
	}
	if m != nil && len(m.ParMs) > 0 {
		pred := m.IVFModelMs()
		out = append(out,
			experiment.AtLeast("E27", "the device model does not overprice reads: IVF's simulated device ms ≥ its formula's", pred, m.IVF.Simulated, 0.05*pred, "ms"),
			experiment.Holds("E27", "a disk-resident HNSW (modelled) costs more device ms per query than IVF, even per-hop parallel", "(lab model)",
				fmt.Sprintf("%.0f vs %.0f ms at ef %d", m.ParMs[0], m.IVF.Simulated, m.Efs[0]), m.ParMs[0] > m.IVF.Simulated, experiment.Why(m.ParMs[0] > m.IVF.Simulated, "each hop waits for the device", "the walk has few hops at this scale")),
			experiment.Holds("E27", "the modelled HNSW device ms grow with ef; IVF's do not depend on it", "(lab model)",
				fmt.Sprintf("%.0f → %.0f ms from ef %d to %d", m.ParMs[0], m.ParMs[len(m.ParMs)-1], m.Efs[0], m.Efs[len(m.Efs)-1]),
				m.ParMs[len(m.ParMs)-1] > m.ParMs[0], "a wider beam reads more codes"))
	}
	return out
}

// Memory is the resident budget of the two designs with 2-bit codes,
// per vector, and its table projected to E14's 21 M vectors on 3 nodes.
type Memory struct {
	IVFResident, IVFLists float64 // lists on disk: centroids + quantizers resident; the list file
	HNSWCodes, HNSWLinks  float64 // must be resident
	Table                 *table.Table
}

// MemoryBudget tabulates what each design must keep in RAM against
// limitGB per node: iv, the IVF with 2-bit codes in its lists, and hn, the
// HNSW graph with its 2-bit codes attached (their bytes per vector,
// projected to 21 M vectors on 3 nodes).
func MemoryBudget(iv *ivf.Index, hn *hnsw.Index, limitGB float64) (*Memory, error) {
	if !(limitGB > 0) {
		return nil, fmt.Errorf("experiment: MemoryBudget: limit %g GB per node: %w", limitGB, experiment.ErrBadArgument)
	}
	if iv == nil || hn == nil {
		return nil, fmt.Errorf("experiment: MemoryBudget: an IVF index and an HNSW index are needed: %w", experiment.ErrBadArgument)
	}
	codes, ok := hn.Codes().(interface{ BytesPerVector() float64 })
	if !ok {
		return nil, fmt.Errorf("experiment: MemoryBudget: the HNSW index has no codes attached (hnsw.Index.AttachCodes): %w", experiment.ErrBadArgument)
	}
	fp := iv.Footprint()
	per := func(b int64) float64 { return float64(b) / float64(max(fp.Vectors, 1)) }
	m := &Memory{IVFResident: per(fp.Centroids + fp.Quantizer), IVFLists: per(fp.IDs + fp.Codes),
		HNSWCodes: codes.BytesPerVector(), HNSWLinks: hn.GraphBytesPerVector()}
	gb := func(b float64) float64 { return b * e27Vectors / e27Nodes / 1e9 }
	fits := func(b float64) string {
		if gb(b) <= limitGB {
			return "fits"
		}
		return fmt.Sprintf("does not fit (%.1f× the limit)", gb(b)/limitGB)
	}
	t := table.New(fmt.Sprintf("E27 memory (lab): 2-bit codes at %d dims; projection to %d M vectors on %d nodes, limit %.1f GB per node", hn.Dim(), e27Vectors/1000000, e27Nodes, limitGB),
		table.Col("design", ""), table.Col("what", ""),
		table.Column{Header: "bytes/vector", Source: table.Lab, Prec: 1},
		table.Column{Header: "GB per node", Source: table.Lab, Prec: 2},
		table.Column{Header: "under the limit", Source: table.Lab})
	hnswB, raw := m.HNSWCodes+m.HNSWLinks, float64(4*hn.Dim())
	_ = t.AddValues("HNSW, codes in RAM", "2-bit codes + graph links (must be resident)", hnswB, gb(hnswB), fits(hnswB))
	_ = t.AddValues("IVF, lists in RAM", "centroids + ids + 2-bit codes", fp.PerVector(), gb(fp.PerVector()), fits(fp.PerVector()))
	_ = t.AddValues("IVF, lists on disk", "centroids + per-list quantizers (must be resident)", m.IVFResident, gb(m.IVFResident), fits(m.IVFResident))
	_ = t.AddValues("IVF, lists on disk", "list file (page cache, as far as RAM allows)", m.IVFLists, gb(m.IVFLists), fits(m.IVFLists))
	_ = t.AddValues("both", "float32 originals (on disk, for rescoring)", raw, gb(raw), "on disk")
	t.Note("codes: the HNSW side keeps Qdrant's two_bits codes (2 bits per dimension, no corrections: %.0f B here), the IVF lists DiskBBQ's 2-bit OSQ codes with their per-vector corrections; at the articles' 768 dimensions the bits double (E14: veclab reproduce -only E14)", m.HNSWCodes)
	t.Note("graph links: layer 0 at its fixed 2·m = 32 slots plus upper layers, as allocated")
	m.Table = t
	return m, nil
}

// The article's projection E14 states too: 21 M vectors over 3 nodes.
const (
	e27Vectors = 21_000_000
	e27Nodes   = 3
)
