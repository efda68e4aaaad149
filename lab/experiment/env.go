package experiment

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/cpu"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/pglive"
	"github.com/veclab/veclab/lab/profile"
)

// Scale is the size of an experiment run.
type Scale struct {
	Name     string // "article", "small", or "custom"
	N        int    // documents
	Dim      int    // dimensions
	Clusters int    // Gaussian clusters of the generator
	Queries  int    // measured queries
	Warmup   int    // warm-up queries run (the first ones of the set) before measuring
	K        int    // topK
	Batch    int    // ingest batch size
}

// The named scales. Article is the Spring AI VectorStore article's set-up: 30,000
// unit-length vectors of 384 dimensions in 40 clusters, 100 queries after
// 20 warm-up, topK 10, batches of 1,000. Small keeps the dimension (the
// Elasticsearch default index type depends on it) and shrinks the rest so
// a test runs in seconds.
var (
	Article = Scale{Name: "article", N: 30000, Dim: 384, Clusters: 40, Queries: 100, Warmup: 20, K: 10, Batch: 1000}
	Small   = Scale{Name: "small", N: 2000, Dim: 384, Clusters: 40, Queries: 20, Warmup: 5, K: 10, Batch: 250}
)

// String prints the scale in the form ParseScale reads back.
func (s Scale) String() string {
	return fmt.Sprintf("n=%d dim=%d clusters=%d queries=%d warmup=%d k=%d batch=%d",
		s.N, s.Dim, s.Clusters, s.Queries, s.Warmup, s.K, s.Batch)
}

// Validate reports every invalid field at once.
func (s Scale) Validate() error {
	var errs []string
	pos := func(name string, v int) {
		if v < 1 {
			errs = append(errs, fmt.Sprintf("%s must be ≥ 1, got %d", name, v))
		}
	}
	pos("n", s.N)
	pos("dim", s.Dim)
	pos("clusters", s.Clusters)
	pos("queries", s.Queries)
	pos("k", s.K)
	pos("batch", s.Batch)
	if s.Warmup < 0 {
		errs = append(errs, fmt.Sprintf("warmup must be ≥ 0, got %d", s.Warmup))
	}
	if s.K > s.N && s.N > 0 {
		errs = append(errs, fmt.Sprintf("k=%d exceeds n=%d", s.K, s.N))
	}
	if len(errs) > 0 {
		return fmt.Errorf("experiment: scale: %s: %w", strings.Join(errs, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// ParseScale reads "article", "small", or key=value pairs (separated by
// spaces or commas) applied on top of the article scale, e.g.
// "n=10000,queries=50".
func ParseScale(s string) (Scale, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "article":
		return Article, nil
	case "small":
		return Small, nil
	}
	sc := Article
	sc.Name = "custom"
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return Scale{}, fmt.Errorf("experiment: scale %q: %q is neither a scale name (article, small) nor key=value: %w", s, f, engine.ErrInvalidArgument)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return Scale{}, fmt.Errorf("experiment: scale %q: %s: %v: %w", s, k, err, engine.ErrInvalidArgument)
		}
		switch strings.ToLower(k) {
		case "n":
			sc.N = n
		case "dim":
			sc.Dim = n
		case "clusters":
			sc.Clusters = n
		case "queries":
			sc.Queries = n
		case "warmup":
			sc.Warmup = n
		case "k":
			sc.K = n
		case "batch":
			sc.Batch = n
		default:
			return Scale{}, fmt.Errorf("experiment: scale %q: unknown key %q (n, dim, clusters, queries, warmup, k, batch): %w", s, k, engine.ErrInvalidArgument)
		}
	}
	return sc, sc.Validate()
}

// Machine records the facts a measured figure depends on.
type Machine struct {
	CPU       string // model name
	Cores     int    // logical CPUs available to Go
	GoVersion string
	OS, Arch  string
	Features  string // SIMD features the CPU and OS support (x/sys/cpu)
	Kernel    string // the float32 distance kernels in use, when known
}

// DetectMachine returns the facts of the machine this process runs on,
// as every Env records them (a bench command saves them beside its
// figures).
func DetectMachine() Machine { return detectMachine() }

// kernelName names the active float32 distance kernels for [detectMachine];
// tests may replace it.
var kernelName = vec.KernelName

// detectMachine reads the CPU model from /proc/cpuinfo (where it exists)
// and the rest from the Go runtime.
func detectMachine() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, Kernel: "unknown"}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if kernelName != nil {
		m.Kernel = kernelName()
	}
	m.Features = cpuFeatures()
	return m
}

