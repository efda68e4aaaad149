package experiment

import (
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

// QuantNames lists the quantizers E22–E24 tabulate, in table order (a
// subset of lab/quantizers' catalogue, which [QuantFlat] accepts whole):
// raw float32; Lucene's int8 (7-bit, confidence interval) and int8 with
// min/max bounds; int4 with and without Lucene's error-correction term;
// OSQ 1-bit (bbq: 1-bit docs × 4-bit query), 1×1-bit, 2-bit and 4-bit.
var QuantNames = []string{"raw", "int8", "int8-minmax", "int4", "int4-nocorr", "bbq", "osq1x1", "osq2", "osq4"}

// TrainQuantizer trains the named quantizer of the lab's catalogue
// (lab/quantizers.Names; [QuantNames] are those E22–E24 tabulate) on
// the environment's data set with its seed; "raw" returns nil.
func TrainQuantizer(env *Env, name string) (quant.Quantizer, error) {
	if quantizers.Describe(name) == "" {
		return nil, fmt.Errorf("experiment: unknown quantizer %q (want one of %s): %w", name, strings.Join(quantizers.Names(), ", "), errBadArgument)
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

func checkOversample(what string, over []float64) error {
	if len(over) == 0 {
		return fmt.Errorf("experiment: %s: no oversample factors: %w", what, errBadArgument)
	}
	for _, o := range over {
		if !(o >= 1) || math.IsInf(o, 0) {
			return fmt.Errorf("experiment: %s: oversample must be a finite number ≥ 1, got %v: %w", what, o, errBadArgument)
		}
	}
	return nil
}

// QuantFlat measures the named quantizer: recall@K of a flat scan over its
// codes, and after rescoring ⌈o·K⌉ candidates with float32 vectors for
// each oversample o.
func QuantFlat(env *Env, name string, oversample []float64) (QuantResult, error) {
	if err := checkOversample("QuantFlat", oversample); err != nil {
		return QuantResult{}, err
	}
	ds, err := env.Dataset()
	if err != nil {
		return QuantResult{}, err
	}
	k := env.Scale.K
	truth, err := env.Truth(k)
	if err != nil {
		return QuantResult{}, err
	}
	t0 := time.Now()
	q, err := TrainQuantizer(env, name)
	if err != nil {
		return QuantResult{}, fmt.Errorf("experiment: quantizer %s: %w", name, err)
	}
	r := QuantResult{Name: name, Train: time.Since(t0), Oversample: append([]float64(nil), oversample...),
		RecallOver: make([]float64, len(oversample)), BytesPerVector: float64(4 * ds.Base.Dim)}
	rs, err := rescore.New(rescore.NewSlab(ds.Base), env.Metric(), rescore.Options{})
	if err != nil {
		return QuantResult{}, err
	}
	var st *quant.Store
	var exact *flat.Index
	if q == nil {
		if exact, err = flat.New(ds.Base, flat.Config{Metric: env.Metric()}); err != nil {
			return QuantResult{}, err
		}
	} else {
		r.BytesPerVector = q.BytesPerVector()
		st = quant.NewStore(q)
		st.Reserve(ds.Base.N)
		for i := 0; i < ds.Base.N; i++ {
			if err := st.Set(engine.ID(i), ds.Base.Row(i)); err != nil {
				return QuantResult{}, fmt.Errorf("experiment: quantizer %s: encoding vector %d: %w", name, i, err)
			}
		}
	}
	r.Compression = float64(4*ds.Base.Dim) / r.BytesPerVector
	maxO := 1.0
	for _, o := range oversample {
		maxO = math.Max(maxO, o)
	}
	kmax := min(int(math.Ceil(maxO*float64(k))), ds.Base.N)
	search := func(qv []float32, n int) ([]engine.Result, error) {
		if st == nil {
			res, _, err := exact.Search(qv, n, nil)
			return res, err
		}
		return st.Search(qv, n, nil)
	}
	var buf []engine.Result
	for qi := 0; qi < ds.Queries.N; qi++ {
		qv := ds.Queries.Row(qi)
		want := truth.At(qi, k)
		cands, err := search(qv, kmax)
		if err != nil {
			return QuantResult{}, fmt.Errorf("experiment: quantizer %s query %d: %w", name, qi, err)
		}
		r.RecallNone += metrics.Recall(cands, want, k)
		for oi, o := range oversample {
			kk := min(int(math.Ceil(o*float64(k))), len(cands))
			if buf, _, err = rs.Rescore(buf, qv, cands[:kk], k); err != nil {
				return QuantResult{}, fmt.Errorf("experiment: quantizer %s rescoring query %d: %w", name, qi, err)
			}
			r.RecallOver[oi] += metrics.Recall(buf, want, k)
		}
	}
	nq := float64(ds.Queries.N)
	r.RecallNone /= nq
	for i := range r.RecallOver {
		r.RecallOver[i] /= nq
	}
	if r.QueryMs, err = env.scanMs(name, ds.Queries, k, search); err != nil {
		return QuantResult{}, fmt.Errorf("experiment: quantizer %s: %w", name, err)
	}
	return r, nil
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

// QuantSweep measures several quantizers with [QuantFlat] and tabulates
// them: bytes/vector, compression, recall without and with rescoring.
func QuantSweep(env *Env, names []string, oversample []float64) (*table.Table, []QuantResult, error) {
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("experiment: QuantSweep: no quantizers: %w", errBadArgument)
	}
	var rs []QuantResult
	for i, n := range names {
		env.progress(i, len(names), "quantizers")
		r, err := QuantFlat(env, n, oversample)
		if err != nil {
			return nil, nil, err
		}
		rs = append(rs, r)
	}
	env.progress(len(names), len(names), "quantizers")
	return quantTable(env, "quantizers: flat scan over codes, rescoring from RAM", rs, nil), rs, nil
}

// quantTable tabulates flat-scan results; article, when set, adds article
// columns named by its keys ("compression", "memory saved") per row.
func quantTable(env *Env, title string, rs []QuantResult, article func(row string) (compression, saved any)) *table.Table {
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
			t.AddColumns(table.Column{Header: fmt.Sprintf("rescored ×%g (%d cands)", o, int(math.Ceil(o*float64(k)))), Source: table.Lab, Prec: 3})
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
func quantChart(title string, rs []QuantResult, k int) *chart.Line {
	c := chart.NewLine(title, "oversample (candidates / k)", fmt.Sprintf("recall@%d", k))
	for _, r := range rs {
		xs := append([]float64{0}, r.Oversample...)
		ys := append([]float64{r.RecallNone}, r.RecallOver...)
		c.Add(r.Name+" (lab; 0 = no rescoring)", xs, ys)
	}
	return c
}

// overAt returns the recall after rescoring at oversample o, or NaN.
func overAt(r QuantResult, o float64) float64 {
	for i, v := range r.Oversample {
		if v == o {
			return r.RecallOver[i]
		}
	}
	return math.NaN()
}

// QuantRecall reads a quantizer's recall@k from a quantization table
// (E22Sweep, E23Sweep, E24Sweep, QuantSweep): o = 0 without rescoring,
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

// QuantCurveChart draws recall@k against the oversample of rows of a
// quantization table (E22Sweep, E23Sweep, E24Sweep, QuantSweep): x = 0
// without rescoring, then each factor of over; a factor the table has no
// column for is left out.
func QuantCurveChart(title string, t *table.Table, over []float64, rows ...string) *chart.Line {
	ylabel := "recall"
	if t != nil {
		for _, c := range t.Columns {
			if strings.HasPrefix(c.Header, "recall@") && strings.HasSuffix(c.Header, "no rescoring") {
				ylabel = strings.TrimSuffix(c.Header, " no rescoring")
			}
		}
	}
	c := chart.NewLine(title, "oversample (candidates / k; 0 = no rescoring)", ylabel)
	for _, row := range rows {
		xs, ys := []float64{}, []float64{}
		for _, o := range append([]float64{0}, over...) {
			if v := QuantRecall(t, row, o); !math.IsNaN(v) {
				xs, ys = append(xs, o), append(ys, v)
			}
		}
		c.Add(row+" (lab)", xs, ys)
	}
	return c
}

// quantNumber reads a lab column (e.g. "compression", "memory saved") of
// a quantizer's row, or NaN.
func quantNumber(t *table.Table, row, header string) float64 {
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

// QuantFrontier tabulates, for each result of [QuantSweep], the bytes it
// keeps in RAM against the float32 reads per query it needs: the smallest
// oversample of its sweep whose rescored recall@K reaches target, and
// ⌈o·K⌉ reads. None of the articles measured this: the target is the
// lab's question, not an article's claim.
func QuantFrontier(env *Env, results []QuantResult, target float64) *table.Table {
	k := env.Scale.K
	t := table.New(fmt.Sprintf("Bytes in RAM against reads per query: the smallest oversample reaching recall@%d ≥ %g (lab)", k, target),
		table.Col("quantizer", ""),
		table.Column{Header: "bytes/vector", Source: table.Lab, Prec: 1},
		table.Column{Header: "compression", Unit: "×", Source: table.Lab, Prec: 1},
		table.Column{Header: fmt.Sprintf("recall@%d no rescoring", k), Source: table.Lab, Prec: 3},
		table.Column{Header: "oversample needed", Source: table.Lab},
		table.Column{Header: "float32 reads/query", Source: table.Lab, Prec: -1})
	for _, r := range results {
		need, reads := "none (recall already there)", any(0)
		switch o, ok := smallestOversample(r, target); {
		case !ok:
			need, reads = "> ×"+fmt.Sprint(r.Oversample[len(r.Oversample)-1]), nil
		case o > 0:
			need, reads = fmt.Sprintf("×%g", o), int(math.Ceil(o*float64(k)))
		}
		_ = t.AddValues(r.Name, r.BytesPerVector, r.Compression, r.RecallNone, need, reads)
	}
	t.Note("the articles measured none of this together: each post reports its own quantizer on its own corpus; the target is the lab's question")
	return t
}
