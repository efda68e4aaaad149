package e26

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// e26 is the DiskBBQ-vs-HNSW comparison at matched recall (Elastic's DiskBBQ article).
var e26 = experiment.Experiment{
	ID:      "E26",
	Claims:  claims,
	Title:   "recall@100 vs QPS at matched recall: IVF (2-bit lists, visit % sweep) vs HNSW (2-bit codes in RAM, originals on disk, ef sweep), oversample 1",
	Article: "Elastic: DiskBBQ 7× faster than Qdrant on network-attached storage: bbq_disk 2-bit, oversample 1, visit_percentage sweep vs Qdrant HNSW 2-bit in RAM, originals on disk, hnsw_ef sweep; up to 7× higher throughput for IVF at recall@100 0.93–0.97, widening with recall",
	Figures: []experiment.Figure{
		{Row: "0.93–0.97", Measure: "speed-up up to", Value: 7, Unit: "×"},
		{Row: "recall low", Measure: "recall@100", Value: 0.93},
		{Row: "recall high", Measure: "recall@100", Value: 0.97},
		// "21 million vectors … about 60.1 GiB of raw float vector data";
		// "2-bit quantization, reducing each vector from 3,072 bytes to
		// 192 bytes, a 16x reduction that brings the quantized vector
		// corpus to around 4 GB".
		{Row: "raw vectors", Measure: "GiB", Value: 60.1},
		{Row: "2-bit codes", Measure: "bytes/vector", Value: 192},
		{Row: "2-bit codes", Measure: "compression", Value: 16, Unit: "×"},
		{Row: "2-bit codes", Measure: "GB at 21 M", Value: 4},
	},
}

func init() { e26.Run, e26.Notebook = runE26, "12-diskbbq-vs-hnsw.ipynb"; experiment.Register(e26) }

// The default sweeps of E26, and the article's vector width.
var (
	Visit = []float64{1, 2, 3, 5, 10, 20}
	Ef    = []int{100, 150, 200, 300, 500}
	// ArticleDim is the width of the article's vectors (wiki_dpr_e5: "a
	// 768-dimensional float32 vector").
	ArticleDim = 768
)

// Storage names the storage under the vector file: "local" reads a
// warm page cache (local disk); any name store.ParseModel accepts
// ("gp3", "io2", "nvme") adds that simulated device's latency and IOPS
// ceiling to every read.
func e26Options(storage string) (store.Options, int, error) {
	if storage == "local" {
		return store.Options{}, 1, nil
	}
	m, err := store.ParseModel(storage)
	if err != nil {
		return store.Options{}, 0, fmt.Errorf("experiment: E26 storage %q: %v: %w", storage, err, experiment.ErrBadArgument)
	}
	// A network volume is read with many reads in flight (io_uring-style);
	// 16 as `veclab bench ivf -conc`.
	return store.Options{Model: m}, 16, nil
}

// Sweeps measures both sweeps at recall@100 (k = 100, rescoring
// ⌈oversample·100⌉ candidates; the article's is 1) on the given storage
// ("local" or a simulated model such as "gp3") with up to nq queries, and
// returns the IVF and HNSW points.
func Sweeps(env *experiment.Env, storage string, oversample float64, visit []float64, efs []int, nq int) (ivfPts, hnswPts []experiment.DiskPoint, err error) {
	if err := experiment.CheckOversample("E26", []float64{oversample}); err != nil {
		return nil, nil, err
	}
	if len(visit) == 0 || len(efs) == 0 {
		return nil, nil, fmt.Errorf("experiment: E26: empty sweep: %w", experiment.ErrBadArgument)
	}
	for _, v := range visit {
		if !(v > 0 && v <= 100) {
			return nil, nil, fmt.Errorf("experiment: E26: visit percentage must be in (0, 100], got %v: %w", v, experiment.ErrBadArgument)
		}
	}
	for _, ef := range efs {
		if ef < 1 {
			return nil, nil, fmt.Errorf("experiment: E26: ef must be ≥ 1, got %d: %w", ef, experiment.ErrBadArgument)
		}
	}
	opt, conc, err := e26Options(storage)
	if err != nil {
		return nil, nil, err
	}
	iv, err := experiment.IVFCodes(env, 2)
	if err != nil {
		return nil, nil, err
	}
	hn, err := experiment.HNSWCodes(env, 2)
	if err != nil {
		return nil, nil, err
	}
	dir, path, cleanup, err := experiment.VectorFile(env)
	if err != nil {
		return nil, nil, err
	}
	defer cleanup()
	f, err := store.OpenFS(dir.FS, path, opt)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if storage == "local" {
		if _, err := f.Warm(); err != nil {
			return nil, nil, err
		}
	}
	rs, err := rescore.New(f, env.Metric(), rescore.Options{Concurrency: conc})
	if err != nil {
		return nil, nil, err
	}
	const k = 100
	total := len(visit) + len(efs)
	for i, v := range visit {
		env.Step(i, total, "E26 sweeps")
		p, err := experiment.MeasureDisk(env, fmt.Sprintf("visit=%g%%", v), v, k, nq, nil, experiment.IvfSearch(iv, v, oversample, rs))
		if err != nil {
			return nil, nil, err
		}
		ivfPts = append(ivfPts, p)
	}
	for i, ef := range efs {
		env.Step(len(visit)+i, total, "E26 sweeps")
		p, err := experiment.MeasureDisk(env, fmt.Sprintf("ef=%d", ef), float64(ef), k, nq, nil, experiment.HnswSearch(hn, ef, oversample, rs))
		if err != nil {
			return nil, nil, err
		}
		hnswPts = append(hnswPts, p)
	}
	env.Step(total, total, "E26 sweeps")
	return ivfPts, hnswPts, nil
}

