package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
)

func init() {
	register(&command{
		name:    "bench quant",
		summary: "recall@10 of raw, int8, int4 and 1/2/4-bit OSQ codes, flat and through HNSW, by oversample with rescoring (E10, E22–E24)",
		run:     runBenchQuant,
	})
}

// quantSpec is one row of the table: a named way to build codes.
type quantSpec struct {
	name  string
	about string
	train func(base *vec.Matrix, metric engine.Metric, seed uint64) (quant.Quantizer, error) // nil: raw float32
}

func scalarSpec(name, about string, cfg quant.ScalarConfig) quantSpec {
	return quantSpec{name, about, func(b *vec.Matrix, m engine.Metric, seed uint64) (quant.Quantizer, error) {
		cfg.Seed = seed
		return quant.TrainScalar(b, m, cfg)
	}}
}

func osqSpec(name, about string, cfg quant.OSQConfig) quantSpec {
	return quantSpec{name, about, func(b *vec.Matrix, m engine.Metric, seed uint64) (quant.Quantizer, error) {
		cfg.Seed = seed
		return quant.TrainOSQ(b, m, cfg)
	}}
}

var quantSpecs = []quantSpec{
	{name: "raw", about: "float32, no quantization"},
	scalarSpec("int8", "ES int8 (7-bit), Lucene confidence interval", quant.ScalarConfig{}),
	scalarSpec("int8-minmax", "7-bit, bounds = min/max (c = 1)", quant.ScalarConfig{ConfidenceInterval: 1}),
	scalarSpec("int4", "4-bit with Lucene's error correction", quant.ScalarConfig{Bits: 4}),
	scalarSpec("int4-nocorr", "4-bit, rounding-error term dropped", quant.ScalarConfig{Bits: 4, NoCorrection: true}),
	osqSpec("bbq", "OSQ 1-bit docs × 4-bit query (ES bbq_hnsw)", quant.OSQConfig{Bits: 1}),
	osqSpec("bbq-mean", "BBQ centred on the plain mean (Lucene normalises it under cosine)", quant.OSQConfig{Bits: 1, MeanCentroid: true}),
	osqSpec("osq1x1", "OSQ 1-bit docs × 1-bit query (symmetric)", quant.OSQConfig{Bits: 1, QueryBits: 1}),
	osqSpec("osq2", "OSQ 2-bit docs × 4-bit query", quant.OSQConfig{Bits: 2}),
	osqSpec("osq4", "OSQ 4-bit docs × 4-bit query", quant.OSQConfig{Bits: 4}),
	osqSpec("osq2-mean", "OSQ 2-bit × 4-bit centred on the plain mean", quant.OSQConfig{Bits: 2, MeanCentroid: true}),
	osqSpec("osq4-mean", "OSQ 4-bit × 4-bit centred on the plain mean", quant.OSQConfig{Bits: 4, MeanCentroid: true}),
	osqSpec("osq8", "OSQ 8-bit docs × 8-bit query", quant.OSQConfig{Bits: 8}),
}

type benchQuantFlags struct {
	n, queries, dim, k int
	seed               uint64
	oversample         []float64
	only               []string
	flat, graph        bool
	m, efc, nc         int
	workers            int
	disk, cold         bool
	data               string        // -data: a real set's name or directory; "" generates
	metric             engine.Metric // the data set's
}

func quantParseOversample(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 1 || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: oversample %q: want numbers ≥ 1 separated by commas", engine.ErrInvalidArgument, f)
		}
		out = append(out, v)
	}
	return out, nil
}

