package e22

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// e22 is int8 scalar quantization (Elastic's reply to Qdrant, Lucene's int8 blog).
var Experiment = experiment.Experiment{
	ID:      "E22",
	Claims:  claims,
	Title:   "int8 scalar quantization: memory, recall@10, and recovery by oversampling (quantized@15)",
	Article: "Elastic's reply and the Lucene quantization posts it cites: int8 slashes memory by ~75 %; recall@10 a little below raw, recovered by gathering 5 more candidates and rescoring (quantized@15)",
	Figures: []experiment.Figure{
		{Row: "int8", Measure: "memory saved", Value: 75, Unit: "%"},
		{Row: "int8", Measure: "compression", Value: 4, Unit: "×"},
		{Row: "int8", Measure: "oversample recovering raw recall", Value: 1.5, Unit: "×"},
	},
}

func init() {
	Experiment.Run, Experiment.Notebook = Run, "11-lucene-quantization.ipynb"
	experiment.Register(Experiment)
}

// Oversample is the sweep: 1.5 is the article's "quantized@15" at k=10.
var Oversample = []float64{1, 1.5, 2, 3}

// Sweep measures raw, int8 and int8 with min/max bounds at each
// oversample and returns the table (article figures beside the lab's).
func Sweep(env *experiment.Env, oversample []float64) (*table.Table, error) {
	t, _, err := e22Measure(env, oversample)
	return t, err
}

func e22Measure(env *experiment.Env, oversample []float64) (*table.Table, []experiment.QuantResult, error) {
	if err := experiment.CheckOversample("E22", oversample); err != nil {
		return nil, nil, err
	}
	var rs []experiment.QuantResult
	for _, n := range []string{"raw", "int8", "int8-minmax"} {
		r, err := experiment.QuantFlat(env, n, oversample)
		if err != nil {
			return nil, nil, err
		}
		rs = append(rs, r)
	}
	t := experiment.QuantTable(env, "E22 int8 scalar quantization", rs, func(row string) (any, any) {
		if row == "int8" {
			return Experiment.ArticleValue("int8", "compression"), Experiment.ArticleValue("int8", "memory saved")
		}
		return nil, nil
	})
	t.Note("article: Lucene's 7-bit int8 with the confidence-interval bounds, ~75 %% less memory for the vectors that are searched; the float32 vectors stay on disk for rescoring (E10: the store size does not drop)")
	t.Note("lab bytes/vector include the per-vector correction (%.0f B beyond one byte per dimension)", rs[1].BytesPerVector-float64(env.Scale.Dim))
	return t, rs, nil
}

func Run(env *experiment.Env) (*experiment.Report, error) {
	t, rs, err := e22Measure(env, Oversample)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(Experiment, env)
	r.AddTable(t)
	r.AddChart(experiment.QuantChart("E22 int8: recall@10 by oversample (lab)", rs, env.Scale.K))
	raw, i8 := rs[0], rs[1]
	r.Note("lab: int8 recall@%d %.3f without rescoring vs raw %.3f; at ×1.5 (quantized@15) %.3f", env.Scale.K, i8.RecallNone, raw.RecallNone, experiment.OverAt(i8, 1.5))
	if name := env.DataName(); name != "generated" {
		r.Note("the article reports a chart, not a recall number; the lab's figure is its own measurement on %s (%d-d), not the article's corpus", name, env.Scale.Dim)
	} else {
		r.Note("the article reports a chart, not a recall number; the lab's figure is its own measurement on the generated set shaped like the Spring AI VectorStore article's data (384-d Gaussian clusters), not the article's corpus")
	}
	r.Verdicts = append(r.Verdicts, Verdicts(env, t)...)
	return r, nil
}

// Verdicts compares the int8 table of [Sweep] with the article's
// claims: about 75 % less memory (± 1 %), recall without rescoring a
// little below raw (by less than 0.1), and quantized@15 (×1.5) back
// within 0.01 of raw.
func Verdicts(env *experiment.Env, t *table.Table) experiment.Verdicts {
	raw, none, at15 := experiment.QuantRecall(t, "raw", 0), experiment.QuantRecall(t, "int8", 0), experiment.QuantRecall(t, "int8", 1.5)
	k := env.Scale.K
	v1 := experiment.Within("E22", "int8 cuts the vectors' memory by about 75 %", 75, experiment.QuantNumber(t, "int8", "memory saved"), 1, "%")
	v2 := experiment.Holds("E22", fmt.Sprintf("int8 recall@%d without rescoring is a little below raw", k), "below raw by < 0.1",
		fmt.Sprintf("%.3f vs raw %.3f", none, raw), none <= raw && raw-none < 0.1,
		fmt.Sprintf("%.3f below raw", raw-none))
	v3 := experiment.Holds("E22", "quantized@15 (×1.5 candidates, rescored) recovers raw recall", "raw recall (± 0.01)",
		fmt.Sprintf("%.3f vs raw %.3f", at15, raw), at15 >= raw-0.01, fmt.Sprintf("%.3f below raw", math.Max(raw-at15, 0)))
	return experiment.Verdicts{v1, v2, v3}
}
