package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/veclab/veclab/bench/peers/faiss"
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
)

// IVFConfig says what [IVF] measures. Start from [DefaultIVFConfig].
type IVFConfig struct {
	Nlist   int    // IVF lists (0: n/384, DiskBBQ's cluster_size)
	Iters   int    // k-means iterations, both sides (FAISS IndexIVF's default niter is 10)
	Workers int    // build goroutines (1 = single-threaded, as the FAISS peer; only then is the training CPU time reported; 0: engine.Cores())
	Seed    uint64 // index seed (k-means, codes)
	// Bits are the posting-list codes swept: 0 = float32 lists, else OSQ
	// bits (1, 2, 4, 8), one build each.
	Bits       []int
	Nprobes    []int     // nprobe sweep
	Visits     []float64 // visit-percentage sweep, (0, 100] (Elasticsearch visit_percentage)
	Oversample float64   // rescore oversample of quantized lists, ≥ 1 (Elasticsearch's BBQ default 3)
	// PeerOversample is the rescore oversample sweep of the 1/2/4-bit
	// lists in the FAISS comparison, each with every nprobe.
	PeerOversample []float64
	Spill          bool // SOAR spilled second assignment
	Hierarchical   bool // DiskBBQ hierarchical k-means (cluster size 384) instead of flat k-means with Nlist
	GlobalCentroid bool // quantize every list around the data mean instead of its own centroid (DiskBBQ)
	RandomInit     bool // k-means random-sample init (FAISS) instead of k-means++
	Conc           int  // in-flight reads for concurrent rescoring in the I/O table
	// IOBits are the codes (one of Bits) of the I/O table and of the
	// posting lists on disk; 0 leaves both out.
	IOBits int
	Model  store.Model // simulated storage profile of the I/O table (store.Off: none)
	Warmup int         // untimed warm-up queries before each timed run
	// Dir is the working directory for the vector file, the list file and
	// the .fvecs of the peer ("": a temporary directory, removed).
	Dir    string
	Faiss  bool   // run FAISS IVF-Flat and IVF-SQ8 (bench/peers/faiss; python3-faiss) on the same data
	Python string // interpreter with faiss ("": faiss.DefaultPython)
}

// DefaultIVFConfig is `veclab bench ivf`'s defaults.
func DefaultIVFConfig() IVFConfig {
	return IVFConfig{Iters: 10, Workers: 1, Bits: []int{0, 1, 2, 4, 8}, Nprobes: []int{1, 2, 4, 8, 16, 32},
		Visits: []float64{1, 2, 3, 5, 10, 20}, Oversample: 3, PeerOversample: []float64{3, 5, 10, 15, 20},
		Conc: 16, IOBits: 2, Model: store.GP3Baseline, Warmup: 20, Python: faiss.DefaultPython}
}

// validBits reports whether b is a code width of engine/ivf's lists.
func validBits(b int) bool { return b == 0 || b == 1 || b == 2 || b == 4 || b == 8 }

