package experiment

import (
	"fmt"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/scratch"
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
// configuration of the DiskBBQ-vs-Qdrant article. At 4 bits they are
// TurboQuant as Qdrant 1.18 ships it (quant.TurboQdrant, TQ+ mode: the
// quantization config `turbo: {bits: bits4}`, qdrant/qdrant v1.18.0
// lib/segment/src/types.rs TurboQuantization, encoded by
// lib/quantization/src/turboquant), the codes of Qdrant's reply that
// Elastic's reply reproduced (E14, E15); at 8 bits, which Qdrant offers
// as int8 scalar quantization, the lab's OSQ codes stand in.
func HNSWCodes(env *Env, bits int) (*DiskHNSW, error) { return hnswCodesGraph(env, bits, false) }

// UseHNSWCodes hands the disk experiments an index a notebook built in
// its own cells: ix, an HNSW graph over the environment's data set (row
// i under key i, built with the float32 vectors) walked with the
// bits-wide codes attached to it (a *quant.Store), becomes the index
// [HNSWCodes] returns for that width, so E13–E15's bookkeeping measures
// the graph the learner saw built instead of building a second one.
func UseHNSWCodes(env *Env, ix *hnsw.Index, bits int) error {
	ds, err := env.Dataset()
	if err != nil {
		return err
	}
	if ix == nil {
		return fmt.Errorf("experiment: UseHNSWCodes: no index: %w", ErrBadArgument)
	}
	codes, ok := ix.Codes().(*quant.Store)
	if !ok || codes == nil {
		return fmt.Errorf("experiment: UseHNSWCodes: the index has no codes attached (hnsw.Index.AttachCodes with a quant.Store): %w", ErrBadArgument)
	}
	if bits != 1 && bits != 2 && bits != 4 && bits != 8 {
		return fmt.Errorf("experiment: UseHNSWCodes: codes of %d bits: the disk experiments use 1, 2, 4 or 8: %w", bits, ErrBadArgument)
	}
	if ix.Len() != ds.Base.N || ix.Dim() != ds.Base.Dim {
		return fmt.Errorf("experiment: UseHNSWCodes: the index holds %d vectors of %d dimensions, the data set %d of %d: %w", ix.Len(), ix.Dim(), ds.Base.N, ds.Base.Dim, ErrBadArgument)
	}
	for id := range ix.Len() {
		if k := ix.Key(engine.ID(id)); k != uint64(id) {
			return fmt.Errorf("experiment: UseHNSWCodes: node %d holds key %d: add row i under key i, in order: %w", id, k, ErrBadArgument)
		}
	}
	diskMu.Lock()
	defer diskMu.Unlock()
	diskHNSW[diskKey{env, bits, false}] = &DiskHNSW{Index: ix, Codes: codes, Bits: bits}
	return nil
}

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
	case !codeGraph && bits == 4:
		q, err = quant.TrainTurbo(ds.Base, env.Metric(), quant.TurboConfig{Kind: quant.TurboQdrant, Bits: 4, Seed: env.Seed})
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
	env.Logf("building HNSW with %d-bit codes over %d vectors (graph from %s)", bits, ds.Base.N, map[bool]string{false: "float32", true: "codes"}[codeGraph])
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
	ix, err := BuildIVFCentring(env, bits, false)
	if err != nil {
		return nil, err
	}
	diskIVF[diskKey{env: env, bits: bits}] = ix
	return ix, nil
}

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

// VectorFile writes the data set's float32 vectors to a vector file in a
// new scratch directory (lab/scratch: in memory in a browser); cleanup
// removes it.
func VectorFile(env *Env) (dir *scratch.Dir, path string, cleanup func(), err error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, "", nil, err
	}
	dir, err = scratch.New("veclab-experiment")
	if err != nil {
		return nil, "", nil, fmt.Errorf("experiment: vector file: %w", err)
	}
	path = dir.Join("vectors.vec")
	if err := store.WriteMatrixFS(dir.FS, path, ds.Base, env.Metric()); err != nil {
		dir.Remove()
		return nil, "", nil, fmt.Errorf("experiment: vector file: %w", err)
	}
	return dir, path, func() { dir.Remove() }, nil
}

// DiskPoint is one measured setting of a disk-backed search
// (measure.DiskResult: the notebooks measure with lab/measure's disk verbs).
type DiskPoint = measure.DiskResult

// RowReads is what a pass of rescoring reads cost the device, cold, on a
// vector file of a given row width (measure.RowReads).
type RowReads = measure.RowReads

// DiskSearch answers one query: results with document ids, the rescoring
// reads and the posting-list reads (measure.DiskSearch).
type DiskSearch = measure.DiskSearch

// MeasureDisk runs up to nq of the environment's queries through fn
// (after its warm-up, untimed; before, when set, runs untimed before every
// timed query) and measures recall@k, speed and reads: measure.Disk on
// the environment's exact answers.
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
	q := &measure.Queries{Vectors: ds.Queries, K: k, Truth: truth.IDs, Metric: env.Metric(), Warmup: env.Scale.Warmup}
	if q, err = q.First(max(nq, 1)); err != nil {
		return DiskPoint{}, fmt.Errorf("experiment: %s: %w", label, err)
	}
	p, err := measure.Disk(label, fn, q, before)
	if err != nil {
		return DiskPoint{}, fmt.Errorf("experiment: %s: %w", label, err)
	}
	p.Param = param
	return p, nil
}

// HnswSearch searches d with its codes and rescores ⌈oversample·k⌉
// candidates through rs (the vector file): measure.HNSWDisk.
func HnswSearch(d *DiskHNSW, ef int, oversample float64, rs *rescore.Rescorer) DiskSearch {
	return measure.HNSWDisk(d.Index, ef, oversample, rs)
}

// IvfSearch searches ix scanning visit % of the vectors and rescores
// ⌈oversample·k⌉ candidates through rs: measure.IVFDisk.
func IvfSearch(ix *ivf.Index, visit, oversample float64, rs *rescore.Rescorer) DiskSearch {
	return measure.IVFDisk(ix, visit, oversample, rs)
}

// EvictAll returns a function that drops the files' pages from the page
// cache and checks that none stayed: measure.Evict.
func EvictAll(files ...interface {
	Evict() (int, error)
}) func() error {
	ev := make([]measure.Evicter, len(files))
	for i, f := range files {
		ev[i] = f
	}
	return measure.Evict(ev...)
}
