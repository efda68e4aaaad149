package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/metrics"
)

// The disk experiments (E13–E15, E26, E27) share two indexes over the
// environment's data set, built once per environment and code width:
//
//   - an HNSW graph walked with OSQ codes held in RAM (m = 16 links above
//     layer 0, 2·m on layer 0 and for new nodes, ef_construction 100), the
//     full-precision originals read for rescoring from an on-disk vector file
//     (engine/store). By default the graph is built with the float32 vectors
//     and the codes attached afterwards — Qdrant's "2-bit codes in RAM,
//     originals on disk", where quantization serves search only; with
//     codeGraph the graph is built with the codes' own scores, as a Lucene
//     merge builds a bbq_hnsw graph;
//   - an IVF index whose posting lists hold OSQ codes relative to each list's
//     centroid (DiskBBQ, ~384 vectors per list), rescoring from the same file.
//
// The vector file is written to a temporary directory for each call that
// needs it and removed afterwards.

type diskKey struct {
	env       *Env
	bits      int
	codeGraph bool
}

var (
	diskMu   sync.Mutex
	diskHNSW = map[diskKey]*DiskHNSW{}
	diskIVF  = map[diskKey]*ivf.Index{}
)

// DiskHNSW is an HNSW index walked with quantized codes kept in RAM; its
// float32 originals are rescored from a vector file.
type DiskHNSW struct {
	Index *hnsw.Index
	Codes *quant.Store
	Bits  int
	// CodeGraph says the graph was built with the codes' scores (Lucene);
	// false: with the float32 vectors, codes attached after (Qdrant).
	CodeGraph bool
	Build     time.Duration // wall time of the build (graph and codes)
}

// HNSWCodes builds (once per environment and bits) the HNSW index walked
// with codes of the given width (1, 2, 4 or 8 bits) kept in RAM, its graph
// built with the float32 vectors, as Qdrant builds it. At 1 and 2 bits the
// codes are Qdrant's binary quantization (quant.Binary, one_bit and
// two_bits: per-dimension z-score thresholds, no centroid, scored by
// differing bits; qdrant/qdrant v1.18 encoded_vectors_binary.rs), the
// configuration of the DiskBBQ-vs-Qdrant article; at 4 and 8 bits, which
// Qdrant 1.18 offers only as int8 scalar quantization and 1.19 as
// TurboQuant, the lab's OSQ codes stand in.
func HNSWCodes(env *Env, bits int) (*DiskHNSW, error) { return hnswCodesGraph(env, bits, false) }

