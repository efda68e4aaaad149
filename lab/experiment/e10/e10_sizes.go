package e10

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// Sizes splits each index type's resident bytes per vector (bytes, in
// the order of ms, Measure's) into the float32 vector, the codes and the
// graph links: quantization in Elasticsearch adds codes beside the float32
// vectors, which stay for rescoring (and for merges, which re-quantize), so
// a quantized index is larger than hnsw's, not smaller. The codes are a
// type's bytes minus hnsw's (the graphs have the same parameters), the
// links hnsw's bytes minus its float32 vector; the article's column
// compares its whole on-disk store sizes with hnsw's. ms must hold an hnsw
// row.
func Sizes(env *experiment.Env, ms []experiment.Measurement, bytes []float64) (*table.Table, error) {
	if len(bytes) != len(ms) {
		return nil, fmt.Errorf("experiment: Sizes: %d sizes for %d index types: %w", len(bytes), len(ms), experiment.ErrBadArgument)
	}
	h := -1
	for i, m := range ms {
		if m.Label == "hnsw" {
			h = i
		}
	}
	if h < 0 || bytes[h] <= 0 {
		return nil, fmt.Errorf("experiment: Sizes: no hnsw row (with its bytes) to split the others against: %w", experiment.ErrBadArgument)
	}
	dim := env.Scale.Dim
	floatB, hnswB := float64(4*dim), bytes[h]
	t := table.New(fmt.Sprintf("Resident bytes per vector by index type, %d dims (lab)", dim),
		table.Col("type", ""),
		table.Column{Header: "float32 vector", Unit: "B", Source: table.Lab, Prec: -1},
		table.Column{Header: "codes", Unit: "B", Source: table.Lab, Prec: -1},
		table.Column{Header: "graph links", Unit: "B", Source: table.Lab, Prec: -1},
		table.Column{Header: "total", Unit: "B", Source: table.Lab, Prec: -1},
		table.Column{Header: "vs hnsw", Unit: "%", Source: table.Lab, Prec: 1},
		table.Pair("store size vs hnsw", "%", 1)[0])
	aHNSW, _ := Experiment.Figure("hnsw", "store size")
	for i, m := range ms {
		var art any
		if f, ok := Experiment.Figure(m.Label, "store size"); ok && aHNSW.Value > 0 {
			art = 100 * (f.Value/aHNSW.Value - 1)
		}
		_ = t.AddValues(m.Label, floatB, bytes[i]-hnswB, hnswB-floatB, bytes[i], 100*(bytes[i]/hnswB-1), art)
	}
	t.Note("codes = the type's resident bytes minus hnsw's (same graph parameters); 1-bit codes are %d bits = %d B plus 14 B of corrections, int8 codes %d B plus 16 B (7-bit OSQ: lower, upper, ⟨v,c⟩ and Σq, as Lucene104ScalarQuantizedVectorsWriter writes them)", dim, dim/8, dim)
	t.Note("the article's column compares Elasticsearch's whole on-disk store sizes (54.4 / 64.1 / 52.6 MB), which also hold the documents")
	return t, nil
}
