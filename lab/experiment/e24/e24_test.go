package e24

import (
	"strings"
	"testing"

	"github.com/veclab/veclab/lab/experiment"
)

// TestE24Verdicts feeds Verdicts quantization tables: the compression
// verdict names the bits' own 32× and the corrections' share, and the
// rescoring verdict, when ×3 does not restore the recall, names the
// smallest oversample of the sweep that does.
func TestE24Verdicts(t *testing.T) {
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		t.Fatal(err)
	}
	overs := []float64{1, 3, 10, 50}
	dim := float64(env.Scale.Dim)
	table := func(bbq []float64) []experiment.QuantResult {
		return []experiment.QuantResult{
			{Name: "raw", BytesPerVector: 4 * dim, Compression: 1, RecallNone: 1, Oversample: overs, RecallOver: []float64{1, 1, 1, 1}},
			{Name: "bbq", BytesPerVector: dim/8 + 14, Compression: 4 * dim / (dim/8 + 14), RecallNone: bbq[0], Oversample: overs, RecallOver: bbq},
			{Name: "osq1x1", BytesPerVector: dim/8 + 14, Compression: 4 * dim / (dim/8 + 14), RecallNone: bbq[0] / 2, Oversample: overs, RecallOver: bbq},
		}
	}
	for _, c := range []struct {
		name   string
		bbq    []float64 // recall at overs
		words  string
		reason string // a part of the rescoring verdict's reason
	}{
		{"restored at ×3", []float64{0.5, 0.985, 1, 1}, "differs agrees agrees", "0.015 below raw"},
		{"restored from ×50", []float64{0.236, 0.461, 0.768, 0.99}, "differs differs agrees", "only from ×50 (0.990, 500 candidates a query)"},
		{"never restored", []float64{0.236, 0.461, 0.768, 0.9}, "differs differs agrees", "no oversample of the sweep restores it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab := experiment.QuantTable(env, "E24", table(c.bbq), func(row string) (any, any) {
				return Experiment.ArticleValue(row, "compression"), Experiment.ArticleValue(row, "memory saved")
			})
			vs := Verdicts(env, tab)
			if got := verdictWords(vs); got != c.words {
				t.Errorf("verdicts %s, want %s (%v)", got, c.words, vs)
			}
			if !strings.Contains(vs[1].Reason, c.reason) {
				t.Errorf("rescoring: %q lacks %q", vs[1].Reason, c.reason)
			}
			if want := "the bits alone (48 B a vector: 32.0×)"; !strings.Contains(vs[0].Reason, want) {
				t.Errorf("compression: %q lacks %q", vs[0].Reason, want)
			}
		})
	}
}