// Validate reports every problem of c at once, naming each field by its
// flag of `veclab bench ivf` (Bits is -bits, Nprobes -nprobe, Visits
// -visit, PeerOversample -peer-oversample, IOBits -io-bits), so that the
// command's error names the flag and the value.
func (c IVFConfig) Validate() error {
	var bad []string
	if c.Nlist < 0 || c.Iters < 1 || c.Workers < 0 || c.Conc < 1 || c.Warmup < 0 {
		bad = append(bad, fmt.Sprintf("-nlist %d, -iters %d, -workers %d, -conc %d, -warmup %d: want -nlist, -workers, -warmup ≥ 0 and -iters, -conc ≥ 1",
			c.Nlist, c.Iters, c.Workers, c.Conc, c.Warmup))
	}
	if len(c.Bits) == 0 {
		bad = append(bad, "-bits is empty")
	}
	bitsOK := true
	for _, b := range c.Bits {
		if !validBits(b) {
			bad, bitsOK = append(bad, fmt.Sprintf("-bits %d: want 0 (float32 lists) or 1, 2, 4, 8", b)), false
		}
	}
	if bitsOK && c.IOBits != 0 && !slices.Contains(c.Bits, c.IOBits) {
		bad = append(bad, fmt.Sprintf("-io-bits %d is not among -bits %v (0 leaves the I/O table out)", c.IOBits, c.Bits))
	}
	if len(c.Nprobes) == 0 {
		bad = append(bad, "-nprobe is empty")
	}
	for _, p := range c.Nprobes {
		if p < 1 {
			bad = append(bad, fmt.Sprintf("-nprobe %d < 1", p))
		}
	}
	for _, v := range c.Visits {
		if !(v > 0 && v <= 100) {
			bad = append(bad, fmt.Sprintf("-visit %g outside (0, 100]", v))
		}
	}
	if !(c.Oversample >= 1) || math.IsInf(c.Oversample, 0) {
		bad = append(bad, fmt.Sprintf("-oversample %g: want a finite number ≥ 1", c.Oversample))
	}
	if c.Faiss && len(c.PeerOversample) == 0 {
		bad = append(bad, "-peer-oversample is empty")
	}
	for _, o := range c.PeerOversample {
		if !(o >= 1) || math.IsInf(o, 0) {
			bad = append(bad, fmt.Sprintf("-peer-oversample %g: want a finite number ≥ 1", o))
		}
	}
	if err := c.Model.Validate(); err != nil {
		bad = append(bad, err.Error())
	}
	if len(bad) > 0 {
		return fmt.Errorf("bench: ivf: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// CodesName names the posting-list codes of bits: "float32" for 0, else
// "osq-<bits>bit".
func CodesName(bits int) string {
	if bits == 0 {
		return "float32"
	}
	return fmt.Sprintf("osq-%dbit", bits)
}

// IVFBuild is one index of the sweep: its training (wall time; thread CPU
// time with one worker, else 0), the build's phases and its footprint per
// vector (resident, of which codes, and the vector file it rescores from).
type IVFBuild struct {
	Bits                        int
	Lists                       int
	TrainWall, TrainCPU         time.Duration
	Assign, Encode              time.Duration
	Spilled                     int
	Resident, Codes, DiskPerVec float64 // bytes per vector
}

// IVFPoint is one measured setting: recall@10 of the timed k = 10 pass,
// recall@100 of an untimed k = 100 pass, queries per second by wall time
// and by the thread's CPU time (0 when reads ran on other goroutines),
// lists probed and codes scanned per query, and the rescoring reads of
// the timed pass (IO.Reads 0: none).
type IVFPoint struct {
	Bits                int
	Setting             string // "nprobe=4", "visit=5%", "nprobe=4 os=5"
	Recall10, Recall100 float64
	QPS, CPUQPS         float64
	P50                 time.Duration
	Lists, Scanned      float64
	Queries             int
	IO                  store.IOStats
}

// ReadsPerQuery is the rescoring reads per query of the timed pass.
func (p IVFPoint) ReadsPerQuery() float64 { return float64(p.IO.Reads) / float64(max(p.Queries, 1)) }

// IVFIOMode is one way of serving the rescoring reads in the I/O table.
type IVFIOMode struct {
	Name  string
	Point IVFPoint
}

// IVFListsMode is one way of serving the reads of the posting lists on
// disk and of the vectors (E27), with the list reads of a clean k = 10
// pass over the Point.Queries queries.
type IVFListsMode struct {
	Name  string
	Point IVFPoint
	Lists store.IOStats
}

// IVFIO is the I/O table of IOBits' index: the smallest visit percentage
// reaching recall@10 ≥ 0.95 with warm sequential rescoring (else the one
// reaching the best recall), rescored every way the lab can serve the
// reads (E13, E15, E26), then the same with its posting lists on disk
// (E27).
type IVFIO struct {
	Bits  int
	Visit float64
	Modes []IVFIOMode
	// DiskLists are the modes with the posting lists on disk; Resident
	// is that index's resident bytes per vector (centroids, quantizers),
	// ListFileMB and VectorFileMB the two files' sizes (10⁶ bytes).
	DiskLists                []IVFListsMode
	Resident                 float64
	ListFileMB, VectorFileMB float64
}

// IVFRatio is one matched-recall line of the FAISS comparison: the
// fastest point of each sweep reaching recall@10 ≥ Target, by wall time
// and by CPU time; Reached and PeerReached say whether each side got
// there.
type IVFRatio struct {
	Ours, Peer           string
	Target               float64
	Reached, PeerReached bool
	Wall, PeerWall       metrics.Point
	CPU, PeerCPU         metrics.Point
}

// IVFSweep is one index of the FAISS comparison: its name in the tables
// and its points, by wall and by CPU time (the same settings).
type IVFSweep struct {
	Name      string
	Wall, CPU []metrics.Point
}

// IVFFaiss is the FAISS comparison: FAISS's IVF-Flat and IVF-SQ8 and our
// float32 lists, 8-bit lists without rescoring and 1/2/4-bit lists
// rescored from the warm vector file and from RAM, all trained as FAISS
// trains (random-sample init, Iters, one thread), nprobe swept; the
// matched-recall ratios; and the training times.
type IVFFaiss struct {
	Version, Compile, Note string
	Nlist                  int
	Peer                   []IVFSweep // FAISS's indexes, IVF-Flat first, IVF-SQ8 last
	Ours                   []IVFSweep // float32, osq-8bit, then each low bit width from the file and from RAM
	Ratios                 []IVFRatio
	// Trained is how many vectors k-means trained on; TrainWall and
	// TrainCPU our float32 index's ivf.Train; KmeansS/KmeansCPU FAISS's
	// Kmeans and IndexTrainS/IndexTrainCPU its IVF-Flat's train (seconds).
	Trained                    int
	TrainWall, TrainCPU        time.Duration
	KmeansS, KmeansCPU         float64
	IndexName                  string
	IndexTrainS, IndexTrainCPU float64
}

// IVFReport is the outcome of [IVF].
type IVFReport struct {
	Config          IVFConfig // with Nlist resolved
	N, Dim, Queries int
	Metric          engine.Metric
	GOMAXPROCS      int
	// VectorFileMB and VectorFileBPV are the on-disk vector file's size
	// (10⁶ bytes) and bytes per vector, per-row CRC included.
	VectorFileMB, VectorFileBPV float64
	Builds                      []IVFBuild
	Sweep                       []IVFPoint
	IO                          *IVFIO    // nil: no I/O table (IOBits 0, or no visit percentage)
	Faiss                       *IVFFaiss // nil without the peer
	Load, EndLoad               string    // load averages at the start and the end
}

// ivfK is the k of every timed search; recall@100 comes from an untimed
// k = 100 pass.
const ivfK = 10

// ivfTarget is the recall@10 at which the I/O table's visit percentage
// and the FAISS comparison's ratios are read.
const ivfTarget = 0.95

// IVF measures engine/ivf over ds (queries and truth of at least 100
// neighbours, or n): it writes the base vectors to an on-disk vector
// file, trains one index per Bits (timed), sweeps nprobe and visit
// percentage (quantized lists rescored from the warm file), builds the
// I/O table of IOBits' index and, with Faiss, runs FAISS's IVF-Flat and
// IVF-SQ8 on the same data beside our indexes trained as FAISS trains.
// Searches run on one locked OS thread. Progress goes to log (nil: none).
func IVF(ds *dataset.Dataset, truth *dataset.GroundTruth, metric engine.Metric, cfg IVFConfig, log io.Writer) (*IVFReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkData("ivf", ds, truth, 0); err != nil {
		return nil, err
	}
	if err := checkData("ivf", ds, truth, min(100, ds.Base.N)); err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	if cfg.Faiss {
		if err := faiss.Available(cfg.Python); err != nil {
			return nil, fmt.Errorf("bench: ivf: %w", err)
		}
	}
	if cfg.Nlist == 0 {
		cfg.Nlist = max(1, int(math.Round(float64(ds.Base.N)/ivf.DefaultClusterSize)))
	}
	rep := &IVFReport{Config: cfg, N: ds.Base.N, Dim: ds.Base.Dim, Queries: ds.Queries.N, Metric: metric,
		GOMAXPROCS: runtime.GOMAXPROCS(0), Load: LoadAverage()}
	m := &ivfMeasure{ds: ds, truth: truth, metric: metric, cfg: cfg}
	if err := m.run(rep, log); err != nil {
		return nil, fmt.Errorf("bench: ivf: %w", err)
	}
	rep.EndLoad = LoadAverage()
	return rep, nil
}

// ivfMeasure holds what every measurement of one [IVF] call shares.
type ivfMeasure struct {
	ds     *dataset.Dataset
	truth  *dataset.GroundTruth
	metric engine.Metric
	cfg    IVFConfig
	vpath  string // the vector file
}

func (m *ivfMeasure) run(rep *IVFReport, log io.Writer) error {
	cfg := m.cfg
	dir, remove, err := workDir("ivf", cfg.Dir, "veclab-bench-ivf")
	if err != nil {
		return err
	}
	defer remove()
	m.vpath = filepath.Join(dir, "vectors.vec")
	os.Remove(m.vpath)
	if err := store.WriteMatrix(m.vpath, m.ds.Base, m.metric); err != nil {
		return err
	}
	warm, err := store.Open(m.vpath, store.Options{})
	if err != nil {
		return err
	}
	defer warm.Close()
	if _, err := warm.Warm(); err != nil {
		return err
	}
	rep.VectorFileMB, rep.VectorFileBPV = float64(warm.Size())/1e6, warm.BytesPerVector()
	seq, err := rescore.New(warm, m.metric, rescore.Options{})
	if err != nil {
		return err
	}

	indexes := map[int]*ivf.Index{}
	for _, bits := range cfg.Bits {
		if indexes[bits] != nil {
			continue
		}
		c := ivf.Config{Nlist: cfg.Nlist, Metric: m.metric, Bits: bits, Spill: cfg.Spill, GlobalCentroid: cfg.GlobalCentroid,
			Iters: cfg.Iters, RandomInit: cfg.RandomInit, Seed: cfg.Seed, Workers: cfg.Workers}
		if cfg.Hierarchical {
			c.Nlist, c.Hierarchical = 0, true
		}
		fmt.Fprintf(log, "bench ivf: training %s…\n", CodesName(bits))
		ix, wall, cpu, err := trainTimed(m.ds, c)
		if err != nil {
			return fmt.Errorf("build %s: %w", CodesName(bits), err)
		}
		indexes[bits] = ix
		bs, fp := ix.BuildStats(), ix.Footprint()
		b := IVFBuild{Bits: bits, Lists: ix.Nlist(), TrainWall: wall, Assign: bs.AssignTime, Encode: bs.EncodeTime, Spilled: bs.Spilled}
		if bits > 0 {
			fp = ix.FootprintWith(warm)
			b.DiskPerVec = float64(fp.Disk) / float64(fp.Vectors)
		}
		if cfg.Workers == 1 {
			b.TrainCPU = cpu
		}
		b.Resident, b.Codes = fp.PerVector(), float64(fp.Codes)/float64(fp.Vectors)
		rep.Builds = append(rep.Builds, b)
	}

	// The sweep: every nprobe, then every visit percentage, of each build.
	type setting struct {
		name string
		opt  ivf.SearchOptions
	}
	var settings []setting
	for _, p := range cfg.Nprobes {
		settings = append(settings, setting{fmt.Sprintf("nprobe=%d", p), ivf.SearchOptions{Nprobe: p}})
	}
	for _, v := range cfg.Visits {
		settings = append(settings, setting{fmt.Sprintf("visit=%g%%", v), ivf.SearchOptions{VisitPercentage: v}})
	}
	for _, b := range rep.Builds {
		var rs *rescore.Rescorer
		if b.Bits > 0 {
			rs = seq
		}
		fmt.Fprintf(log, "bench ivf: sweeping %s…\n", CodesName(b.Bits))
		for _, st := range settings {
			opt := st.opt
			opt.Oversample, opt.Rescorer = cfg.Oversample, rs
			r, err := m.measure(indexes[b.Bits], opt, nil)
			if err != nil {
				return err
			}
			r.Bits, r.Setting = b.Bits, st.name
			rep.Sweep = append(rep.Sweep, r)
		}
	}

	if ix := indexes[cfg.IOBits]; ix != nil && cfg.IOBits > 0 {
		fmt.Fprintf(log, "bench ivf: I/O table (%s)…\n", CodesName(cfg.IOBits))
		if rep.IO, err = m.ioTable(ix); err != nil {
			return err
		}
	}
	if cfg.Faiss {
		// The comparison's file rescorer reads without the lab's
		// mincore probe (a system call per cluster of rows that no
		// engine makes), still one CRC-checked row per candidate from
		// the warm file.
		noProbe, err := store.Open(m.vpath, store.Options{NoCacheProbe: true})
		if err != nil {
			return err
		}
		defer noProbe.Close()
		if _, err := noProbe.Warm(); err != nil { // also fills its mapping's page tables
			return err
		}
		fileRS, err := rescore.New(noProbe, m.metric, rescore.Options{})
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "bench ivf: FAISS comparison…\n")
		if rep.Faiss, err = m.faissPeer(dir, fileRS); err != nil {
			return err
		}
	}
	return nil
}

// trainTimed trains an index, timing ivf.Train by wall and thread CPU
// time (CPU only meaningful with Workers = 1), then fills it.
func trainTimed(data *dataset.Dataset, cfg ivf.Config) (*ivf.Index, time.Duration, time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, t0 := metrics.ThreadCPU(), time.Now()
	ix, err := ivf.Train(data.Base, cfg)
	wall, cpu := time.Since(t0), metrics.ThreadCPU()-c0
	if err != nil {
		return nil, 0, 0, err
	}
	if err := ix.Add(data.Base); err != nil {
		return nil, 0, 0, err
	}
	return ix, wall, cpu, nil
}

// measure runs Warmup untimed queries, the timed k = 10 pass and an
// untimed k = 100 pass for recall@100, on one locked OS thread. before,
// if set, runs untimed before every timed query (cache eviction).
func (m *ivfMeasure) measure(ix *ivf.Index, opt ivf.SearchOptions, before func() error) (IVFPoint, error) {
	var r IVFPoint
	ds, truth := m.ds, m.truth
	nq := ds.Queries.N
	opt.K = min(ivfK, ix.Len())
	var st ivf.Stats
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// One pass on the locked thread, its CPU time by ThreadCPU; before
	// (untimed) ahead of every timed query.
	loop := metrics.Loop{Queries: nq, K: ivfK, Truth: truth.IDs, Warmup: m.cfg.Warmup, Before: before, CPU: metrics.ThreadCPU}
	lm, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		res, s, err := ix.SearchWith(ds.Queries.Row(i), opt)
		if pass == 0 {
			st.Add(s)
		}
		return res, err
	})
	if err != nil {
		return r, err
	}
	r.Recall10, r.QPS = lm.Recall, lm.QPS
	if opt.Rescorer == nil || opt.Rescorer.Options().Concurrency <= 1 {
		r.CPUQPS = lm.CPUQPS
	}
	r.P50 = lm.Latency.P50
	r.Lists = float64(st.ListsProbed) / float64(nq)
	r.Scanned = float64(st.Scanned) / float64(nq)
	r.IO = st.Rescore.IO
	r.Queries = nq
	k100 := min(100, ix.Len())
	opt.K = k100
	loop = metrics.Loop{Queries: nq, K: k100, Truth: truth.IDs, Untimed: true}
	lm, err = loop.Run(engine.Context(), func(_, i int) ([]engine.Result, error) {
		res, _, err := ix.SearchWith(ds.Queries.Row(i), opt)
		return res, err
	})
	if err != nil {
		return r, err
	}
	r.Recall100 = lm.Recall
	return r, nil
}