// cpuFeatures lists the SIMD extensions the distance kernels can use.
func cpuFeatures() string {
	var fs []string
	add := func(ok bool, name string) {
		if ok {
			fs = append(fs, name)
		}
	}
	add(cpu.X86.HasAVX2, "avx2")
	add(cpu.X86.HasFMA, "fma")
	add(cpu.X86.HasAVX512F, "avx512f")
	add(cpu.X86.HasAVX512VPOPCNTDQ, "avx512vpopcntdq")
	add(cpu.ARM64.HasASIMD, "asimd")
	if len(fs) == 0 {
		return "none"
	}
	return strings.Join(fs, " ")
}

// String prints the machine on one line.
func (m Machine) String() string {
	return fmt.Sprintf("%s, %d cores, %s %s/%s, SIMD %s, kernels %s", m.CPU, m.Cores, m.GoVersion, m.OS, m.Arch, m.Features, m.Kernel)
}

// Env is what the experiments of one run share. Build it with [NewEnv];
// set Progress (and Log) before running.
type Env struct {
	Scale   Scale
	Seed    uint64
	Machine Machine
	// Progress, when set, is called as long steps advance: done of total
	// units of the step named what.
	Progress func(done, total int, what string)
	// Log, when set, receives one line per step (the runner points it at
	// stderr).
	Log io.Writer
	// CacheDir, when set, keeps the ground truth between runs.
	CacheDir string
	// Workers is the number of goroutines a store builds its graph with;
	// 1 (the default) builds the same graph for the same seed.
	Workers int
	// PG, when set, is a real PostgreSQL with pgvector (lab/pglive): the
	// pgvector experiments also run there and their tables get "real
	// pgvector" columns (live.go). The caller opens and closes it.
	PG *pglive.DB

	mu     sync.Mutex
	ds     *dataset.Dataset
	real   *realData // nil: the generated set
	truths map[int]*dataset.GroundTruth
	Stores map[string]*profile.Store
	meta   *filter.Store
	exact  *filtered.Collection // the data set bound to meta, for filtered truth
	spread float64              // the generator's spread (0: dataset.DefaultSpread); see WithSpread
	live   *livePG              // the data set loaded into PG, once
	ownPG  *pglive.DB           // opened by UsePG, closed by Close

	alt      *alternation       // the rows being measured in alternating rounds (Alternate), nil outside
	verdicts Verdicts           // recorded by the verdict constructors (verdict.go)
	scans    map[string]float64 // a quantizer's flat-scan ms per query, timed once (QuantFlat)
}

// NewEnv returns an environment for the scale and seed, with the machine's
// facts detected.
func NewEnv(scale Scale, seed uint64) (*Env, error) {
	if err := scale.Validate(); err != nil {
		return nil, err
	}
	return &Env{Scale: scale, Seed: seed, Machine: detectMachine(), Workers: 1}, nil
}

// Step reports that done of total units of the step named what are done,
// through Progress when it is set (an experiment's long loops call it).
func (e *Env) Step(done, total int, what string) {
	if e.Progress != nil {
		e.Progress(done, total, what)
	}
}

// Logf writes one line to Log when it is set.
func (e *Env) Logf(format string, args ...any) {
	if e.Log != nil {
		fmt.Fprintf(e.Log, format+"\n", args...)
	}
}

