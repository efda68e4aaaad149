package profile

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/filtered"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/segment"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
	"github.com/veclab/veclab/lab/dataset"
)

// BuildOptions tune how [Profile.Build] loads a data set.
type BuildOptions struct {
	// Batch is the number of documents per Ingest call (default 1000, the
	// article's batch).
	Batch int
	// Progress, when set, is called after each batch.
	Progress func(done, total int, what string)
	// Dir, when set, is a directory on the operating system's file
	// system for the store's segment files, instead of an in-memory file
	// system. The collection writes a sealed segment's graph, vectors and
	// ids to its files (engine/segment's crash-safe framing) and searches
	// the copy it holds in memory, so in memory the files are a second
	// copy of every sealed vector; on disk they sit in the page cache,
	// outside the process. The directory must be empty or absent; the
	// caller removes it after Close.
	Dir string
}

// Store is a built (or building) store of one profile: documents are
// ingested in batches under sequential keys 0, 1, 2, … and searched with
// the profile's query plan. Views made by [Store.WithEf] and friends share
// the documents and indexes and differ only in query settings.
//
// Every store is a configuration of one engine/segment collection (on an
// in-memory file system, or in BuildOptions.Dir).
//
// # Visibility
//
// Ingest returns when the emulated store would acknowledge the batch;
// what a search sees at that moment is each store's own rule, a
// [segment.Visibility]:
//
//   - pgvector inserts each row into the heap and the HNSW index in the
//     inserting transaction (segment.OnAdd: one graph growing in place):
//     visible when Ingest returns.
//   - Redis stores the documents at once but indexes their vectors from a
//     queue on a background thread (segment.Queued); a vector search sees
//     only the indexed ones (FT.INFO percent_indexed < 1 meanwhile).
//   - Qdrant appends each batch to its smallest appendable segment, a
//     plain one searched exactly (segment.Plain, default_segment_number
//     of them); the indexing optimizer builds a segment's HNSW graph in
//     the background once it passes indexing_threshold, and a new
//     appendable segment takes the next points. When the indexing
//     optimizer goes idle, the merge optimizer merges the segments down
//     to default_segment_number in the background (segment.Config.
//     IdleMerge; collection status yellow until both are done).
//     [Store.WaitSearchable] waits for both. (Build runs the same merge in
//     WaitSearchable instead, after its last batch, so its segments and
//     their graphs never depend on whether an indexing job ended between
//     two batches.)
//   - Elasticsearch buffers documents, acknowledged but invisible, until a
//     refresh seals the buffer into a segment (segment.OnRefresh) with its
//     quantized codes (bbq_hnsw, int8_hnsw, int4_hnsw); refreshes come
//     every refresh_interval of ingest at the article's rate
//     ([ESIngestRate]), or on Refresh. WaitSearchable refreshes and
//     force-merges down to Profile.Segments when there are more
//     ([ESSegments], 10 by default: the article's load leaves ten).
//
// [Store.WaitSearchable] waits for each store's completion signal (commit,
// percent_indexed = 1, green status, _refresh).
//
// # Concurrency
//
// Search is safe for concurrent use with itself, with Ingest and with the
// background indexers. Ingest calls must not overlap one another.
type Store struct {
	c *core
	// p is this view's profile: the core's, with the query-time settings
	// of WithEf and WithOversample (defaults applied, validated).
	p Profile
	// err is the view's first knob out of range (see KnobError): every
	// verb of the view returns it.
	err error
	// efCall is how the view's breadth was set ("WithEf(5)"; "" for the
	// profile's), for Elasticsearch's num_candidates ≥ k at search.
	efCall string
}

type core struct {
	p   Profile
	dim int

	ingestMu  sync.Mutex // serialises Ingest, and guards refreshes below
	refreshes int64      // Elasticsearch: refresh intervals of emulated ingest time done
	closed    atomic.Bool
	coll      *segment.Collection

	linksMu sync.Mutex                          // serialises payload-link builds, guards links
	links   map[linksKey]*filtered.PayloadGraph // Qdrant's payload-block links built so far (payloadLinks)
}

// ESIngestRate is the ingest rate, in documents per second, at which the
// lab's Elasticsearch store turns refresh_interval into documents: a
// refresh seals the buffer whenever the acknowledged documents cross a
// multiple of ESIngestRate·refresh_interval. It is the article's
// measured bulk rate (01-ingest.txt: 30,000 documents in 9.9 s, 3,039
// docs/s), so at refresh_interval 1s the 30,000 documents flush ten
// segments, as the article's would have, and the last 2,000 are still
// invisible when the last batch is acknowledged. Counting documents
// instead of the lab's own clock keeps the segments the same run after
// run.
const ESIngestRate = 3039