func toPoints(ps []experiment.DiskPoint) []metrics.Point {
	out := make([]metrics.Point, len(ps))
	for i, p := range ps {
		out[i] = metrics.Point{Label: p.Label, Param: p.Param, Recall: p.Recall, QPS: p.QPS}
	}
	return out
}

// e26RecallTolerance is how close in recall@100 an HNSW point must be to
// an IVF point for Table to pair them and give a speed-up.
const e26RecallTolerance = 0.02

// Table pairs every IVF point with the HNSW point of nearest recall@100
// when it is within e26RecallTolerance, and gives the speed-up (IVF QPS /
// HNSW QPS) per pair; an IVF point without one says so.
func Table(env *experiment.Env, storage string, oversample float64, ivfPts, hnswPts []experiment.DiskPoint) *table.Table {
	t := table.New(fmt.Sprintf("E26 IVF vs HNSW paired by recall@100 (2-bit codes, oversample %g, k=100, storage: %s, %d queries)", oversample, storageLabel(storage), pointQueries(ivfPts)),
		table.Col("IVF", ""),
		table.Column{Header: "IVF recall@100", Source: table.Lab, Prec: 3},
		table.Column{Header: "IVF QPS", Source: table.Lab, Prec: -1},
		table.Column{Header: "IVF reads/q", Source: table.Lab, Prec: 1},
		table.Col("HNSW", ""),
		table.Column{Header: "HNSW recall@100", Source: table.Lab, Prec: 3},
		table.Column{Header: "HNSW QPS", Source: table.Lab, Prec: -1},
		table.Column{Header: "HNSW reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "speed-up up to", Unit: "×", Source: table.Article, Prec: 0},
		table.Column{Header: "speed-up IVF/HNSW", Unit: "×", Source: table.Lab, Prec: 2})
	measure.SimulatedNote(t)
	byLabel := map[string]experiment.DiskPoint{}
	for _, p := range hnswPts {
		byLabel[p.Label] = p
	}
	ivfBy := map[string]experiment.DiskPoint{}
	for _, p := range ivfPts {
		ivfBy[p.Label] = p
	}
	paired := 0
	for _, pr := range metrics.PairByRecall(toPoints(ivfPts), toPoints(hnswPts)) {
		a, b := ivfBy[pr.A.Label], byLabel[pr.B.Label]
		var art any
		if oversample == 1 && a.Recall >= 0.93 && a.Recall <= 0.97 {
			art = e26.ArticleValue("0.93–0.97", "speed-up up to")
		}
		if math.Abs(pr.RecallGap) > e26RecallTolerance {
			// No HNSW point at this recall: a QPS ratio would compare
			// different recalls, so none is given.
			_ = t.AddValues(a.Label, a.Recall, a.QPS, a.Reads, fmt.Sprintf("none within ±%g (nearest %s, %.3f)", e26RecallTolerance, b.Label, b.Recall), nil, nil, nil, art, nil)
			continue
		}
		paired++
		_ = t.AddValues(a.Label, a.Recall, a.QPS, a.Reads, b.Label, b.Recall, b.QPS, b.Reads, art, pr.Speedup)
	}
	if paired == 0 {
		t.Note("no IVF point has an HNSW point within ±%g recall@100: the sweeps do not overlap in recall, so no speed-up at matched recall is given", e26RecallTolerance)
	} else {
		t.Note("pairs: each IVF point with the HNSW point of nearest recall@100, only when within ±%g; QPS is the median of %d timed passes over the queries, p50 from all of them", e26RecallTolerance, experiment.DiskRepeats)
	}
	t.Note("article: Elasticsearch bbq_disk vs Qdrant on 21 M vectors, 3 nodes, network-attached persistent disks; its 7× is a cluster figure (concurrent clients), given only for recall 0.93–0.97 (shown on the rows whose IVF recall falls there)")
	t.Note("lab: one Go process, one query at a time, %d vectors; both designs rescore the same ⌈%g·100⌉ originals per query from the same vector file, so on a slow device their rescoring reads cost the same and the difference is the in-memory search", env.Scale.N, oversample)
	best := 0.0
	for _, p := range append(append([]experiment.DiskPoint{}, ivfPts...), hnswPts...) {
		best = max(best, p.Recall)
	}
	if best < 0.93 {
		where := "on the lab's synthetic clusters (many near-equidistant neighbours)"
		if name := env.DataName(); name != "generated" {
			where = "on " + name
		}
		t.Note("the lab's best recall@100 here is %.3f, below the article's 0.93–0.97 band: with oversample %g the top 100 are chosen by 2-bit code estimates, and %s those estimates misorder the tail of the top 100; the pairing then compares the designs below the article's band", best, oversample, where)
	}
	if storage != "local" {
		t.Note("storage SIMULATED (%s): the engine/store latency model on every rescoring read, %d reads in flight; not a measured network volume", storageLabel(storage), 16)
	}
	return t
}

func storageLabel(storage string) string {
	if storage == "local" {
		return "local (warm page cache)"
	}
	if m, err := store.ParseModel(storage); err == nil {
		return simName(m)
	}
	return storage
}

// simName names a latency model, saying once that it is simulated.
func simName(m store.Model) string {
	s := m.String()
	if !strings.HasPrefix(s, "simulated") {
		s = "simulated " + s
	}
	return s
}

func pointQueries(ps []experiment.DiskPoint) int {
	if len(ps) == 0 {
		return 0
	}
	return ps[0].Queries
}

// Chart draws recall@100 against QPS for both sweeps.
func Chart(title string, ivfPts, hnswPts []experiment.DiskPoint) *chart.Line {
	c := chart.NewLine(title, "recall@100", "QPS (one goroutine)")
	add := func(name string, ps []experiment.DiskPoint) {
		var xs, ys []float64
		for _, p := range ps {
			xs, ys = append(xs, p.Recall), append(ys, p.QPS)
		}
		c.Add(name, xs, ys)
	}
	add("IVF 2-bit (lab)", ivfPts)
	add("HNSW 2-bit codes (lab)", hnswPts)
	return c
}

// e26Sweep runs both sweeps on one storage and returns the paired table.
func e26Sweep(env *experiment.Env, storage string, visit []float64, efs []int) (*table.Table, error) {
	nq := env.Scale.Queries
	if storage != "local" {
		nq = experiment.SimulatedCap(nq)
	}
	a, b, err := Sweeps(env, storage, 1, visit, efs, nq)
	if err != nil {
		return nil, err
	}
	return Table(env, storage, 1, a, b), nil
}

// Centring measures IVF's recall@100 (k = 100, oversample 1, warm
// file) at one visit percentage with its 2-bit codes centred on each
// list's centroid (DiskBBQ) and on the plain global mean (as
// Elasticsearch's bbq_hnsw centres a cosine field's codes): the test of
// how much centring explains. The HNSW side's codes (HNSWCodes) are
// Qdrant's two_bits binary codes, which have no centroid.
func Centring(env *experiment.Env, visit float64) (*table.Table, error) {
	if !(visit > 0 && visit <= 100) {
		return nil, fmt.Errorf("experiment: E26: visit percentage must be in (0, 100], got %v: %w", visit, experiment.ErrBadArgument)
	}
	dir, path, cleanup, err := experiment.VectorFile(env)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	f, err := store.OpenFS(dir.FS, path, store.Options{})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rs, err := rescore.New(f, env.Metric(), rescore.Options{})
	if err != nil {
		return nil, err
	}
	t := table.New(fmt.Sprintf("E26 (lab) IVF 2-bit codes: per-list vs global centring, visit %g%%, k=100, oversample 1", visit),
		table.Col("codes centred on", ""),
		table.Column{Header: "recall@100", Source: table.Lab, Prec: 3},
		table.Column{Header: "QPS", Source: table.Lab, Prec: -1})
	measure.SimulatedNote(t)
	for _, global := range []bool{false, true} {
		ix, err := experiment.BuildIVFCentring(env, 2, global)
		if err != nil {
			return nil, err
		}
		label := map[bool]string{false: "each list's centroid (DiskBBQ)", true: "the plain global mean (as Elasticsearch's bbq_hnsw)"}[global]
		p, err := experiment.MeasureDisk(env, label, visit, 100, env.Scale.Queries, nil, experiment.IvfSearch(ix, visit, 1, rs))
		if err != nil {
			return nil, err
		}
		_ = t.AddValues(label, p.Recall, p.QPS)
	}
	t.Note("same lists, same scan, same rescoring: only the centre the residuals are quantized around changes")
	t.Note("the HNSW side keeps other codes: Qdrant's two_bits binary codes, which have no centroid (each dimension is cut at ±2/3 σ around its own mean) and no corrections")
	return t, nil
}

func runE26(env *experiment.Env) (*experiment.Report, error) {
	r := experiment.NewReport(e26, env)
	runs := []struct {
		storage    string
		oversample float64
	}{{"local", 1}, {"local", 3}, {"gp3", 1}}
	var res Results
	for _, run := range runs {
		nq := env.Scale.Queries
		visit, efs := Visit, Ef
		if run.storage != "local" {
			// Every simulated read waits ≥ 1 ms and the IOPS ceiling caps
			// 100 reads/query near 30 QPS: fewer queries and points.
			nq, visit, efs = experiment.SimulatedCap(nq), []float64{2, 5, 10}, []int{100, 200, 500}
		}
		a, b, err := Sweeps(env, run.storage, run.oversample, visit, efs, nq)
		if err != nil {
			return nil, err
		}
		r.AddTable(Table(env, run.storage, run.oversample, a, b))
		switch {
		case run.storage == "local" && run.oversample == 1:
			res.LocalIVF, res.LocalHNSW = a, b
		case run.storage == "local":
			res.Over3IVF = a
		default:
			res.Net, res.NetIVF, res.NetHNSW = run.storage, a, b
		}
		r.AddChart(Chart(fmt.Sprintf("E26 recall@100 vs QPS, %s, oversample %g", storageLabel(run.storage), run.oversample), a, b))
	}
	ct, err := Centring(env, 5)
	if err != nil {
		return nil, err
	}
	r.AddTable(ct)
	if res.Ceiling, err = Ceiling(env, ArticleDim); err != nil {
		return nil, err
	}
	r.Note("the 2-bit codes' ceiling (IVF scanning every list, k=100): %s; at oversample 1 no index with these codes returns more", e26CeilingText(res.Ceiling))
	r.Note("QPS are single measurements on a 2-core machine shared with other jobs: differences under ~1.5× between neighbouring points are within its noise")
	r.Note("HNSW's recall stays flat across ef while IVF's rises with visit %%: the two sides keep different 2-bit codes — the IVF's are DiskBBQ's OSQ codes around each list's centroid, with per-vector corrections; the HNSW's are Qdrant's two_bits codes, three levels per dimension set by the collection's per-dimension mean and σ, no centroid and no corrections — and the ceiling line gives what each code reaches scanned exhaustively, so the gap is the codes', not the walks'")
	r.Note("oversample 3 is the lab's addition (not the article's setting): it shows the pairing where the codes alone do not reach the article's recall band")
	r.Note("HNSW here is Qdrant's design: the lab's graph (m=16, 2·m on layer 0, ef_construction 100) built with the float32 vectors and walked with Qdrant's two_bits binary codes in RAM (quant.Binary, from qdrant/qdrant v1.18 encoded_vectors_binary.rs; the query coded the same way, Qdrant's default), the ⌈oversample·100⌉ best by code rescored from the vector file; hnswCodesGraph(env, 2, true) gives Lucene's graph built with OSQ codes' scores. IVF is the lab's DiskBBQ-style index (~384 vectors per list, codes around each list's centroid)")
	r.Verdicts = append(r.Verdicts, Verdicts(env, res)...)
	return r, nil
}

// e26Best returns the point of highest recall (ties: the faster one), the
// point each design reaches at its widest setting of a sweep.
func e26Best(ps []experiment.DiskPoint) experiment.DiskPoint {
	if len(ps) == 0 {
		return experiment.DiskPoint{Recall: math.NaN(), QPS: math.NaN()}
	}
	b := ps[0]
	for _, p := range ps[1:] {
		if p.Recall > b.Recall || p.Recall == b.Recall && p.QPS > b.QPS {
			b = p
		}
	}
	return b
}

// StorageRun is one storage's oversample-1 sweeps of both designs.
type StorageRun struct {
	Storage   string // "local", or a simulated device ("nvme", "gp3", …)
	IVF, HNSW []experiment.DiskPoint
}

// ByStorage tabulates each design's best point (e26Best) per storage,
// with the speed-up IVF/HNSW (the article's 7× stands beside gp3, its
// network-attached case), and charts their QPS (storageChart).
func ByStorage(runs []StorageRun) (*table.Table, *chart.Bars) {
	t := table.New("E26 by storage, oversample 1: each design at its highest recall@100",
		table.Col("storage", ""), table.Col("timings", ""),
		table.Column{Header: "IVF recall@100", Source: table.Lab, Prec: 3},
		table.Column{Header: "IVF QPS", Source: table.Lab, Prec: -1},
		table.Column{Header: "HNSW recall@100", Source: table.Lab, Prec: 3},
		table.Column{Header: "HNSW QPS", Source: table.Lab, Prec: -1},
		table.Column{Header: "rescoring reads/q, each", Source: table.Lab, Prec: 0},
		table.Column{Header: "speed-up up to", Unit: "×", Source: table.Article, Prec: 0},
		table.Column{Header: "speed-up IVF/HNSW", Unit: "×", Source: table.Lab, Prec: 2})
	measure.SimulatedNote(t)
	for _, r := range runs {
		a, b := e26Best(r.IVF), e26Best(r.HNSW)
		kind := "measured (real reads)"
		if r.Storage != "local" {
			kind = "SIMULATED device"
		}
		var art any
		if r.Storage == "gp3" {
			art = e26.ArticleValue("0.93–0.97", "speed-up up to")
		}
		_ = t.AddValues(r.Storage, kind, a.Recall, a.QPS, b.Recall, b.QPS, b.Reads, art, a.QPS/b.QPS)
	}
	t.Note("the article's 7× is set beside gp3, the network-attached case, for its recall band 0.93–0.97")
	t.Note("local: real reads of a local file, warm page cache; nvme, gp3: the engine/store latency model on every rescoring read (SIMULATED), 16 reads in flight")
	return t, storageChart(runs)
}

// Budget is the lab's rescoring-budget sweep (not the article's
// setting): IVF at visit 3 % and HNSW at ef = max(100 × oversample, 200),
// one point per oversample on Storage, paired by recall@100 within
// e26RecallTolerance (Pairs). The notebook measures the points with
// lab/measure's disk verbs and hands them over in a Budget literal.
type Budget struct {
	Storage   string
	Queries   int
	IVF, HNSW []experiment.DiskPoint
}

// Pairs pairs each IVF point with the HNSW point of nearest recall@100
// among all oversample settings, only within ±0.02: IVF (A) against HNSW
// (B), Speedup is IVF QPS / HNSW QPS.
func (b *Budget) Pairs() []metrics.Pair {
	return metrics.PairWithin(toPoints(b.IVF), toPoints(b.HNSW), e26RecallTolerance)
}

// maxSpeedup returns the largest IVF/HNSW speed-up among the pairs and
// the IVF recall it is at (NaN, NaN without a pair).
func (b *Budget) maxSpeedup() (speedup, recall float64) {
	speedup, recall = math.NaN(), math.NaN()
	for _, p := range b.Pairs() {
		if math.IsNaN(speedup) || p.Speedup > speedup {
			speedup, recall = p.Speedup, p.A.Recall
		}
	}
	return speedup, recall
}

// Table tabulates the pairs, the article's 7× on the rows whose IVF recall
// falls in its 0.93–0.97 band.
func (b *Budget) Table() *table.Table {
	kind := "SIMULATED " + b.Storage
	if b.Storage == "local" {
		kind = "local disk, real reads"
	}
	t := table.New(fmt.Sprintf("rescoring budget on %s: IVF (visit 3%%) vs HNSW paired by recall@100, %d queries", kind, b.Queries),
		table.Col("IVF", ""),
		table.Column{Header: "IVF recall@100", Source: table.Lab, Prec: 3},
		table.Column{Header: "IVF reads/q", Source: table.Lab, Prec: 0},
		table.Column{Header: "IVF QPS", Source: table.Lab, Prec: -1},
		table.Col("HNSW", ""),
		table.Column{Header: "HNSW recall@100", Source: table.Lab, Prec: 3},
		table.Column{Header: "HNSW reads/q", Source: table.Lab, Prec: 0},
		table.Column{Header: "HNSW QPS", Source: table.Lab, Prec: -1},
		table.Column{Header: "speed-up up to", Unit: "×", Source: table.Article, Prec: 0},
		table.Column{Header: "speed-up IVF/HNSW", Unit: "×", Source: table.Lab, Prec: 2})
	measure.SimulatedNote(t)
	find := func(ps []experiment.DiskPoint, label string) experiment.DiskPoint {
		for _, p := range ps {
			if p.Label == label {
				return p
			}
		}
		return experiment.DiskPoint{}
	}
	lo, hi := e26.ArticleValue("recall low", "recall@100").(float64), e26.ArticleValue("recall high", "recall@100").(float64)
	pairs := b.Pairs()
	for _, pr := range pairs {
		a, h := find(b.IVF, pr.A.Label), find(b.HNSW, pr.B.Label)
		var art any
		if a.Recall >= lo && a.Recall <= hi {
			art = e26.ArticleValue("0.93–0.97", "speed-up up to")
		}
		_ = t.AddValues(a.Label, a.Recall, a.Reads, a.QPS, h.Label, h.Recall, h.Reads, h.QPS, art, pr.Speedup)
	}
	t.Note("not the article's setting (it fixed oversample at 1 and swept breadth); the article's 7× is shown on rows whose IVF recall falls in its 0.93–0.97 band")
	t.Note("each IVF point is paired with the HNSW point of nearest recall@100 among all oversample settings, only within ±%g (%d of %d IVF points have one); reads/q are rescoring reads of the float32 originals", e26RecallTolerance, len(pairs), len(b.IVF))
	return t
}

// Results are the sweeps E26's verdicts read: local disk at oversample
// 1 and 3, a simulated network device at oversample 1 (Net names it), and
// optionally the rescoring-budget sweep.
type Results struct {
	LocalIVF, LocalHNSW []experiment.DiskPoint
	Over3IVF            []experiment.DiskPoint
	Net                 string
	NetIVF, NetHNSW     []experiment.DiskPoint
	Budget              *Budget
	// Ceiling is what the IVF's 2-bit codes return with every list
	// scanned (Ceiling): on the environment's data first, then on
	// the generator's vectors at the article's width.
	Ceiling []CeilingPoint
}

// CeilingPoint is the recall@100 of IVF 2-bit codes with every list
// scanned (visit 100 %), rescoring ⌈oversample·100⌉ candidates: at
// oversample 1 the most any index with these codes can return, since the
// top 100 are then the codes' own top 100 in the rescored order.
type CeilingPoint struct {
	Data   string  // the data set, e.g. "generated, 384 dims"
	Dim    int     // its dimension
	Recall float64 // oversample 1
	Over2  float64 // oversample 2
	// Qdrant is the HNSW side's ceiling: recall@100 of the top 100 of
	// Qdrant's two_bits codes of every vector (quant.Binary scanned
	// flat, no graph), what any walk over them returns at oversample 1.
	Qdrant float64
	// Qdrant1 is the same ceiling with Qdrant's one_bit codes (binary
	// quantization, 1 bit per dimension): the article's "Qdrant couldn't
	// reach the target recall range with 1-bit binary quantization".
	Qdrant1 float64
	// QdrantBytes and OSQBytes are the 2-bit codes' bytes per vector at
	// this width (Qdrant's two_bits; the lab's OSQ, DiskBBQ's, with its
	// per-vector corrections); FileBytes is the vector file's bytes per
	// vector (float32 row and its CRC), the raw side of the compression.
	QdrantBytes, OSQBytes, FileBytes float64
}

// Ceiling measures the ceiling of the IVF's 2-bit codes (see
// CeilingPoint) on the environment's data and, for each of dims that
// differs from it, on the generator's vectors of that width (same seed,
// same shape otherwise).
func Ceiling(env *experiment.Env, dims ...int) ([]CeilingPoint, error) {
	one := func(e *experiment.Env) (CeilingPoint, error) {
		p := CeilingPoint{Data: fmt.Sprintf("%s, %d dims", e.DataName(), e.Scale.Dim), Dim: e.Scale.Dim}
		iv, err := experiment.BuildIVFCentring(e, 2, false)
		if err != nil {
			return p, err
		}
		dir, path, cleanup, err := experiment.VectorFile(e)
		if err != nil {
			return p, err
		}
		defer cleanup()
		f, err := store.OpenFS(dir.FS, path, store.Options{})
		if err != nil {
			return p, err
		}
		defer f.Close()
		if _, err := f.Warm(); err != nil {
			return p, err
		}
		rs, err := rescore.New(f, e.Metric(), rescore.Options{})
		if err != nil {
			return p, err
		}
		if p.Qdrant, p.QdrantBytes, err = qdrantCodesCeiling(e, quant.TwoBits); err != nil {
			return p, err
		}
		if p.Qdrant1, _, err = qdrantCodesCeiling(e, quant.OneBit); err != nil {
			return p, err
		}
		osq, err := experiment.TrainQuantizer(e, "osq2")
		if err != nil {
			return p, err
		}
		p.OSQBytes, p.FileBytes = osq.BytesPerVector(), f.BytesPerVector()
		for _, o := range []float64{1, 2} {
			d, err := experiment.MeasureDisk(e, fmt.Sprintf("visit=100%% over=%g", o), 100, 100, e.Scale.Queries, nil, experiment.IvfSearch(iv, 100, o, rs))
			if err != nil {
				return p, err
			}
			if o == 1 {
				p.Recall = d.Recall
			} else {
				p.Over2 = d.Recall
			}
		}
		return p, nil
	}
	first, err := one(env)
	if err != nil {
		return nil, err
	}
	out := []CeilingPoint{first}
	for _, dim := range dims {
		if dim == env.Scale.Dim || env.DataName() != "generated" {
			continue
		}
		sc := env.Scale
		sc.Dim = dim
		wide, err := experiment.NewEnv(sc, env.Seed)
		if err != nil {
			return nil, err
		}
		wide.Progress, wide.Workers = env.Progress, env.Workers
		p, err := one(wide)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// e26CeilingText prints the ceiling points for a reason or a note.
func e26CeilingText(ps []CeilingPoint) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, fmt.Sprintf("%.3f on the %s data (%.3f at oversample 2; Qdrant's two_bits codes %.3f)", p.Recall, p.Data, p.Over2, p.Qdrant))
	}
	return strings.Join(parts, ", ")
}

