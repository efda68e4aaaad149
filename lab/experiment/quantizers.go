package experiment

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/quantizers"
	"github.com/veclab/veclab/lab/table"
)

// The compression experiments (E22–E24) share one measurement, lifted from
// `veclab bench quant`: train a quantizer on the data set, encode every
// vector, scan all codes for the ⌈o·k⌉ nearest by code distance (a flat
// scan isolates the quantizer from any graph), rescore them with the
// float32 vectors from RAM and keep k.

// TrainQuantizer trains the named quantizer of the lab's catalogue
// (lab/quantizers.Names) on
// the environment's data set with its seed; "raw" returns nil.
func TrainQuantizer(env *Env, name string) (quant.Quantizer, error) {
	if quantizers.Describe(name) == "" {
		return nil, fmt.Errorf("experiment: unknown quantizer %q (want one of %s): %w", name, strings.Join(quantizers.Names(), ", "), ErrBadArgument)
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	return quantizers.Train(name, ds.Base, env.Metric(), env.Seed)
}

// QuantResult is one quantizer's flat-scan recall, without and with
// rescoring.
type QuantResult struct {
	Name           string
	BytesPerVector float64 // resident code bytes per vector (raw: 4·dim)
	Compression    float64 // 4·dim / BytesPerVector
	Train          time.Duration
	RecallNone     float64   // recall@K of the top K by code distance
	Oversample     []float64 // the oversample factors measured
	RecallOver     []float64 // recall@K after rescoring ⌈o·K⌉ candidates, per oversample
	QueryMs        float64   // flat-scan time per query for the top K, no rescoring: the median of 3 passes, timed once per Env
}

func CheckOversample(what string, over []float64) error {
	if len(over) == 0 {
		return fmt.Errorf("experiment: %s: no oversample factors: %w", what, ErrBadArgument)
	}
	for _, o := range over {
		if !(o >= 1) || math.IsInf(o, 0) {
			return fmt.Errorf("experiment: %s: oversample must be a finite number ≥ 1, got %v: %w", what, o, ErrBadArgument)
		}
	}
	return nil
}

// QuantFlat measures the named quantizer: recall@K of a flat scan over its
// codes, and after rescoring ⌈o·K⌉ candidates with float32 vectors for
// each oversample o.
func QuantFlat(env *Env, name string, oversample []float64) (QuantResult, error) {
	if err := CheckOversample("QuantFlat", oversample); err != nil {
		return QuantResult{}, err
	}
	t0 := time.Now()
	q, err := TrainQuantizer(env, name)
	if err != nil {
		return QuantResult{}, fmt.Errorf("experiment: quantizer %s: %w", name, err)
	}
	train := time.Since(t0)
	maxO := 1.0
	for _, o := range oversample {
		maxO = math.Max(maxO, o)
	}
	cr, err := RankCodes(env, q, maxO)
	if err != nil {
		return QuantResult{}, fmt.Errorf("experiment: quantizer %s: %w", name, err)
	}
	r := QuantResult{Name: name, Train: train, Oversample: append([]float64(nil), oversample...),
		RecallOver: make([]float64, len(oversample)), BytesPerVector: cr.BytesPerVector, RecallNone: cr.RecallNone()}
	r.Compression = float64(4*cr.dim) / r.BytesPerVector
	for oi, o := range oversample {
		if r.RecallOver[oi], err = cr.Recall(o); err != nil {
			return QuantResult{}, fmt.Errorf("experiment: quantizer %s: %w", name, err)
		}
	}
	if r.QueryMs, err = env.scanMs(name, cr.queries, cr.K, cr.search); err != nil {
		return QuantResult{}, fmt.Errorf("experiment: quantizer %s: %w", name, err)
	}
	return r, nil
}

// CodeRanking is one quantizer's flat scan of the environment's data set,
// kept: for each query the ⌈maxOversample·K⌉ nearest documents by code
// distance, in code order. Recall after rescoring any ⌈o·K⌉ of them is
// then a re-rank of at most that many float32 vectors per query, with no
// scan of the codes — what a notebook's oversample knob redraws from
// (notebook 00b), and the measurement behind [QuantFlat].
//
// A CodeRanking is safe for concurrent use: Recall allocates its own
// buffers.
type CodeRanking struct {
	K              int     // recall@K, the environment's k
	MaxOversample  float64 // the largest oversample Recall accepts
	BytesPerVector float64 // resident code bytes per vector (float32: 4·dim)

	dim     int
	queries *vec.Matrix
	truth   [][]engine.ID                                     // each query's exact top K
	cands   [][]engine.Result                                 // each query's ⌈MaxOversample·K⌉ by code distance
	rescore *rescore.Rescorer                                 // float32 vectors from RAM
	search  func(q []float32, n int) ([]engine.Result, error) // the flat scan over the codes
}

// RankCodes encodes every vector of the environment's data set with q
// (nil: no codes, the float32 vectors themselves) and scans the codes for
// each query's ⌈maxOversample·K⌉ nearest; maxOversample must be ≥ 1. Its
// cost is one encode per vector and one code distance per vector and
// query; every Recall after it costs a re-rank only.
func RankCodes(env *Env, q quant.Quantizer, maxOversample float64) (*CodeRanking, error) {
	if env == nil {
		return nil, fmt.Errorf("experiment: RankCodes: nil environment: %w", ErrBadArgument)
	}
	if err := CheckOversample("RankCodes", []float64{maxOversample}); err != nil {
		return nil, err
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	if q != nil && (q.Dim() != ds.Base.Dim || q.Metric() != env.Metric()) {
		return nil, fmt.Errorf("experiment: RankCodes: %v does not code the data set's %d-dimensional %v vectors: %w",
			q, ds.Base.Dim, env.Metric(), ErrBadArgument)
	}
	k := env.Scale.K
	truth, err := env.Truth(k)
	if err != nil {
		return nil, err
	}
	cr := &CodeRanking{K: k, MaxOversample: maxOversample, BytesPerVector: float64(4 * ds.Base.Dim),
		dim: ds.Base.Dim, queries: ds.Queries}
	if cr.rescore, err = rescore.New(rescore.NewSlab(ds.Base), env.Metric(), rescore.Options{}); err != nil {
		return nil, err
	}
	if q == nil {
		exact, err := flat.New(ds.Base, flat.Config{Metric: env.Metric()})
		if err != nil {
			return nil, err
		}
		cr.search = func(qv []float32, n int) ([]engine.Result, error) {
			res, _, err := exact.Search(qv, n, nil)
			return res, err
		}
	} else {
		cr.BytesPerVector = q.BytesPerVector()
		st := quant.NewStore(q)
		st.Reserve(ds.Base.N)
		for i := 0; i < ds.Base.N; i++ {
			if err := st.Set(engine.ID(i), ds.Base.Row(i)); err != nil {
				return nil, fmt.Errorf("experiment: encoding vector %d: %w", i, err)
			}
		}
		cr.search = func(qv []float32, n int) ([]engine.Result, error) { return st.Search(qv, n, nil) }
	}
	kmax := min(engine.RescoreDepth(k, maxOversample), ds.Base.N)
	for qi := 0; qi < ds.Queries.N; qi++ {
		cands, err := cr.search(ds.Queries.Row(qi), kmax)
		if err != nil {
			return nil, fmt.Errorf("experiment: query %d: %w", qi, err)
		}
		cr.cands = append(cr.cands, cands)
		cr.truth = append(cr.truth, truth.At(qi, k))
	}
	return cr, nil
}

// RecallNone is recall@K of the top K by code distance, no rescoring.
func (cr *CodeRanking) RecallNone() float64 {
	r, err := cr.recallPass(func(qi int) ([]engine.Result, error) { return cr.cands[qi], nil })
	if err != nil {
		return 0 // the pass only reads kept results; it cannot fail
	}
	return r
}

// recallPass is the mean recall@K of answer over the ranked queries: an
// untimed pass of the lab's one loop (0 without queries). It runs to the
// end, as a re-rank of kept candidates is short: no context stops it.
func (cr *CodeRanking) recallPass(answer func(qi int) ([]engine.Result, error)) (float64, error) {
	if len(cr.cands) == 0 {
		return 0, nil
	}
	loop := metrics.Loop{Queries: len(cr.cands), K: cr.K, Truth: cr.truth, Untimed: true}
	m, err := loop.Run(context.Background(), func(_, qi int) ([]engine.Result, error) { return answer(qi) })
	return m.Recall, err
}

// Candidates is how many candidates oversample o rescores: ⌈o·K⌉, at
// most the data set's size.
func (cr *CodeRanking) Candidates(o float64) int {
	n := engine.RescoreDepth(cr.K, o)
	if len(cr.cands) > 0 {
		n = min(n, max(len(cr.cands[0]), cr.K))
	}
	return n
}

// Recall is recall@K after rescoring each query's first ⌈o·K⌉ candidates
// with the float32 vectors; o must lie in [1, MaxOversample].
func (cr *CodeRanking) Recall(o float64) (float64, error) {
	if err := CheckOversample("CodeRanking.Recall", []float64{o}); err != nil {
		return 0, err
	}
	if o > cr.MaxOversample {
		return 0, fmt.Errorf("experiment: CodeRanking.Recall: oversample %g beyond the %g ranked: %w", o, cr.MaxOversample, ErrBadArgument)
	}
	var buf []engine.Result // scored before the next query reuses it
	r, err := cr.recallPass(func(qi int) ([]engine.Result, error) {
		c := cr.cands[qi]
		kk := min(engine.RescoreDepth(cr.K, o), len(c))
		var err error
		if buf, _, err = cr.rescore.Rescore(buf, cr.queries.Row(qi), c[:kk], cr.K); err != nil {
			return nil, err
		}
		return buf, nil
	})
	if err != nil {
		return 0, fmt.Errorf("experiment: rescoring: %w", err) // "… query 3: …"
	}
	return r, nil
}

// Ranked is how many candidates each query keeps in code order:
// ⌈MaxOversample·K⌉, at most the data set's size.
func (cr *CodeRanking) Ranked() int {
	if len(cr.cands) == 0 {
		return 0
	}
	return len(cr.cands[0])
}

// TrueRanks says where each query's exact top K fall in the code's
// ranking: row qi holds, for each of query qi's true neighbours in true
// order, its 1-based position among the documents ordered by code
// distance, or 0 when it lies beyond the [CodeRanking.Ranked] kept. A
// neighbour at rank r is rescored once ⌈o·K⌉ ≥ r, so the share of
// non-zero ranks ≤ ⌈o·K⌉ is [CodeRanking.Recall] at o — the picture of
// why the oversample is the knob (lab/picture.TrueRanks draws it).
func (cr *CodeRanking) TrueRanks() [][]int {
	out := make([][]int, len(cr.cands))
	for qi, c := range cr.cands {
		pos := make(map[engine.ID]int, len(c))
		for i, r := range c {
			pos[r.ID] = i + 1
		}
		row := make([]int, len(cr.truth[qi]))
		for j, id := range cr.truth[qi] {
			row[j] = pos[id]
		}
		out[qi] = row
	}
	return out
}

// scanRepeats is the number of timed passes over the queries behind a
// quantizer's scan time; the median pass is kept.
const scanRepeats = 3

// scanMs times one quantizer's flat scan for the top k (no oversample, so
// the figure does not depend on a sweep's largest candidate set): the
// median of scanRepeats passes over the queries, in ms per query. It is
// measured once per environment and quantizer, so every table that shows
// a quantizer shows the same figure.
func (e *Env) scanMs(name string, qs *vec.Matrix, k int, search func([]float32, int) ([]engine.Result, error)) (float64, error) {
	e.mu.Lock()
	v, ok := e.scans[name]
	e.mu.Unlock()
	if ok {
		return v, nil
	}
	loop := metrics.Loop{Queries: qs.N, Passes: scanRepeats, PerPass: true, Pick: metrics.MedianPass}
	m, err := loop.Run(engine.Context(), func(_, qi int) ([]engine.Result, error) { return search(qs.Row(qi), k) })
	if err != nil {
		return 0, fmt.Errorf("timing: %w", err)
	}
	v = 0
	if m.QPS > 0 {
		v = 1000 / m.QPS // ms per query of the median pass
	}
	e.mu.Lock()
	if e.scans == nil {
		e.scans = map[string]float64{}
	}
	e.scans[name] = v
	e.mu.Unlock()
	return v, nil
}

// quantTable tabulates flat-scan results; article, when set, adds article
// columns named by its keys ("compression", "memory saved") per row.
func QuantTable(env *Env, title string, rs []QuantResult, article func(row string) (compression, saved any)) *table.Table {
	k := env.Scale.K
	t := table.New(fmt.Sprintf("%s (%d×%d, %d queries, recall@%d vs exact %s)", title, env.Scale.N, env.Scale.Dim, env.Scale.Queries, k, env.Metric()),
		table.Col("quantizer", ""))
	if article != nil {
		t.AddColumns(table.Pair("compression", "×", 1)...)
		t.AddColumns(table.Pair("memory saved", "%", 1)...)
	} else {
		t.AddColumns(table.Column{Header: "compression", Unit: "×", Source: table.Lab, Prec: 1})
	}
	t.AddColumns(table.Column{Header: "bytes/vector", Source: table.Lab, Prec: 1})
	t.AddColumns(table.Column{Header: fmt.Sprintf("recall@%d no rescoring", k), Source: table.Lab, Prec: 3})
	if len(rs) > 0 {
		for _, o := range rs[0].Oversample {
			t.AddColumns(table.Column{Header: fmt.Sprintf("rescored ×%g (%d cands)", o, engine.RescoreDepth(k, o)), Source: table.Lab, Prec: 3})
		}
	}
	t.AddColumns(table.Column{Header: "scan", Unit: "ms/q", Source: table.Lab, Prec: 2})
	for _, r := range rs {
		row := []any{r.Name}
		saved := 100 * (1 - 1/r.Compression)
		if article != nil {
			ac, as := article(r.Name)
			row = append(row, ac, r.Compression, as, saved)
		} else {
			row = append(row, r.Compression)
		}
		row = append(row, r.BytesPerVector, r.RecallNone)
		for _, v := range r.RecallOver {
			row = append(row, v)
		}
		row = append(row, r.QueryMs)
		_ = t.AddValues(row...)
	}
	for _, r := range rs {
		t.Note("%s: %s", r.Name, quantizers.Describe(r.Name))
	}
	t.Note("flat scan over every code (no graph), one goroutine; rescored ×o = gather ⌈o·k⌉ by code distance, re-rank with the float32 vectors, keep k")
	t.Note("scan = the top-%d scan alone, the median of %d passes over the queries, timed once per quantizer in this environment (every table shows the same figure)", k, scanRepeats)
	return t
}

// quantChart draws recall against oversample, one line per quantizer.
func QuantChart(title string, rs []QuantResult, k int) *chart.Line {
	c := chart.NewLine(title, "oversample (candidates / k)", fmt.Sprintf("recall@%d", k))
	for _, r := range rs {
		xs := append([]float64{0}, r.Oversample...)
		ys := append([]float64{r.RecallNone}, r.RecallOver...)
		c.Add(r.Name+" (lab; 0 = no rescoring)", xs, ys)
	}
	return c
}

// overAt returns the recall after rescoring at oversample o, or NaN.
func OverAt(r QuantResult, o float64) float64 {
	for i, v := range r.Oversample {
		if v == o {
			return r.RecallOver[i]
		}
	}
	return math.NaN()
}

// QuantRecall reads a quantizer's recall@k from a quantization table
// (E22Sweep, E23Sweep, E24Sweep): o = 0 without rescoring,
// else rescored ×o; NaN when the row or the column is absent.
func QuantRecall(t *table.Table, row string, o float64) float64 {
	if t == nil {
		return math.NaN()
	}
	prefix := "recall@"
	if o > 0 {
		prefix = fmt.Sprintf("rescored ×%g (", o)
	}
	for ci, c := range t.Columns {
		if !strings.HasPrefix(c.Header, prefix) || (o == 0 && !strings.HasSuffix(c.Header, "no rescoring")) {
			continue
		}
		for _, r := range t.Rows {
			if len(r) > ci && r[0].String() == row && r[ci].Kind == table.FloatKind {
				return r[ci].Float
			}
		}
	}
	return math.NaN()
}

// quantNumber reads a lab column (e.g. "compression", "memory saved") of
// a quantizer's row, or NaN.
func QuantNumber(t *table.Table, row, header string) float64 {
	for ci, c := range t.Columns {
		if c.Header != header || c.Source == table.Article {
			continue
		}
		for _, r := range t.Rows {
			if len(r) > ci && r[0].String() == row && r[ci].Kind == table.FloatKind {
				return r[ci].Float
			}
		}
	}
	return math.NaN()
}

// smallestOversample is the first factor of r's sweep (in measured order,
// which is ascending) whose rescored recall reaches target; 0 when the
// codes reach it without rescoring; ok is false when nothing measured
// does. Recall rises with the oversample, so the first is the smallest.
func SmallestOversample(r QuantResult, target float64) (o float64, ok bool) {
	if r.RecallNone >= target {
		return 0, true
	}
	for i, o := range r.Oversample {
		if i < len(r.RecallOver) && r.RecallOver[i] >= target {
			return o, true
		}
	}
	return 0, false
}
