package ivf

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/internal/kmeans"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// Defaults.
const (
	DefaultClusterSize = 384 // DiskBBQ cluster_size (vectors per cluster)
	DefaultIters       = 25  // FAISS ClusteringParameters.niter
	DefaultSpillLambda = 1.0 // Soar.java λ
	// soarCandidates is how many of the centroids nearest to a vector are
	// considered for its spilled list (Elasticsearch limits the search to
	// neighbouring centroids as well).
	soarCandidates = 32
)

// Config parameterises Build. Zero fields take the documented defaults.
type Config struct {
	// Nlist is the number of clusters; 0 derives it from ClusterSize as
	// round(n / ClusterSize), at least 1.
	Nlist int
	// ClusterSize is the target vectors per cluster when Nlist is 0, and
	// the hierarchical k-means target; 0 → 384 (DiskBBQ).
	ClusterSize int
	// Hierarchical trains centroids with DiskBBQ's recursive k-means
	// instead of flat k-means; the cluster count then follows ClusterSize.
	Hierarchical bool
	Metric       engine.Metric
	// Bits per dimension of the codes in the posting lists: 0 keeps the
	// float32 vectors (IVF-Flat); 1, 2, 4 or 8 store OSQ codes relative to
	// each list's centroid.
	Bits int
	// QueryBits for OSQ query codes; 0 → quant's default (4 for Bits ≤ 4).
	QueryBits int
	// QueryIters bounds the coordinate-descent steps refining the query
	// interval each time the query is encoded for a visited list
	// (quant.QueryEncoder): 0 (the default) uses the minimum-MSE grid
	// interval as is, a fixed rule per query and list; DiskBBQ takes one
	// step (ES920DiskBBQVectorsReader builds its per-list query quantizer
	// as new OptimizedScalarQuantizer(similarity, DEFAULT_LAMBDA, 1)).
	// On the lab's data, 1 and 5 steps give the recall of none
	// (BenchmarkQuantizedVsFloat's iters sub-benchmark) at 2–4 more passes
	// over the query per list.
	QueryIters int
	// GlobalCentroid quantizes every list around the mean of all vectors
	// (one query encoding per query, as bbq_hnsw) instead of around each
	// list's own centroid (DiskBBQ, one query encoding per visited list).
	GlobalCentroid bool
	// Spill adds every vector to a second list chosen by SOAR.
	Spill bool
	// SpillLambda weighs the residual-parallel error in SOAR; 0 → 1.
	SpillLambda float64
	// Iters is the number of k-means iterations; 0 → 25 (FAISS). All of
	// them run (no early stop), so training time compares with FAISS's.
	Iters int
	// TrainSample caps the k-means training sample; 0 → Nlist·256 (FAISS
	// max_points_per_centroid), < 0 → all vectors.
	TrainSample int
	// RandomInit seeds k-means with a random sample of vectors (FAISS)
	// instead of k-means++.
	RandomInit bool
	Seed       uint64
	Workers    int // goroutines for training and encoding; 0 → engine.Cores()
}

// WithDefaults fills zero fields (Nlist stays 0 until the data size is known).
func (c Config) WithDefaults() Config {
	if c.ClusterSize == 0 {
		c.ClusterSize = DefaultClusterSize
	}
	if c.SpillLambda == 0 {
		c.SpillLambda = DefaultSpillLambda
	}
	if c.Iters == 0 {
		c.Iters = DefaultIters
	}
	if c.Workers <= 0 {
		c.Workers = engine.Cores()
	}
	return c
}