// qdrantCodesCeiling returns recall@100 of the top 100 by Qdrant's
// binary codes of the given encoding (two_bits, one_bit) over every
// vector (a flat scan of the codes, the float32 vectors untouched), and
// the codes' bytes per vector: at oversample 1 the rescoring reorders
// these 100 but adds none, so no walk over the codes returns more.
func qdrantCodesCeiling(e *experiment.Env, enc quant.BinaryEncoding) (float64, float64, error) {
	const k = 100
	ds, err := e.Dataset()
	if err != nil {
		return 0, 0, err
	}
	q, err := quant.TrainBinary(ds.Base, e.Metric(), quant.BinaryConfig{Encoding: enc})
	if err != nil {
		return 0, 0, fmt.Errorf("experiment: E26: Qdrant's %v codes: %w", enc, err)
	}
	codes := quant.NewStore(q)
	codes.Reserve(ds.Base.N)
	for i := 0; i < ds.Base.N; i++ {
		if err := codes.Set(engine.ID(i), ds.Base.Row(i)); err != nil {
			return 0, 0, err
		}
	}
	truth, err := e.Truth(k)
	if err != nil {
		return 0, 0, err
	}
	loop := metrics.Loop{Queries: min(e.Scale.Queries, ds.Queries.N), K: k, Truth: truth.IDs, Untimed: true}
	m, err := loop.Run(engine.Context(), func(_, j int) ([]engine.Result, error) { return codes.Search(ds.Queries.Row(j), k, nil) })
	if err != nil {
		return 0, 0, fmt.Errorf("experiment: E26: Qdrant's %v codes: %w", enc, err)
	}
	return m.Recall, q.BytesPerVector(), nil
}

