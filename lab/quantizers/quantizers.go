package quantizers

import (
	"fmt"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// entry is one entry of the catalogue: a named way to build codes.
type entry struct {
	name, about string
	scalar      *quant.ScalarConfig // one of scalar and osq, or neither for raw
	osq         *quant.OSQConfig
	turbo       *quant.TurboConfig
}

// catalogue is the list, in table order: raw float32; Lucene's int8
// (7-bit, confidence interval: Elasticsearch's int8_hnsw up to 9.3) and
// int8 with min/max bounds; int8-osq, the 7-bit OSQ Elasticsearch's
// int8_hnsw writes since 9.4 (lab/profile's int8_hnsw segments,
// segment.Int8OSQ; ES94ScalarQuantizedVectorsFormat over apache/lucene
// 10.4's Lucene104ScalarQuantizedVectorsFormat SEVEN_BIT, centred as bbq); int4 with and
// without Lucene's error-correction term (Lucene99ScalarQuantizedVectorsFormat,
// apache/lucene 9.x util/quantization/ScalarQuantizer.java); OSQ 1-bit
// (bbq: 1-bit docs × 4-bit query), 1×1-bit, 2-, 4- and 8-bit
// (apache/lucene 10.x util/quantization/OptimizedScalarQuantizer.java);
// TurboQuant at 4 and 2 bits as Qdrant 1.18 ships it (turbo4, turbo2:
// qdrant/qdrant v1.18.0 lib/quantization/src/turboquant) and at 4 bits as
// published (turbo4-mse, turbo4-prod: arXiv 2504.19874 Algorithms 1, 2).
//
// Centring under cosine: bbq is the Elasticsearch store's (lab/profile's
// bbq_hnsw segments): Elasticsearch hands a cosine field to Lucene
// normalised, as DOT_PRODUCT, so the BBQ writer centres the codes on the
// plain mean (quant.OSQConfig.MeanCentroid; ES818BinaryQuantizedVectorsWriter,
// elastic/elasticsearch 9.x). bbq-lucene-cosine is the same code for a
// field Lucene itself sees as COSINE, whose centroid the writer normalises
// to unit length (Lucene102BinaryQuantizedVectorsWriter.flush, apache/lucene
// 10.2). osq1x1 is centred as bbq, so the two differ in the query's bits
// only. osq2, osq4 and osq8 keep Lucene's COSINE centroid, the -mean rows
// the plain mean.
var catalogue = []entry{
	{name: Raw, about: "float32, no quantization"},
	{name: "int8", about: "Lucene int8 (7-bit codes, bounds from the confidence interval), with the per-vector correction", scalar: &quant.ScalarConfig{}},
	{name: "int8-minmax", about: "7-bit codes, bounds = min/max (confidence interval 1)", scalar: &quant.ScalarConfig{ConfidenceInterval: 1}},
	{name: "int8-osq", about: "OSQ 7-bit docs × 7-bit query centred on the plain mean (Elasticsearch 9.4+ int8_hnsw: ES94ScalarQuantizedVectorsFormat, Lucene104 SEVEN_BIT)", osq: &quant.OSQConfig{Bits: 7, QueryBits: 7, MeanCentroid: true, IntSum: true}},
	{name: "int4", about: "4-bit scalar codes with Lucene's error-correction term", scalar: &quant.ScalarConfig{Bits: 4}},
	{name: "int4-nocorr", about: "4-bit scalar codes, rounding-error correction dropped", scalar: &quant.ScalarConfig{Bits: 4, NoCorrection: true}},
	{name: "bbq", about: "OSQ 1-bit docs × 4-bit query (Elasticsearch bbq, centred on the plain mean)", osq: &quant.OSQConfig{Bits: 1, MeanCentroid: true}},
	{name: "bbq-lucene-cosine", about: "BBQ of a field Lucene sees as COSINE: centred on the mean normalised to unit length", osq: &quant.OSQConfig{Bits: 1}},
	{name: "osq1x1", about: "OSQ 1-bit docs × 1-bit query (symmetric, plain binary; centred as bbq)", osq: &quant.OSQConfig{Bits: 1, QueryBits: 1, MeanCentroid: true}},
	{name: "osq2", about: "OSQ 2-bit docs × 4-bit query", osq: &quant.OSQConfig{Bits: 2}},
	{name: "osq4", about: "OSQ 4-bit docs × 4-bit query", osq: &quant.OSQConfig{Bits: 4}},
	{name: "osq2-mean", about: "OSQ 2-bit × 4-bit centred on the plain mean", osq: &quant.OSQConfig{Bits: 2, MeanCentroid: true}},
	{name: "osq4-mean", about: "OSQ 4-bit × 4-bit centred on the plain mean", osq: &quant.OSQConfig{Bits: 4, MeanCentroid: true}},
	{name: "osq8", about: "OSQ 8-bit docs × 8-bit query", osq: &quant.OSQConfig{Bits: 8}},
	{name: "turbo4", about: "TurboQuant 4-bit as Qdrant 1.18 ships it (Hadamard rotation, N(0,1) Lloyd-Max codebook, TQ+ shift/scale; float query)", turbo: &quant.TurboConfig{Kind: quant.TurboQdrant, Bits: 4}},
	{name: "turbo2", about: "TurboQuant 2-bit as Qdrant 1.18 ships it", turbo: &quant.TurboConfig{Kind: quant.TurboQdrant, Bits: 2}},
	{name: "turbo4-mse", about: "TurboQuant_mse 4-bit as published (random rotation, Lloyd-Max for the sphere's Beta coordinate; arXiv 2504.19874 Alg. 1)", turbo: &quant.TurboConfig{Kind: quant.TurboMSE, Bits: 4}},
	{name: "turbo4-prod", about: "TurboQuant_prod 4-bit as published (3-bit MSE stage + 1-bit QJL of the residual; arXiv 2504.19874 Alg. 2)", turbo: &quant.TurboConfig{Kind: quant.TurboProd, Bits: 4}},
}

// Raw is the catalogue's name for float32 vectors without codes; [Train]
// returns a nil quantizer for it.
const Raw = "raw"

// Names lists the catalogue's quantizers in table order, [Raw] first.
func Names() []string {
	names := make([]string, len(catalogue))
	for i, q := range catalogue {
		names[i] = q.name
	}
	return names
}

func lookup(name string) (entry, error) {
	for _, q := range catalogue {
		if q.name == name {
			return q, nil
		}
	}
	return entry{}, fmt.Errorf("quantizers: unknown quantizer %q (want one of %s): %w", name, strings.Join(Names(), ", "), engine.ErrInvalidArgument)
}

// Check returns nil for a name of the catalogue, else an error wrapping
// engine.ErrInvalidArgument that lists the names.
func Check(name string) error {
	_, err := lookup(name)
	return err
}

// Describe says in one line what the named quantizer is, or "" for a name
// the catalogue does not have.
func Describe(name string) string {
	q, err := lookup(name)
	if err != nil {
		return ""
	}
	return q.about
}

// Train trains the named quantizer on sample with the seed; [Raw] returns
// nil (no codes). An unknown name is an error wrapping
// engine.ErrInvalidArgument; a training error names the quantizer.
func Train(name string, sample *vec.Matrix, metric engine.Metric, seed uint64) (quant.Quantizer, error) {
	q, err := lookup(name)
	if err != nil {
		return nil, err
	}
	switch {
	case q.scalar != nil:
		cfg := *q.scalar
		cfg.Seed = seed
		s, err := quant.TrainScalar(sample, metric, cfg)
		if err != nil {
			return nil, fmt.Errorf("quantizers: %s: %w", name, err)
		}
		return s, nil
	case q.osq != nil:
		cfg := *q.osq
		cfg.Seed = seed
		o, err := quant.TrainOSQ(sample, metric, cfg)
		if err != nil {
			return nil, fmt.Errorf("quantizers: %s: %w", name, err)
		}
		return o, nil
	case q.turbo != nil:
		cfg := *q.turbo
		cfg.Seed = seed
		t, err := quant.TrainTurbo(sample, metric, cfg)
		if err != nil {
			return nil, fmt.Errorf("quantizers: %s: %w", name, err)
		}
		return t, nil
	}
	return nil, nil
}
