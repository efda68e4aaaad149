package picture

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// Constants lists the constants the notebooks use without deriving them,
// read from the code that uses them (so the glossary cannot drift from
// it), each with where it lives and where it comes from.
func Constants() (*table.Table, error) {
	const dim = 384
	bbq, err := quant.NewOSQ(make([]float32, dim), engine.Cosine, quant.OSQConfig{Bits: 1})
	if err != nil {
		return nil, fmt.Errorf("picture: %w", err)
	}
	bits := dim / 8 // one bit per component
	t := table.New("the constants behind the notebooks, read from the code",
		table.Col("constant", ""), table.Col("value", ""), table.Col("in the code", ""), table.Col("source", ""))
	rows := [][]any{
		{"spread (generated data)", fmt.Sprint(dataset.DefaultSpread), "lab/dataset DefaultSpread",
			"the lab's choice: the noise norm that reproduces the article's recall curves (lab/dataset/doc.go)"},
		{"1-bit OSQ code at 384 dims", fmt.Sprintf("%d B = %d B of bits + %d B of corrections", bbq.CodeSize(), bits, bbq.CodeSize()-bits),
			"engine/quant OSQ.CodeSize", "Lucene OptimizedScalarQuantizer / Lucene102BinaryQuantizedVectorsFormat; Elastic's BBQ page (\"14 bytes of corrective data\")"},
		{"int8 confidence interval at 384 dims", fmt.Sprintf("%.4f", quant.DefaultConfidenceInterval(dim)), "engine/quant DefaultConfidenceInterval",
			"Lucene ScalarQuantizer: max(0.9, 1 − 1/(dim+1))"},
		{"bbq_hnsw from dims", fmt.Sprint(profile.BBQDimsThreshold), "lab/profile BBQDimsThreshold",
			"Elasticsearch dense_vector mapping reference (9.1+: bbq_hnsw for dims ≥ 384, else int8_hnsw)"},
		{"IVF list size", fmt.Sprintf("~%d vectors", ivf.DefaultClusterSize), "engine/ivf DefaultClusterSize",
			"Elasticsearch dense_vector bbq_disk index_options cluster_size (default 384)"},
	}
	for _, m := range store.Profiles {
		rows = append(rows, []any{"simulated device " + m.Name, m.String(), "engine/store " + map[string]string{
			"local-nvme": "LocalNVMe", "gp3-baseline": "GP3Baseline", "io2-provisioned": "IO2Provisioned"}[m.Name],
			deviceSource[m.Name]})
	}
	for _, r := range rows {
		if err := t.AddValues(r...); err != nil {
			return nil, fmt.Errorf("picture: %w", err)
		}
	}
	return t, nil
}

// deviceSource says where each storage model's figures come from
// (engine/store/model.go states them as assumptions, not measurements).
var deviceSource = map[string]string{
	"local-nvme":      "an assumption: a typical local NVMe 4 KiB random read (~80 µs); not a measured device",
	"gp3-baseline":    "AWS EBS gp3 baseline (3,000 IOPS, 125 MiB/s; AWS EBS user guide, General Purpose SSD volumes); 1 ms is within AWS's \"single-digit millisecond\" class, an assumption",
	"io2-provisioned": "AWS EBS io2 (\"sub-millisecond\" latency class; 16,000 IOPS provisioned here), an assumption",
}
