package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/quantizers"
	"github.com/veclab/veclab/lab/scratch"
)

// QuantConfig says what [Quant] measures. The zero value is not valid:
// start from [DefaultQuantConfig].
type QuantConfig struct {
	K              int       // results per query (recall@K)
	Oversample     []float64 // gather ⌈o·K⌉ by code distance, rescore with float32, keep K; each ≥ 1
	Only           []string  // quantizers to run (nil: the whole catalogue)
	Flat           bool      // a flat scan over the codes (isolates the quantizer)
	Graph          bool      // HNSW built and searched with the codes (int8_hnsw / bbq_hnsw emulation)
	M              int       // HNSW m (layer 0 and new nodes get 2·m, as Lucene)
	EfConstruction int       // HNSW ef_construction
	// NumCandidates is the HNSW beam; 0 means Elasticsearch's ⌈1.5·K⌉,
	// raised to the oversampled ⌈o·K⌉.
	NumCandidates int
	Workers       int    // HNSW build goroutines (0: all cores; 1: deterministic graph)
	Disk          bool   // rescore from an on-disk vector file (pread) instead of RAM
	Cold          bool   // with Disk: evict the file's pages before every rescoring call
	Seed          uint64 // training and graph seed
}

// DefaultQuantConfig is `veclab bench quant`'s defaults: recall@10,
// oversample 1, 1.5, 3 and 5, flat and HNSW (m 16, ef_construction 100,
// Lucene's and Elasticsearch's), rescoring from RAM.
func DefaultQuantConfig() QuantConfig {
	return QuantConfig{K: 10, Oversample: []float64{1, 1.5, 3, 5}, Flat: true, Graph: true, M: 16, EfConstruction: 100}
}