// Verdicts compares the sweeps with the article's claims: IVF up to 7×
// the QPS of HNSW at recall@100 0.93–0.97 on network-attached storage
// (± 2×), at oversample 1; at least one design reaching that band (≥ 0.93)
// at oversample 1; and the lab's mechanism checks (IVF's recall above
// HNSW's with the same rescoring reads, HNSW's recall flat across ef).
func Verdicts(env *experiment.Env, r Results) experiment.Verdicts {
	lo := e26.ArticleValue("recall low", "recall@100").(float64)
	up := e26.ArticleValue("0.93–0.97", "speed-up up to").(float64)
	bl, bh := e26Best(r.LocalIVF), e26Best(r.LocalHNSW)
	band := experiment.AtLeast("E26", "at oversample 1, a design reaches the article's recall@100 band (0.93–0.97)", lo, math.Max(bl.Recall, bh.Recall), 0, "")
	if !band.Agrees {
		if len(r.Ceiling) > 0 {
			band = experiment.Because(band, "with oversample 1 the top 100 are the 2-bit codes' own top 100, and the codes scanned exhaustively (IVF, every list) reach "+e26CeilingText(r.Ceiling)+": the codes' order on this data, not either index, stops short of the band")
		} else {
			band = experiment.Because(band, "with oversample 1 the top 100 are the 2-bit codes' own top 100; their exhaustive ceiling was not measured (Ceiling)")
		}
	}
	flat := math.NaN()
	if len(r.LocalHNSW) > 0 {
		flat = bh.Recall - r.LocalHNSW[0].Recall
	}
	out := experiment.Verdicts{
		band,
		experiment.Holds("E26", "oversample 1: IVF reaches a higher recall@100 than HNSW with the same rescoring reads", "(the lab's finding; the article pairs at equal recall)",
			fmt.Sprintf("%.3f vs %.3f", bl.Recall, bh.Recall), bl.Recall > bh.Recall,
			experiment.Why(bl.Recall > bh.Recall, "DiskBBQ's 2-bit OSQ codes around each list's centroid order the top 100 better than Qdrant's two_bits codes (see the ceiling line: each code scanned exhaustively)", fmt.Sprintf("HNSW's best is %.3f higher at this scale", bh.Recall-bl.Recall))),
		experiment.AtMost("E26", "oversample 1: widening the HNSW beam buys little recall@100", 0.05, flat, 0, ""),
	}
	if len(r.NetIVF) > 0 && len(r.NetHNSW) > 0 {
		a, b := e26Best(r.NetIVF), e26Best(r.NetHNSW)
		v := experiment.Within("E26", fmt.Sprintf("oversample 1 on %s (simulated): IVF up to 7× the QPS of HNSW", r.Net), up, a.QPS/b.QPS, 2, "×")
		if !v.Agrees {
			// The same designs on the warm local file say what a query
			// costs without the device: the rest is the device's.
			share := func(net, local experiment.DiskPoint) float64 { return 100 * (1 - net.QPS/local.QPS) }
			v = experiment.Because(v, fmt.Sprintf("at oversample 1 IVF and HNSW rescore %.0f and %.0f originals per query; a query takes %.1f and %.1f ms on the simulated device against %.2f and %.2f ms on the warm local file, so waiting for the device is %.0f %% and %.0f %% of it, which the designs share",
				a.Reads, b.Reads, 1000/a.QPS, 1000/b.QPS, 1000/bl.QPS, 1000/bh.QPS, share(a, bl), share(b, bh)))
		}
		out = append(out, v)
	}
	if len(r.Over3IVF) > 0 {
		out = append(out, experiment.AtLeast("E26", "oversample 3 (lab's addition): IVF reaches the article's recall@100 band", lo, e26Best(r.Over3IVF).Recall, 0, ""))
	}
	out = append(out, sizeVerdicts(r.Ceiling)...)
	out = append(out, shapeVerdicts(r)...)
	out = append(out, storageVerdicts(r)...)
	if r.Budget != nil {
		claim := fmt.Sprintf("rescoring budget on %s (simulated): IVF up to 7× the QPS of HNSW at matched recall", r.Budget.Storage)
		if s, at := r.Budget.maxSpeedup(); len(r.Budget.Pairs()) > 0 {
			out = append(out, experiment.Because(experiment.Within("E26", claim, up, s, 2, "×"),
				fmt.Sprintf("largest speed-up at IVF recall %.3f, %d pairs within ± %g", at, len(r.Budget.Pairs()), e26RecallTolerance)))
		} else {
			out = append(out, experiment.Holds("E26", claim, experiment.FmtFig(up, "×")+" (± "+experiment.FmtFig(2, "×")+")", "no pair", false,
				fmt.Sprintf("no IVF point has an HNSW point within ± %g recall@100: nothing to compare at matched recall", e26RecallTolerance)))
		}
	}
	return out
}