// hnswCodesGraph is [HNSWCodes] with the choice of graph: codeGraph builds
// it with the codes' scores, as Lucene does for bbq_hnsw, with OSQ codes
// centred on the plain mean of the vectors (Elasticsearch hands Lucene a
// cosine field as DOT_PRODUCT, so its writers do not normalise the
// centroid).
func hnswCodesGraph(env *Env, bits int, codeGraph bool) (*DiskHNSW, error) {
	diskMu.Lock()
	defer diskMu.Unlock()
	key := diskKey{env, bits, codeGraph}
	if d, ok := diskHNSW[key]; ok {
		return d, nil
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	var q quant.Quantizer
	switch {
	case !codeGraph && bits == 1:
		q, err = quant.TrainBinary(ds.Base, env.Metric(), quant.BinaryConfig{Encoding: quant.OneBit})
	case !codeGraph && bits == 2:
		q, err = quant.TrainBinary(ds.Base, env.Metric(), quant.BinaryConfig{Encoding: quant.TwoBits})
	default:
		q, err = quant.TrainOSQ(ds.Base, env.Metric(), quant.OSQConfig{Bits: bits, Seed: env.Seed, MeanCentroid: codeGraph})
	}
	if err != nil {
		return nil, fmt.Errorf("experiment: %d-bit codes: %w", bits, err)
	}
	codes := quant.NewStore(q)
	const m = 16
	cfg := hnsw.Config{Dim: ds.Base.Dim, Metric: env.Metric(), M: m, M0: 2 * m, NewNodeDegreeL0: 2 * m,
		EfConstruction: 100, Seed: env.Seed, Workers: max(env.Workers, 1)}
	if codeGraph {
		cfg.Codes = codes
	}
	ix, err := hnsw.New(cfg)
	if err != nil {
		return nil, err
	}
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	env.Logf("building HNSW with %d-bit OSQ codes over %d vectors (graph from %s)", bits, ds.Base.N, map[bool]string{false: "float32", true: "codes"}[codeGraph])
	t0 := time.Now()
	if err := ix.AddBatch(keys, ds.Base); err != nil {
		return nil, fmt.Errorf("experiment: HNSW with %d-bit codes: %w", bits, err)
	}
	if !codeGraph {
		if err := ix.AttachCodes(codes); err != nil {
			return nil, fmt.Errorf("experiment: attaching %d-bit codes: %w", bits, err)
		}
	}
	d := &DiskHNSW{Index: ix, Codes: codes, Bits: bits, CodeGraph: codeGraph, Build: time.Since(t0)}
	codes.DropBuildCodes() // Lucene keeps the query-width codes only while it builds
	diskHNSW[key] = d
	return d, nil
}

// IVFCodes builds (once per environment and bits) the IVF index with OSQ
// codes of the given width in its posting lists (DiskBBQ: ~384 vectors per
// list, codes around each list's centroid).
func IVFCodes(env *Env, bits int) (*ivf.Index, error) {
	diskMu.Lock()
	defer diskMu.Unlock()
	if ix, ok := diskIVF[diskKey{env: env, bits: bits}]; ok {
		return ix, nil
	}
	ix, err := BuildIVF(env, bits)
	if err != nil {
		return nil, err
	}
	diskIVF[diskKey{env: env, bits: bits}] = ix
	return ix, nil
}

func BuildIVF(env *Env, bits int) (*ivf.Index, error) { return BuildIVFCentring(env, bits, false) }

// buildIVFCentring builds the IVF index with its codes centred on each
// list's centroid (DiskBBQ) or, with global, on the mean of all vectors.
func BuildIVFCentring(env *Env, bits int, global bool) (*ivf.Index, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	env.Logf("building IVF with %d-bit OSQ lists over %d vectors (global centroid %t)", bits, ds.Base.N, global)
	ix, err := ivf.Build(ds.Base, ivf.Config{Metric: env.Metric(), Bits: bits, GlobalCentroid: global, Seed: env.Seed, Workers: max(env.Workers, 1)})
	if err != nil {
		return nil, fmt.Errorf("experiment: IVF with %d-bit lists: %w", bits, err)
	}
	return ix, nil
}

// vectorFile writes the data set's float32 vectors to a vector file in a
// new temporary directory; cleanup removes it.
func VectorFile(env *Env) (dir, path string, cleanup func(), err error) {
	ds, err := env.Dataset()
	if err != nil {
		return "", "", nil, err
	}
	dir, err = os.MkdirTemp("", "veclab-experiment")
	if err != nil {
		return "", "", nil, fmt.Errorf("experiment: vector file: %w", err)
	}
	path = filepath.Join(dir, "vectors.vec")
	if err := store.WriteMatrix(path, ds.Base, env.Metric()); err != nil {
		os.RemoveAll(dir)
		return "", "", nil, fmt.Errorf("experiment: vector file: %w", err)
	}
	return dir, path, func() { os.RemoveAll(dir) }, nil
}

// DiskPoint is one measured setting of a disk-backed search.
type DiskPoint struct {
	Label       string
	Param       float64 // the swept value (ef, visit %)
	K           int
	Queries     int     // timed queries
	Recall      float64 // mean recall@K
	QPS         float64 // single goroutine, wall time
	P50ms       float64
	Reads       float64 // full-vector reads per query (rescoring)
	DeviceReads float64 // of which not served by the page cache
	KB          float64 // KiB requested per query (rescoring)
	ListReads   float64 // posting-list reads per query (IVF lists on disk)
	ListDevice  float64 // of which not served by the page cache
	Simulated   float64 // simulated device ms per query (Model)
	// DevPages is the rescoring reads' pages per query that were not
	// resident when read: the pages the device served, in the page
	// cache's 4 KiB units, read-ahead aside.
	DevPages float64
	// DevKB is the KiB per query the kernel read from the device for this
	// process during the first timed pass (/proc/self/io read_bytes:
	// whole pages, and any read-ahead), NaN where that is not known.
	DevKB float64
	// Wide, when measured (E13), is the same cold rescoring reads
	// repeated on rows of another width: the article's 768 dims.
	Wide *RowReads
}

// RowReads is what a pass of rescoring reads cost the device, cold, on a
// vector file of a given row width.
type RowReads struct {
	Dim      int     // components per row
	RowBytes int     // bytes per row (4·Dim and its CRC)
	Reads    float64 // rows read per query
	KB       float64 // KiB requested per query
	DevPages float64 // pages per query not resident when read
	DevKB    float64 // KiB per query the device read (/proc/self/io), NaN where unknown
}

// diskSearch answers one query: results with document ids, the rescoring
// reads and the posting-list reads.
type DiskSearch func(q []float32, k int) ([]engine.Result, store.IOStats, store.IOStats, error)

// measureDisk runs up to nq of the environment's queries through fn
// (after its warm-up, untimed; before, when set, runs untimed before every
// timed query) and measures recall@k, speed and reads.
func MeasureDisk(env *Env, label string, param float64, k, nq int, before func() error, fn DiskSearch) (DiskPoint, error) {
	ds, err := env.Dataset()
	if err != nil {
		return DiskPoint{}, err
	}
	k = min(k, ds.Base.N)
	truth, err := env.Truth(k)
	if err != nil {
		return DiskPoint{}, err
	}
	qs := ds.Queries
	nq = min(max(nq, 1), qs.N)
	p := DiskPoint{Label: label, Param: param, K: k, Queries: nq}
	// Warm runs (no before hook) are timed over diskRepeats passes: the
	// median pass gives QPS, all latencies the p50, so one stall of a
	// shared machine does not make QPS and p50 disagree. A cold run
	// (before drops the cache) is timed once: its reads are the figure.
	loop := metrics.Loop{Queries: nq, K: k, Truth: truth.IDs, Warmup: env.Scale.Warmup, Passes: 1, Pick: metrics.MedianPass}
	if before == nil {
		loop.Passes = DiskRepeats
	} else {
		loop.Before = before
	}
	var vio, lio store.IOStats
	p.DevKB = math.NaN()
	rb0, rbOK := metrics.ProcessReadBytes()
	loop.AfterPass = func(pass int) error {
		// The device's reads of the first pass (the later ones read the
		// same pages).
		if rb1, ok := metrics.ProcessReadBytes(); pass == 0 && ok && rbOK {
			p.DevKB = float64(rb1-rb0) / 1024 / float64(nq)
		}
		return nil
	}
	m, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		res, v, l, err := fn(qs.Row(i), k)
		if pass == 0 { // recall and reads are the same every pass
			vio.Add(v)
			lio.Add(l)
		}
		return res, err
	})
	if err != nil {
		return DiskPoint{}, fmt.Errorf("experiment: %s: %w", label, err)
	}
	n := float64(nq)
	p.Recall, p.QPS, p.P50ms = m.Recall, m.QPS, Ms(m.Latency.P50)
	p.Reads, p.DeviceReads, p.KB = float64(vio.Reads)/n, float64(vio.DeviceReads())/n, float64(vio.Bytes)/1024/n
	p.ListReads, p.ListDevice = float64(lio.Reads)/n, float64(lio.DeviceReads())/n
	p.DevPages = float64(vio.Pages-vio.CachedPages) / n
	p.Simulated = Ms(vio.Simulated+lio.Simulated) / n
	return p, nil
}

