package segment

import (
	"fmt"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vfs"
)

// IndexKind names the index a sealed segment builds.
type IndexKind uint8

// The segment index kinds. Part of the file format; never renumber.
const (
	HNSW IndexKind = iota // a graph per segment (Lucene, Elasticsearch, Qdrant's optimised segments)
	Flat                  // exact scan (Qdrant's plain segments)
	// IVF clusters a segment's vectors into lists of about 384 (DiskBBQ's
	// cluster size, float32 lists) and probes a fraction of them
	// (Options.Visit). Its file keeps the vectors; the lists are
	// re-clustered at open with the segment's seed, which gives the same
	// lists (k-means is seeded).
	IVF
)

func (k IndexKind) String() string {
	switch k {
	case HNSW:
		return "hnsw"
	case Flat:
		return "flat"
	case IVF:
		return "ivf"
	}
	return fmt.Sprintf("IndexKind(%d)", k)
}

// ParseIndexKind reads "hnsw" or "flat".
func ParseIndexKind(s string) (IndexKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "hnsw":
		return HNSW, nil
	case "flat", "plain":
		return Flat, nil
	case "ivf":
		return IVF, nil
	}
	return 0, fmt.Errorf("segment: unknown index kind %q (want hnsw, flat or ivf): %w", s, engine.ErrInvalidArgument)
}

// Encoding names the quantized codes a sealed HNSW segment's graph is
// searched over (and, when the segment comes from a merge, built over),
// the float32 vectors being kept to rescore the best candidates.
type Encoding uint8

// The encodings. Part of the file format; never renumber.
const (
	// Float: no codes, the graph scores float32 vectors.
	Float Encoding = iota
	// Int8 is int8_hnsw as Elasticsearch wrote it up to 9.3: per-dimension
	// scalar codes of 7 bits between global bounds from the confidence
	// interval, with corrective terms (Lucene99ScalarQuantizedVectorsFormat,
	// bits = 7, confidence interval null; ES814/ES93
	// HnswScalarQuantizedVectorsFormat), trained on the segment's vectors.
	// Elasticsearch 9.4+ writes Int8OSQ instead.
	Int8
	// Int4 is int4_hnsw: the same with 4 bits.
	Int4
	// BBQ is bbq_hnsw: optimized scalar quantization, 1-bit document codes
	// and 4-bit query codes around the segment's centroid
	// (Lucene102BinaryQuantizedVectorsFormat).
	BBQ
	// Int8OSQ is int8_hnsw as Elasticsearch 9.4+ writes it
	// (ES94HnswScalarQuantizedVectorsFormat over
	// Lucene104ScalarQuantizedVectorsFormat, ScalarEncoding.SEVEN_BIT):
	// optimized scalar quantization with 7-bit document and 7-bit query
	// codes, each vector with its own interval and corrective terms,
	// around the segment's centroid, whose flush and merge rules are
	// BBQ's (Lucene104ScalarQuantizedVectorsWriter.flush and
	// mergeAndRecalculateCentroids, apache/lucene 10.4).
	Int8OSQ
	// Int4OSQ is int4_hnsw as Elasticsearch 9.4+ writes it
	// (ES94HnswScalarQuantizedVectorsFormat with 4 bits,
	// ScalarEncoding.PACKED_NIBBLE: 4-bit documents, packed two to a
	// byte, and 4-bit queries), otherwise as Int8OSQ.
	Int4OSQ
	// QdrantInt8 is Qdrant's scalar quantization, quantization_config
	// {"scalar": {"type": "int8"}} (qdrant/qdrant v1.19.0
	// lib/quantization/src/encoded_vectors_u8.rs; quant.TrainQdrantScalar):
	// one byte a component between the segment's minimum and maximum
	// component (or Config.Quantile's interval), scored as the dot
	// product of the dequantized vectors. Qdrant builds an indexed
	// segment's graph over the quantized vectors
	// (lib/segment/src/index/hnsw_index/hnsw/build.rs: every insertion's
	// FilteredScorer::new_internal takes the quantized storage), so every
	// graph of such a collection, flushed or merged, is built over the
	// codes. Plain visibility only: an appendable segment has no
	// quantized vectors, Qdrant quantizes the segments its optimizers
	// build.
	QdrantInt8
	// QdrantBinary is Qdrant's binary quantization with its default
	// encoding, one_bit, and the query encoded the same way
	// (lib/quantization/src/encoded_vectors_binary.rs, unchanged from
	// v1.18 to v1.19.0; quant.Binary): one bit a component, its sign,
	// scored by the number of differing bits (XOR and popcount). Its
	// graphs are built over the codes as QdrantInt8's are.
	QdrantBinary
)