// ioTable reruns one visit percentage of the IOBits index with the
// rescore reads served every way the lab can serve them; nil when the
// sweep has no visit percentage.
func (m *ivfMeasure) ioTable(ix *ivf.Index) (*IVFIO, error) {
	cfg := m.cfg
	// Pick the smallest visit percentage reaching the target with warm
	// sequential rescoring, else the smallest reaching the best recall
	// the sweep achieves.
	warm, err := store.Open(m.vpath, store.Options{})
	if err != nil {
		return nil, err
	}
	defer warm.Close()
	if _, err := warm.Warm(); err != nil {
		return nil, err
	}
	seq, err := rescore.New(warm, m.metric, rescore.Options{})
	if err != nil {
		return nil, err
	}
	visit, best := 0.0, -1.0
	for _, v := range slices.Sorted(slices.Values(cfg.Visits)) {
		r, err := m.measure(ix, ivf.SearchOptions{VisitPercentage: v, Oversample: cfg.Oversample, Rescorer: seq}, nil)
		if err != nil {
			return nil, err
		}
		if r.Recall10 > best+1e-9 {
			visit, best = v, r.Recall10
		}
		if r.Recall10 >= ivfTarget {
			break
		}
	}
	if visit == 0 {
		return nil, nil
	}
	out := &IVFIO{Bits: cfg.IOBits, Visit: visit}
	direct, err := store.Open(m.vpath, store.Options{Direct: true})
	if err != nil {
		return nil, err
	}
	defer direct.Close()
	cold, err := store.Open(m.vpath, store.Options{})
	if err != nil {
		return nil, err
	}
	defer cold.Close()
	evict := func() error {
		left, err := cold.Evict()
		if err == nil && left != 0 {
			err = fmt.Errorf("%d pages of %s still cached after eviction", left, cold.Path())
		}
		return err
	}
	type mode struct {
		name   string
		file   *store.File
		conc   int
		before func() error
	}
	modes := []mode{
		{"warm page cache, sequential", warm, 1, nil},
		{fmt.Sprintf("warm page cache, concurrent(%d)", cfg.Conc), warm, cfg.Conc, nil},
		{"cold page cache, sequential", cold, 1, evict},
		{fmt.Sprintf("cold page cache, concurrent(%d)", cfg.Conc), cold, cfg.Conc, evict},
		{"O_DIRECT, sequential", direct, 1, nil},
		{fmt.Sprintf("O_DIRECT, concurrent(%d)", cfg.Conc), direct, cfg.Conc, nil},
	}
	if cfg.Model.Enabled() {
		sim, err := store.Open(m.vpath, store.Options{Direct: true, Model: cfg.Model})
		if err != nil {
			return nil, err
		}
		defer sim.Close()
		modes = append(modes,
			mode{cfg.Model.String() + ", sequential", sim, 1, nil},
			mode{fmt.Sprintf("%s, concurrent(%d)", cfg.Model, cfg.Conc), sim, cfg.Conc, nil})
	}
	for _, md := range modes {
		rs, err := rescore.New(md.file, m.metric, rescore.Options{Concurrency: md.conc})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", md.name, err)
		}
		r, err := m.measure(ix, ivf.SearchOptions{VisitPercentage: visit, Oversample: cfg.Oversample, Rescorer: rs}, md.before)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", md.name, err)
		}
		out.Modes = append(out.Modes, IVFIOMode{Name: md.name, Point: r})
	}
	if err := m.diskLists(out, ix); err != nil {
		return nil, err
	}
	return out, nil
}

