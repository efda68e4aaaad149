package advise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filter"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/pglive"
	"github.com/veclab/veclab/lab/profile"
)

// Options configure [Run]. The zero value of a field is its default.
type Options struct {
	K      int     // recall@K (default 10)
	Target float64 // the recall to reach (default 0.95)
	// N is the collection size memory is projected to (default: the
	// base's rows).
	N int64
	// Profiles are the store profiles, in lab/profile's Parse syntax
	// (default [DefaultProfiles] for the data's dimension).
	Profiles []string
	Seed     uint64 // graph levels and quantizer sampling (default 1)
	// Workers is how many goroutines answer the queries of a knob
	// search's measurement (default 1). Recall does not depend on it; the
	// latencies at the default and at the value found are always timed
	// one query at a time.
	Workers int
	// BuildWorkers is how many goroutines build a graph (default 1: the
	// same graph every run; more is faster and not deterministic).
	BuildWorkers int
	// PG, when set, is a real PostgreSQL with pgvector: the pgvector rows
	// get its recall beside the emulation's, on an index built with the
	// profile's m and ef_construction. Cosine only (Spring AI's table),
	// and only with a pgvector profile: Run refuses anything else.
	PG *pglive.DB
	// Progress, when set, is told of each long step.
	Progress func(done, total int, what string)
	// InMemory keeps each store's segment files in memory instead of a
	// temporary directory (os.MkdirTemp, removed when the store has been
	// measured). The files are a second copy of the store's sealed
	// vectors and graphs that no search reads (profile.BuildOptions.Dir),
	// so on disk they stay out of the process (10,000 × 768, the four
	// stores: Qdrant's live heap after its build 185 MB in memory, 69 MB
	// on disk; Elasticsearch's 139 MB, 69 MB). Set it where there is no
	// disk (the wasm build).
	InMemory bool
}

// GCPercent is the garbage collector's target a process running [Run] on
// a large set should set (runtime/debug.SetGCPercent): one store at a time
// holds a copy of the vectors (its graphs' slabs) beside the caller's, and at Go's default of 100 the heap grows to twice
// what is live before a collection. 25 keeps the peak near the live size
// for a few more collections (measured by BenchmarkAdvise).
const GCPercent = 25

// MemoryLimitFactor is the soft memory limit [MemoryLimit] sets, in
// raw vectors (the base's float32 bytes).
//
// Where the peak is (BenchmarkAdvise, 100,000 × 768, heap profiles taken
// at each new peak): in Qdrant's build, whose merge optimizer rewrites
// its thirty 3,333-row segments into two, one run at a time. While a run
// is merged the process holds the caller's vectors (1×), every segment's
// slab (1×) and the merged run's gathered rows (½×): 2.5× live, 2.86× at
// its highest with the graphs and heads (40,000 × 768: 335 MB of
// 117 MB). The merged run's sources are dropped when it is swapped in,
// but their pages were not yet returned to the system when the next run
// gathered its rows into fresh ones, and the garbage collector's target
// (GCPercent) lets the heap run a quarter above what is live besides:
// peak RSS 3.6× (1,117 MB of 307 MB). Under a soft limit the runtime
// collects and returns free pages as the process nears it
// (runtime/debug.SetMemoryLimit), so the peak stays at the live size plus
// the headroom left here: 2.9× (40,000 × 768, Qdrant alone: peak RSS
// 350 MB, 2.99×, against 446 MB, 3.8×, without the limit).
const MemoryLimitFactor = 2.9

// MinMemoryLimit is the least limit [MemoryLimit] sets: below it a small
// set's limit would fall under what the Go runtime and the lab use
// anyway, and the collector would run without end.
const MinMemoryLimit = 512 << 20

// MemoryLimit is the soft memory limit a process running [Run] on d
// should set (runtime/debug.SetMemoryLimit), as it sets [GCPercent]:
// MemoryLimitFactor times d's base vectors, and at least MinMemoryLimit.
// It is soft: a store whose live memory needs more (a filtered Qdrant
// builds a second, one-segment store beside the first) gets it, the
// collector then running more often.
func MemoryLimit(d *Data) int64 {
	if d == nil || d.Base == nil {
		return MinMemoryLimit
	}
	raw := float64(d.Base.N) * float64(d.Base.Dim) * 4
	return max(int64(MemoryLimitFactor*raw), MinMemoryLimit)
}