// Validate reports every problem of c at once.
func (c QuantConfig) Validate() error {
	var bad []string
	if c.K < 1 {
		bad = append(bad, fmt.Sprintf("k %d < 1", c.K))
	}
	if len(c.Oversample) == 0 {
		bad = append(bad, "no oversample factors")
	}
	for _, o := range c.Oversample {
		if !(o >= 1) || math.IsInf(o, 0) {
			bad = append(bad, fmt.Sprintf("oversample %g: want numbers ≥ 1", o))
		}
	}
	for _, name := range c.Only {
		if quantizers.Check(name) != nil {
			bad = append(bad, fmt.Sprintf("unknown quantizer %q (want %s)", name, strings.Join(quantizers.Names(), ",")))
		}
	}
	if c.M < 2 || c.EfConstruction < 1 || c.NumCandidates < 0 || c.Workers < 0 {
		bad = append(bad, fmt.Sprintf("-m %d, -ef-construction %d, -num-candidates %d, -workers %d", c.M, c.EfConstruction, c.NumCandidates, c.Workers))
	}
	if c.Cold && !c.Disk {
		bad = append(bad, "-cold needs -disk")
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: quant: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// QuantRow is one quantizer's measurements.
type QuantRow struct {
	Name        string
	About       string
	Bytes       float64 // bytes per vector of the codes (float32 for raw)
	Train       time.Duration
	FlatNone    float64   // recall of the top K by code distance, flat scan
	FlatOver    []float64 // recall after rescoring ⌈o·K⌉, per oversample
	FlatQueryMs float64   // flat scan per query
	HNSWNone    float64
	HNSWOver    []float64
	Build       time.Duration
	Reads       float64 // full-vector reads per query while rescoring (HNSW, largest oversample)
	DeviceReads float64 // of which the device served (not the page cache); file only
	HNSWQPS     float64 // no rescoring, default num_candidates
	HNSWOverQPS float64 // largest oversample, rescoring included
}

// QuantReport is the outcome of [Quant]: the rows and what they were
// measured on.
type QuantReport struct {
	Config          QuantConfig
	N, Dim, Queries int
	Metric          engine.Metric
	Rows            []QuantRow
}

// Quant trains every quantizer cfg selects on ds.Base, encodes the base and
// measures recall@K against truth (the exact top ≥ K of every query of ds)
// without and with rescoring, flat and through HNSW. Progress goes to log
// (nil: none).
func Quant(ds *dataset.Dataset, truth *dataset.GroundTruth, metric engine.Metric, cfg QuantConfig, log io.Writer) (*QuantReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ds == nil || ds.Base == nil || ds.Queries == nil || truth == nil {
		return nil, fmt.Errorf("bench: quant: nil data set or truth: %w", engine.ErrInvalidArgument)
	}
	if len(truth.IDs) < ds.Queries.N || truth.K < cfg.K {
		return nil, fmt.Errorf("bench: quant: truth has %d queries of %d neighbours, need %d of %d: %w", len(truth.IDs), truth.K, ds.Queries.N, cfg.K, engine.ErrInvalidArgument)
	}
	if log == nil {
		log = io.Discard
	}
	rep := &QuantReport{Config: cfg, N: ds.Base.N, Dim: ds.Base.Dim, Queries: ds.Queries.N, Metric: metric}
	var src engine.VectorSource = rescore.NewSlab(ds.Base)
	if cfg.Disk {
		// lab/scratch: a real temporary directory natively, the tab's
		// in-memory file system with a simulated page cache in a browser
		// (os.MkdirTemp has no file system there).
		dir, err := scratch.New("veclab-bench-quant")
		if err != nil {
			return nil, fmt.Errorf("bench: quant: %w", err)
		}
		defer dir.Remove()
		path := dir.Join("vectors.vec")
		if err := store.WriteMatrixFS(dir.FS, path, ds.Base, metric); err != nil {
			return nil, fmt.Errorf("bench: quant: %w", err)
		}
		file, err := store.OpenFS(dir.FS, path, store.Options{})
		if err != nil {
			return nil, fmt.Errorf("bench: quant: %w", err)
		}
		defer file.Close()
		src = file
	}
	rs, err := rescore.New(src, metric, rescore.Options{})
	if err != nil {
		return nil, fmt.Errorf("bench: quant: %w", err)
	}
	maxOver := slices.Max(cfg.Oversample)
	kmax := engine.RescoreDepth(cfg.K, maxOver)
	for _, name := range quantizers.Names() {
		if len(cfg.Only) > 0 && !slices.Contains(cfg.Only, name) {
			continue
		}
		row := QuantRow{Name: name, About: quantizers.Describe(name), Bytes: float64(4 * ds.Base.Dim)}
		var q quant.Quantizer
		if name != quantizers.Raw {
			start := time.Now()
			if q, err = quantizers.Train(name, ds.Base, metric, cfg.Seed); err != nil {
				return nil, err
			}
			row.Train = time.Since(start)
			row.Bytes = q.BytesPerVector()
			fmt.Fprintf(log, "%-12s %v (trained in %v)\n", name, q, row.Train.Round(time.Millisecond))
		}
		if cfg.Flat {
			if err := quantFlat(&row, q, ds, truth, rs, cfg, metric, kmax); err != nil {
				return nil, fmt.Errorf("bench: quant: %s: flat: %w", name, err)
			}
		}
		if cfg.Graph {
			if err := quantHNSW(&row, q, ds, truth, rs, cfg, metric); err != nil {
				return nil, fmt.Errorf("bench: quant: %s: hnsw: %w", name, err)
			}
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

func quantFlat(row *QuantRow, q quant.Quantizer, ds *dataset.Dataset, truth *dataset.GroundTruth, rs *rescore.Rescorer, cfg QuantConfig, metric engine.Metric, kmax int) error {
	var st *quant.Store
	var exact *flat.Index
	if q == nil {
		var err error
		if exact, err = flat.New(ds.Base, flat.Config{Metric: metric}); err != nil {
			return err
		}
	} else {
		st = quant.NewStore(q)
		st.Reserve(ds.Base.N)
		for i := 0; i < ds.Base.N; i++ {
			if err := st.Set(engine.ID(i), ds.Base.Row(i)); err != nil {
				return err
			}
		}
	}
	// Arm 0 gathers the ⌈max o·K⌉ nearest by code distance (timed: the
	// flat scan), then one arm per oversample rescores the first ⌈o·K⌉
	// of them, the file's pages evicted ahead of each call with Cold.
	var cands []engine.Result
	arms := []metrics.Query{func(_, qi int) ([]engine.Result, error) {
		var err error
		if st == nil {
			cands, _, err = exact.Search(ds.Queries.Row(qi), kmax, nil)
		} else {
			cands, err = st.Search(ds.Queries.Row(qi), kmax, nil)
		}
		return cands, err
	}}
	var buf []engine.Result
	for _, o := range cfg.Oversample {
		arms = append(arms, func(_, qi int) ([]engine.Result, error) {
			kk := min(engine.RescoreDepth(cfg.K, o), len(cands))
			var err error
			buf, _, err = rs.Rescore(buf, ds.Queries.Row(qi), cands[:kk], cfg.K)
			return buf, err
		})
	}
	loop := metrics.Loop{Queries: ds.Queries.N, K: cfg.K, Truth: truth.IDs, Before: func() error { return coldCache(rs, cfg) }}
	ms, err := loop.RunInterleaved(engine.Context(), arms...)
	if err != nil {
		return err
	}
	row.FlatNone = ms[0].Recall
	row.FlatOver = make([]float64, len(cfg.Oversample))
	for i := range row.FlatOver {
		row.FlatOver[i] = ms[1+i].Recall
	}
	row.FlatQueryMs = float64(ms[0].Elapsed.Microseconds()) / 1000 / float64(ds.Queries.N)
	return nil
}

// coldCache evicts the rescoring file's pages when cfg.Cold asks for it,
// so the next rescoring call reads from the device.
func coldCache(rs *rescore.Rescorer, cfg QuantConfig) error {
	if file, ok := rs.Source().(*store.File); ok && cfg.Cold {
		_, err := file.Evict()
		return err
	}
	return nil
}

func quantHNSW(row *QuantRow, q quant.Quantizer, ds *dataset.Dataset, truth *dataset.GroundTruth, rs *rescore.Rescorer, cfg QuantConfig, metric engine.Metric) error {
	// Lucene's HNSW (HnswGraphBuilder): m links above layer 0, 2·m on
	// layer 0, given to new nodes too; ef_construction 100 in ES.
	hc := hnsw.Config{Dim: ds.Base.Dim, Metric: metric, M: cfg.M, M0: 2 * cfg.M, NewNodeDegreeL0: 2 * cfg.M,
		EfConstruction: cfg.EfConstruction, Seed: cfg.Seed, Workers: cfg.Workers}
	var st *quant.Store
	if q != nil {
		st = quant.NewStore(q)
		hc.Codes = st
	}
	ix, err := hnsw.New(hc)
	if err != nil {
		return err
	}
	keys := make([]uint64, ds.Base.N)
	for i := range keys {
		keys[i] = uint64(i)
	}
	start := time.Now()
	if err := ix.AddBatch(keys, ds.Base); err != nil {
		return err
	}
	row.Build = time.Since(start)
	if st != nil {
		st.DropBuildCodes() // Lucene keeps the 4-bit query codes only while it builds
	}
	ncDefault := cfg.NumCandidates
	if ncDefault == 0 {
		ncDefault = int(math.Ceil(1.5 * float64(cfg.K))) // ES: num_candidates = min(⌈1.5·k⌉, 10 000)
	}
	// Per query, interleaved: the plain search (arm 0), then one arm per
	// oversample — ES rescore_vector: k' = ⌈k·oversample⌉ gathered by
	// quantized score with num_candidates := max(num_candidates, k'),
	// rescored with the float32 vectors, top k returned — the file's pages
	// evicted ahead of each call with Cold. The largest oversample's arm
	// gives the rescoring QPS and the reads.
	toIDs := func(res []engine.Result) {
		for i := range res {
			res[i].ID = engine.ID(ix.Key(res[i].ID))
		}
	}
	arms := []metrics.Query{func(_, qi int) ([]engine.Result, error) {
		res, _, err := ix.Query(ds.Queries.Row(qi), engine.Request{K: cfg.K, Breadth: ncDefault})
		toIDs(res)
		return res, err
	}}
	var buf []engine.Result
	var reads, devReads int64
	for oi, o := range cfg.Oversample {
		kk := engine.RescoreDepth(cfg.K, o)
		last := oi == len(cfg.Oversample)-1
		arms = append(arms, func(pass, qi int) ([]engine.Result, error) {
			qv := ds.Queries.Row(qi)
			cands, _, err := ix.Query(qv, engine.Request{K: kk, Breadth: max(ncDefault, kk)})
			if err != nil {
				return nil, err
			}
			toIDs(cands)
			var rst rescore.Stats
			if buf, rst, err = rs.Rescore(buf, qv, cands, cfg.K); err != nil {
				return nil, err
			}
			if last && pass == 0 {
				reads += rst.IO.Reads
				devReads += rst.IO.DeviceReads()
			}
			return buf, nil
		})
	}
	loop := metrics.Loop{Queries: ds.Queries.N, K: cfg.K, Truth: truth.IDs, Before: func() error { return coldCache(rs, cfg) }}
	ms, err := loop.RunInterleaved(engine.Context(), arms...)
	if err != nil {
		return err
	}
	nq := float64(ds.Queries.N)
	row.HNSWNone = ms[0].Recall
	row.HNSWOver = make([]float64, len(cfg.Oversample))
	for i := range row.HNSWOver {
		row.HNSWOver[i] = ms[1+i].Recall
	}
	row.Reads = float64(reads) / nq
	row.DeviceReads = float64(devReads) / nq
	row.HNSWQPS = ms[0].QPS
	row.HNSWOverQPS = ms[len(ms)-1].QPS
	return nil
}

// String is the report as `veclab bench quant` prints it: the recall
// table, the cost table and what each row is.
func (r *QuantReport) String() string {
	var b strings.Builder
	r.WriteText(&b)
	return b.String()
}

// WriteText writes [QuantReport.String] to w.
func (r *QuantReport) WriteText(w io.Writer) {
	c := r.Config
	fmt.Fprintf(w, "recall@%d on %d×%d (seed %d, %d queries, %s); rescoring from %s\n",
		c.K, r.N, r.Dim, c.Seed, r.Queries, r.Metric, map[bool]string{false: "RAM", true: "an on-disk vector file"}[c.Disk])
	nc := "⌈1.5·k⌉"
	if c.NumCandidates > 0 {
		nc = strconv.Itoa(c.NumCandidates)
	}
	if c.Graph {
		fmt.Fprintf(w, "HNSW: m=%d, ef_construction=%d, num_candidates=max(%s, ⌈o·k⌉), graph built with the codes\n", c.M, c.EfConstruction, nc)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"quantizer", "B/vec"}
	addHead := func(prefix string) {
		head = append(head, prefix+" none")
		for _, o := range c.Oversample {
			head = append(head, fmt.Sprintf("%s ×%g", prefix, o))
		}
	}
	if c.Flat {
		addHead("flat")
	}
	if c.Graph {
		addHead("hnsw")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, row := range r.Rows {
		cells := []string{row.Name, fmt.Sprintf("%.0f", row.Bytes)}
		if c.Flat {
			cells = append(cells, fmt.Sprintf("%.3f", row.FlatNone))
			for _, v := range row.FlatOver {
				cells = append(cells, fmt.Sprintf("%.3f", v))
			}
		}
		if c.Graph {
			cells = append(cells, fmt.Sprintf("%.3f", row.HNSWNone))
			for _, v := range row.HNSWOver {
				cells = append(cells, fmt.Sprintf("%.3f", v))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w)

	// Costs: single goroutine per query; the machine may be shared.
	maxO := c.Oversample[len(c.Oversample)-1]
	fmt.Fprintf(w, "costs (one goroutine per query; reads = full vectors fetched for rescoring at ×%g)\n", maxO)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "quantizer\ttrain ms\tflat ms/q\thnsw build s\thnsw QPS none\thnsw QPS ×%g\treads/q\tdevice reads/q\t\n", maxO)
	for _, row := range r.Rows {
		dev := "—" // RAM: no device
		if c.Disk {
			dev = fmt.Sprintf("%.1f", row.DeviceReads)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f\t%.1f\t%.0f\t%.0f\t%.1f\t%s\t\n", row.Name,
			float64(row.Train.Microseconds())/1000, row.FlatQueryMs, row.Build.Seconds(), row.HNSWQPS, row.HNSWOverQPS, row.Reads, dev)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, row := range r.Rows {
		fmt.Fprintf(w, "  %-12s %s\n", row.Name, row.About)
	}
	fmt.Fprintln(w, "  none = top-k by code distance, no rescoring; ×o = gather ⌈o·k⌉ by code distance, rescore with float32, keep k")
	fmt.Fprintln(w, "  "+metrics.RecallCaption(c.K))
}