// articleVectors is the article's corpus: wiki_dpr_e5, 21 M passages.
const articleVectors = 21_000_000

// sizeVerdicts judges the article's sizes at its width from the codes
// and the vector file the ceiling measured at 768 dims (on the
// environment's data where no 768-dim point was measured): 60.1 GiB of
// raw vectors (± 1 %, a size), 192 B per 2-bit code (± 10 %, as E14's
// codes), the 16× reduction and the ≈ 4 GB corpus (± 10 %); and its
// reason for 2 bits, that Qdrant's 1-bit binary quantization could not
// reach the recall band: the one_bit codes' ceiling at oversample 1 on
// every data the ceiling measured, below 0.93.
func sizeVerdicts(ps []CeilingPoint) experiment.Verdicts {
	if len(ps) == 0 {
		return nil
	}
	at := ps[0]
	for _, p := range ps {
		if p.Dim == ArticleDim {
			at = p
		}
	}
	fig := func(row, measure string) float64 { return e26.ArticleValue(row, measure).(float64) }
	width := fmt.Sprintf("measured on the lab's vectors (%s)", at.Data)
	raw := experiment.Because(experiment.WithinShare("E26", "21 M × 768 float32 vectors come to about 60.1 GiB raw (± 1 %)", fig("raw vectors", "GiB"), articleVectors*at.FileBytes/(1<<30), 0.01, "GiB"),
		fmt.Sprintf("21 M × the lab's vector file's %.0f B per vector (float32 row and its CRC), %s", at.FileBytes, width))
	codes := experiment.Because(experiment.WithinShare("E26", "2-bit codes: 192 B per 768-dim vector (± 10 %)", fig("2-bit codes", "bytes/vector"), at.QdrantBytes, 0.1, "B"),
		fmt.Sprintf("Qdrant's two_bits codes (quant.Binary), %s; DiskBBQ's OSQ 2-bit codes carry their corrections: %.0f B", width, at.OSQBytes))
	ratio := experiment.Because(experiment.WithinShare("E26", "2-bit codes shrink a 768-dim vector 16× (± 10 %)", fig("2-bit codes", "compression"), float64(4*at.Dim)/at.OSQBytes, 0.1, "×"),
		fmt.Sprintf("%d B of float32 over DiskBBQ's OSQ 2-bit code of %.0f B with its corrections (Qdrant's two_bits: %.1f×), %s", 4*at.Dim, at.OSQBytes, float64(4*at.Dim)/at.QdrantBytes, width))
	corpus := experiment.Because(experiment.WithinShare("E26", "the 2-bit corpus of 21 M vectors is about 4 GB (± 10 %)", fig("2-bit codes", "GB at 21 M"), articleVectors*at.QdrantBytes/1e9, 0.1, "GB"),
		fmt.Sprintf("21 M × Qdrant's %.0f B two_bits code (DiskBBQ's OSQ codes: %.2f GB); the article's 'roughly 3.8 to 4.0 GB' mixes GiB and GB", at.QdrantBytes, articleVectors*at.OSQBytes/1e9))
	best, var1 := 0.0, []string{}
	for _, p := range ps {
		best = max(best, p.Qdrant1)
		var1 = append(var1, fmt.Sprintf("%.3f on %s (two_bits %.3f)", p.Qdrant1, p.Data, p.Qdrant))
	}
	lo := fig("recall low", "recall@100")
	if best2 := slices.MaxFunc(ps, func(a, b CeilingPoint) int { return cmp.Compare(a.Qdrant, b.Qdrant) }).Qdrant; best2 < lo {
		var1 = append(var1, fmt.Sprintf("the lab's two_bits codes stop short of the band too (%.3f), so on this data the claim does not separate the widths", best2))
	}
	one := experiment.Because(experiment.AtMost("E26", "Qdrant's 1-bit binary quantization cannot reach the recall@100 band at oversample 1", lo, best, 0, ""),
		"the one_bit codes' own top 100 over every vector (the most any walk over them returns at oversample 1): "+strings.Join(var1, ", "))
	return experiment.Verdicts{raw, codes, ratio, corpus, one}
}