// realData is a real data set an environment runs on (see [Env.UseData]).
type realData struct {
	name   string
	metric engine.Metric
	truth  *dataset.GroundTruth // the set's cached top-100, its first queries; nil when the base was cut
	dir    string               // the set's directory ("" for the compiled-in glove-3k)
	base   int                  // the set's base rows before any cut (words.txt lists them, then the queries)
}

// UseData makes the environment run on a real data set instead of the
// generated one: a name from [dataset.Sources] (fetched by `veclab data
// get`; glove-3k is compiled in) or a directory in the layout
// [dataset.Open] reads; root "" means [dataset.DataRoot]. The scale's N
// (when smaller than the set) keeps the first N base rows and its Queries
// the first queries; N, Dim and Queries are then set to the set's. The
// set's metric replaces cosine wherever the experiments build an index,
// a quantizer or a store (profiles included). Metadata is drawn by
// [dataset.AttachMeta] with the environment's seed: categories follow the
// set's labels where it has them, else they are independent of the
// vectors. Call it before any experiment runs.
func (e *Env) UseData(nameOrDir, root string) error {
	r, err := dataset.OpenData(nameOrDir, root)
	if err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	full := r.Dataset
	n, nq := full.Base.N, full.Queries.N
	if e.Scale.N > 0 && e.Scale.N < n {
		n = e.Scale.N
	}
	if e.Scale.Queries > 0 && e.Scale.Queries < nq {
		nq = e.Scale.Queries
	}
	dim := full.Base.Dim
	ds := &dataset.Dataset{Config: dataset.Config{N: n, Queries: nq, Dim: dim},
		Base:    &vec.Matrix{N: n, Dim: dim, Stride: full.Base.Stride, Data: full.Base.Data[:n*full.Base.Stride]},
		Queries: &vec.Matrix{N: nq, Dim: dim, Stride: full.Queries.Stride, Data: full.Queries.Data[:nq*full.Queries.Stride]}}
	var labels []int32
	if r.Labels != nil {
		labels = r.Labels[:n]
	}
	if err := dataset.AttachMeta(ds, labels, e.Seed); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	name := r.Manifest.Name
	if name == "" {
		name = nameOrDir
	}
	rd := &realData{name: name, metric: r.Metric, dir: r.Dir, base: full.Base.N}
	if n == full.Base.N {
		t, err := r.Truth(100)
		if err != nil {
			return fmt.Errorf("experiment: %s: truth: %w", name, err)
		}
		rd.truth = &dataset.GroundTruth{K: t.K, Metric: t.Metric, IDs: t.IDs[:nq], Dists: t.Dists[:nq]}
	}
	sc := e.Scale
	sc.Name, sc.N, sc.Dim, sc.Queries = name, n, dim, nq
	sc.Warmup = min(sc.Warmup, nq)
	if err := sc.Validate(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Scale, e.ds, e.real, e.truths = sc, ds, rd, nil
	return nil
}

// Metric is the data set's metric: cosine for the generated set (the
// articles'), a real set's own after [Env.UseData].
func (e *Env) Metric() engine.Metric {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.real != nil {
		return e.real.metric
	}
	return engine.Cosine
}

// DataName names the data set: "generated" or the real set's name.
func (e *Env) DataName() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.real != nil {
		return e.real.name
	}
	return "generated"
}

// datasetConfig is the generator configuration of this environment.
func (e *Env) datasetConfig() dataset.Config {
	return dataset.Config{N: e.Scale.N, Queries: e.Scale.Queries, Dim: e.Scale.Dim, Clusters: e.Scale.Clusters, Seed: e.Seed, Spread: e.spread}
}

// Dataset generates (once) and returns the generated data set (the Spring AI VectorStore article's shape) at this scale.
func (e *Env) Dataset() (*dataset.Dataset, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ds != nil {
		return e.ds, nil
	}
	e.Logf("generating data set: %v", e.datasetConfig().WithDefaults())
	ds, err := dataset.Generate(e.datasetConfig())
	if err != nil {
		return nil, fmt.Errorf("experiment: data set: %w", err)
	}
	e.ds = ds
	return ds, nil
}