// lastEncoding is the largest Encoding a file may hold.
const lastEncoding = QdrantBinary

// qdrant reports whether e is one of Qdrant's quantizations: built
// over the codes at every build, under the Plain visibility, each
// segment rescoring its own candidates (Options.RescoreEach).
func (e Encoding) qdrant() bool { return e == QdrantInt8 || e == QdrantBinary }

func (e Encoding) String() string {
	switch e {
	case Float:
		return "float"
	case Int8:
		return "int8"
	case Int4:
		return "int4"
	case BBQ:
		return "bbq"
	case Int8OSQ:
		return "int8-osq"
	case Int4OSQ:
		return "int4-osq"
	case QdrantInt8:
		return "qdrant-int8"
	case QdrantBinary:
		return "qdrant-binary"
	}
	return fmt.Sprintf("Encoding(%d)", e)
}

// ParseEncoding reads "float", "int8", "int4", "bbq", "int8-osq",
// "int4-osq", "qdrant-int8" or "qdrant-binary".
func ParseEncoding(s string) (Encoding, error) {
	for e := Float; e <= lastEncoding; e++ {
		if strings.EqualFold(strings.TrimSpace(s), e.String()) {
			return e, nil
		}
	}
	return 0, fmt.Errorf("segment: unknown encoding %q (want float, int8, int4, bbq, int8-osq, int4-osq, qdrant-int8 or qdrant-binary): %w", s, engine.ErrInvalidArgument)
}

// Visibility names when an acknowledged document becomes searchable.
type Visibility uint8

// The visibility policies of the four stores the lab emulates.
const (
	// OnRefresh: documents wait in the writer's buffer, acknowledged but
	// invisible, until Refresh seals the buffer into a segment
	// (Elasticsearch's refresh, every refresh_interval or on demand).
	OnRefresh Visibility = iota
	// OnAdd: Add returns after the documents are in the graph of the
	// appendable head segment, which grows in place: pgvector's insert,
	// visible when its transaction commits, into one growing index.
	OnAdd
	// Queued: Add acknowledges the documents into the head segment, and a
	// background indexer moves them into its graph a chunk at a time;
	// searches see the indexed ones only (Redis's background indexing,
	// FT.INFO percent_indexed < 1 meanwhile).
	Queued
	// Plain: Add appends the documents to a plain head segment, searched
	// exactly at once; when it holds IndexingThreshold documents the
	// optimizer builds its graph in the background and swaps it in, and a
	// new plain head takes the next documents (Qdrant's appendable segment
	// and indexing_threshold).
	Plain
)

func (v Visibility) String() string {
	switch v {
	case OnRefresh:
		return "refresh"
	case OnAdd:
		return "add"
	case Queued:
		return "queued"
	case Plain:
		return "plain"
	}
	return fmt.Sprintf("Visibility(%d)", v)
}