// shapeRise is the rule, set before any run, for the article's latency
// shape on network storage: a latency "rises" over a sweep when its p95
// at the widest setting is at least 1.5× its p95 at the narrowest, and
// stays "nearly flat" below that.
const shapeRise = 1.5

// shapeVerdicts judges the shape of the article's latency curves on the
// simulated network device: Qdrant's p95 rising with hnsw_ef while
// DiskBBQ's stays nearly flat across visit % (shapeRise), and the
// speed-up at matched recall widening as recall rises (the pair of
// highest recall faster than the pair of lowest, at least two pairs).
func shapeVerdicts(r Results) experiment.Verdicts {
	if len(r.NetIVF) < 2 || len(r.NetHNSW) < 2 {
		return nil
	}
	rise := func(ps []experiment.DiskPoint) float64 { return ps[len(ps)-1].P95ms / ps[0].P95ms }
	ri, rh := rise(r.NetIVF), rise(r.NetHNSW)
	fi, li, fh, lh := r.NetIVF[0], r.NetIVF[len(r.NetIVF)-1], r.NetHNSW[0], r.NetHNSW[len(r.NetHNSW)-1]
	ok := rh >= shapeRise && ri < shapeRise
	why := fmt.Sprintf("rule: rises = p95 ×%.1f or more over the sweep; both designs rescore the same %.0f originals per query at every setting (oversample 1), so the device's wait does not grow with breadth in the lab",
		shapeRise, lh.Reads)
	if !ok && rh < shapeRise {
		why += "; what grows is the in-memory walk, small beside ~1 ms per simulated read"
	}
	shape := experiment.Holds("E26", fmt.Sprintf("on %s (simulated), HNSW's p95 latency rises with ef while IVF's stays nearly flat with visit %%", r.Net),
		"HNSW rises sharply, IVF nearly flat",
		fmt.Sprintf("HNSW %.1f → %.1f ms (×%.2f, %s → %s); IVF %.1f → %.1f ms (×%.2f, %s → %s)", fh.P95ms, lh.P95ms, rh, fh.Label, lh.Label, fi.P95ms, li.P95ms, ri, fi.Label, li.Label),
		ok, why)
	var pairs []metrics.Pair
	for _, pr := range metrics.PairByRecall(toPoints(r.NetIVF), toPoints(r.NetHNSW)) {
		if math.Abs(pr.RecallGap) <= e26RecallTolerance {
			pairs = append(pairs, pr)
		}
	}
	slices.SortFunc(pairs, func(a, b metrics.Pair) int { return cmp.Compare(a.A.Recall, b.A.Recall) })
	widen := experiment.Holds("E26", fmt.Sprintf("on %s (simulated), the speed-up at matched recall widens as recall rises", r.Net), "widens with recall",
		fmt.Sprintf("%d pairs within ± %g", len(pairs), e26RecallTolerance), false,
		fmt.Sprintf("fewer than two IVF points have an HNSW point within ± %g recall@100: no trend to read", e26RecallTolerance))
	if n := len(pairs); n >= 2 {
		a, b := pairs[0], pairs[n-1]
		widen.Lab = fmt.Sprintf("%.2f× at %.3f → %.2f× at %.3f (%d pairs)", a.Speedup, a.A.Recall, b.Speedup, b.A.Recall, n)
		widen.Agrees = b.Speedup > a.Speedup
		widen.Reason = experiment.Why(widen.Agrees, "the pair of highest recall is the faster for IVF", "the pair of highest recall is not the faster for IVF") +
			"; at oversample 1 both designs wait on the same reads per query"
	}
	return experiment.Verdicts{shape, widen}
}