func runBenchQuant(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench quant", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f benchQuantFlags
	fs.IntVar(&f.n, "n", dataset.DefaultN, "base vectors")
	fs.IntVar(&f.queries, "queries", dataset.DefaultQueries, "queries")
	fs.IntVar(&f.dim, "dim", dataset.DefaultDim, "dimensions")
	fs.Uint64Var(&f.seed, "seed", 0, "data set and training seed")
	fs.IntVar(&f.k, "k", 10, "results per query (recall@k)")
	over := fs.String("oversample", "1,1.5,3,5", "oversample factors: gather ⌈o·k⌉ by code distance, rescore with float32, keep k")
	only := fs.String("only", "", "comma-separated quantizers to run (default all: "+specNames()+")")
	fs.BoolVar(&f.flat, "flat", true, "flat scan over codes (isolates the quantizer)")
	fs.BoolVar(&f.graph, "hnsw", true, "HNSW built and searched with the codes (int8_hnsw / bbq_hnsw emulation)")
	fs.IntVar(&f.m, "m", 16, "HNSW m (Lucene/ES default 16; layer 0 gets 2·m, new nodes 2·m links as Lucene)")
	fs.IntVar(&f.efc, "ef-construction", 100, "HNSW ef_construction (Lucene/ES default 100)")
	fs.IntVar(&f.nc, "num-candidates", 0, "HNSW beam; 0 = ES default ⌈1.5·k⌉, raised to the oversampled ⌈o·k⌉")
	fs.IntVar(&f.workers, "workers", 0, "HNSW build goroutines (0 = all cores; 1 = deterministic graph)")
	fs.BoolVar(&f.disk, "disk", false, "rescore from an on-disk vector file (engine/store, pread) instead of RAM")
	fs.BoolVar(&f.cold, "cold", false, "with -disk: evict the file from the page cache before every rescoring call (each reads from the device)")
	data := dataFlag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if f.data = *data; f.data != "" && !flagSet(fs, "queries") {
		f.queries = 0 // all of the real set's queries
	}
	if f.cold && !f.disk {
		return fmt.Errorf("%w: bench quant: -cold needs -disk", engine.ErrInvalidArgument)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: bench quant: unexpected arguments %q", engine.ErrInvalidArgument, fs.Args())
	}
	var err error
	if f.oversample, err = quantParseOversample(*over); err != nil {
		return err
	}
	if *only != "" {
		for _, name := range strings.Split(*only, ",") {
			name = strings.TrimSpace(name)
			if !slices.ContainsFunc(quantSpecs, func(s quantSpec) bool { return s.name == name }) {
				return fmt.Errorf("%w: bench quant: unknown quantizer %q (want %s)", engine.ErrInvalidArgument, name, specNames())
			}
			f.only = append(f.only, name)
		}
	}
	if err := engine.CheckK(f.k); err != nil {
		return err
	}
	if f.data == "" && (f.n < 1 || f.queries < 1 || f.dim < 1) {
		// The generator reads 0 as "the default", so reject it here.
		return fmt.Errorf("%w: bench quant: -n %d, -queries %d, -dim %d must be ≥ 1", engine.ErrInvalidArgument, f.n, f.queries, f.dim)
	}
	if f.m < 2 || f.efc < 1 || f.nc < 0 || f.workers < 0 {
		return fmt.Errorf("%w: bench quant: -m %d, -ef-construction %d, -num-candidates %d, -workers %d", engine.ErrInvalidArgument, f.m, f.efc, f.nc, f.workers)
	}
	return benchQuant(f, stdout, stderr)
}

func specNames() string {
	names := make([]string, len(quantSpecs))
	for i, s := range quantSpecs {
		names[i] = s.name
	}
	return strings.Join(names, ",")
}

// quantRow is one quantizer's measurements.
type quantRow struct {
	spec        quantSpec
	bytes       float64
	train       time.Duration
	flatNone    float64   // recall of top-k by code distance
	flatOver    []float64 // recall after rescoring ⌈o·k⌉, per oversample
	hnswNone    float64
	hnswOver    []float64
	build       time.Duration
	reads       float64 // full-vector reads per query while rescoring (HNSW, largest oversample)
	devReads    float64 // of which the device served (not in the page cache); file only
	flatQueryMs float64
	hnswQPS     float64 // no rescoring, default num_candidates
	hnswOverQPS float64 // largest oversample, rescoring included
}