// ESSegments is the Elasticsearch profile's default Segments: the
// segments the article's index held when it was searched, derived from
// Elasticsearch's defaults rather than reported by the article.
//
//   - index.refresh_interval defaults to 1s (IndexSettings
//     INDEX_REFRESH_INTERVAL_SETTING, elastic/elasticsearch 9.x): at the
//     article's 3,039 docs/s ([ESIngestRate]) its 30,000 documents are
//     sealed by nine refreshes of 3,039 during the load and the explicit
//     _refresh after it (2,649 more): ⌈30000/3039⌉ = 10 segments. The
//     indexing buffer (10% of heap) is not reached first.
//   - Elasticsearch's merge policy for an index without @timestamp is
//     Lucene's TieredMergePolicy with segments_per_tier 10,
//     max_merge_at_once 10 and floor_segment 2mb
//     (server/src/main/java/org/elasticsearch/index/MergePolicyConfig.java,
//     DEFAULT_SEGMENTS_PER_TIER, DEFAULT_MAX_MERGE_AT_ONCE,
//     DEFAULT_FLOOR_SEGMENT). TieredMergePolicy.findMerges (apache/lucene
//     lucene/core/src/java/org/apache/lucene/index/TieredMergePolicy.java)
//     allows max(its tiered count, segsPerTier) segments — "allowedSegCount
//     may occasionally be less than segsPerTier if segment sizes are below
//     the floor size" — and Lucene 10 also max(…, targetSearchConcurrency
//     (1 by default)): an index of at most 10 segments is never merged, so
//     the ten flushed segments (about 5 MB each, above the floor) stay.
//   - The article reports no force-merge.
//
// WaitSearchable force-merges only an index with more segments than
// Profile.Segments, the stand-in for TieredMergePolicy's natural merges
// on larger loads; Segments = 1 is the force-merged variant.
const ESSegments = 10

// esCodes is the engine/segment encoding of an Elasticsearch index type
// on an index created by Elasticsearch version (the profile's Version).
//
// int8_hnsw changed quantizer in 9.4. Up to 9.3 its format,
// ES814HnswScalarQuantizedVectorsFormat and then
// ES93HnswScalarQuantizedVectorsFormat, wraps Lucene 9.9's
// Lucene99ScalarQuantizedVectorsFormat (7 bits, confidence interval null):
// segment.Int8. From 9.4 (elastic/elasticsearch issue 139594, "Use new
// OSQ quantization formats for scalar quantized indices", closed
// 2026-04-30; the ES94 formats of PR 141601), an index's int8_hnsw field
// is written by ES94HnswScalarQuantizedVectorsFormat
// (server/src/main/java/org/elasticsearch/index/codec/vectors/es94/),
// whose flat format ES94ScalarQuantizedVectorsFormat maps 7 bits to
// Lucene104ScalarQuantizedVectorsFormat.ScalarEncoding.SEVEN_BIT and
// writes with Lucene104ScalarQuantizedVectorsWriter (apache/lucene 10.4;
// Elasticsearch 9.4.2's build-tools-internal/version.properties names
// Lucene 10.4.0, and the ES94 formats sit beside 9.5's ES950 DiskBBQ
// format in the source): per-vector optimized
// scalar quantization around the segment's centroid, the query
// quantized to the encoding's 7 query bits around it —
// segment.Int8OSQ. int4_hnsw moved the same way: ES94 with 4 bits,
// ScalarEncoding.PACKED_NIBBLE (4-bit documents and queries) —
// segment.Int4OSQ; below 9.4 Lucene 9.9's int4, segment.Int4.
func esCodes(t IndexType, version string) segment.Encoding {
	switch t {
	case BBQHNSW:
		return segment.BBQ
	case Int8HNSW, Int4HNSW:
		old := false // an index created before 9.4: Lucene 9.9's scalar quantizer
		if major, minor, err := esVersion(version); err == nil && (major < 9 || major == 9 && minor < 4) {
			old = true
		}
		switch {
		case t == Int8HNSW && old:
			return segment.Int8
		case t == Int8HNSW:
			return segment.Int8OSQ
		case old:
			return segment.Int4
		}
		return segment.Int4OSQ
	}
	return segment.Float
}