// Truth returns (once) the exact top-k of every query under the data
// set's metric (cosine for the generated set; a real set's cached truth
// when k ≤ 100 and its base is whole).
func (e *Env) Truth(k int) (*dataset.GroundTruth, error) {
	ds, err := e.Dataset()
	if err != nil {
		return nil, err
	}
	metric := e.Metric()
	e.mu.Lock()
	defer e.mu.Unlock()
	if t, ok := e.truths[k]; ok {
		return t, nil
	}
	if e.real != nil && e.real.truth != nil && k <= e.real.truth.K {
		t := &dataset.GroundTruth{K: k, Metric: metric, IDs: make([][]engine.ID, len(e.real.truth.IDs)), Dists: make([][]float32, len(e.real.truth.IDs))}
		for q := range t.IDs {
			t.IDs[q], t.Dists[q] = e.real.truth.IDs[q][:min(k, len(e.real.truth.IDs[q]))], e.real.truth.Dists[q][:min(k, len(e.real.truth.Dists[q]))]
		}
		if e.truths == nil {
			e.truths = map[int]*dataset.GroundTruth{}
		}
		e.truths[k] = t
		return t, nil
	}
	e.Logf("computing exact top-%d for %d queries", k, ds.Queries.N)
	t, err := dataset.Truth(ds, k, metric, e.CacheDir)
	if err != nil {
		return nil, fmt.Errorf("experiment: truth: %w", err)
	}
	if e.truths == nil {
		e.truths = map[int]*dataset.GroundTruth{}
	}
	e.truths[k] = t
	return t, nil
}

// Store builds (once per distinct profile) the store of profile p over the
// data set, ingested in the scale's batches and made searchable.
func (e *Env) Store(p profile.Profile) (*profile.Store, error) {
	ds, err := e.Dataset()
	if err != nil {
		return nil, err
	}
	p = e.Fill(p)
	key := p.String()
	e.mu.Lock()
	s, ok := e.Stores[key]
	e.mu.Unlock()
	if ok {
		return s, nil
	}
	e.Logf("building %s: %s", p.Kind, p)
	s, err = p.Build(ds.Base, profile.BuildOptions{Batch: e.Scale.Batch, Progress: e.Progress})
	if err != nil {
		return nil, fmt.Errorf("experiment: building %s: %w", p.Kind, err)
	}
	e.mu.Lock()
	if e.Stores == nil {
		e.Stores = map[string]*profile.Store{}
	}
	e.Stores[key] = s
	e.mu.Unlock()
	return s, nil
}

// fill sets the environment's seed and workers on a profile that has none,
// and a real data set's metric (the profiles' zero metric is cosine).
func (e *Env) Fill(p profile.Profile) profile.Profile {
	if m := e.Metric(); m != engine.Cosine && p.Metric == engine.Cosine {
		p.Metric = m
	}
	if p.Seed == 0 {
		p.Seed = e.Seed
	}
	if p.Workers == 0 {
		p.Workers = max(e.Workers, 1)
	}
	return p
}

// Close releases the stores the environment built.
func (e *Env) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for _, s := range e.Stores {
		errs = append(errs, s.Close())
	}
	e.Stores = nil
	if e.ownPG != nil {
		errs = append(errs, e.ownPG.Close())
		if e.PG == e.ownPG {
			e.PG = nil
		}
		e.ownPG, e.live = nil, nil
	}
	return errors.Join(errs...)
}

// adopt keeps a store built outside Env.Store (E01 ingests by hand) so
// later experiments reuse it; a store already cached for p is replaced and
// closed.
func (e *Env) Adopt(p profile.Profile, s *profile.Store) {
	key := p.String()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.Stores == nil {
		e.Stores = map[string]*profile.Store{}
	}
	if old, ok := e.Stores[key]; ok && old != s {
		old.Close()
	}
	e.Stores[key] = s
}