// diskLists rebuilds the I/O table's index with its posting lists on
// disk (E27: the index itself no longer in RAM): every probed list is one
// pread, and rescoring reads the vectors as before.
func (m *ivfMeasure) diskLists(out *IVFIO, ref *ivf.Index) error {
	cfg := m.cfg
	ix, err := ivf.Build(m.ds.Base, ref.Config())
	if err != nil {
		return err
	}
	lpath := filepath.Join(filepath.Dir(m.vpath), "lists.ivf")
	os.Remove(lpath)
	if err := ix.WriteLists(lpath); err != nil {
		return err
	}
	type mode struct {
		name string
		opt  store.Options
		cold bool
	}
	modes := []mode{
		{"lists and vectors warm", store.Options{}, false},
		{"lists and vectors cold", store.Options{}, true},
		{"lists and vectors O_DIRECT", store.Options{Direct: true}, false},
	}
	if cfg.Model.Enabled() {
		modes = append(modes, mode{"both on " + cfg.Model.String(), store.Options{Direct: true, Model: cfg.Model}, false})
	}
	for _, md := range modes {
		if err := ix.UseDiskLists(lpath, md.opt); err != nil {
			return err
		}
		r, lio, err := m.measureDiskLists(ix, md.opt, md.cold, out.Visit)
		if err != nil {
			return fmt.Errorf("%s: %w", md.name, err)
		}
		out.DiskLists = append(out.DiskLists, IVFListsMode{Name: md.name, Point: r, Lists: lio})
	}
	fp := ix.Footprint()
	out.Resident, out.ListFileMB = fp.PerVector(), float64(fp.ListsOnDisk)/1e6
	if st, err := os.Stat(m.vpath); err == nil {
		out.VectorFileMB = float64(st.Size()) / 1e6
	}
	return ix.CloseLists()
}