// collectionConfig is the engine/segment configuration of a pgvector,
// Redis or Qdrant store of p for vectors of dim dimensions; idleMerge
// turns Qdrant's merge optimizer on in the background.
func (p Profile) collectionConfig(dim int, idleMerge bool) segment.Config {
	cfg := segment.Config{
		FS: vfs.NewMem(), Dir: "store", Dim: dim, Metric: p.Metric, Index: segment.HNSW,
		Graph: hnsw.Config{M: p.M, M0: p.M0, EfConstruction: p.EfConstruction,
			Selection: hnsw.Heuristic, KeepPruned: p.KeepPruned, NewNodeDegreeL0: p.Degree0},
		BuildWorkers: p.Workers, Seed: p.Seed, SearchWorkers: 1,
		// The head grows until the collection is closed: pgvector and
		// Redis keep one index, Qdrant's heads are sealed by the optimizer.
		FlushDocs: math.MaxInt32,
	}
	switch p.Kind {
	case PGVector:
		cfg.Visibility = segment.OnAdd
	case Redis:
		cfg.Visibility, cfg.IndexChunk = segment.Queued, indexerChunk
	case Qdrant:
		cfg.Visibility, cfg.Heads = segment.Plain, p.Segments
		cfg.IndexingThreshold = max(p.IndexingThresholdKB*1024/(4*dim), 1)
		switch p.Quantization {
		case "int8":
			cfg.Encoding, cfg.Quantile = segment.QdrantInt8, p.Quantile
		case "binary":
			cfg.Encoding = segment.QdrantBinary
		}
		if idleMerge {
			cfg.IdleMerge = p.Segments
		}
	case Elasticsearch:
		cfg.Visibility, cfg.Encoding = segment.OnRefresh, esCodes(p.EffectiveType(dim), p.Version)
		// A cosine float dense_vector reaches Lucene normalised at index
		// time, as a DOT_PRODUCT field (DenseVectorFieldMapper:
		// ElementType.FLOAT.parseKnnVectorAndIndex divides the vector by
		// its length when the similarity is cosine, and
		// VectorSimilarity.COSINE.vectorSimilarityFunction maps it to
		// VectorSimilarityFunction.DOT_PRODUCT for indices created since
		// NORMALIZE_COSINE, 8.12; elastic/elasticsearch 9.x). So bbq_hnsw
		// centres its codes on the plain segment mean: the BBQ writer
		// normalises the centroid for COSINE fields only
		// (ES818BinaryQuantizedVectorsWriter.flush and
		// mergeAndRecalculateCentroids, which the 9.3+
		// ES93BinaryQuantizedVectorsWriter inherits).
		cfg.CosineAsDotProduct = true
	}
	return cfg
}

// esVersion reads the major and minor numbers of an Elasticsearch
// version such as "9.5", "9.5.5" or "8.19.3"; "" is the profile's default,
// 9.5.
func esVersion(v string) (major, minor int, err error) {
	if v == "" {
		return 9, 5, nil
	}
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, fmt.Errorf("version %q: want major.minor[.patch]", v)
	}
	if major, err = strconv.Atoi(parts[0]); err == nil {
		minor, err = strconv.Atoi(parts[1])
	}
	if err != nil || major < 0 || minor < 0 {
		return 0, 0, fmt.Errorf("version %q: want major.minor[.patch]", v)
	}
	return major, minor, nil
}

// indexerChunk is how many queued documents Redis's background indexer
// moves into the graph at a time, so searches interleave with indexing.
const indexerChunk = 64

// Open returns an empty store of the profile for vectors of dim dimensions.
func (p Profile) Open(dim int) (*Store, error) { return p.open(dim, true, "", 0) }

// open opens an empty store; idleMerge runs Qdrant's merge optimizer in
// the background; dir, when not "", puts the collection's files there on
// the operating system's file system (BuildOptions.Dir); docs, when not
// 0, is how many documents are coming (segment.Config.HeadCapacity).
func (p Profile) open(dim int, idleMerge bool, dir string, docs int) (*Store, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if dim < 1 {
		return nil, fmt.Errorf("profile: %s: dimension must be positive, got %d: %w", p.Kind, dim, engine.ErrInvalidArgument)
	}
	cfg := p.collectionConfig(dim, idleMerge)
	if dir != "" {
		cfg.FS, cfg.Dir = vfs.Default, dir
	}
	cfg.HeadCapacity = docs
	return p.openConfig(dim, cfg)
}