// Stores returns the four stores of the articles on their defaults at the
// articles' versions, the rows DefaultProfiles starts with (a new slice
// each call).
func Stores() []string { return []string{"pgvector", "redis", "qdrant", "elasticsearch"} }

// DefaultProfiles are the four stores on their defaults at the articles'
// versions ([Stores]), then the index types a user would switch to: Qdrant with its
// scalar (int8) and binary quantization_config, and of Elasticsearch's
// hnsw, int8_hnsw and bbq_hnsw the two that are not the default at dim
// dimensions (bbq_hnsw from 384 on, int8_hnsw below).
func DefaultProfiles(dim int) []string {
	ps := append(Stores(), "qdrant quantization=int8", "qdrant quantization=binary")
	def := profile.Default(profile.Elasticsearch).EffectiveType(dim)
	for _, t := range []profile.IndexType{profile.Int8HNSW, profile.BBQHNSW, profile.HNSWType} {
		if t != def {
			ps = append(ps, "elasticsearch type="+t.String())
		}
	}
	return ps
}

func (o Options) withDefaults(d *Data) Options {
	if o.K == 0 {
		o.K = 10
	}
	if o.Target == 0 {
		o.Target = 0.95
	}
	if o.N == 0 {
		o.N = int64(d.Base.N)
	}
	if o.Profiles == nil {
		o.Profiles = DefaultProfiles(d.Base.Dim)
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.BuildWorkers == 0 {
		o.BuildWorkers = 1
	}
	return o
}

// Measure is one setting measured over every query: mean recall@k, its
// standard error, mean hits, and (where timed) latency quantiles.
type Measure struct {
	Value    int           `json:"value"`
	Recall   float64       `json:"recall"`
	SE       float64       `json:"se"`
	MeanHits float64       `json:"mean_hits"`
	P50      time.Duration `json:"p50_ns,omitempty"`
	P95      time.Duration `json:"p95_ns,omitempty"`
}

// Search is one knob searched for the target: on the defaults, the
// search's result, and the value found timed.
type Search struct {
	Knob string `json:"knob"` // the store's name for it, with any setting it goes with
	// DefaultSetting says how the default differs beyond the knob's value
	// ("" when it does not: pgvector's filtered default has
	// iterative_scan off).
	DefaultSetting string     `json:"default_setting,omitempty"`
	AtDefault      Measure    `json:"default"`  // the store's default value
	Result         KnobResult `json:"search"`   // every point measured
	AtFound        Measure    `json:"at_found"` // the value found (or the largest tried), timed
}

// Row is one store profile's advice.
type Row struct {
	Store   string        `json:"store"`   // the profile as given, e.g. "elasticsearch type=int8_hnsw"
	Profile string        `json:"profile"` // every setting, as lab/profile prints it
	Label   string        `json:"label"`   // the store and version, e.g. "pgvector 0.8.7"
	Build   time.Duration `json:"build_ns"`
	// BytesPerVector is the store's footprint model over the base
	// (profile.Store.BytesPerVector); Projected is it times Options.N.
	BytesPerVector float64 `json:"bytes_per_vector"`
	Projected      float64 `json:"projected_bytes"`
	Unfiltered     Search  `json:"unfiltered"`
	// Oversample is Elasticsearch's rescore_vector.oversample, or Qdrant's
	// params.quantization.oversampling with rescore = true, searched (the
	// beam on its default) for a quantized index whose beam alone does
	// not reach the target.
	Oversample *Search `json:"oversample,omitempty"`
	Filtered   *Search `json:"filtered,omitempty"`
	// Exact says the store searched every vector (Qdrant below
	// indexing_threshold keeps plain segments): its knob plays no part.
	Exact bool `json:"exact,omitempty"`
	// Real is the real pgvector beside the emulated pgvector row.
	Real   *Real  `json:"real,omitempty"`
	Advice string `json:"advice"`
}

// Real is the real pgvector's recall at the emulation's two settings.
type Real struct {
	Server string `json:"server"`
	// M and EfConstruction are the real index's build parameters, the
	// emulated profile's (pgvector's defaults: 16 and 64).
	M              int     `json:"m"`
	EfConstruction int     `json:"ef_construction"`
	AtDefault      Measure `json:"default"`
	AtFound        Measure `json:"at_found"`
}

// Report is what [Run] found.
type Report struct {
	Data struct {
		Name        string  `json:"name"`
		Source      string  `json:"source"`
		Base        int     `json:"base"`
		Queries     int     `json:"queries"`
		Dim         int     `json:"dim"`
		Metric      string  `json:"metric"`
		QuerySource string  `json:"query_source"`
		Filter      string  `json:"filter,omitempty"`
		Selectivity float64 `json:"selectivity,omitempty"`
	} `json:"data"`
	K       int           `json:"k"`
	Target  float64       `json:"target"`
	Tol     float64       `json:"tolerance"`
	N       int64         `json:"projected_to"`
	Seed    uint64        `json:"seed"`
	Rows    []Row         `json:"stores"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Notes   []string      `json:"notes"`
}

// Run measures every profile of opt on d and returns the advice. It stops
// with ctx's error between queries.
func Run(ctx context.Context, d *Data, opt Options) (*Report, error) {
	t0 := time.Now()
	opt = opt.withDefaults(d)
	if err := validate(d, opt, opt.PG != nil); err != nil {
		return nil, err
	}
	profiles := make([]profile.Profile, len(opt.Profiles))
	for i, s := range opt.Profiles {
		p, err := profile.Parse(s)
		if err == nil {
			p.Metric, p.Seed, p.Workers = d.Metric, opt.Seed, opt.BuildWorkers
			err = p.Validate()
		}
		if err != nil { // validate parsed it: not reached
			return nil, fmt.Errorf("advise: store %q: %w", s, err)
		}
		profiles[i] = p
	}
	rep := &Report{K: opt.K, Target: opt.Target, N: opt.N, Seed: opt.Seed}
	rep.Data.Name, rep.Data.Source, rep.Data.Base, rep.Data.Queries, rep.Data.Dim = d.Name, d.Source, d.Base.N, d.Queries.N, d.Base.Dim
	rep.Data.Metric, rep.Data.QuerySource = d.Metric.String(), d.QuerySource
	if d.Match != nil {
		rep.Data.Filter, rep.Data.Selectivity = d.FilterDesc, d.Selectivity()
	}
	// Noise: a query's recall lies in [0, 1], so around a mean t its
	// variance is at most t(1 − t) (Bhatia–Davis); two standard errors of
	// the mean over the queries at the target is what the search
	// tolerates (KnobSearch).
	rep.Tol = 2 * math.Sqrt(opt.Target*(1-opt.Target)/float64(d.Queries.N))
	rep.Notes = append(rep.Notes,
		metrics.RecallCaption(opt.K),
		fmt.Sprintf("queries: %s", d.QuerySource),
		fmt.Sprintf("knob search: exponential from the default, then bisection, confirmed at v+v/4 and 2v; readings within %.4f (two standard errors at the target over %d queries) of the target are noise", rep.Tol, d.Queries.N),
		"latency: one query at a time on this machine, after a warm-up; p50/p95 over the queries",
		fmt.Sprintf("memory: the store's footprint model over the %d base rows (vectors, graph links, codes), projected linearly to %d vectors", d.Base.N, opt.N))
	progress := func(done, total int, what string) {
		if opt.Progress != nil {
			opt.Progress(done, total, what)
		}
	}
	progress(0, 1, "exact top-k")
	truth, err := dataset.ComputeTruthContext(ctx, d.Base, d.Queries, opt.K, d.Metric, nil)
	if err != nil {
		return nil, fmt.Errorf("advise: exact search: %w", err)
	}
	var ftruth *dataset.GroundTruth
	var meta *filter.Store
	var fc *filter.Compiled
	if d.Match != nil {
		if ftruth, err = dataset.ComputeTruthContext(ctx, d.Base, d.Queries, opt.K, d.Metric, d.Match); err != nil {
			return nil, fmt.Errorf("advise: exact filtered search: %w", err)
		}
		if meta, fc, err = matchStore(d.Match); err != nil {
			return nil, err
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("filter: %s, %.2f %% of the base rows; each store's own filtered search (pgvector: the post-filtered index scan on its default, iterative_scan = relaxed_order while its knob is searched; Qdrant: one segment, the filter field payload-indexed; a quantized Qdrant's filtered search is not emulated)", d.FilterDesc, 100*d.Selectivity()))
	}
	for i, p := range profiles {
		row, err := advise(ctx, d, opt, p, opt.Profiles[i], truth, ftruth, meta, fc, progress, fmt.Sprintf("%d/%d", i+1, len(profiles)))
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, row)
		// The store just measured is garbage now. Collect it and give
		// its pages back before the next build allocates its own:
		// otherwise the next store's slab comes from fresh pages beside
		// the old one's, not yet collected (100,000 × 768: resident
		// memory rose by a whole slab, 307 MB, from pgvector to Redis).
		// Two collections: the first only moves the sync.Pool caches
		// (the graph's searchers, which point at the store) to their
		// victim caches; the second frees the store.
		runtime.GC()
		debug.FreeOSMemory()
	}
	rep.Elapsed = time.Since(t0)
	return rep, nil
}

// Validate checks opt against d as [Run] does before it measures
// anything, after filling opt's defaults: every problem at once, in one
// [InputError] naming the options as the command spells them. realPG says
// a real PostgreSQL will be set beside the emulation (Options.PG, or a
// command's -pg before it starts or connects to one): a caller checks
// with it first, so that a refusal comes before a server is started.
func Validate(d *Data, opt Options, realPG bool) error {
	if d == nil || d.Base == nil || d.Queries == nil {
		return bad(engine.ErrInvalidArgument, "no data: give the Data Load returned")
	}
	return validate(d, opt.withDefaults(d), realPG)
}

// validate is [Validate] of options with their defaults filled.
func validate(d *Data, opt Options, realPG bool) error {
	var bad []string
	if opt.K < 1 {
		bad = append(bad, fmt.Sprintf("-k %d: give a k of at least 1", opt.K))
	}
	if d.Base.N < opt.K {
		bad = append(bad, fmt.Sprintf("-k %d with %d base rows: use a k of at most the rows", opt.K, d.Base.N))
	}
	if !(opt.Target > 0 && opt.Target <= 1) {
		bad = append(bad, fmt.Sprintf("-target %v: give a recall above 0 and at most 1, e.g. 0.95", opt.Target))
	}
	if opt.N < 1 {
		bad = append(bad, fmt.Sprintf("-n %d: give a collection size of at least 1 vector", opt.N))
	}
	if opt.Workers < 1 || opt.BuildWorkers < 1 {
		bad = append(bad, fmt.Sprintf("-workers %d, -build-workers %d: give at least 1 of each", opt.Workers, opt.BuildWorkers))
	}
	if d.Match != nil && d.Match.Count() < 1 {
		bad = append(bad, "the filter matches no row: give a value some rows hold")
	}
	pg := false
	for _, s := range opt.Profiles {
		p, err := parseProfile(s, d)
		if err != nil {
			msg, _ := inUserTerms(err, "")
			bad = append(bad, fmt.Sprintf("-stores %q: %s", s, msg))
			continue
		}
		pg = pg || p.Kind == profile.PGVector
	}
	if realPG {
		// The real table is Spring AI's cosine one (vector_cosine_ops and
		// <=>), beside the emulated pgvector: say so now rather than
		// measure everything without it.
		if d.Metric != engine.Cosine {
			bad = append(bad, fmt.Sprintf("-pg with %s data: the real pgvector's table is Spring AI's cosine one: give -metric cosine, or leave -pg out", d.Metric))
		}
		if !pg {
			bad = append(bad, "-pg without a pgvector store to set the real pgvector beside: add pgvector to -stores, or leave -pg out")
		}
	}
	if len(bad) > 0 {
		return &InputError{Msg: strings.Join(bad, "; "), Err: engine.ErrInvalidArgument}
	}
	return nil
}

// matchStore is the filter as metadata: one keyword field, payload
// indexed (as a user who filters on a field indexes it), "yes" on the
// matching rows.
func matchStore(match *engine.Bitset) (*filter.Store, *filter.Compiled, error) {
	st, err := filter.NewStore(filter.Schema{Mode: filter.Declared, Fields: []filter.Field{{Name: "match", Kind: filter.KindKeyword, Indexed: true}}})
	if err != nil {
		return nil, nil, fmt.Errorf("advise: filter: %w", err)
	}
	docs := make([]filter.Doc, match.Len())
	for i := range docs {
		v := "no"
		if match.Allowed(engine.ID(i)) {
			v = "yes"
		}
		docs[i] = filter.Doc{Key: fmt.Sprintf("d%d", i), Meta: map[string]any{"match": v}}
	}
	if _, err := st.Add(docs...); err != nil {
		return nil, nil, fmt.Errorf("advise: filter: %w", err)
	}
	f, err := st.CompileString("match == 'yes'")
	if err != nil {
		return nil, nil, fmt.Errorf("advise: filter: %w", err)
	}
	return st, f, nil
}

// knobRange is the knob's range at top-k: from the smallest value that
// changes the query (below it the store raises the beam to k, or to k'
// with rescoring) to the store's ceiling (pgvector's hnsw.ef_search ≤
// 1000, src/hnsw.c; Elasticsearch's num_candidates ≤ 10,000) or, for
// Redis and Qdrant, which have none, 10,000 or the rows when fewer; and
// the default value.
func knobRange(p profile.Profile, k, dim, n int) (lo, hi, def int) {
	def = p.Plan(k, dim).Ef
	one := p
	one.Ef = 1
	lo = one.Plan(k, dim).Ef
	switch p.Kind {
	case profile.PGVector:
		lo, hi = 1, 1000
	case profile.Elasticsearch:
		hi = profile.NumCandidatesLimit
	default:
		hi = max(lo, min(n, 10000))
	}
	return lo, max(hi, lo), def
}

// searcher answers query q at knob value v, and says how many results.
type searcher func(v int, q []float32) ([]engine.Result, error)

func advise(ctx context.Context, d *Data, opt Options, p profile.Profile, name string, truth, ftruth *dataset.GroundTruth, meta *filter.Store, fc *filter.Compiled, progress func(int, int, string), step string) (Row, error) {
	version := p.Version
	if version == "" {
		version = profile.Default(p.Kind).Version // Parse leaves it to the caller
	}
	row := Row{Store: name, Profile: p.String(), Label: p.Kind.String() + " " + version}
	if p.Quantization != "" {
		row.Label += " " + p.Quantization
	}
	what := fmt.Sprintf("%s %s: build", step, name)
	t0 := time.Now()
	dir, cleanup, err := storeDir(opt)
	if err != nil {
		return row, fmt.Errorf("advise: %s: %w", name, err)
	}
	defer cleanup()
	s, err := p.Build(d.Base, profile.BuildOptions{Dir: dir, Progress: func(done, total int, _ string) { progress(done, total, what) }})
	if err != nil {
		return row, fmt.Errorf("advise: %s: %w", name, err)
	}
	defer s.Close()
	row.Build = time.Since(t0)
	row.BytesPerVector = s.BytesPerVector()
	row.Projected = row.BytesPerVector * float64(opt.N)
	if err := ctx.Err(); err != nil {
		return row, err
	}
	k, dim := opt.K, d.Base.Dim
	lo, hi, def := knobRange(p, k, dim, d.Base.N)
	plain := func(v int, q []float32) ([]engine.Result, error) { return s.WithEf(v).Search(q, k) }
	row.Unfiltered, err = searchKnob(ctx, d, opt, p.Kind.EfSetting(), plain, truth, lo, hi, def, progress, step+" "+name)
	if err != nil {
		return row, err
	}
	row.Exact = s.Indexed() < s.Len()
	if p.Kind == profile.Elasticsearch && !row.Unfiltered.Result.Reached && p.EffectiveType(dim) != profile.HNSWType {
		// Quantized: the codes' order caps recall whatever the beam;
		// rescoring more candidates with float32 vectors is the knob
		// (k' = ⌈k·oversample⌉, num_candidates raised to k').
		over := func(v int, q []float32) ([]engine.Result, error) { return s.WithOversample(float64(v)).Search(q, k) }
		defOS := int(math.Round(p.EffectiveOversample(dim)))
		o, err := searchKnob(ctx, d, opt, "rescore_vector.oversample", over, truth, 1, max(1, profile.NumCandidatesLimit/k), max(defOS, 1), progress, step+" "+name)
		if err != nil {
			return row, err
		}
		if defOS == 0 {
			o.DefaultSetting = "no rescoring"
			if o.AtDefault, err = measure(ctx, d, opt, plain, truth, def, true); err != nil {
				return row, err
			}
			o.AtDefault.Value = 0
		}
		row.Oversample = &o
	}
	if p.Kind == profile.Qdrant && p.Quantization != "" && !row.Unfiltered.Result.Reached {
		// Quantized: without rescoring the codes' order caps recall
		// whatever hnsw_ef; each segment's ⌊oversampling·k⌋ candidates
		// rescored with the original vectors is the knob (Qdrant's
		// params.quantization {rescore: true, oversampling: v}; the beam
		// is max(hnsw_ef, ⌊v·k⌋)).
		rs := s.WithRescore(true)
		over := func(v int, q []float32) ([]engine.Result, error) { return rs.WithOversample(float64(v)).Search(q, k) }
		knob := "params.quantization.oversampling"
		if !p.EffectiveRescore() {
			knob += " (rescore = true)"
		}
		o, err := searchKnob(ctx, d, opt, knob, over, truth, 1, max(1, min(d.Base.N, 10000)/k), 1, progress, step+" "+name)
		if err != nil {
			return row, err
		}
		if !p.EffectiveRescore() {
			// int8's default returns the quantized scores.
			o.DefaultSetting = "rescore = false"
			if o.AtDefault, err = measure(ctx, d, opt, plain, truth, def, true); err != nil {
				return row, err
			}
			o.AtDefault.Value = 1 // oversampling not set: 1
		}
		row.Oversample = &o
	}
	if meta != nil && p.Kind == profile.Qdrant && p.Quantization != "" {
		// Qdrant's filtered search (engine/filtered over one graph) does
		// not rescore a quantized collection's candidates: not emulated.
		meta = nil
	}
	if meta != nil {
		fs, def0, label, closeF, err := filteredSearcher(s, p, d, opt, meta, fc)
		if err != nil {
			return row, fmt.Errorf("advise: %s filtered: %w", name, err)
		}
		defer closeF()
		fr, err := searchKnob(ctx, d, opt, p.Kind.EfSetting()+label, fs, ftruth, lo, hi, def, progress, step+" "+name+" filtered")
		if err != nil {
			return row, err
		}
		if def0 != nil {
			// The default is another search (pgvector: iterative_scan off).
			if fr.AtDefault, err = measure(ctx, d, opt, def0, ftruth, def, true); err != nil {
				return row, err
			}
			fr.DefaultSetting = "iterative_scan = off"
		}
		row.Filtered = &fr
	}
	if opt.PG != nil && p.Kind == profile.PGVector { // validate: the metric is cosine
		if row.Real, err = real(ctx, d, opt, p, truth, def, row.Unfiltered.Result.Value, progress, step); err != nil {
			return row, err
		}
	}
	row.Advice = advice(row, opt)
	return row, nil
}

// storeDir is a new temporary directory for one store's files and the
// function that removes it, or "" (in memory) under Options.InMemory and
// in a browser, where the OS has no temporary directory (js/wasm's
// os.MkdirTemp is "not implemented on js"): there the files stay in the
// tab's memory, as they did before segment files moved to disk.
func storeDir(opt Options) (string, func(), error) {
	if opt.InMemory || runtime.GOOS == "js" {
		return "", func() {}, nil
	}
	dir, err := os.MkdirTemp("", "veclab-advise-*")
	if err != nil {
		return "", nil, fmt.Errorf("a temporary directory for the store's files (or set InMemory): %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// filteredSearcher is the store's own filtered search at knob value v;
// def, when not nil, is the search on the store's defaults where that is
// another search (pgvector's post-filtered scan, iterative_scan off);
// label says what goes with the knob; done releases what it built.
func filteredSearcher(s *profile.Store, p profile.Profile, d *Data, opt Options, meta *filter.Store, fc *filter.Compiled) (knob, def searcher, label string, done func(), err error) {
	k := opt.K
	done = func() {}
	if p.Kind == profile.Elasticsearch {
		accept := func(key uint64) bool { return key < uint64(d.Match.Len()) && d.Match.Allowed(engine.ID(key)) }
		return func(v int, q []float32) ([]engine.Result, error) {
			rs, _, err := s.WithEf(v).SearchFiltered(q, k, accept)
			return rs, err
		}, nil, "", done, nil
	}
	if p.Kind == profile.Qdrant && p.Segments > 1 {
		// Filtered search is emulated over one segment (profile.Store.
		// Filtered): a one-segment Qdrant is built for it.
		p1 := p
		p1.Segments = 1
		dir, cleanup, err := storeDir(opt)
		if err != nil {
			return nil, nil, "", done, err
		}
		s1, err := p1.Build(d.Base, profile.BuildOptions{Dir: dir})
		if err != nil {
			cleanup()
			return nil, nil, "", done, err
		}
		s, done, label = s1, func() { s1.Close(); cleanup() }, " (one segment)"
	}
	coll, err := s.Filtered(meta)
	if err != nil {
		done()
		return nil, nil, "", func() {}, err
	}
	if p.Kind == profile.PGVector {
		with := func(st filtered.Strategy) searcher {
			return func(v int, q []float32) ([]engine.Result, error) {
				rs, _, err := coll.Search(filtered.Request{Query: q, K: k, Filter: fc, Strategy: st, Params: s.WithEf(v).Profile().FilterParams(k, d.Base.Dim)})
				return rs, err
			}
		}
		return with(filtered.IterativeRelaxed), with(filtered.PostFilter), " (iterative_scan = relaxed_order)", done, nil
	}
	return func(v int, q []float32) ([]engine.Result, error) {
		rs, _, err := s.WithEf(v).SearchFilter(coll, q, k, fc)
		return rs, err
	}, nil, label, done, nil
}

// searchKnob measures the default, searches the knob and times the value
// found.
func searchKnob(ctx context.Context, d *Data, opt Options, name string, search searcher, truth *dataset.GroundTruth, lo, hi, def int, progress func(int, int, string), what string) (Search, error) {
	out := Search{Knob: name}
	var err error
	if out.AtDefault, err = measure(ctx, d, opt, search, truth, def, true); err != nil {
		return out, err
	}
	n := 0
	ks := KnobSearch{Lo: lo, Hi: hi, Start: def, Target: opt.Target, Tol: 2 * math.Sqrt(opt.Target*(1-opt.Target)/float64(d.Queries.N))}
	out.Result, err = ks.Run(ctx, func(v int) (Point, error) {
		n++
		progress(n, 2*bitsLen(hi)+4, fmt.Sprintf("%s: %s = %d", what, name, v))
		if v == def {
			m := out.AtDefault
			return Point{Value: v, Recall: m.Recall, SE: m.SE, MeanHits: m.MeanHits}, nil
		}
		m, err := measure(ctx, d, opt, search, truth, v, false)
		return Point{Value: v, Recall: m.Recall, SE: m.SE, MeanHits: m.MeanHits}, err
	})
	if err != nil {
		return out, err
	}
	if out.AtFound, err = measure(ctx, d, opt, search, truth, out.Result.Value, true); err != nil {
		return out, err
	}
	return out, nil
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// measure runs every query at knob value v: recall, its standard error
// and mean hits; timed runs one query at a time after a warm-up and
// keeps p50/p95, untimed ones spread the queries over opt.Workers.
func measure(ctx context.Context, d *Data, opt Options, search searcher, truth *dataset.GroundTruth, v int, timed bool) (Measure, error) {
	nq := d.Queries.N
	rec := make([]float64, nq)
	hits := make([]int, nq)
	var lat []time.Duration
	one := func(i int) error {
		rs, err := search(v, d.Queries.Row(i))
		if err != nil {
			return err
		}
		rec[i] = metrics.Recall(rs, truth.At(i, opt.K), opt.K)
		hits[i] = len(rs)
		return nil
	}
	if timed {
		for i := 0; i < min(nq, 10); i++ { // warm-up
			if _, err := search(v, d.Queries.Row(i)); err != nil {
				return Measure{}, err
			}
		}
		lat = make([]time.Duration, nq)
		for i := 0; i < nq; i++ {
			if err := ctx.Err(); err != nil {
				return Measure{}, err
			}
			t := time.Now()
			rs, err := search(v, d.Queries.Row(i))
			lat[i] = time.Since(t)
			if err != nil {
				return Measure{}, err
			}
			rec[i] = metrics.Recall(rs, truth.At(i, opt.K), opt.K)
			hits[i] = len(rs)
		}
	} else {
		var wg sync.WaitGroup
		errs := make([]error, opt.Workers)
		for w := 0; w < opt.Workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := w; i < nq; i += opt.Workers {
					if err := ctx.Err(); err != nil {
						errs[w] = err
						return
					}
					if err := one(i); err != nil {
						errs[w] = err
						return
					}
				}
			}(w)
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return Measure{}, err
		}
	}
	m := Measure{Value: v}
	var sum, sumH float64
	for i := range rec {
		sum += rec[i]
		sumH += float64(hits[i])
	}
	m.Recall, m.MeanHits = sum/float64(nq), sumH/float64(nq)
	var ss float64
	for _, r := range rec {
		ss += (r - m.Recall) * (r - m.Recall)
	}
	if nq > 1 {
		m.SE = math.Sqrt(ss / float64(nq-1) / float64(nq))
	}
	if lat != nil {
		l := metrics.Summarize(lat)
		m.P50, m.P95 = l.P50, l.P95
	}
	return m, nil
}

// real loads the base into the real PostgreSQL (Spring AI's table, the
// HNSW index built as rows arrive, as the emulation builds it, with the
// profile's m and ef_construction) and measures its recall at ef_search
// def and found, with enable_seqscan off so that the planner keeps the
// HNSW index as the emulated rows do.
func real(ctx context.Context, d *Data, opt Options, p profile.Profile, truth *dataset.GroundTruth, def, found int, progress func(int, int, string), step string) (*Real, error) {
	db := opt.PG
	p = p.WithDefaults()
	lo := pglive.LoadOptions{Progress: func(done, total int, _ string) {
		progress(done, total, step+" real pgvector: load")
	}}
	if q := profile.Default(profile.PGVector); p.M != q.M || p.EfConstruction != q.EfConstruction {
		// Spring AI's index has no WITH clause: only a profile built
		// otherwise gives one.
		lo.M, lo.EfConstruction = p.M, p.EfConstruction
	}
	t, _, err := db.Load(ctx, d.Base, nil, lo)
	if err != nil {
		return nil, fmt.Errorf("advise: real pgvector: %w", err)
	}
	r := &Real{Server: db.String(), M: p.M, EfConstruction: p.EfConstruction}
	at := func(ef int) (Measure, error) {
		search := func(v int, q []float32) ([]engine.Result, error) {
			a, err := t.Search(ctx, pglive.Query{Vector: q, K: opt.K, Settings: pglive.Settings{EfSearch: v, SeqScanOff: true}, NoExplain: true})
			if err != nil {
				return nil, err
			}
			rs := make([]engine.Result, len(a.IDs))
			for i, id := range a.IDs {
				rs[i] = engine.Result{ID: engine.ID(id), Dist: float32(a.Dists[i])}
			}
			return rs, nil
		}
		one := opt
		one.Workers = 1 // one connection
		return measure(ctx, d, one, search, truth, ef, false)
	}
	if r.AtDefault, err = at(def); err != nil {
		return nil, fmt.Errorf("advise: real pgvector: %w", err)
	}
	if r.AtFound, err = at(found); err != nil {
		return nil, fmt.Errorf("advise: real pgvector: %w", err)
	}
	return r, nil
}

// parseProfile is a profile as Run builds it for d.
func parseProfile(s string, d *Data) (profile.Profile, error) {
	p, err := profile.Parse(s)
	if err != nil {
		return p, err
	}
	p.Metric, p.Seed, p.Workers = d.Metric, 1, 1
	return p, p.Validate()
}

func buildOptions() profile.BuildOptions { return profile.BuildOptions{} }

// Recall measures one setting of a knob in turn over d's queries: search
// answers a query, and the mean recall@k against truth, its standard
// error and the mean hits come back as a [Point] — what a [KnobSearch]'s
// measure function returns, compiled, so that a notebook can search a
// knob in a visible cell without an interpreted loop over the queries.
func Recall(ctx context.Context, d *Data, k int, truth *dataset.GroundTruth, search func(q []float32) ([]engine.Result, error)) (Point, error) {
	if d == nil || truth == nil || search == nil || k < 1 {
		return Point{}, fmt.Errorf("advise: Recall: data, truth, search and k ≥ 1 are required: %w", engine.ErrInvalidArgument)
	}
	if len(truth.IDs) < d.Queries.N {
		return Point{}, fmt.Errorf("advise: Recall: truth for %d queries of %d: %w", len(truth.IDs), d.Queries.N, engine.ErrInvalidArgument)
	}
	m, err := measure(ctx, d, Options{K: k, Workers: 1}, func(_ int, q []float32) ([]engine.Result, error) { return search(q) }, truth, 0, false)
	return Point{Recall: m.Recall, SE: m.SE, MeanHits: m.MeanHits}, err
}

// OpenPG opens the real PostgreSQL of a spec for [Options.PG]: "" none
// (nil), "embedded" (the embedded PostgreSQL 18.6 + pgvector 0.8.7) or a
// postgres:// URL; what the notebooks read from VECLAB_PG.
func OpenPG(spec string) (*pglive.DB, error) {
	if spec == "" {
		return nil, nil
	}
	return pglive.Open(context.Background(), spec)
}