// Validate reports every invalid field at once.
func (c Config) Validate() error {
	var errs []string
	if c.Nlist < 0 {
		errs = append(errs, fmt.Sprintf("Nlist %d < 0", c.Nlist))
	}
	if c.ClusterSize < 1 {
		errs = append(errs, fmt.Sprintf("ClusterSize %d < 1", c.ClusterSize))
	}
	if !c.Metric.Valid() {
		errs = append(errs, fmt.Sprintf("unknown metric %d", c.Metric))
	}
	switch c.Bits {
	case 0, 1, 2, 4, 8:
	default:
		errs = append(errs, fmt.Sprintf("Bits %d (want 0 for float32, or 1, 2, 4, 8)", c.Bits))
	}
	if c.QueryBits < 0 || c.QueryBits > 8 {
		errs = append(errs, fmt.Sprintf("QueryBits %d (want 0…8)", c.QueryBits))
	}
	if c.QueryIters < 0 || c.QueryIters > 100 {
		errs = append(errs, fmt.Sprintf("QueryIters %d (want 0…100)", c.QueryIters))
	}
	if !(c.SpillLambda > 0) || math.IsInf(c.SpillLambda, 0) {
		errs = append(errs, fmt.Sprintf("SpillLambda %g (want > 0)", c.SpillLambda))
	}
	if c.Iters < 1 {
		errs = append(errs, fmt.Sprintf("Iters %d < 1", c.Iters))
	}
	if len(errs) > 0 {
		return fmt.Errorf("ivf: config: %v: %w", errs, engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the configuration as experiments record it.
func (c Config) String() string {
	codes := "float32"
	if c.Bits > 0 {
		codes = fmt.Sprintf("osq%d", c.Bits)
	}
	return fmt.Sprintf("ivf{Nlist:%d ClusterSize:%d Hierarchical:%t Metric:%v Codes:%s QueryBits:%d QueryIters:%d GlobalCentroid:%t Spill:%t λ:%g Iters:%d TrainSample:%d RandomInit:%t Seed:%d}",
		c.Nlist, c.ClusterSize, c.Hierarchical, c.Metric, codes, c.QueryBits, c.QueryIters, c.GlobalCentroid, c.Spill, c.SpillLambda, c.Iters, c.TrainSample, c.RandomInit, c.Seed)
}

// list is one posting list.
type list struct {
	ids   []engine.ID
	vecs  []float32 // float lists: len(ids)·dim
	codes []byte    // quantized lists: len(ids)·codeSize
}

// BuildStats describe a Build.
type BuildStats struct {
	TrainTime  time.Duration // k-means
	AssignTime time.Duration // primary and spilled assignment
	EncodeTime time.Duration // filling the posting lists (quantization)
	Iters      int
	Trained    int // vectors k-means trained on
	Objective  float64
	Spilled    int // vectors placed in a second list
}

// Index is a built IVF index.
type Index struct {
	cfg      Config
	dim, n   int
	cents    *vec.Matrix
	cnorms   []float32 // ‖c‖²
	lists    []list
	quants   []*quant.OSQ // per list, when Bits > 0
	codeSize int
	qcodeSz  int
	entries  int
	build    BuildStats
	disk     *diskLists // lists read from disk (UseDiskLists), else nil
	pool     sync.Pool  // *searcher
}

// Build trains centroids on data and fills the posting lists with every
// row of data: Train followed by Add, checking data once. data is not
// retained (the lists copy what they keep). Every row is checked (dimension, finite, non-zero under Cosine).
func Build(data *vec.Matrix, cfg Config) (*Index, error) {
	ix, x, err := train(data, cfg)
	if err != nil {
		return nil, err
	}
	ix.assignAndFill(x)
	return ix, nil
}

// Train learns the centroids from data and returns an index with empty
// lists, to be filled once by Add (FAISS's train/add split). Training alone
// is what the lab compares with FAISS's k-means.
func Train(data *vec.Matrix, cfg Config) (*Index, error) {
	ix, _, err := train(data, cfg)
	if err != nil {
		return nil, err
	}
	ix.n = 0
	return ix, nil
}

// Add fills the lists of a trained index with every row of data, ids
// 0…data.N−1. An index is filled once: a second Add is an error.
func (ix *Index) Add(data *vec.Matrix) error {
	if ix.lists != nil {
		return fmt.Errorf("ivf: index already holds %d vectors (an index is filled once): %w", ix.n, engine.ErrInvalidArgument)
	}
	if data != nil && data.Dim != ix.dim {
		return fmt.Errorf("ivf: vectors have %d components, centroids %d: %w", data.Dim, ix.dim, engine.ErrDimension)
	}
	x, err := prepare(data, ix.cfg.Metric)
	if err != nil {
		return err
	}
	ix.n = x.N
	ix.assignAndFill(x)
	return nil
}

// prepare checks every row and returns data itself when it can be used as
// is, else a copy normalised under Cosine (rows already of unit length are
// used as they are: the lab's data sets are unit-normalised).
func prepare(data *vec.Matrix, metric engine.Metric) (*vec.Matrix, error) {
	if data == nil || data.N == 0 {
		return nil, fmt.Errorf("ivf: no vectors to index: %w", engine.ErrEmpty)
	}
	if data.Dim <= 0 || data.Stride < data.Dim || len(data.Data) < (data.N-1)*data.Stride+data.Dim {
		return nil, fmt.Errorf("ivf: matrix shape N=%d Dim=%d Stride=%d does not fit %d floats: %w", data.N, data.Dim, data.Stride, len(data.Data), engine.ErrDimension)
	}
	unit := true
	for i := 0; i < data.N; i++ {
		r := data.Row(i)
		if err := engine.CheckVector(r, data.Dim, metric); err != nil {
			return nil, fmt.Errorf("ivf: vector %d: %w", i, err)
		}
		if metric == engine.Cosine && unit {
			if n2 := f32.Dot(r, r); n2 < 1-unitTol || n2 > 1+unitTol {
				unit = false
			}
		}
	}
	if metric != engine.Cosine || unit {
		return data, nil
	}
	x := vec.NewMatrix(data.N, data.Dim)
	for i := 0; i < data.N; i++ {
		copy(x.Row(i), data.Row(i))
		_ = vec.Normalize(x.Row(i))
	}
	return x, nil
}

// unitTol is how far ‖x‖² may be from 1 for a row to count as normalised.
const unitTol = 1e-5

func train(data *vec.Matrix, cfg Config) (*Index, *vec.Matrix, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if data != nil && data.N > 0 && cfg.Nlist > data.N {
		return nil, nil, fmt.Errorf("ivf: more clusters (Nlist %d) than vectors (%d): %w", cfg.Nlist, data.N, engine.ErrInvalidArgument)
	}
	x, err := prepare(data, cfg.Metric)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Nlist == 0 && !cfg.Hierarchical {
		cfg.Nlist = max(1, int(math.Round(float64(x.N)/float64(cfg.ClusterSize))))
	}
	ix := &Index{cfg: cfg, dim: x.Dim, n: x.N}
	if err := ix.train(x); err != nil {
		return nil, nil, err
	}
	return ix, x, nil
}

func (ix *Index) train(x *vec.Matrix) error {
	start := time.Now()
	cfg := ix.cfg
	spherical := cfg.Metric == engine.Cosine
	var m *kmeans.Model
	var err error
	if cfg.Hierarchical {
		m, err = kmeans.Hierarchical(x, kmeans.HierConfig{TargetSize: cfg.ClusterSize, Seed: cfg.Seed, Spherical: spherical, Workers: cfg.Workers})
	} else {
		mppc := kmeans.DefaultMaxPointsPerCentroid
		switch {
		case cfg.TrainSample < 0:
			mppc = -1
		case cfg.TrainSample > 0:
			mppc = max(1, cfg.TrainSample/cfg.Nlist)
		}
		init := kmeans.PlusPlus
		if cfg.RandomInit {
			init = kmeans.Random
		}
		m, err = kmeans.Train(x, kmeans.Config{K: cfg.Nlist, MaxIter: cfg.Iters, Tol: -1, Seed: cfg.Seed,
			MaxPointsPerCentroid: mppc, Init: init, Spherical: spherical, Workers: cfg.Workers})
	}
	if err != nil {
		return fmt.Errorf("ivf: train: %w", err)
	}
	ix.cents = m.Centroids
	ix.cfg.Nlist = m.K()
	ix.cnorms = make([]float32, m.K())
	for j := range ix.cnorms {
		r := m.Centroids.Row(j)
		ix.cnorms[j] = f32.Dot(r, r)
	}
	ix.build.TrainTime = time.Since(start)
	ix.build.Iters, ix.build.Trained, ix.build.Objective = m.Iters, m.Trained, m.Objective
	return nil
}

// assignAndFill assigns every vector to its nearest centroid (and a SOAR
// list when spilling), then fills the posting lists in id order.
func (ix *Index) assignAndFill(x *vec.Matrix) {
	start := time.Now()
	cfg := ix.cfg
	nl := ix.cents.N
	primary, _ := kmeans.AssignAll(x, ix.cents, cfg.Workers)
	var second []int32
	if cfg.Spill && nl > 1 {
		second = ix.soar(x, primary)
	}
	ix.build.AssignTime = time.Since(start)

	start = time.Now()
	counts := make([]int, nl)
	for i := range primary {
		counts[primary[i]]++
		if second != nil && second[i] >= 0 {
			counts[second[i]]++
			ix.build.Spilled++
		}
	}
	ix.lists = make([]list, nl)
	if cfg.Bits > 0 {
		ix.quants = make([]*quant.OSQ, nl)
		qcfg := quant.OSQConfig{Bits: cfg.Bits, QueryBits: cfg.QueryBits, Seed: cfg.Seed}
		var global *quant.OSQ
		if cfg.GlobalCentroid {
			mean := make([]float64, ix.dim)
			for i := 0; i < x.N; i++ {
				for d, v := range x.Row(i) {
					mean[d] += float64(v)
				}
			}
			c := make([]float32, ix.dim)
			for d := range c {
				c[d] = float32(mean[d] / float64(x.N))
			}
			var err error
			if global, err = quant.NewOSQ(c, cfg.Metric, qcfg); err != nil { // validated: cannot happen
				panic("ivf: " + err.Error())
			}
		}
		for j := 0; j < nl; j++ {
			if global != nil {
				ix.quants[j] = global
				continue
			}
			q, err := quant.NewOSQ(ix.cents.Row(j), cfg.Metric, qcfg)
			if err != nil { // config validated above: cannot happen
				panic("ivf: " + err.Error())
			}
			ix.quants[j] = q
		}
		ix.codeSize = ix.quants[0].CodeSize()
		ix.qcodeSz = ix.quants[0].QueryCodeSize()
	}
	for j := range ix.lists {
		ix.lists[j].ids = make([]engine.ID, 0, counts[j])
	}
	for i := range primary {
		l := &ix.lists[primary[i]]
		l.ids = append(l.ids, engine.ID(i))
		if second != nil && second[i] >= 0 {
			s := &ix.lists[second[i]]
			s.ids = append(s.ids, engine.ID(i))
		}
	}
	// Fill vectors or codes, lists spread over workers.
	var wg sync.WaitGroup
	next := make(chan int, nl)
	for j := 0; j < nl; j++ {
		next <- j
	}
	close(next)
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				l := &ix.lists[j]
				if cfg.Bits == 0 {
					l.vecs = make([]float32, len(l.ids)*ix.dim)
					for k, id := range l.ids {
						copy(l.vecs[k*ix.dim:], x.Row(int(id)))
					}
					continue
				}
				l.codes = make([]byte, len(l.ids)*ix.codeSize)
				for k, id := range l.ids {
					// Vectors were checked in Build: Encode cannot fail.
					if err := ix.quants[j].Encode(l.codes[k*ix.codeSize:(k+1)*ix.codeSize], x.Row(int(id))); err != nil {
						panic("ivf: " + err.Error())
					}
				}
			}
		}()
	}
	wg.Wait()
	for j := range ix.lists {
		ix.entries += len(ix.lists[j].ids)
	}
	ix.build.EncodeTime = time.Since(start)
}