// hnswSearch searches d with its codes and rescores ⌈oversample·k⌉
// candidates through rs (the vector file).
func HnswSearch(d *DiskHNSW, ef int, oversample float64, rs *rescore.Rescorer) DiskSearch {
	s := d.Index.NewSearcher()
	return func(q []float32, k int) ([]engine.Result, store.IOStats, store.IOStats, error) {
		p := &hnsw.Rescore{Rescorer: rs, Oversample: oversample}
		res, err := s.Search(q, engine.Request{K: k, Breadth: max(ef, k), Params: p})
		if err != nil {
			return nil, store.IOStats{}, store.IOStats{}, err
		}
		st := p.Stats
		for i := range res {
			res[i].ID = engine.ID(d.Index.Key(res[i].ID))
		}
		return res, st.IO, store.IOStats{}, nil
	}
}

// ivfSearch searches ix scanning visit % of the vectors and rescores
// ⌈oversample·k⌉ candidates through rs.
func IvfSearch(ix *ivf.Index, visit, oversample float64, rs *rescore.Rescorer) DiskSearch {
	return func(q []float32, k int) ([]engine.Result, store.IOStats, store.IOStats, error) {
		res, st, err := ix.SearchWith(q, ivf.SearchOptions{K: k, VisitPercentage: visit, Oversample: oversample, Rescorer: rs})
		return res, st.Rescore.IO, st.ListIO, err
	}
}

// evictAll returns a function that drops the files' pages from the page
// cache (fsync + posix_fadvise DONTNEED) and checks that none stayed.
func EvictAll(files ...interface {
	Evict() (int, error)
}) func() error {
	return func() error {
		for _, f := range files {
			left, err := f.Evict()
			if err != nil {
				return err
			}
			if left != 0 {
				return fmt.Errorf("%d pages still cached after eviction", left)
			}
		}
		return nil
	}
}
