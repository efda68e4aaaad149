package measure

import (
	"fmt"
	"math"
	"strconv"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/table"
)

// SweepRescore measures an index of codes (a quant.Store, or any
// engine.Index whose ids are the rows of vectors) with rescoring, once per
// oversample o of xs, as Elasticsearch's rescore_vector does it: gather the
// ⌈o·K⌉ nearest by the index's own (code) distances, re-rank them with the
// float32 vectors (engine/rescore, from RAM) and keep K. 0 turns rescoring
// off: the index's own top K. One Result per value, labelled by it, timed
// as [Index] times a query (the scan and the re-rank together).
func SweepRescore(codes engine.Index, vectors *vec.Matrix, xs []float64, q *Queries) ([]Result, error) {
	if codes == nil || vectors == nil || len(xs) == 0 {
		return nil, fmt.Errorf("measure: SweepRescore: an index, its float32 vectors and at least one oversample are needed: %w", engine.ErrInvalidArgument)
	}
	if err := q.check("SweepRescore"); err != nil {
		return nil, err
	}
	if vectors.N != codes.Len() || vectors.Dim != codes.Dim() {
		return nil, fmt.Errorf("measure: SweepRescore: %d vectors of %d dimensions for an index of %d of %d: %w",
			vectors.N, vectors.Dim, codes.Len(), codes.Dim(), engine.ErrDimension)
	}
	for _, o := range xs {
		if o != 0 && (!(o >= 1) || math.IsInf(o, 0)) {
			return nil, fmt.Errorf("measure: SweepRescore: %w", &engine.ArgError{Field: "oversample", Value: o, Want: "0 (no rescoring) or a finite number ≥ 1"})
		}
	}
	rs, err := rescore.New(rescore.NewSlab(vectors), q.Metric, rescore.Options{})
	if err != nil {
		return nil, fmt.Errorf("measure: SweepRescore: %w", err)
	}
	out := make([]Result, 0, len(xs))
	for _, o := range xs {
		depth := q.K
		if o > 0 {
			depth = min(engine.RescoreDepth(q.K, o), codes.Len())
		}
		dist := 0
		// The queries go to the re-rank as the data set gives them (unit
		// length under cosine), as they go to the index.
		m, err := q.loop().Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
			qv := q.Vectors.Row(i)
			cands, st, err := codes.Query(qv, engine.Request{K: depth})
			if pass == 0 {
				dist += st.DistComps
			}
			if err != nil || o == 0 {
				return cands, err
			}
			res, _, err := rs.Rescore(nil, qv, cands, q.K)
			return res, err
		})
		if err != nil {
			return out, fmt.Errorf("measure: SweepRescore ×%g: %w", o, err)
		}
		r := Result{Label: strconv.FormatFloat(o, 'g', -1, 64), Knob: "oversample", Warmup: q.warmup(), Measured: m,
			DistComps: float64(dist) / float64(q.Vectors.N), Plan: fmt.Sprintf("k=%d candidates=%d", q.K, depth)}
		if o == 0 {
			r.Plan += " (no rescoring)"
		} else {
			r.Plan += " rescored from float32"
		}
		if b, ok := codes.(interface{ BytesPerVector() float64 }); ok {
			r.BytesPerVector = b.BytesPerVector()
		}
		out = append(out, r)
	}
	return out, nil
}