// soar returns each vector's spilled list (−1 when none), minimising
// ‖x − c'‖² + λ·⟨r, x − c'⟩²/‖r‖² with r = x − c the primary residual over
// the soarCandidates centroids nearest to x, c' ≠ c (Sun et al. 2023;
// elastic/elasticsearch …/cluster/Soar.java, which skips ‖r‖² ≤ 1e−16).
func (ix *Index) soar(x *vec.Matrix, primary []int32) []int32 {
	nl, dim := ix.cents.N, ix.dim
	lambda := float32(ix.cfg.SpillLambda)
	out := make([]int32, x.N)
	ncand := min(soarCandidates, nl-1)
	var wg sync.WaitGroup
	chunks := make(chan int, (x.N+255)/256)
	for lo := 0; lo < x.N; lo += 256 {
		chunks <- lo
	}
	close(chunks)
	for w := 0; w < ix.cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := make([]float32, dim)
			d := make([]float32, nl)
			idx := make([]int, nl)
			for lo := range chunks {
				for i := lo; i < min(lo+256, x.N); i++ {
					xi := x.Row(i)
					c := int(primary[i])
					cr := ix.cents.Row(c)
					var rn float32
					for k := range r {
						r[k] = xi[k] - cr[k]
						rn += r[k] * r[k]
					}
					if rn <= 1e-16 {
						out[i] = -1
						continue
					}
					xx := f32.Dot(xi, xi)
					for j := 0; j < nl; j++ {
						d[j] = xx + ix.cnorms[j] - 2*f32.Dot(xi, ix.cents.Row(j))
						idx[j] = j
					}
					// Partial selection of the ncand+1 nearest (primary among them).
					sel := idx[:nl]
					for a := 0; a < ncand+1 && a < nl; a++ {
						m := a
						for b := a + 1; b < nl; b++ {
							if d[sel[b]] < d[sel[m]] || (d[sel[b]] == d[sel[m]] && sel[b] < sel[m]) {
								m = b
							}
						}
						sel[a], sel[m] = sel[m], sel[a]
					}
					best, bestCost := int32(-1), float32(math.Inf(1))
					rx := f32.Dot(r, xi)
					for _, j := range sel[:min(ncand+1, nl)] {
						if j == c {
							continue
						}
						proj := rx - f32.Dot(r, ix.cents.Row(j)) // ⟨r, x − c'⟩
						cost := d[j] + lambda*proj*proj/rn
						if cost < bestCost {
							best, bestCost = int32(j), cost
						}
					}
					out[i] = best
				}
			}
		}()
	}
	wg.Wait()
	return out
}

