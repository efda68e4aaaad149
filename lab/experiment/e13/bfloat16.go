package e13

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// Originals is the rescoring of the same candidates against float32 and
// against bfloat16 originals (Elastic's reply: "float32 to bfloat16 for
// stored full-precision vectors (3,072 down to 1,536 bytes each)"), and
// the bytes a bfloat16 original takes at the article's 768 dims.
type Originals struct {
	F32, BF16 experiment.DiskPoint // the same walk, rescored from each
	// BytesAt is the bytes per original of the bfloat16 slab encoded from
	// vectors of the article's width (AtDim: e13ArticleDim), measured from
	// the slab; F32BytesAt is a float32 row's 4·AtDim bytes.
	AtDim               int
	BytesAt, F32BytesAt float64
}

// MeasureOriginals walks the lab's HNSW with 2-bit codes (ef, ⌈oversample·k⌉
// candidates, k the environment's) and rescores each query's candidates
// twice: against the stored float32 originals (the vector file's rows, in
// RAM) and against the same rows stored as bfloat16 (rescore.BFloat16Slab,
// rounded to nearest even as Elasticsearch's element_type bfloat16). It
// also encodes the data set's vectors repeated to the article's 768 dims
// and measures the bytes a bfloat16 original takes there.
func MeasureOriginals(env *experiment.Env, ef int, oversample float64) (Originals, error) {
	var o Originals
	if err := experiment.CheckOversample("E13", []float64{oversample}); err != nil {
		return o, err
	}
	if ef < 1 {
		return o, fmt.Errorf("experiment: E13: ef must be ≥ 1, got %d: %w", ef, experiment.ErrBadArgument)
	}
	hn, err := experiment.HNSWCodes(env, 2)
	if err != nil {
		return o, err
	}
	// The originals as stored: the vector file's rows (normalised under
	// cosine when written), read back into RAM.
	dir, path, cleanup, err := experiment.VectorFile(env)
	if err != nil {
		return o, err
	}
	defer cleanup()
	f, err := store.OpenFS(dir.FS, path, store.Options{})
	if err != nil {
		return o, err
	}
	defer f.Close()
	rows := vec.NewMatrix(f.Len(), f.Dim())
	for i := 0; i < rows.N; i++ {
		if _, err := f.Vector(rows.Row(i), engine.ID(i)); err != nil {
			return o, err
		}
	}
	bf, err := rescore.NewBFloat16Slab(rows)
	if err != nil {
		return o, err
	}
	for _, s := range []struct {
		label string
		src   engine.VectorSource
		dst   *experiment.DiskPoint
	}{{"float32 originals", rescore.NewSlab(rows), &o.F32}, {"bfloat16 originals", bf, &o.BF16}} {
		rs, err := rescore.New(s.src, env.Metric(), rescore.Options{})
		if err != nil {
			return o, err
		}
		if *s.dst, err = experiment.MeasureDisk(env, s.label, oversample, env.Scale.K, env.Scale.Queries, nil, experiment.HnswSearch(hn, ef, oversample, rs)); err != nil {
			return o, err
		}
	}
	// At the article's width: the first vectors repeated to 768
	// components (only the width matters to the size), encoded.
	o.AtDim = e13ArticleDim
	wide := vec.NewMatrix(min(rows.N, 1000), e13ArticleDim)
	for i := 0; i < wide.N; i++ {
		v, w := rows.Row(i), wide.Row(i)
		for j := range w {
			w[j] = v[j%len(v)]
		}
	}
	wbf, err := rescore.NewBFloat16Slab(wide)
	if err != nil {
		return o, err
	}
	o.BytesAt = float64(wbf.Bytes()) / float64(wbf.Len())
	o.F32BytesAt = float64(4 * wide.Dim) // a float32 row, the side the article halves
	return o, nil
}

// OriginalsTable tabulates both rescorings: recall, bytes per read and
// per query, and the size of one original at the article's width.
func OriginalsTable(env *experiment.Env, o Originals) *table.Table {
	t := table.New(fmt.Sprintf("E13 float32 vs bfloat16 originals: the same HNSW 2-bit walk, %.0f candidates rescored per query, k=%d, %d queries (lab)", o.F32.Reads, env.Scale.K, o.F32.Queries),
		table.Col("originals", ""),
		table.Column{Header: fmt.Sprintf("recall@%d", env.Scale.K), Source: table.Lab, Prec: 3},
		table.Column{Header: "reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "KiB/q", Source: table.Lab, Prec: 1},
		table.Column{Header: fmt.Sprintf("B per original at %d dims", e13ArticleDim), Source: table.Article, Prec: 0},
		table.Column{Header: fmt.Sprintf("B per original at %d dims", o.AtDim), Source: table.Lab, Prec: 0})
	_ = t.AddValues("float32", o.F32.Recall, o.F32.Reads, o.F32.KB, e13.ArticleValue("float32 original", "bytes"), o.F32BytesAt)
	_ = t.AddValues("bfloat16", o.BF16.Recall, o.BF16.Reads, o.BF16.KB, e13.ArticleValue("bfloat16 original", "bytes"), o.BytesAt)
	t.Note("both rescore the same candidates from RAM (a warm page cache); bfloat16 rows are rounded to nearest even (Elasticsearch's BFloat16Support.floatToBFloat16) and decoded per read; bytes per original are measured from the encoded slab")
	return t
}

// originalsTol is the rule, set before any run, for "bfloat16 originals
// cost no recall": recall@k with bfloat16 originals within 0.01 of
// recall@k with float32 ones on the same candidates, in either direction:
// one returned result in a hundred. The article states no recall for the
// change ("those choices matter later"); this is the lab's reading of
// it, since its recall tables after the change are read as Elasticsearch's
// own.
const originalsTol = 0.01

// OriginalsVerdicts judges the article's bfloat16 originals: 1,536 B per
// 768-dim original (exact: the encoded slab's bytes), and the lab's
// reading of its "those choices matter later", that halving the originals
// costs no recall@k (originalsTol) where rescoring decides the order.
func OriginalsVerdicts(o Originals) experiment.Verdicts {
	art := e13.ArticleValue("bfloat16 original", "bytes").(float64)
	size := experiment.Because(experiment.Within("E13", "bfloat16 stores a 768-dim original in 1,536 B (float32: 3,072)", art, o.BytesAt, 0, "B"),
		fmt.Sprintf("the encoded slab of %d-dim vectors (2 bytes a component, rounded to nearest even): %.0f B per original against %.0f B in float32 (×%.2f)", o.AtDim, o.BytesAt, o.F32BytesAt, o.BytesAt/o.F32BytesAt))
	d := o.BF16.Recall - o.F32.Recall
	rec := experiment.Because(experiment.Within("E13", "rescoring with bfloat16 originals keeps float32's recall (lab's reading; ± 0.01)", 0, d, originalsTol, ""),
		fmt.Sprintf("recall@%d %.3f with bfloat16 against %.3f with float32 originals, the same %.0f candidates per query rescored (%.1f against %.1f KiB per query); rule: within %g, one result in a hundred",
			o.F32.K, o.BF16.Recall, o.F32.Recall, o.F32.Reads, o.BF16.KB, o.F32.KB, originalsTol))
	return experiment.Verdicts{size, rec}
}