// measureDiskLists opens the vector file with opt, warms both files
// unless cold or O_DIRECT (cold evicts both before every query), measures
// the visit percentage and then totals the list reads of a clean k = 10
// pass (measure's own passes read lists too).
func (m *ivfMeasure) measureDiskLists(ix *ivf.Index, opt store.Options, cold bool, visit float64) (IVFPoint, store.IOStats, error) {
	var lio store.IOStats
	vf, err := store.Open(m.vpath, opt)
	if err != nil {
		return IVFPoint{}, lio, err
	}
	defer vf.Close()
	lists := ix.ListFile()
	if !cold && !opt.Direct {
		if _, err := lists.Warm(); err != nil {
			return IVFPoint{}, lio, err
		}
		if _, err := vf.Warm(); err != nil {
			return IVFPoint{}, lio, err
		}
	}
	var before func() error
	if cold {
		before = func() error {
			if _, err := lists.Evict(); err != nil {
				return err
			}
			_, err := vf.Evict()
			return err
		}
	}
	rs, err := rescore.New(vf, m.metric, rescore.Options{})
	if err != nil {
		return IVFPoint{}, lio, err
	}
	so := ivf.SearchOptions{VisitPercentage: visit, Oversample: m.cfg.Oversample, Rescorer: rs}
	r, err := m.measure(ix, so, before)
	if err != nil {
		return r, lio, err
	}
	so.K = min(ivfK, ix.Len())
	for i := 0; i < m.ds.Queries.N; i++ {
		if before != nil {
			if err := before(); err != nil {
				return r, lio, err
			}
		}
		_, st, err := ix.SearchWith(m.ds.Queries.Row(i), so)
		if err != nil {
			return r, lio, err
		}
		lio.Add(st.ListIO)
	}
	return r, lio, nil
}