func benchQuant(f benchQuantFlags, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "bench quant: data set and exact truth…\n")
	bd, err := loadBenchData(f.data, dataset.Config{N: f.n, Queries: f.queries, Dim: f.dim, Seed: f.seed}, f.queries, f.k, "")
	if err != nil {
		return err
	}
	ds, truth, metric := bd.ds, bd.truth, bd.metric
	f.n, f.queries, f.dim, f.metric = ds.Base.N, ds.Queries.N, ds.Base.Dim, metric
	fmt.Fprintf(stdout, "data set: %s\n", bd.desc)

	var src engine.VectorSource = rescore.NewSlab(ds.Base)
	if f.disk {
		dir, err := os.MkdirTemp("", "veclab-bench-quant")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "vectors.vec")
		if err := store.WriteMatrix(path, ds.Base, metric); err != nil {
			return err
		}
		file, err := store.Open(path, store.Options{})
		if err != nil {
			return err
		}
		defer file.Close()
		src = file
	}
	rs, err := rescore.New(src, metric, rescore.Options{})
	if err != nil {
		return err
	}

	maxOver := slices.Max(f.oversample)
	kmax := int(math.Ceil(maxOver * float64(f.k)))
	var rows []quantRow
	for _, spec := range quantSpecs {
		if len(f.only) > 0 && !slices.Contains(f.only, spec.name) {
			continue
		}
		row := quantRow{spec: spec, bytes: float64(4 * f.dim)}
		var q quant.Quantizer
		if spec.train != nil {
			start := time.Now()
			if q, err = spec.train(ds.Base, metric, f.seed); err != nil {
				return fmt.Errorf("%s: %w", spec.name, err)
			}
			row.train = time.Since(start)
			row.bytes = q.BytesPerVector()
			fmt.Fprintf(stderr, "%-12s %v (trained in %v)\n", spec.name, q, row.train.Round(time.Millisecond))
		}
		if f.flat {
			if err := flatRecall(&row, q, ds, truth, rs, f, kmax); err != nil {
				return fmt.Errorf("%s: flat: %w", spec.name, err)
			}
		}
		if f.graph {
			if err := hnswRecall(&row, q, ds, truth, rs, f, metric); err != nil {
				return fmt.Errorf("%s: hnsw: %w", spec.name, err)
			}
		}
		rows = append(rows, row)
	}
	printQuantTable(stdout, rows, f)
	return nil
}