// Dim returns the vectors' dimension.
func (ix *Index) Dim() int { return ix.dim }

// Len returns the number of indexed vectors.
func (ix *Index) Len() int { return ix.n }

// Nlist returns the number of lists.
func (ix *Index) Nlist() int { return ix.cents.N }

// Config returns the effective configuration.
func (ix *Index) Config() Config { return ix.cfg }

// BuildStats returns the timings of Build.
func (ix *Index) BuildStats() BuildStats { return ix.build }

// Centroids returns the centroid slab (aliased; do not modify).
func (ix *Index) Centroids() *vec.Matrix { return ix.cents }

// ListSizes returns the number of entries of every list.
func (ix *Index) ListSizes() []int {
	s := make([]int, len(ix.lists))
	for j := range ix.lists {
		s[j] = len(ix.lists[j].ids)
		if ix.disk != nil {
			s[j] = ix.disk.dir[j].count
		}
	}
	return s
}

// Footprint is the index's memory, by component, in bytes.
type Footprint struct {
	Vectors   int   // documents indexed
	Entries   int   // posting-list entries (Vectors + spilled)
	Centroids int64 // float32 centroids (+ their norms)
	IDs       int64 // 4-byte document ids in the lists
	Codes     int64 // float32 vectors (IVF-Flat) or OSQ codes with corrections
	Quantizer int64 // per-list quantizer parameters beyond the centroid
	// Disk is the on-disk size of the full-precision vectors kept for
	// rescoring (FootprintWith a file); not resident.
	Disk int64
	// ListsOnDisk is the size of the list file when the lists live on
	// disk (UseDiskLists); IDs and Codes are then not resident.
	ListsOnDisk int64
}