// Config configures a [Collection]. The zero value of every field but Dim
// and Dir means its default.
type Config struct {
	// FS is the file system (default vfs.Default); wrap it in a
	// vfs.WatermarkFS to refuse writes on a full disk.
	FS vfs.FS
	// Dir is the collection's directory. Required.
	Dir string
	// Dim is the vector dimension. Required.
	Dim int
	// Metric is the distance (default Cosine).
	Metric engine.Metric
	// Index is what a sealed segment builds (default HNSW).
	Index IndexKind
	// Encoding quantizes every sealed HNSW segment (default Float: none).
	// A flush builds the graph over float32 vectors and then attaches the
	// codes, trained on the segment's vectors (Lucene's indexing chain
	// builds the graph with the raw vectors' scorer); a merge retrains the
	// quantizer on the merged vectors (BBQ, Int8OSQ, Int4OSQ: combines its sources'
	// centroids when none has deletions, as Lucene's writers do) and
	// builds the graph over the codes (Lucene's merge uses the quantized
	// scorer). Searches walk the codes
	// and rescore the best candidates with float32 (Options.Rescore). OnRefresh
	// only: the head segments grow in place. Qdrant's encodings
	// (QdrantInt8, QdrantBinary) are Plain only and build every graph
	// over the codes.
	Encoding Encoding
	// Quantile is QdrantInt8's ScalarQuantizationConfig.quantile: 0 (not
	// set, Qdrant's default) takes the whole range of the components,
	// otherwise in [0.5, 1] (quant.QdrantScalarConfig).
	Quantile float64
	// CosineAsDotProduct hands a Cosine collection's vectors to the
	// quantizers the way Elasticsearch hands a cosine dense_vector to
	// Lucene: normalised at index time (as the engine always does under
	// Cosine) in a field Lucene sees as DOT_PRODUCT, not COSINE
	// (DenseVectorFieldMapper's VectorSimilarity.COSINE.
	// vectorSimilarityFunction returns DOT_PRODUCT for float vectors of
	// indices created since NORMALIZE_COSINE, 8.12; elastic/elasticsearch
	// 9.x). Only the OSQ encodings' centroid (BBQ, Int8OSQ, Int4OSQ) tells the two apart: for DOT_PRODUCT the
	// writer centres a segment's codes on the plain mean of its vectors,
	// for COSINE (false, the default: Lucene's own view of a cosine
	// field) on that mean normalised to unit length
	// (quant.OSQConfig.MeanCentroid). The scalar encodings are trained on
	// the unit vectors either way.
	CosineAsDotProduct bool
	// Graph is the template of every segment's HNSW graph: its M,
	// EfConstruction, insertion policy (hnsw.PgvectorConfig's, say) and
	// level generator. Dim, Metric, Seed and Workers are the collection's
	// (Seed + the segment's id, BuildWorkers). Zero M and EfConstruction
	// take 16 and 100, the engine's own defaults; a store's come from
	// lab/profile.
	Graph hnsw.Config
	// HeadCapacity is how many documents a head with a graph (OnAdd,
	// Queued) is expected to take: its graph's slab and lists are
	// allocated once for that many (hnsw.Index.Reserve) instead of grown
	// batch by batch. 0: grown as documents arrive.
	HeadCapacity int
	// BuildWorkers is the number of goroutines one segment's graph is built
	// with (default engine.Cores()). 1 builds deterministically.
	BuildWorkers int
	// Seed seeds every segment's graph (each segment adds its id).
	Seed uint64
	// Visibility is when acknowledged documents become searchable
	// (default OnRefresh).
	Visibility Visibility
	// FlushDocs is the indexing buffer the writers share: a writer's buffer
	// is sealed into a segment when it holds FlushDocs/Writers documents,
	// whatever the visibility (default 20000; Lucene flushes by RAM,
	// indices.memory.index_buffer_size, split among its per-thread
	// writers, so parallel ingest makes more, smaller segments).
	FlushDocs int
	// Writers is the number of per-thread writers (Lucene's
	// DocumentsWriterPerThread): concurrent Add calls fill different
	// buffers, each sealed into its own segment (default 1).
	Writers int
	// SearchWorkers is the size of the pool a concurrent search spreads
	// segments over (default engine.Cores()).
	SearchWorkers int
	// StoredBlockBytes is the raw size at which a stored-fields block is
	// compressed (default 60 KiB, the order of Lucene 9's stored-field
	// chunks).
	StoredBlockBytes int
	// IndexingThreshold is the size, in documents, at which a Plain head
	// segment is indexed (default 20000, the engine's own; lab/profile
	// passes Qdrant's indexing_threshold converted from KB of vectors).
	IndexingThreshold int
	// Heads is the number of appendable Plain head segments (default 1;
	// Plain only): each Add goes to the one with the fewest documents,
	// and each is indexed at IndexingThreshold on its own (Qdrant creates
	// default_segment_number appendable segments, 2 on a 2-CPU machine).
	Heads int
	// IndexChunk is how many queued documents the Queued indexer moves
	// into the graph at a time, so searches interleave (default 64).
	IndexChunk int
	// Merge is the merge policy.
	Merge MergePolicy
	// BackgroundMerge runs the merge policy after each flush on a
	// background goroutine (default false: merges happen on MaybeMerge and
	// ForceMerge only, so experiments choose their segment count).
	BackgroundMerge bool
	// IdleMerge (Plain only) is Qdrant's merge optimizer with
	// default_segment_number = IdleMerge: when the indexing optimizer goes
	// idle (its last running job has swapped its graph in) and the
	// collection has more than IdleMerge segments, heads included, a
	// background goroutine force-merges it to IdleMerge segments
	// ([Collection.ForceMerge]: the heads are sealed, the merged segments
	// get a graph past IndexingThreshold). 0: off, merges only on demand.
	IdleMerge int
}