func flatRecall(row *quantRow, q quant.Quantizer, ds *dataset.Dataset, truth *dataset.GroundTruth, rs *rescore.Rescorer, f benchQuantFlags, kmax int) error {
	var st *quant.Store
	var exact *flat.Index
	if q == nil {
		var err error
		if exact, err = flat.New(ds.Base, flat.Config{Metric: f.metric}); err != nil {
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
	row.flatOver = make([]float64, len(f.oversample))
	var elapsed time.Duration
	var buf []engine.Result
	for qi := 0; qi < ds.Queries.N; qi++ {
		qv := ds.Queries.Row(qi)
		want := truth.At(qi, f.k)
		start := time.Now()
		var cands []engine.Result
		var err error
		if st == nil {
			cands, _, err = exact.Search(qv, kmax, nil)
		} else {
			cands, err = st.Search(qv, kmax, nil)
		}
		if err != nil {
			return err
		}
		elapsed += time.Since(start)
		row.flatNone += metrics.Recall(cands, want, f.k)
		for oi, o := range f.oversample {
			kk := min(int(math.Ceil(o*float64(f.k))), len(cands))
			if err := coldCache(rs, f); err != nil {
				return err
			}
			if buf, _, err = rs.Rescore(buf, qv, cands[:kk], f.k); err != nil {
				return err
			}
			row.flatOver[oi] += metrics.Recall(buf, want, f.k)
		}
	}
	nq := float64(ds.Queries.N)
	row.flatNone /= nq
	for i := range row.flatOver {
		row.flatOver[i] /= nq
	}
	row.flatQueryMs = float64(elapsed.Microseconds()) / 1000 / nq
	return nil
}

// coldCache evicts the rescoring file's pages when -cold asks for it, so
// the next rescoring call reads from the device.
func coldCache(rs *rescore.Rescorer, f benchQuantFlags) error {
	if file, ok := rs.Source().(*store.File); ok && f.cold {
		_, err := file.Evict()
		return err
	}
	return nil
}

func hnswRecall(row *quantRow, q quant.Quantizer, ds *dataset.Dataset, truth *dataset.GroundTruth, rs *rescore.Rescorer, f benchQuantFlags, metric engine.Metric) error {
	// Lucene's HNSW (HnswGraphBuilder): m links above layer 0, 2·m on
	// layer 0, given to new nodes too; ef_construction 100 in ES.
	cfg := hnsw.Config{Dim: f.dim, Metric: metric, M: f.m, M0: 2 * f.m, NewNodeDegreeL0: 2 * f.m,
		EfConstruction: f.efc, Seed: f.seed, Workers: f.workers}
	var st *quant.Store
	if q != nil {
		st = quant.NewStore(q)
		cfg.Codes = st
	}
	ix, err := hnsw.New(cfg)
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
	row.build = time.Since(start)
	if st != nil {
		st.DropBuildCodes() // Lucene keeps the 4-bit query codes only while it builds
	}
	ncDefault := f.nc
	if ncDefault == 0 {
		ncDefault = int(math.Ceil(1.5 * float64(f.k))) // ES: num_candidates = min(⌈1.5·k⌉, 10 000)
	}
	row.hnswOver = make([]float64, len(f.oversample))
	var buf []engine.Result
	var reads, devReads int64
	var plain, over time.Duration
	nq := float64(ds.Queries.N)
	toIDs := func(res []engine.Result) {
		for i := range res {
			res[i].ID = engine.ID(ix.Key(res[i].ID))
		}
	}
	for qi := 0; qi < ds.Queries.N; qi++ {
		qv := ds.Queries.Row(qi)
		want := truth.At(qi, f.k)
		t0 := time.Now()
		res, err := ix.Search(qv, f.k, ncDefault)
		plain += time.Since(t0)
		if err != nil {
			return err
		}
		toIDs(res)
		row.hnswNone += metrics.Recall(res, want, f.k)
		for oi, o := range f.oversample {
			// ES rescore_vector: k' = ⌈k·oversample⌉ gathered by quantized
			// score with num_candidates := max(num_candidates, k'), then
			// rescored with the float32 vectors; top k returned.
			kk := int(math.Ceil(o * float64(f.k)))
			if err := coldCache(rs, f); err != nil {
				return err
			}
			t0 := time.Now()
			cands, err := ix.Search(qv, kk, max(ncDefault, kk))
			if err != nil {
				return err
			}
			toIDs(cands)
			var rst rescore.Stats
			if buf, rst, err = rs.Rescore(buf, qv, cands, f.k); err != nil {
				return err
			}
			row.hnswOver[oi] += metrics.Recall(buf, want, f.k)
			if oi == len(f.oversample)-1 {
				over += time.Since(t0)
				reads += rst.IO.Reads
				devReads += rst.IO.DeviceReads()
			}
		}
	}
	row.hnswNone /= nq
	for i := range row.hnswOver {
		row.hnswOver[i] /= nq
	}
	row.reads = float64(reads) / nq
	row.devReads = float64(devReads) / nq
	row.hnswQPS = nq / plain.Seconds()
	row.hnswOverQPS = nq / over.Seconds()
	return nil
}

func printQuantTable(w io.Writer, rows []quantRow, f benchQuantFlags) {
	fmt.Fprintf(w, "recall@%d on %d×%d (seed %d, %d queries, %s); rescoring from %s\n",
		f.k, f.n, f.dim, f.seed, f.queries, f.metric, map[bool]string{false: "RAM", true: "an on-disk vector file"}[f.disk])
	nc := "⌈1.5·k⌉"
	if f.nc > 0 {
		nc = strconv.Itoa(f.nc)
	}
	if f.graph {
		fmt.Fprintf(w, "HNSW: m=%d, ef_construction=%d, num_candidates=max(%s, ⌈o·k⌉), graph built with the codes\n", f.m, f.efc, nc)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"quantizer", "B/vec"}
	addHead := func(prefix string) {
		head = append(head, prefix+" none")
		for _, o := range f.oversample {
			head = append(head, fmt.Sprintf("%s ×%g", prefix, o))
		}
	}
	if f.flat {
		addHead("flat")
	}
	if f.graph {
		addHead("hnsw")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range rows {
		cells := []string{r.spec.name, fmt.Sprintf("%.0f", r.bytes)}
		if f.flat {
			cells = append(cells, fmt.Sprintf("%.3f", r.flatNone))
			for _, v := range r.flatOver {
				cells = append(cells, fmt.Sprintf("%.3f", v))
			}
		}
		if f.graph {
			cells = append(cells, fmt.Sprintf("%.3f", r.hnswNone))
			for _, v := range r.hnswOver {
				cells = append(cells, fmt.Sprintf("%.3f", v))
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w)

	// Costs: single goroutine per query; the machine may be shared.
	maxO := f.oversample[len(f.oversample)-1]
	fmt.Fprintf(w, "costs (one goroutine per query; reads = full vectors fetched for rescoring at ×%g)\n", maxO)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "quantizer\ttrain ms\tflat ms/q\thnsw build s\thnsw QPS none\thnsw QPS ×%g\treads/q\tdevice reads/q\t\n", maxO)
	for _, r := range rows {
		dev := "—" // RAM: no device
		if f.disk {
			dev = fmt.Sprintf("%.1f", r.devReads)
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f\t%.1f\t%.0f\t%.0f\t%.1f\t%s\t\n", r.spec.name,
			float64(r.train.Microseconds())/1000, r.flatQueryMs, r.build.Seconds(), r.hnswQPS, r.hnswOverQPS, r.reads, dev)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "  %-12s %s\n", r.spec.name, r.spec.about)
	}
	fmt.Fprintln(w, "  none = top-k by code distance, no rescoring; ×o = gather ⌈o·k⌉ by code distance, rescore with float32, keep k")
}