// openConfig opens a store of p (with defaults, validated) on the
// collection configuration cfg.
func (p Profile) openConfig(dim int, cfg segment.Config) (*Store, error) {
	c := &core{p: p, dim: dim}
	coll, err := segment.Open(cfg)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.Kind, err)
	}
	c.coll = coll
	return &Store{c: c, p: p}, nil
}

// Build opens a store and ingests base in batches (opt.Batch), then waits
// until everything is searchable: the state the article measured queries
// in. Redis's background indexer and Qdrant's indexing optimizer are
// waited for after each batch (the same graphs, with at most one batch
// queued or one segment being indexed). Qdrant's merge optimizer runs once, after the last batch (not in the
// background), so the segments are the same run after run.
func (p Profile) Build(base *vec.Matrix, opt BuildOptions) (*Store, error) {
	if base == nil || base.N == 0 {
		return nil, fmt.Errorf("profile: %s: nothing to build from: %w", p.Kind, engine.ErrEmpty)
	}
	s, err := p.open(base.Dim, false, opt.Dir, base.N)
	if err != nil {
		return nil, err
	}
	batch := opt.Batch
	if batch <= 0 {
		batch = 1000
	}
	what := "ingest " + s.c.p.Kind.String()
	for lo := 0; lo < base.N; lo += batch {
		hi := min(lo+batch, base.N)
		m := &vec.Matrix{N: hi - lo, Dim: base.Dim, Stride: base.Stride, Data: base.Data[lo*base.Stride:]}
		if err := s.Ingest(m); err != nil {
			s.Close()
			return nil, err
		}
		if k := s.c.p.Kind; k == Redis || k == Qdrant {
			// Redis's indexer takes the queue in key order whenever it
			// runs, and Qdrant's segments are cut by the batches'
			// routing, not by when the optimizer finishes one: waiting
			// for them after each batch builds the same graphs. Not
			// waiting lets Redis's queue hold every vector beside the
			// graph's slab, and Qdrant's optimizer build the graphs of
			// every full segment at once, each beside its plain rows
			// (a second copy of the collection in memory either way).
			if err := s.c.coll.WaitIndexed(); err != nil {
				s.Close()
				return nil, fmt.Errorf("profile %s: %w", s.c.p.Kind, err)
			}
		}
		if opt.Progress != nil {
			opt.Progress(hi, base.N, what)
		}
	}
	if err := s.WaitSearchable(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Profile returns the profile of this view, with its overrides applied.
func (s *Store) Profile() Profile { return s.p }

// Dim returns the vector dimension.
func (s *Store) Dim() int { return s.c.dim }

// WithEf returns a view whose query breadth is ef under the store's own
// name: pgvector hnsw.ef_search (1…1000), Redis EF_RUNTIME (≥ 1), Qdrant
// hnsw_ef (≥ 1), Elasticsearch num_candidates (k…10000, k checked at
// search). A value out of the store's range makes a view whose verbs
// all answer a [KnobError] naming WithEf(ef), the range and the store's
// rule (see [Store.Err]); the store s itself keeps its defaults.
func (s *Store) WithEf(ef int) *Store {
	v := *s
	if v.err != nil {
		return &v // the first bad knob stays the view's error
	}
	if e := checkEf(s.c.p.Kind, ef); e != nil {
		v.err = e
		return &v
	}
	v.p.Ef, v.efCall = ef, fmt.Sprintf("WithEf(%d)", ef)
	return &v
}

// WithIterativeScan returns a view with pgvector 0.8's
// hnsw.iterative_scan set, as SET hnsw.iterative_scan = mode sets it for
// a session: "off" (the default: one index scan of ef_search rows, the
// filter afterwards), "relaxed_order" or "strict_order" (the scan goes
// on in batches until LIMIT rows pass the filter; see
// Profile.IterativeScan). A filtered search on the view ([Store.SearchFilter],
// measure.Store with Queries.Where) runs that scan where PostgreSQL's
// planner keeps the index. The other stores have no such setting;
// a bad mode makes a view whose verbs all answer a [KnobError].
func (s *Store) WithIterativeScan(mode string) *Store {
	v := *s
	if v.err != nil {
		return &v
	}
	if e := checkIterativeScan(s.c.p.Kind, fmt.Sprintf("WithIterativeScan(%q)", mode), mode); e != nil {
		v.err = e
		return &v
	}
	v.p.IterativeScan = mode
	return &v
}

// WithOversample returns a view with Elasticsearch's oversample of a
// quantized search set: the x·k best candidates by their codes are
// re-ranked with float32 vectors (rescore_vector.oversample); 0 turns it
// off, as in Elasticsearch 9.1+, and values in (0, 1) are refused as
// Elasticsearch refuses them. The other stores have no such knob. A bad
// value makes a view whose verbs all answer a [KnobError] (see
// [Store.Err]).
func (s *Store) WithOversample(x float64) *Store {
	v := *s
	if v.err != nil {
		return &v
	}
	if e := checkOversample(s.p, "WithOversample("+strconv.FormatFloat(x, 'g', -1, 64)+")", x); e != nil {
		v.err = e
		return &v
	}
	v.p.Oversample = x
	if x == 0 {
		v.p.Oversample = -1 // Profile.Oversample: negative is "none", 0 the default
	}
	return &v
}

// WithRescore returns a view of a Qdrant store with quantization whose
// searches set params.quantization.rescore: true rescores each
// segment's ⌊oversampling·limit⌋ candidates with the original vectors,
// false returns the quantized scores (Profile.Rescore; Qdrant's default
// is false for int8, true for binary). The other stores, and Qdrant
// without quantization, have no such setting; the view's verbs then
// answer a [KnobError].
func (s *Store) WithRescore(on bool) *Store {
	v := *s
	if v.err != nil {
		return &v
	}
	val := strconv.FormatBool(on)
	if e := checkRescore(s.p, "WithRescore("+val+")", val); e != nil {
		v.err = e
		return &v
	}
	v.p.Rescore = val
	return &v
}

// WithFetch returns a view whose Elasticsearch searches read each hit's
// id as mode says (Profile.Fetch): "stored_fields" from the stored
// fields, where _id sits beside the document's _source in compressed
// blocks (Elasticsearch's default hit: every hit's block decompressed,
// counted in QueryStats.Decompressed), or "docvalue_fields" from a
// doc-values column (the article's "id isolated"; the lab's default).
// The store keeps every document's source (dataset.Document) in its
// stored fields as Elasticsearch keeps _source. The other stores return
// ids with the vector search and have no such setting; a bad mode makes
// a view whose verbs all answer a [KnobError].
func (s *Store) WithFetch(mode string) *Store {
	v := *s
	if v.err != nil {
		return &v
	}
	if e := checkFetch(s.c.p.Kind, fmt.Sprintf("WithFetch(%q)", mode), mode); e != nil {
		v.err = e
		return &v
	}
	v.p.Fetch = mode
	return &v
}

// Err returns the view's first knob out of range (a *[KnobError]), or
// nil: what every verb of the view would answer.
func (s *Store) Err() error { return s.err }

// Len returns the number of documents ingested (acknowledged).
func (s *Store) Len() int { return s.c.coll.Acknowledged() }

// Indexed returns the number of documents in a graph.
func (s *Store) Indexed() int {
	n := 0
	for _, g := range s.c.coll.Segments() {
		if g.Index == segment.HNSW {
			n += g.Docs - g.Deleted
		}
	}
	return n
}

// Visible returns the number of documents a search sees now.
func (s *Store) Visible() int { return s.c.coll.Searchable() }

// SegmentInfo describes one segment of a store.
type SegmentInfo struct {
	Docs    int // documents in the segment
	Indexed int // of which in its HNSW graph
}

// Segments describes the store's segments (Redis: the documents still
// queued count in its one segment's Docs).
func (s *Store) Segments() []SegmentInfo {
	segs := s.c.coll.Segments()
	out := make([]SegmentInfo, len(segs))
	for i, g := range segs {
		out[i].Docs = g.Docs - g.Deleted
		if g.Index == segment.HNSW {
			out[i].Indexed = out[i].Docs
		}
	}
	if s.c.p.Kind == Redis && len(out) > 0 {
		out[len(out)-1].Docs += s.Len() - s.Visible()
	}
	return out
}

// BytesPerVector returns the resident bytes per document of the float32
// vectors, the graph links and, for quantized types, the codes.
func (s *Store) BytesPerVector() float64 {
	f := s.Footprint()
	if f.Docs == 0 {
		return 0
	}
	return float64(f.Vectors+f.Links+f.Codes) / float64(f.Docs)
}

// Footprint is what a store's vector structures hold in memory, in bytes
// summed over its segments (see [Store.Footprint]).
type Footprint struct {
	Docs    int   // documents counted: in a graph or in a plain segment
	Vectors int64 // float32 vectors: the graphs' slabs and the plain segments' rows
	Links   int64 // graph link lists at their fixed capacity, node levels and upper-layer offsets
	Codes   int64 // quantized codes attached to the graphs (Elasticsearch's quantized types)
}

// Footprint measures the store's vector structures by component: the
// float32 slabs (hnsw.Index.Vectors, the plain segments' rows), the
// graph's share of hnsw.Index.BytesPerVector (GraphBytesPerVector) and
// the attached codes (CodeStore.BytesPerVector per indexed document).
// Vectors+Links+Codes equals BytesPerVector·Docs.
func (s *Store) Footprint() Footprint {
	var f Footprint
	coll := s.c.coll
	for i := range coll.Segments() {
		d, err := coll.Segment(i)
		if err != nil {
			break // the list shrank under a merge: count what is left
		}
		f.Docs += d.Docs
		if g, ok := d.Index.(*hnsw.Index); ok {
			f.Vectors += int64(4*g.Vectors().Stride) * int64(d.Docs)
			f.Links += int64(math.Round(g.GraphBytesPerVector() * float64(d.Docs)))
			if cs := g.Codes(); cs != nil {
				f.Codes += int64(math.Round(cs.BytesPerVector() * float64(d.Docs)))
			}
			continue
		}
		f.Vectors += int64(4*s.c.dim) * int64(d.Docs)
	}
	return f
}

// Ingest adds the rows of m as the next documents (keys Len(), Len()+1,
// …) and returns when the store would acknowledge the batch. The batch is
// checked first: a bad row rejects the whole batch and nothing of it is
// stored.
func (s *Store) Ingest(m *vec.Matrix) error {
	c := s.c
	if s.err != nil {
		return s.err
	}
	if c.closed.Load() {
		return fmt.Errorf("profile %s: ingest: %w", c.p.Kind, engine.ErrClosed)
	}
	if m == nil || m.N == 0 {
		return nil
	}
	if m.Dim != c.dim {
		return fmt.Errorf("profile: %s: batch has %d dimensions, store has %d: %w", c.p.Kind, m.Dim, c.dim, engine.ErrDimension)
	}
	for i := 0; i < m.N; i++ {
		if err := engine.CheckVector(m.Row(i), c.dim, c.p.Metric); err != nil {
			return fmt.Errorf("profile %s: batch row %d: %w", c.p.Kind, i, err)
		}
	}
	c.ingestMu.Lock()
	defer c.ingestMu.Unlock()
	first := uint64(c.coll.Acknowledged())
	docs := make([]segment.Doc, m.N)
	for i := range docs {
		docs[i] = segment.Doc{Key: first + uint64(i), Vector: m.Row(i)}
		if c.p.Kind == Elasticsearch {
			// Elasticsearch keeps each document's _source (and _id) in
			// its stored fields: what a fetch of stored_fields reads.
			docs[i].Source = dataset.Document(int(docs[i].Key))
		}
	}
	if err := c.coll.Add(docs); err != nil {
		return fmt.Errorf("profile %s: ingest: %w", c.p.Kind, err)
	}
	if c.p.Kind == Elasticsearch {
		// A refresh for every refresh_interval of ingest at the article's
		// rate that this batch completed.
		per := float64(ESIngestRate) * c.p.RefreshInterval.Seconds()
		if per >= 1 {
			if t := int64(float64(c.coll.Acknowledged()) / per); t > c.refreshes {
				c.refreshes = t
				if err := c.coll.Refresh(); err != nil {
					return fmt.Errorf("profile %s: refresh: %w", c.p.Kind, err)
				}
			}
		}
	}
	return nil
}

// Refresh publishes every acknowledged document (Elasticsearch _refresh);
// for the other stores it is a no-op.
func (s *Store) Refresh() error {
	if s.err != nil {
		return s.err
	}
	if s.c.p.Kind != Elasticsearch {
		return nil
	}
	if err := s.c.coll.Refresh(); err != nil {
		return fmt.Errorf("profile %s: refresh: %w", s.c.p.Kind, err)
	}
	return nil
}

// WaitSearchable blocks until every acknowledged document is searchable
// the way the store reports completion: pgvector (already committed),
// Redis percent_indexed = 1, Qdrant status green (the indexing optimizer
// idle, then the merge optimizer down to default_segment_number: waited
// for when it runs in the background, run here when it has not),
// Elasticsearch after an explicit _refresh (then a force-merge to
// Profile.Segments if there are more: the article's load leaves ten,
// [ESSegments], which its merge policy keeps).
func (s *Store) WaitSearchable() error {
	c := s.c
	if s.err != nil {
		return s.err
	}
	if c.closed.Load() {
		return fmt.Errorf("profile %s: %w", c.p.Kind, engine.ErrClosed)
	}
	if c.p.Kind == Elasticsearch {
		if err := s.Refresh(); err != nil {
			return err
		}
	}
	if err := c.coll.WaitIndexed(); err != nil {
		return fmt.Errorf("profile %s: %w", c.p.Kind, err)
	}
	if (c.p.Kind == Qdrant || c.p.Kind == Elasticsearch) && len(c.coll.Segments()) > c.p.Segments {
		// Elasticsearch: _forcemerge?max_num_segments (the merge retrains
		// the quantizer, bbq's from its sources' centroids, and builds the
		// graph over the codes). Qdrant: the
		// merge optimizer (lib/collection/src/collection_manager/
		// optimizers/merge_optimizer.rs) merges segments while there are
		// more than default_segment_number; the merged segment gets a
		// graph when it passes indexing_threshold.
		c.ingestMu.Lock()
		err := c.coll.ForceMerge(c.p.Segments)
		c.ingestMu.Unlock()
		if err != nil {
			return fmt.Errorf("profile %s: merge: %w", c.p.Kind, err)
		}
	}
	return nil
}

// Close stops the background work. The store must not be used afterwards.
func (s *Store) Close() error {
	c := s.c
	if c.closed.Swap(true) {
		return nil
	}
	return c.coll.Close()
}

// QueryStats are the counters of one store search.
type QueryStats struct {
	DistComps int  // distance computations (graph, exact scans and rescoring)
	Rescored  int  // candidates rescored with float32 vectors
	Exact     bool // some segment was searched exactly (Qdrant plain segment)
	// Leaves counts how the segments' filtered searches went
	// ([Store.SearchFiltered]; zero otherwise).
	Leaves LeafPaths
	// Plan is the query plan the search ran ([Profile.Plan] of the
	// view's profile), computed once per search.
	Plan Plan
	// Decompressed counts the stored-field bytes the fetch decompressed
	// to read the hits' ids (Elasticsearch with fetch stored_fields;
	// 0 otherwise), Blocks the blocks.
	Decompressed int64
	Blocks       int
}

// LeafPaths counts the segments of a filtered Elasticsearch search by
// the path Lucene 10.3 took in each (a segment re-entered by the
// optimistic collection counts once per pass): Exhaustive when the
// reader scored every match (ln(size)·k ≥ matches), FilteredWalk for
// the filtered graph searcher (the acorn heuristic), Graph for the plain
// walk, ExactFallback for AbstractKnnVectorQuery's exact search (matches
// ≤ the leaf's k, or a walk cut short by its visit limit).
type LeafPaths struct{ Exhaustive, FilteredWalk, Graph, ExactFallback int }

// Add accumulates o into l.
func (l *LeafPaths) Add(o LeafPaths) {
	l.Exhaustive += o.Exhaustive
	l.FilteredWalk += o.FilteredWalk
	l.Graph += o.Graph
	l.ExactFallback += o.ExactFallback
}

// String names the paths taken, the most frequent first, e.g.
// "exhaustive ×10" or "filtered walk ×1".
func (l LeafPaths) String() string {
	type kv struct {
		name string
		n    int
	}
	all := []kv{{"exhaustive", l.Exhaustive}, {"filtered walk", l.FilteredWalk}, {"graph walk", l.Graph}, {"exact", l.ExactFallback}}
	slices.SortStableFunc(all, func(a, b kv) int { return b.n - a.n })
	var parts []string
	for _, p := range all {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%s ×%d", p.name, p.n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Search returns up to k documents nearest to q under the view's query
// plan (see [Profile.Plan]); Result.ID is the document key (its ingest
// position). Fewer than k results is the store's behaviour (pgvector with
// k > ef_search), not an error.
func (s *Store) Search(q []float32, k int) ([]engine.Result, error) {
	res, _, err := s.SearchStats(q, k)
	return res, err
}

// SearchStats is Search with its counters.
func (s *Store) SearchStats(q []float32, k int) ([]engine.Result, QueryStats, error) {
	return s.search("Search(q, %d)", q, k, nil)
}

// SearchFiltered is SearchStats restricted to the documents whose key
// accept allows, searched as the store searches a kNN query with a
// filter over its segments. Only Elasticsearch's is emulated this way,
// over every segment as ingested (Lucene 10.3's per-segment rules, see
// engine/segment Options.Filter, under the profile's FilterHeuristic);
// the other stores' filtered searches are their strategies over one
// graph ([Store.Filtered]).
func (s *Store) SearchFiltered(q []float32, k int, accept func(key uint64) bool) ([]engine.Result, QueryStats, error) {
	if s.err != nil {
		return nil, QueryStats{}, s.err
	}
	if s.c.p.Kind != Elasticsearch {
		return nil, QueryStats{}, fmt.Errorf("profile %s: SearchFiltered emulates Elasticsearch only (use Filtered and SearchFilter): %w", s.c.p.Kind, engine.ErrInvalidArgument)
	}
	if accept == nil {
		return nil, QueryStats{}, fmt.Errorf("profile %s: SearchFiltered: nil filter: %w", s.c.p.Kind, engine.ErrInvalidArgument)
	}
	return s.search("SearchFiltered(q, %d, accept)", q, k, accept)
}

// search runs one top-k query; verb is how the caller's call prints, with
// a %d for k (for the errors of a k out of range).
func (s *Store) search(verb string, q []float32, k int, accept func(key uint64) bool) ([]engine.Result, QueryStats, error) {
	c := s.c
	var st QueryStats
	if e := s.searchErr(verb, k); e != nil {
		return nil, st, e
	}
	if c.closed.Load() {
		return nil, st, fmt.Errorf("profile %s: search: %w", c.p.Kind, engine.ErrClosed)
	}
	// k and q are checked once, by engine/segment's Search.
	p := s.p
	pl := p.Plan(k, c.dim)
	st.Plan = pl
	// Every segment is searched for the plan's candidates at its beam and
	// the lists merged (pgvector and Redis have one; Qdrant's plain
	// segments are scanned exactly). Elasticsearch's quantized segments
	// gather k' each over the codes and the best k' of all are rescored
	// with float32 (pl.Rescore, RescoreKnnVectorQuery).
	o := segment.Options{K: pl.Candidates, Ef: pl.Ef}
	if c.p.Kind == Elasticsearch {
		// Lucene 10.3+ (Elasticsearch 9.2+) collects across segments
		// optimistically: each segment searched for its pro-rata share
		// of num_candidates, then the segments whose every hit reached
		// the merged top k (k' when rescoring) searched again, seeded,
		// for num_candidates (engine/segment Options.Optimistic). Its
		// result does not depend on intra-query concurrency (no state is
		// shared between the segments' searches), so the lab searches
		// them in turn. Before 9.2 (Lucene 9) every segment is searched
		// for the whole num_candidates and the lists merged (optimistic).
		o.Optimistic = p.optimistic()
		// 9.3+ indices end each segment's walk early by default
		// (index.dense_vector.hnsw_enable_early_termination).
		o.Patience = p.Patience()
		o.Filter, o.FilteredSearchThreshold = accept, p.FilteredSearchThreshold()
		o.K, o.Rescore = k, pl.Rescore
		if p.Fetch == "stored_fields" {
			o.Fetch = segment.IDsFromStored
		}
	}
	if c.p.Kind == Qdrant && pl.Rescore > 0 {
		// Each quantized segment rescores its own oversampled top and
		// keeps the limit best (postprocess_search_result).
		o.K, o.Rescore, o.RescoreEach = k, pl.Rescore, true
	}
	hits, sst, err := c.coll.Search(q, o)
	st.DistComps, st.Exact, st.Rescored = sst.DistComps, sst.Exact > 0, sst.Rescored
	st.Leaves = LeafPaths{sst.Exhaustive, sst.FilteredWalk, sst.Graph, sst.ExactFallback}
	st.Decompressed, st.Blocks = sst.Decompressed, sst.Blocks
	if errors.Is(err, engine.ErrEmpty) {
		return nil, st, nil // nothing searchable yet
	}
	if err != nil {
		return nil, st, fmt.Errorf("profile %s: %w", c.p.Kind, err)
	}
	out := make([]engine.Result, 0, min(len(hits), pl.Limit))
	for _, h := range hits {
		if len(out) == pl.Limit {
			break
		}
		out = append(out, engine.Result{ID: engine.ID(h.Key), Dist: h.Dist})
	}
	return out, st, nil
}

// normalize scales v to unit length in place (v is checked non-zero).
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}