// WithDefaults returns c with zero fields filled.
func (c Config) WithDefaults() Config {
	if c.FS == nil {
		c.FS = vfs.Default
	}
	if c.Graph.M == 0 {
		c.Graph.M = 16
	}
	if c.Graph.EfConstruction == 0 {
		c.Graph.EfConstruction = 100
	}
	if c.BuildWorkers == 0 {
		c.BuildWorkers = engine.Cores()
	}
	if c.FlushDocs == 0 {
		c.FlushDocs = 20000
	}
	if c.Writers == 0 {
		c.Writers = 1
	}
	if c.SearchWorkers == 0 {
		c.SearchWorkers = engine.Cores()
	}
	if c.StoredBlockBytes == 0 {
		c.StoredBlockBytes = 60 << 10
	}
	if c.IndexingThreshold == 0 {
		c.IndexingThreshold = 20000
	}
	if c.IndexChunk == 0 {
		c.IndexChunk = 64
	}
	if c.Heads == 0 {
		c.Heads = 1
	}
	c.Merge = c.Merge.WithDefaults()
	return c
}

// graph is the configuration of segment id's graph.
func (c Config) graph(id uint64) hnsw.Config {
	g := c.Graph
	g.Dim, g.Metric, g.Seed, g.Workers, g.Codes = c.Dim, c.Metric, c.Seed+id, c.BuildWorkers, nil
	return g
}

// Validate reports every invalid field at once.
func (c Config) Validate() error {
	var bad []string
	if c.Dir == "" {
		bad = append(bad, "Dir is empty")
	}
	if c.Dim < 1 {
		bad = append(bad, fmt.Sprintf("Dim must be positive, got %d", c.Dim))
	}
	if !c.Metric.Valid() {
		bad = append(bad, fmt.Sprintf("unknown metric %d", c.Metric))
	}
	if c.Index > IVF {
		bad = append(bad, fmt.Sprintf("unknown index kind %d", c.Index))
	}
	if c.Visibility > Plain {
		bad = append(bad, fmt.Sprintf("unknown visibility %d", c.Visibility))
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"BuildWorkers", c.BuildWorkers}, {"FlushDocs", c.FlushDocs},
		{"Writers", c.Writers}, {"SearchWorkers", c.SearchWorkers}, {"StoredBlockBytes", c.StoredBlockBytes},
		{"IndexingThreshold", c.IndexingThreshold}, {"IndexChunk", c.IndexChunk}, {"Heads", c.Heads}} {
		if f.v < 1 {
			bad = append(bad, fmt.Sprintf("%s must be positive, got %d", f.name, f.v))
		}
	}
	if c.Encoding > lastEncoding {
		bad = append(bad, fmt.Sprintf("unknown encoding %d", c.Encoding))
	}
	switch {
	case c.Encoding.qdrant() && (c.Index != HNSW || c.Visibility != Plain):
		bad = append(bad, fmt.Sprintf("Encoding %s needs the HNSW index and the Plain visibility, got %s and %s", c.Encoding, c.Index, c.Visibility))
	case c.Encoding != Float && !c.Encoding.qdrant() && (c.Index != HNSW || c.Visibility != OnRefresh):
		bad = append(bad, fmt.Sprintf("Encoding %s needs the HNSW index and the OnRefresh visibility, got %s and %s", c.Encoding, c.Index, c.Visibility))
	}
	if c.Quantile != 0 && (c.Encoding != QdrantInt8 || !(c.Quantile >= 0.5 && c.Quantile <= 1)) {
		bad = append(bad, fmt.Sprintf("Quantile %v needs Encoding qdrant-int8 and a value in [0.5, 1] (0: the whole range)", c.Quantile))
	}
	if c.Heads > 1 && c.Visibility != Plain {
		bad = append(bad, fmt.Sprintf("Heads %d needs the Plain visibility, got %s", c.Heads, c.Visibility))
	}
	if err := c.graph(0).WithDefaults().Validate(); err != nil {
		bad = append(bad, "Graph: "+err.Error())
	}
	if c.IdleMerge < 0 || c.IdleMerge > 0 && c.Visibility != Plain {
		bad = append(bad, fmt.Sprintf("IdleMerge must be 0, or positive with the Plain visibility, got %d with %v", c.IdleMerge, c.Visibility))
	}
	if err := c.Merge.Validate(); err != nil {
		bad = append(bad, err.Error())
	}
	if len(bad) > 0 {
		return fmt.Errorf("segment: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}