// Resident returns the total resident bytes.
func (f Footprint) Resident() int64 { return f.Centroids + f.IDs + f.Codes + f.Quantizer }

// PerVector returns resident bytes per indexed vector.
func (f Footprint) PerVector() float64 {
	if f.Vectors == 0 {
		return 0
	}
	return float64(f.Resident()) / float64(f.Vectors)
}

// String prints the footprint.
func (f Footprint) String() string {
	pv := func(b int64) float64 { return float64(b) / float64(max(f.Vectors, 1)) }
	s := fmt.Sprintf("%.1f B/vector resident (codes %.1f, ids %.1f, centroids %.1f, quantizers %.1f) over %d vectors, %d entries",
		f.PerVector(), pv(f.Codes), pv(f.IDs), pv(f.Centroids), pv(f.Quantizer), f.Vectors, f.Entries)
	if f.Disk > 0 {
		s += fmt.Sprintf("; %.1f B/vector on disk", pv(f.Disk))
	}
	return s
}

// FootprintWith is Footprint with Disk set to the size of src when it is a
// file that reports one (engine/store.File).
func (ix *Index) FootprintWith(src engine.VectorSource) Footprint {
	f := ix.Footprint()
	if s, ok := src.(interface{ Size() int64 }); ok {
		f.Disk = s.Size()
	}
	return f
}

// Footprint returns the resident bytes by component. Full-precision
// vectors kept for rescoring are not part of it: see store.File.Size.
func (ix *Index) Footprint() Footprint {
	f := Footprint{Vectors: ix.n, Entries: ix.entries}
	f.Centroids = int64(ix.cents.N) * int64(ix.dim*4+4)
	f.IDs = int64(ix.entries) * 4
	if ix.disk != nil {
		f.IDs, f.ListsOnDisk = 0, ix.disk.blob.Size()
		return f
	}
	if ix.cfg.Bits == 0 {
		f.Codes = int64(ix.entries) * int64(ix.dim*4)
	} else {
		f.Codes = int64(ix.entries) * int64(ix.codeSize)
		f.Quantizer = int64(ix.cents.N) * 16 // config and ‖c‖² per list
		if ix.cfg.GlobalCentroid {
			f.Quantizer = int64(ix.dim*4 + 16)
		}
	}
	return f
}