// storageBetter is the rule, set before any run (2026-12-07), for the
// article's "Qdrant often performs better on local NVMe": its HNSW
// answers at least 1.5× the QPS on local storage as on the network
// device at the same ef, 1.5× being the run's own noise between
// neighbouring points (runE26's note), so a ratio at or below it,
// including any in the other direction, differs.
const storageBetter = 1.5

// storageVerdicts judges "Qdrant often performs better on local NVMe"
// (than on the network-attached storage the article measured): Qdrant's
// design (HNSW, oversample 1) at the widest ef both sweeps ran, QPS on
// the warm local file over QPS on the simulated network device
// (storageBetter). The local side is measured, the network side the
// engine/store latency model: the verdict checks the mechanism the
// article names (each query's rescoring reads wait on the device), not a
// device. None without both sweeps.
func storageVerdicts(r Results) experiment.Verdicts {
	if len(r.LocalHNSW) == 0 || len(r.NetHNSW) == 0 {
		return nil
	}
	at := func(ps []experiment.DiskPoint, param float64) (experiment.DiskPoint, bool) {
		for _, p := range ps {
			if p.Param == param {
				return p, true
			}
		}
		return experiment.DiskPoint{}, false
	}
	var loc, net experiment.DiskPoint
	found := false
	for _, n := range r.NetHNSW {
		if l, ok := at(r.LocalHNSW, n.Param); ok && (!found || n.Param > net.Param) {
			loc, net, found = l, n, true
		}
	}
	claim := fmt.Sprintf("Qdrant's HNSW answers faster on the local file than on %s (simulated) at the same ef", r.Net)
	if !found {
		return experiment.Verdicts{experiment.Holds("E26", claim, "≥ "+experiment.FmtFig(storageBetter, "×"), "no common ef", false,
			"the local and the network sweeps share no ef: nothing to compare")}
	}
	v := experiment.AtLeast("E26", claim, storageBetter, loc.QPS/net.QPS, 0, "×")
	why := fmt.Sprintf("rule: better = ×%.1f or more, the run's noise between neighbouring points; %s: %.0f QPS local (warm page cache, real reads) against %.1f on %s (SIMULATED), recall@100 %.3f and %.3f, %.0f rescoring reads per query on both",
		storageBetter, loc.Label, loc.QPS, net.QPS, r.Net, loc.Recall, net.Recall, net.Reads)
	if len(r.LocalIVF) > 0 && len(r.NetIVF) > 0 {
		bl, bn := e26Best(r.LocalIVF), e26Best(r.NetIVF)
		bh, bnh := e26Best(r.LocalHNSW), e26Best(r.NetHNSW)
		why += fmt.Sprintf("; IVF at its best: %.0f against %.1f QPS; the speed-up IVF/HNSW at each design's best is %.2f× local against %.2f× on %s",
			bl.QPS, bn.QPS, bl.QPS/bh.QPS, bn.QPS/bnh.QPS, r.Net)
	}
	return experiment.Verdicts{experiment.Because(v, why)}
}