// BesideCodes tabulates quantizers measured by [SweepRescore], one row
// per name (sweeps[i] is names[i]'s, over the same oversamples): the
// compression against float32 vectors of dim dimensions and the memory
// saved — the article's figure beside the lab's where the article gives
// one (a Figure whose Row is the name and Measure "compression" or
// "memory saved") —, the bytes per vector, recall@K without rescoring
// (the sweep's 0) and after each oversample, and the codes-only p50.
// The article's other figures are listed in the notes.
func BesideCodes(title string, dim int, names []string, sweeps [][]Result, article []Figure) (*table.Table, error) {
	if len(names) == 0 || len(names) != len(sweeps) || dim < 1 {
		return nil, fmt.Errorf("measure: BesideCodes(%q): %d names, %d sweeps, dimension %d: one sweep per name and a dimension ≥ 1 are needed: %w",
			title, len(names), len(sweeps), dim, engine.ErrInvalidArgument)
	}
	first := sweeps[0]
	if len(first) == 0 {
		return nil, fmt.Errorf("measure: BesideCodes(%q): %s has no results: %w", title, names[0], engine.ErrInvalidArgument)
	}
	for i, s := range sweeps {
		if len(s) != len(first) {
			return nil, fmt.Errorf("measure: BesideCodes(%q): %s has %d results, %s %d: the sweeps must share their oversamples: %w",
				title, names[i], len(s), names[0], len(first), engine.ErrInvalidArgument)
		}
		for j, r := range s {
			if r.Label != first[j].Label {
				return nil, fmt.Errorf("measure: BesideCodes(%q): %s's result %d is oversample %s, %s's %s: %w",
					title, names[i], j, r.Label, names[0], first[j].Label, engine.ErrInvalidArgument)
			}
		}
	}
	quoted := func(row, m string) any {
		for _, f := range article {
			if f.Row == row && f.Measure == m {
				return f.Value
			}
		}
		return nil
	}
	has := func(m string) bool {
		for _, f := range article {
			if f.Measure == m {
				return true
			}
		}
		return false
	}
	k := first[0].K
	t := table.New(title, table.Col("quantizer", ""))
	measures := []struct{ header, unit string }{{"compression", "×"}, {"memory saved", "%"}}
	for _, m := range measures {
		if has(m.header) {
			t.AddColumns(table.Pair(m.header, m.unit, 1)...)
		} else {
			t.AddColumns(table.Column{Header: m.header, Unit: m.unit, Source: table.Lab, Prec: 1})
		}
	}
	t.AddColumns(table.Column{Header: "bytes/vector", Source: table.Lab, Prec: 1})
	for _, r := range first {
		o, _ := strconv.ParseFloat(r.Label, 64)
		h := fmt.Sprintf("recall@%d no rescoring", k)
		if o > 0 {
			h = fmt.Sprintf("rescored ×%g (%d cands)", o, engine.RescoreDepth(k, o))
		}
		t.AddColumns(table.Column{Header: h, Source: table.Lab, Prec: 3})
	}
	t.AddColumns(table.Column{Header: "p50 codes only", Unit: "ms", Source: table.Lab, Prec: 2})
	for i, name := range names {
		s := sweeps[i]
		b := s[0].BytesPerVector
		if b <= 0 {
			b = float64(4 * dim) // an index that does not report its bytes keeps float32 vectors
		}
		compression := float64(4*dim) / b
		row := []any{name}
		for _, m := range measures {
			if has(m.header) {
				row = append(row, quoted(name, m.header))
			}
			if m.header == "compression" {
				row = append(row, compression)
			} else {
				row = append(row, 100*(1-1/compression))
			}
		}
		row = append(row, b)
		p50 := any(nil)
		for _, r := range s {
			row = append(row, r.Recall)
			if r.Label == "0" {
				p50 = float64(r.Latency.P50) / 1e6
			}
		}
		if err := t.AddValues(append(row, p50)...); err != nil {
			return nil, fmt.Errorf("measure: BesideCodes(%q): %w", title, err)
		}
	}
	for _, f := range article {
		if f.Measure != "compression" && f.Measure != "memory saved" {
			t.Note("article: %v", f)
		}
	}
	t.Note("rescored ×o: gather ⌈o·k⌉ by code distance, re-rank them with the float32 vectors from RAM, keep k; %d queries after %d warm-up, single-threaded", first[0].Queries, first[0].Warmup)
	return t, nil
}