// faissPeer runs the FAISS comparison with rs, the warm vector file's
// rescorer without page-cache probe; dir receives the .fvecs.
func (m *ivfMeasure) faissPeer(dir string, rs *rescore.Rescorer) (*IVFFaiss, error) {
	cfg, ds := m.cfg, m.ds
	files, err := dataset.WriteDir(filepath.Join(dir, "fvecs"), ds, m.truth)
	if err != nil {
		return nil, err
	}
	// Our like-for-like runs: float32 lists (IVFFlat), and 8-bit codes
	// scanned without rescoring (IVFSQ8 does not rescore either); then the
	// 1-, 2- and 4-bit lists of the sweep with rescoring (⌈k·oversample⌉
	// candidates from the warm vector file, oversample swept with nprobe:
	// low-bit codes need more than 3 to reach the target recall), the
	// configuration the lab would deploy, against FAISS's IVF-SQ8 at
	// matched recall.
	type trained struct {
		sweeps      []IVFSweep
		wall, cpu   time.Duration
		trainedRows int
	}
	// ours trains one index and measures it with each rescorer (nil: none).
	ours := func(bits int, rss []*rescore.Rescorer, names []string, oversample []float64) (trained, error) {
		// FAISS's initialisation (a random sample), iterations and sample
		// cap, on one thread: the training times compare like for like.
		ix, wall, cpu, err := trainTimed(ds, ivf.Config{Nlist: cfg.Nlist, Metric: m.metric, Bits: bits, Iters: cfg.Iters,
			RandomInit: true, Seed: cfg.Seed, Workers: 1})
		if err != nil {
			return trained{}, fmt.Errorf("build %s: %w", CodesName(bits), err)
		}
		t := trained{wall: wall, cpu: cpu, trainedRows: ix.BuildStats().Trained}
		for s, rs := range rss {
			sw := IVFSweep{Name: names[s]}
			for _, ovs := range oversample {
				for _, p := range cfg.Nprobes {
					r, err := m.measure(ix, ivf.SearchOptions{Nprobe: p, Oversample: ovs, Rescorer: rs}, nil)
					if err != nil {
						return trained{}, err
					}
					lbl := fmt.Sprintf("nprobe=%d", p)
					if rs != nil {
						lbl += fmt.Sprintf(" os=%g", ovs)
					}
					sw.Wall = append(sw.Wall, metrics.Point{Label: lbl, Param: float64(p), Recall: r.Recall10, QPS: r.QPS})
					sw.CPU = append(sw.CPU, metrics.Point{Label: lbl, Param: float64(p), Recall: r.Recall10, QPS: r.CPUQPS})
				}
			}
			t.sweeps = append(t.sweeps, sw)
		}
		return t, nil
	}
	none := []*rescore.Rescorer{nil}
	flat, err := ours(0, none, []string{"float32 lists"}, []float64{1})
	if err != nil {
		return nil, err
	}
	sq8, err := ours(8, none, []string{"osq-8bit, no rescoring"}, []float64{1})
	if err != nil {
		return nil, err
	}
	// The low-bit lists rescore from the warm vector file (the bench's
	// configuration: the float vectors are not resident; rows read through
	// the file's mapping, checksummed, no page-cache probe) and from RAM (the
	// float lists' and IVF-SQ8's residency, to compare the search itself).
	ram, err := rescore.New(rescore.NewSlab(ds.Base), m.metric, rescore.Options{})
	if err != nil {
		return nil, err
	}
	var lowBits []int
	low := map[int]trained{}
	for _, bits := range cfg.Bits {
		if _, done := low[bits]; bits >= 1 && bits <= 4 && !done {
			name := CodesName(bits) + " + rescoring"
			t, err := ours(bits, []*rescore.Rescorer{rs, ram}, []string{name + " (file)", name + " (RAM)"}, cfg.PeerOversample)
			if err != nil {
				return nil, err
			}
			lowBits = append(lowBits, bits)
			low[bits] = t
		}
	}
	res, err := faiss.RunIVF(context.Background(), faiss.IVFRequest{Python: cfg.Python, Base: files.Base, Query: files.Queries,
		Truth: files.Truth, Nlist: cfg.Nlist, Niter: cfg.Iters, Nprobe: cfg.Nprobes, Metric: m.metric, K: ivfK, Seed: 1234})
	if err != nil {
		return nil, err
	}
	if len(res.Indexes) == 0 {
		return nil, fmt.Errorf("the FAISS peer returned no index")
	}
	out := &IVFFaiss{Version: res.FaissVersion, Compile: res.CompileOptions, Note: res.Note, Nlist: cfg.Nlist,
		Trained: flat.trainedRows, TrainWall: flat.wall, TrainCPU: flat.cpu, KmeansS: res.KmeansS, KmeansCPU: res.KmeansCPU,
		IndexName: res.Indexes[0].Name, IndexTrainS: res.Indexes[0].TrainS, IndexTrainCPU: res.Indexes[0].TrainCPU}
	for _, ix := range res.Indexes {
		sw := IVFSweep{Name: "FAISS " + ix.Name}
		for _, p := range ix.Sweep {
			lbl := fmt.Sprintf("nprobe=%d", p.Nprobe)
			sw.Wall = append(sw.Wall, metrics.Point{Label: lbl, Param: float64(p.Nprobe), Recall: p.Recall, QPS: p.QPS})
			sw.CPU = append(sw.CPU, metrics.Point{Label: lbl, Param: float64(p.Nprobe), Recall: p.Recall, QPS: p.CPUQPS})
		}
		out.Peer = append(out.Peer, sw)
	}
	fl, sq := flat.sweeps[0], sq8.sweeps[0]
	out.Ours = append(out.Ours, fl, sq)
	for _, bits := range lowBits {
		out.Ours = append(out.Ours, low[bits].sweeps...)
	}
	pFlat, pSQ := out.Peer[0], out.Peer[len(out.Peer)-1]
	out.Ratios = append(out.Ratios, ratioAt(fl, pFlat), ratioAt(sq, pSQ), ratioAt(fl, pSQ))
	for s := range 2 { // from the file, then from RAM
		for _, bits := range lowBits {
			out.Ratios = append(out.Ratios, ratioAt(low[bits].sweeps[s], pSQ))
		}
	}
	ownFlat := IVFSweep{Name: "veclab float32 lists", Wall: fl.Wall, CPU: fl.CPU}
	for s := range 2 {
		for _, bits := range lowBits {
			out.Ratios = append(out.Ratios, ratioAt(low[bits].sweeps[s], ownFlat))
		}
	}
	return out, nil
}

// ratioAt reads two sweeps at the target recall: the fastest point of
// each reaching it, by wall time and by CPU time.
func ratioAt(ours, peer IVFSweep) IVFRatio {
	r := IVFRatio{Ours: ours.Name, Peer: peer.Name, Target: ivfTarget}
	r.Wall, r.Reached = metrics.BestAt(ours.Wall, ivfTarget)
	r.PeerWall, r.PeerReached = metrics.BestAt(peer.Wall, ivfTarget)
	r.CPU, _ = metrics.BestAt(ours.CPU, ivfTarget)
	r.PeerCPU, _ = metrics.BestAt(peer.CPU, ivfTarget)
	return r
}
