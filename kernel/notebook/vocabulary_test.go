package notebook

import (
	"errors"
	"strings"
	"testing"
)

// e06Cells are the article's E06 (Redis EF_RUNTIME) in lab/measure's
// vocabulary, one step per cell, on a tenth of the article's data set:
// what a notebook rewritten cell by cell runs through the interpreter.
var e06Cells = []string{
	`import (
	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/profile"
)
ds, err := dataset.Generate(dataset.Config{N: 3000, Queries: 40, Seed: 1})
check(err)`,
	`queries, err := measure.Exact(ds, 10, engine.Cosine)
check(err)`,
	`redis, err := profile.Default(profile.Redis).Build(ds.Base, profile.BuildOptions{})
check(err)`,
	`sweep, err := measure.SweepEf(redis, []int{10, 50, 200}, queries)
check(err)`,
	`article := []measure.Figure{
	{Row: "10", Measure: "recall@10", Value: 0.616},
	{Row: "50", Measure: "recall@10", Value: 0.962},
	{Row: "200", Measure: "recall@10", Value: 1.000},
}
t, err := measure.Beside("E06 Redis EF_RUNTIME", sweep, article)
check(err)
t`,
	// A result's figures are fields a cell reads (metrics.Measured's,
	// promoted through the embedding).
	`fmt.Printf("EF_RUNTIME %s: recall@%d %.3f, mean hits %.1f, p50 > 0: %v\n", sweep[0].Label, sweep[0].K, sweep[0].Recall, sweep[0].MeanHits, sweep[0].Latency.P50 > 0)`,
}

// TestVocabularyCells runs E06's cells through the real evaluator (the
// interpreter with the generated bindings, as veclab run and the kernel
// do): the sweep's table comes out with the article's figures beside the
// lab's, the same as lab/measure's Example on the same seed. Then a cell
// with a knob Elasticsearch refuses stops at check(err) with the error in
// the learner's terms: the knob as written, the range, the store's rule.
func TestVocabularyCells(t *testing.T) {
	s := session(t)
	out, err := Run(nb(e06Cells...), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := parse(t, out).Cells
	if o := c[len(c)-1].Outputs; len(o) != 1 || join(o[0]["text"]) != "EF_RUNTIME 10: recall@10 0.925, mean hits 10.0, p50 > 0: true\n" {
		t.Errorf("the fields cell: %v", o)
	}
	last := c[len(c)-2].Outputs
	if len(last) != 1 || last[0]["output_type"] != "execute_result" {
		t.Fatalf("the table cell: %v", last)
	}
	md := join(last[0]["data"].(map[string]any)["text/plain"])
	for _, w := range []string{"EF_RUNTIME", "recall@10 (article)", "recall@10 (lab)", "0.616", "0.925", "0.962"} {
		if !strings.Contains(md, w) {
			t.Errorf("the table lacks %q:\n%s", w, md)
		}
	}

	out, err = Run(nb(e06Cells[0]+"\n"+e06Cells[1], `es, err := profile.Default(profile.Elasticsearch).Build(ds.Base, profile.BuildOptions{})
check(err)
r, err := measure.Store(es.WithOversample(0.5), queries)
check(err)
r`), s, Options{})
	if !errors.Is(err, ErrCell) {
		t.Fatalf("err %v, want ErrCell", err)
	}
	e := parse(t, out).Cells[1].Outputs
	want := `WithOversample(0.5) on elasticsearch: oversample 0.5 is out of range, allowed 0 (none) or ≥ 1: Elasticsearch refuses "[oversample] must be >= 1.0"; 0 turns oversampling off (elastic/elasticsearch 9.1 server/src/main/java/org/elasticsearch/search/vectors/RescoreVectorBuilder.java)`
	if len(e) != 1 || e[0]["output_type"] != "error" || e[0]["evalue"] != want {
		t.Fatalf("error output: %v\nwant evalue %s", e, want)
	}
	if tb := strings.Join(toStrings(e[0]["traceback"]), "\n"); !strings.Contains(tb, "cell line 4:") || !strings.Contains(tb, "check(err)") {
		t.Errorf("the traceback does not point at the cell's check(err): %q", tb)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
