package e11

import (
	"fmt"
	"math"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e11 is the article's operating footprint of the four stores (the Spring AI VectorStore article,
// "What each one costs to keep running", 11-ops-footprint.txt).
var e11 = experiment.Experiment{
	ID:      "E11",
	Claims:  claims,
	Title:   "What each store costs to keep running: bytes per document by component (raw vectors, codes, graph links, stored fields, payload indexes), RAM vs disk",
	Article: "Spring AI VectorStore article, 'What each one costs to keep running' (11-ops-footprint.txt): the size of the loaded 30,000 × 384 documents as each store reports it, after loading and querying",
	Figures: []experiment.Figure{
		{Row: "raw vectors (30,000 × 384 float32)", Measure: "size", Value: 46, Unit: "MB"},
		{Row: "pgvector table+toast", Measure: "size", Value: 59, Unit: "MB"},
		{Row: "pgvector hnsw index", Measure: "size", Value: 59, Unit: "MB"},
		{Row: "redis used_memory", Measure: "size", Value: 434, Unit: "MB"},
		{Row: "redis one document", Measure: "bytes/doc", Value: 10600, Unit: "B"},
		{Row: "redis vector_index_sz_mb", Measure: "size", Value: 55.4, Unit: "MB"},
		{Row: "qdrant storage dir", Measure: "size", Value: 144, Unit: "MB"},
		{Row: "elasticsearch store.size", Measure: "size", Value: 54.3, Unit: "MB"},
		// PSS, "the service's processes, read from /proc, after loading
		// and querying".
		{Row: "pgvector", Measure: "PSS", Value: 153, Unit: "MB"},
		{Row: "redis", Measure: "PSS", Value: 422, Unit: "MB"},
		{Row: "qdrant", Measure: "PSS", Value: 172, Unit: "MB"},
		{Row: "elasticsearch", Measure: "PSS", Value: 1550, Unit: "MB"},
	},
}

func init() { e11.Run, e11.Notebook = runE11, "06-footprint.ipynb"; experiment.Register(e11) }

// e11ArticleDocs is the article's document count, which turns its sizes
// into bytes per document.
const e11ArticleDocs = 30000

// The component names of an [Footprint]; a store's own layout overhead
// (modelled) has a name of its own.
const (
	e11RawVectors     = "raw vectors"
	e11Codes          = "quantized codes"
	e11Links          = "graph links"
	e11StoredFields   = "stored fields"
	e11PayloadIndexes = "payload indexes"
)

// Component is one component of a store's footprint in bytes per
// document, where the store keeps it.
type Component struct {
	Group string  // the part of the store the article sized: "table", "index", "document", "segment", …
	Name  string  // e11RawVectors … e11PayloadIndexes, or the store's own overhead
	RAM   float64 // bytes per document held in memory
	Disk  float64 // bytes per document held on disk
	// Model is set when the figure is modelled (Basis says from what and
	// which source it follows) rather than measured from the lab's own
	// structures.
	Model bool
	Basis string
}

// Footprint is one store profile's footprint by component.
type Footprint struct {
	Kind       profile.Kind
	Docs       int // documents measured
	Components []Component
}

// ram returns the bytes per document the store holds in memory.
func (f Footprint) ram() float64 {
	var s float64
	for _, c := range f.Components {
		s += c.RAM
	}
	return s
}

// Disk returns the bytes per document the store holds on disk.
func (f Footprint) Disk() float64 {
	var s float64
	for _, c := range f.Components {
		s += c.Disk
	}
	return s
}

// group returns the RAM and disk bytes per document of one group of
// components (e.g. pgvector's "table").
func (f Footprint) group(group string) (ram, disk float64) {
	for _, c := range f.Components {
		if c.Group == group {
			ram += c.RAM
			disk += c.Disk
		}
	}
	return ram, disk
}

// component returns the named component (the first of that name) and
// whether there is one.
func (f Footprint) component(name string) (Component, bool) {
	for _, c := range f.Components {
		if c.Name == name {
			return c, true
		}
	}
	return Component{}, false
}

// e11Measured is what the lab measures for one store: totals over its
// documents, from its own structures.
type e11Measured struct {
	n, dim, m int
	fp        profile.Footprint // float slabs, links, codes of the built store
	stored    int               // msgpack stored fields (filter.Store.StoredBytes)
	bitmaps   int               // payload indexes: roaring bitmaps (filter.Store.FieldIndexBytes), or all of them (measure.Sizes)
	column    int               // payload index numeric columns
}

// The models' constants; each says what it assumes and what it follows.
const (
	// e11JSONSlot and e11JSONF64 are RedisJSON's in-memory layout of one
	// array element: RedisJSON 2.x keeps documents as ijson values
	// (Diggsey/ijson src/value.rs: an IValue is one 8-byte tagged
	// pointer; src/number.rs: a non-integer number is heap-allocated with
	// a 4-byte header, 16 bytes with the f64). Spring AI's Redis store
	// writes each document as JSON with the embedding as an array of
	// numbers (the article's suspicion, not verified there). Assumes no
	// spare array capacity.
	e11JSONSlot     = 8
	e11JSONF64      = 16
	e11JSONArrayHdr = 16 // ijson array header: length and capacity
	// e11RedisKey is one Redis key's fixed cost: a dictEntry (24 B: key,
	// value, next; redis src/dict.c), a robj (16 B; src/server.h
	// redisObject) and the key string "embedding:<36-char uuid>" as an
	// sds (3-byte header + NUL) in jemalloc's 56-byte class. An
	// approximation: RediSearch's document table entry and allocator
	// slack are not modelled.
	e11RedisKey = 24 + 16 + 56
	// e11QdrantWALSegment is Qdrant's WAL segment size, preallocated on
	// disk (qdrant config/config.yaml storage.wal.wal_capacity_mb: 32).
	e11QdrantWALSegment = 32 << 20
	// e11QdrantWALRecord is a WAL record's overhead besides the point's
	// vector and payload (point id, operation tag, framing): an estimate.
	e11QdrantWALRecord = 32
)

// e11Footprint lays the measured totals out as the store of kind keeps
// them, adding the modelled parts the lab has no structure for.
func e11Footprint(kind profile.Kind, x e11Measured) (Footprint, error) {
	if x.n < 1 || x.dim < 1 || x.m < 1 {
		return Footprint{}, fmt.Errorf("experiment: E11: n %d, dim %d and m %d must be positive: %w", x.n, x.dim, x.m, experiment.ErrBadArgument)
	}
	if x.fp.Vectors < 0 || x.fp.Links < 0 || x.fp.Codes < 0 || x.stored < 0 || x.bitmaps < 0 || x.column < 0 {
		return Footprint{}, fmt.Errorf("experiment: E11: negative sizes %+v: %w", x, experiment.ErrBadArgument)
	}
	n := float64(x.n)
	vecs := float64(x.fp.Vectors) / n
	links := float64(x.fp.Links) / n
	codes := float64(x.fp.Codes) / n
	stored := float64(x.stored) / n
	pidx := float64(x.bitmaps+x.column) / n
	const (
		vecBasis    = "measured: the lab's float32 slab (4·dim per document)"
		linksBasis  = "measured: the lab's HNSW link lists at fixed capacity (2·m+1 words on layer 0, m+1 per upper layer), levels, offsets"
		storedBasis = "measured: the lab's msgpack stored fields (category, year, region; no document text)"
		pidxBasis   = "measured: the lab's roaring bitmaps (category, region) and sorted numeric column (year)"
	)
	f := Footprint{Kind: kind, Docs: x.n}
	add := func(c Component) { f.Components = append(f.Components, c) }
	switch kind {
	case profile.PGVector:
		// Everything on disk in 8 kB pages (shared_buffers caches them).
		tablePages, indexPages := profile.PgPages(x.n, x.dim, x.m)
		heap := float64(tablePages) * 8192 / n
		index := float64(indexPages) * 8192 / n
		add(Component{Group: "table", Name: e11RawVectors, Disk: vecs, Basis: vecBasis + "; the embedding column of each heap row"})
		add(Component{Group: "table", Name: e11StoredFields, Disk: stored, Basis: storedBasis + "; the content and metadata columns"})
		add(Component{Group: "table", Name: "heap tuple and page overhead", Disk: heap - vecs - stored, Model: true,
			Basis: fmt.Sprintf("model: profile.PgPages heap (%d pages of 8 kB: 24-byte tuple header, uuid, vector varlena 8+4·dim, %d B of text+metadata, line pointers, page fill) less the measured parts", tablePages, profile.PgRowExtraBytes)})
		add(Component{Group: "index", Name: e11RawVectors, Disk: vecs, Basis: vecBasis + "; pgvector keeps a second copy in each index element tuple (src/hnsw.h HnswElementTupleData)"})
		add(Component{Group: "index", Name: e11Links, Disk: links, Basis: linksBasis})
		add(Component{Group: "index", Name: "index tuple and page overhead", Disk: index - vecs - links, Model: true,
			Basis: fmt.Sprintf("model: profile.PgPages index (%d pages: element tuple with 10 heap TIDs, neighbour tuple of 2·m 6-byte item pointers, metapage, page fill) less the measured parts", indexPages)})
		add(Component{Group: "table", Name: e11PayloadIndexes, Basis: "none: Spring AI's pgvector store creates no index on the metadata"})
	case profile.Redis:
		// Everything in RAM (an RDB snapshot on disk is not counted).
		jsonVec := float64(x.dim*(e11JSONSlot+e11JSONF64) + e11JSONArrayHdr)
		add(Component{Group: "document", Name: "embedding as a JSON array", RAM: jsonVec, Model: true,
			Basis: fmt.Sprintf("model: RedisJSON's ijson layout, %d B per number (8-byte slot + 16-byte boxed f64) + %d B array header", e11JSONSlot+e11JSONF64, e11JSONArrayHdr)})
		add(Component{Group: "document", Name: e11StoredFields, RAM: stored, Basis: storedBasis + "; Redis keeps them as JSON"})
		add(Component{Group: "document", Name: "key overhead", RAM: e11RedisKey, Model: true,
			Basis: "model: dictEntry 24 B + robj 16 B + key sds 56 B (redis src/dict.c, src/server.h); document table not modelled"})
		add(Component{Group: "vector index", Name: e11RawVectors, RAM: vecs, Basis: vecBasis + "; VecSim's copy of the vector"})
		add(Component{Group: "vector index", Name: e11Links, RAM: links, Basis: linksBasis})
		add(Component{Group: "search index", Name: e11PayloadIndexes, RAM: pidx, Basis: pidxBasis + "; RediSearch's tag and numeric indexes"})
	case profile.Qdrant:
		// Defaults: vectors and graph in RAM and persisted; payload on
		// disk (storage.on_disk_payload: true); payload indexes in RAM
		// and persisted.
		add(Component{Group: "segment", Name: e11RawVectors, RAM: vecs, Disk: vecs, Basis: vecBasis + "; in RAM (on_disk: false) and in the segment's vector storage"})
		add(Component{Group: "segment", Name: e11Links, RAM: links, Disk: links, Basis: linksBasis + "; loaded in RAM and in the segment's links file"})
		add(Component{Group: "segment", Name: e11StoredFields, Disk: stored, Basis: storedBasis + "; Qdrant's payload storage, on disk by default"})
		add(Component{Group: "segment", Name: e11PayloadIndexes, RAM: pidx, Disk: pidx, Basis: pidxBasis + "; the keyword and integer indexes the article created for E08"})
		rec := float64(4*x.dim+e11QdrantWALRecord) + stored
		segs := int((rec*n + e11QdrantWALSegment - 1) / e11QdrantWALSegment)
		add(Component{Group: "wal", Name: "write-ahead log", Disk: float64(segs) * e11QdrantWALSegment / n, Model: true,
			Basis: fmt.Sprintf("model: every upsert still in the WAL (vector, payload, %d B framing) in %d preallocated segment(s) of 32 MiB (config.yaml wal_capacity_mb)", e11QdrantWALRecord, segs)})
	case profile.Elasticsearch:
		// One Lucene segment on disk; at search time the codes and the
		// graph are the off-heap working set (E14); the float32 vectors
		// are read only to rescore.
		add(Component{Group: "store", Name: e11RawVectors, Disk: vecs, Basis: vecBasis + "; Lucene's .vec file, kept for rescoring"})
		add(Component{Group: "store", Name: e11Codes, RAM: codes, Disk: codes, Basis: "measured: the lab's codes of the effective index type (bbq_hnsw at 384 dims: 1-bit OSQ + corrections); page cache at search time"})
		add(Component{Group: "store", Name: e11Links, RAM: links, Disk: links, Basis: linksBasis + "; Lucene's .vex (delta-encoded there, smaller); page cache at search time"})
		add(Component{Group: "store", Name: e11StoredFields, Disk: stored, Basis: storedBasis + "; _source without the vector"})
		add(Component{Group: "store", Name: e11PayloadIndexes, Disk: pidx, Basis: pidxBasis + "; stands for Lucene's postings, points and doc values of the metadata"})
	default:
		return Footprint{}, fmt.Errorf("experiment: E11: no footprint model for store %v: %w", kind, experiment.ErrBadArgument)
	}
	return f, nil
}

// Kinds is the article's store order.
var Kinds = []profile.Kind{profile.PGVector, profile.Redis, profile.Qdrant, profile.Elasticsearch}

// Measure builds each store on its defaults over the environment's
// data set, measures what it holds (measure.Footprint: raw vectors, graph
// links and codes from the built store, stored fields and payload indexes
// from the metadata store) and lays each out by component (Components).
func Measure(env *experiment.Env, kinds []profile.Kind) ([]Footprint, error) {
	if len(kinds) == 0 {
		return nil, fmt.Errorf("experiment: E11: no stores: %w", experiment.ErrBadArgument)
	}
	for _, k := range kinds {
		if _, err := e11Footprint(k, e11Measured{n: 1, dim: 1, m: 1}); err != nil {
			return nil, err
		}
	}
	meta, err := env.Metadata()
	if err != nil {
		return nil, err
	}
	sizes := make([]measure.Sizes, 0, len(kinds))
	for i, k := range kinds {
		env.Step(i, len(kinds), "E11 stores")
		s, err := env.Store(profile.Default(k))
		if err != nil {
			return nil, err
		}
		z, err := measure.Footprint(s, meta)
		if err != nil {
			return nil, fmt.Errorf("experiment: E11: %w", err)
		}
		sizes = append(sizes, z)
	}
	env.Step(len(kinds), len(kinds), "E11 stores")
	return Components(sizes)
}

// Components lays each store's measured sizes (measure.Footprint) out as
// that store keeps them, component by component in bytes per document,
// RAM and disk, adding the parts the lab has no structure for as models
// (each such component has Model set and its Basis): pgvector's pages,
// RedisJSON's document and key, Qdrant's write-ahead log.
func Components(sizes []measure.Sizes) ([]Footprint, error) {
	if len(sizes) == 0 {
		return nil, fmt.Errorf("experiment: E11: no stores measured: %w", experiment.ErrBadArgument)
	}
	out := make([]Footprint, 0, len(sizes))
	for _, z := range sizes {
		f, err := e11Footprint(z.Kind, e11Measured{n: z.Docs, dim: z.Dim, m: z.M,
			fp:     profile.Footprint{Docs: z.Docs, Vectors: z.Vectors, Links: z.Links, Codes: z.Codes},
			stored: int(z.StoredFields), bitmaps: int(z.PayloadIndexes)})
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Table lists every store's components in bytes per document, RAM and
// disk, with whether each is measured or modelled and from what.
func Table(env *experiment.Env, fs []Footprint) *table.Table {
	t := table.New(fmt.Sprintf("E11 bytes per document by component, each store on its defaults (lab: %d × %d)", env.Scale.N, env.Scale.Dim),
		table.Col("store", ""), table.Col("part", ""), table.Col("component", ""))
	t.AddColumns(table.Column{Header: "RAM", Unit: "B/doc", Source: table.Lab, Prec: -1, Align: table.Right},
		table.Column{Header: "disk", Unit: "B/doc", Source: table.Lab, Prec: -1, Align: table.Right},
		table.Col("source", ""), table.Col("basis", ""))
	for _, f := range fs {
		for _, c := range f.Components {
			src := "measured"
			switch {
			case c.Model:
				src = "model"
			case c.RAM == 0 && c.Disk == 0:
				src = "none"
			}
			_ = t.AddValues(f.Kind.String(), c.Group, c.Name, c.RAM, c.Disk, src, c.Basis)
		}
		_ = t.AddValues(f.Kind.String(), "", "total", f.ram(), f.Disk(), "", "")
	}
	t.Note("measured components come from the lab's own structures; 'model' components stand for what a store keeps that the lab does not build (pages, JSON documents, keys, WAL), each with the assumption and source it follows")
	t.Note("the lab's documents carry no text: the article's Spring AI documents also stored a content string, which the lab's stored fields leave out")
	return t
}

// e11Row is one line of the comparison: an article figure and the lab's
// figure of the same quantity.
type e11Row struct {
	label   string
	article experiment.Figure
	lab     float64 // bytes per document
	what    string
}

// Compare puts the lab's totals beside the article's figures, in bytes
// per document (the article's sizes divided by its 30,000 documents) and
// in MB at the lab's scale.
func Compare(env *experiment.Env, fs []Footprint) *table.Table {
	byKind := map[profile.Kind]Footprint{}
	for _, f := range fs {
		byKind[f.Kind] = f
	}
	fig := func(row string) experiment.Figure {
		for _, f := range e11.Figures {
			if f.Row == row {
				return f
			}
		}
		panic("experiment: E11: no article figure " + row)
	}
	var rows []e11Row
	rows = append(rows, e11Row{"raw vectors", fig("raw vectors (30,000 × 384 float32)"), float64(4 * env.Scale.Dim), "4·dim"})
	if f, ok := byKind[profile.PGVector]; ok {
		_, tbl := f.group("table")
		_, idx := f.group("index")
		rows = append(rows, e11Row{"pgvector table", fig("pgvector table+toast"), tbl, "heap pages (model) holding measured vectors and fields"},
			e11Row{"pgvector index", fig("pgvector hnsw index"), idx, "index pages (model) holding measured vectors and links"})
	}
	if f, ok := byKind[profile.Redis]; ok {
		doc, _ := f.group("document")
		vi, _ := f.group("vector index")
		rows = append(rows, e11Row{"redis used_memory", fig("redis used_memory"), f.ram(), "all components, RAM"},
			e11Row{"redis one document", fig("redis one document"), doc, "JSON document (model) + stored fields + key"},
			e11Row{"redis vector index", fig("redis vector_index_sz_mb"), vi, "measured vectors + links"})
	}
	if f, ok := byKind[profile.Qdrant]; ok {
		rows = append(rows, e11Row{"qdrant storage dir", fig("qdrant storage dir"), f.Disk(), "all components, disk"})
	}
	if f, ok := byKind[profile.Elasticsearch]; ok {
		rows = append(rows, e11Row{"elasticsearch store.size", fig("elasticsearch store.size"), f.Disk(), "all components, disk"})
	}
	t := table.New(fmt.Sprintf("E11 the article's sizes beside the lab's totals (article: %d documents; lab: %d)", e11ArticleDocs, env.Scale.N),
		table.Col("quantity", ""))
	t.AddColumns(table.Pair("size", "B/doc", -1)...)
	t.AddColumns(table.Column{Header: "lab/article", Prec: 2, Align: table.Right},
		table.Column{Header: "size", Unit: "MB", Source: table.Article, Prec: 1, Align: table.Right},
		table.Column{Header: "size at lab scale", Unit: "MB", Source: table.Lab, Prec: 1, Align: table.Right},
		table.Col("lab figure", ""))
	// The real pgvector's relations, from pg_relation_size.
	var liveSizes map[string]float64
	if live, err := env.LiveLoad(); err != nil {
		t.Note("real pgvector: %v", err)
	} else if live != nil {
		if sz, err := live.Tab.Sizes(engine.Context()); err != nil {
			t.Note("real pgvector: %v", err)
		} else {
			n := float64(live.Tab.Rows)
			liveSizes = map[string]float64{"pgvector table": float64(sz.Heap+sz.Toast) / n, "pgvector index": float64(sz.Index) / n}
			t.AddColumns(experiment.LiveColumns(env, table.Column{Header: "size", Unit: "B/doc", Prec: -1, Align: table.Right})...)
			t.Note("real pgvector: pg_relation_size of the heap (+ TOAST: %d B), the HNSW index and, not in these rows, the uuid primary key (%.0f B/doc) of Spring AI's table of %d rows", sz.Toast, float64(sz.PrimaryKey)/n, live.Tab.Rows)
		}
	}
	for _, r := range rows {
		art := r.article.Value * 1e6 / e11ArticleDocs
		var artMB any = r.article.Value
		if r.article.Unit == "B" {
			art, artMB = r.article.Value, nil
		}
		vals := []any{r.label, art, r.lab, r.lab / art, artMB, r.lab * float64(env.Scale.N) / 1e6, r.what}
		if liveSizes != nil {
			if v, ok := liveSizes[r.label]; ok {
				vals = append(vals, v)
			} else {
				vals = append(vals, "")
			}
		}
		_ = t.AddValues(vals...)
	}
	t.Note("article B/doc = the article's size ÷ 30,000 (its 'one document = 10600 bytes' is quoted as is); MB at lab scale = lab B/doc × %d documents", env.Scale.N)
	return t
}

// e11Notes explains the big differences between the article and the lab.
func e11Notes(fs []Footprint) []string {
	var notes []string
	for _, f := range fs {
		switch f.Kind {
		case profile.PGVector:
			notes = append(notes, "pgvector: table and index are about the same size because each holds a full copy of the vector (heap row and index element tuple); the lab's pages follow profile.PgPages, which the planner model (E07) also uses")
		case profile.Redis:
			doc, _ := f.group("document")
			emb, _ := f.component("embedding as a JSON array")
			notes = append(notes, fmt.Sprintf("redis: the article's 10.6 KB per document for a 1.5 KB vector is explained, in the lab's model, by Spring AI storing each document as RedisJSON, whose embedding array costs %.0f B (24 B per number instead of 4); the lab's JSON document comes to %.0f B. This follows the article's own unverified suspicion and ijson's layout; it is a model, not a measurement of Redis", emb.RAM, doc))
			notes = append(notes, "redis: the article's used_memory (434 MB = 14.5 KB per document) is more than its one-document figure plus its vector index (10.6 + 1.8 KB); the rest (RediSearch's document table, allocator slack, the server's baseline) is not modelled, so the lab's used_memory total is expected to fall short")
		case profile.Qdrant:
			notes = append(notes, "qdrant: the storage directory holds the segments (vectors, links, payload, payload indexes) and the write-ahead log, whose 32 MiB segments are preallocated (so a small collection pays a whole segment); the lab's WAL is a model and the segments' id trackers and version files are not modelled")
			if l, ok := f.component(e11Links); ok && l.RAM == 0 {
				notes = append(notes, "qdrant: its segments are under indexing_threshold at this scale, so they have no graph (0 B of links), as E08 shows")
			}
		case profile.Elasticsearch:
			notes = append(notes, "elasticsearch: bbq_hnsw keeps the float32 vectors for rescoring and adds 1-bit codes, so the store is about the raw vectors plus a little (as E10 found); the article's 54.3 MB leaves no room for the vector in _source, so the lab counts _source without it")
		}
	}
	return notes
}

func runE11(env *experiment.Env) (*experiment.Report, error) {
	fs, err := Measure(env, Kinds)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e11, env)
	r.AddTable(Compare(env, fs), Table(env, fs))
	for _, n := range e11Notes(fs) {
		r.Note("%s", n)
	}
	var ram []string
	for _, f := range fs {
		ram = append(ram, fmt.Sprintf("%s %.0f B RAM / %.0f B disk", f.Kind, f.ram(), f.Disk()))
	}
	r.Note("per document, lab: %s", strings.Join(ram, "; "))
	r.Verdicts = append(r.Verdicts, Verdicts(env, fs)...)
	return r, nil
}

// Verdicts compares Measure's footprints with the article's sizes,
// per document (the article's MB over its 30,000 documents): the raw
// vectors within 2 % (they are 4·dim bytes), each store's sized part
// within 25 % (the lab models the store's layout, not its allocator or
// page slack), and the article's two orderings (pgvector keeps two
// vector copies of about one size; Redis holds by far the most in RAM).
func Verdicts(env *experiment.Env, fs []Footprint) experiment.Verdicts {
	by := map[profile.Kind]Footprint{}
	for _, f := range fs {
		by[f.Kind] = f
	}
	perDoc := func(row string) float64 {
		f, ok := e11.Figure(row, "size")
		if !ok {
			f, _ = e11.Figure(row, "bytes/doc")
			return f.Value
		}
		return f.Value * 1e6 / e11ArticleDocs
	}
	group := func(k profile.Kind, g string, ram bool) float64 {
		f, ok := by[k]
		if !ok {
			return math.NaN()
		}
		r, d := f.group(g)
		if ram {
			return r
		}
		return d
	}
	total := func(k profile.Kind, ram bool) float64 {
		f, ok := by[k]
		switch {
		case !ok:
			return math.NaN()
		case ram:
			return f.ram()
		}
		return f.Disk()
	}
	raw := float64(4 * env.Scale.Dim)
	pgT, pgI := group(profile.PGVector, "table", false), group(profile.PGVector, "index", false)
	rd := total(profile.Redis, true)
	out := experiment.Verdicts{
		experiment.WithinShare("E11", "raw vectors: 4·dim bytes per document (46 MB / 30,000)", perDoc("raw vectors (30,000 × 384 float32)"), raw, 0.02, "B/doc"),
		experiment.WithinShare("E11", "pgvector's table (heap + TOAST) per document (± 25 %)", perDoc("pgvector table+toast"), pgT, 0.25, "B/doc"),
		experiment.WithinShare("E11", "pgvector's HNSW index per document (± 25 %)", perDoc("pgvector hnsw index"), pgI, 0.25, "B/doc"),
		experiment.Holds("E11", "pgvector's table and index are about one size, each a full vector copy", "59 MB and 59 MB (ratio 1, ± 25 %)",
			fmt.Sprintf("ratio %.2f", pgT/pgI), pgT/pgI <= 1.25 && pgI/pgT <= 1.25, fmt.Sprintf("table %.0f B, index %.0f B per document", pgT, pgI)),
		experiment.WithinShare("E11", "Redis's one document (JSON model) (± 25 %)", perDoc("redis one document"), group(profile.Redis, "document", true), 0.25, "B/doc"),
		experiment.WithinShare("E11", "Redis's vector index per document (± 25 %)", perDoc("redis vector_index_sz_mb"), group(profile.Redis, "vector index", true), 0.25, "B/doc"),
	}
	most := !math.IsNaN(rd)
	for _, k := range []profile.Kind{profile.PGVector, profile.Qdrant, profile.Elasticsearch} {
		most = most && rd > total(k, true)
	}
	out = append(out, experiment.Holds("E11", "Redis holds the most in RAM per document, several times the raw vectors", "434 MB, 9.4× the raw 46 MB",
		fmt.Sprintf("%.0f B/doc, %.1f× the raw %.0f B", rd, rd/raw, raw), most && rd > 4*raw, "compared with the other three stores' RAM and 4× the raw vectors"))
	// used_memory is the documents, the vector index and a remainder
	// (RediSearch's document table, allocator slack, the server's
	// baseline) the lab does not model. The total within ± 25 % (off by
	// 23.5 % at every scale) agreed while its remainder was not
	// reproduced; since this commit the total agrees only when the
	// remainder does too, and the remainder is a verdict of its own.
	docG, idxG := group(profile.Redis, "document", true), group(profile.Redis, "vector index", true)
	artRest := perDoc("redis used_memory") - perDoc("redis one document") - perDoc("redis vector_index_sz_mb")
	rest := experiment.WithinShare("E11", "Redis's used_memory beyond its documents and vector index per document (± 25 %)", artRest, rd-docG-idxG, 0.25, "B/doc")
	if !rest.Agrees {
		rest = experiment.Because(rest, "the lab's remainder is its payload indexes; RediSearch's document table, the allocator's slack and the server's baseline are not modelled")
	}
	v := experiment.WithinShare("E11", "Redis's used_memory per document (± 25 %)", perDoc("redis used_memory"), rd, 0.25, "B/doc")
	if v.Agrees && !rest.Agrees {
		v = experiment.Holds("E11", v.Claim, v.Article, v.Lab, false,
			fmt.Sprintf("counted as differing: off by %.1f %%, inside the ± 25 %% band only because the band is wide, while the part the lab does not model, %.0f B/doc of the article's, is %.0f B/doc in the lab (the next verdict)",
				100*math.Abs(rd/perDoc("redis used_memory")-1), artRest, rd-docG-idxG))
	} else if !v.Agrees && rd < perDoc("redis used_memory") {
		v = experiment.Because(v, "the lab models the documents, keys and vector index; used_memory also counts the allocator's fragmentation and RediSearch's document table, which it does not")
	}
	out = append(out, v, rest,
		experiment.WithinShare("E11", "Qdrant's storage directory per document (± 25 %)", perDoc("qdrant storage dir"), total(profile.Qdrant, false), 0.25, "B/doc"),
		experiment.WithinShare("E11", "Elasticsearch's store per document (± 25 %)", perDoc("elasticsearch store.size"), total(profile.Elasticsearch, false), 0.25, "B/doc"))
	return append(out, processVerdicts(by)...)
}

// processVerdicts judges the article's process memory (PSS after loading
// and querying) by what the lab models of it, the data each store keeps
// resident: its RAM components, or its files where the store caches or
// maps them (PostgreSQL's shared buffers, 128 MB by default, hold the
// table and index; Qdrant and Lucene map their segment files), at the
// article's 30,000 documents, within ± 25 % as E11's sizes. What the lab
// does not model it says when a verdict differs: each process's
// baseline (runtime, allocator, thread stacks) and Elasticsearch's JVM
// with its heap fixed at 1 GB.
func processVerdicts(by map[profile.Kind]Footprint) experiment.Verdicts {
	notModelled := map[profile.Kind]string{
		profile.PGVector:      "PostgreSQL's own processes (postmaster, background workers, each backend's catalog caches)",
		profile.Redis:         "RediSearch's document table, the allocator's slack and the server's baseline (as used_memory's remainder above)",
		profile.Qdrant:        "Qdrant's runtime (its async worker threads, allocator arenas, the WAL's whole 32 MiB segments mapped)",
		profile.Elasticsearch: "the JVM: its heap fixed at 1 GB (-Xmx1g), metaspace, thread stacks and direct buffers; Elasticsearch's data is a small share of its process",
	}
	var out experiment.Verdicts
	for _, k := range Kinds {
		f, ok := by[k]
		if !ok {
			continue
		}
		fig, _ := e11.Figure(k.String(), "PSS")
		res, how := f.ram(), "its RAM components"
		if d := f.Disk(); d > res {
			res, how = d, "its files, cached or mapped"
		}
		lab := res * e11ArticleDocs / 1e6
		v := experiment.Because(experiment.WithinShare("E11", fmt.Sprintf("%s's process memory (PSS) after loading and querying (± 25 %%)", k), fig.Value, lab, 0.25, "MB"),
			fmt.Sprintf("the lab's resident data: %s, %.0f B/doc × %d documents", how, res, e11ArticleDocs))
		if !v.Agrees || k == profile.Redis {
			// Redis's agrees by the band's width while the part of
			// used_memory it does not model differs (the verdicts
			// above): said here too.
			v = experiment.Because(v, "not modelled: "+notModelled[k])
		}
		out = append(out, v)
	}
	return out
}

// Shape is a collection size a footprint is projected to.
type Shape struct{ N, Dim int }

// ProjectShapes are the projections notebook 06 tabulates: the lab's
// scale (a check: it reproduces the measured totals), a million documents,
// and the article's 30,000 and a million at 768 dimensions.
func ProjectShapes(s experiment.Scale) []Shape {
	return []Shape{{s.N, s.Dim}, {1_000_000, s.Dim}, {30_000, 768}, {1_000_000, 768}}
}

// e11Project returns a store's RAM and disk bytes per document at n
// documents of dim dimensions, from its footprint measured at fromDim:
// pgvector from profile.PgPages (with TOAST chunks of 1,996 B when the
// vector leaves the heap row: PostgreSQL's TOAST_MAX_CHUNK_SIZE for 8 kB
// pages), the others component by component (vectors 4·dim, the JSON
// array and codes by dimension, Qdrant's WAL in whole 32 MiB segments),
// the rest per document as measured.
func e11Project(f Footprint, fromDim, n, dim, m int) (ram, disk float64) {
	if f.Kind == profile.PGVector {
		tp, ip := profile.PgPages(n, dim, m)
		pages := float64(tp + ip)
		if float64(tp)*8192/float64(n) < float64(4*dim) { // the vector was moved to TOAST
			const chunk, tupleHdr, linePtr, pageUsable = 1996, 24 + 4 + 4 + 4, 4, 8192 - 24
			rest, perDoc := 8+4*dim, 0.0
			for rest > 0 {
				c := min(rest, chunk)
				perDoc += float64((tupleHdr+c+7)/8*8 + linePtr)
				rest -= c
			}
			pages += math.Ceil(perDoc * float64(n) / pageUsable)
		}
		return 0, pages * 8192 / float64(n)
	}
	var stored float64
	if c, ok := f.component(e11StoredFields); ok {
		stored = c.RAM + c.Disk
	}
	for _, c := range f.Components {
		r, d := c.RAM, c.Disk
		to := func(v float64) (float64, float64) {
			var rr, dd float64
			if r > 0 {
				rr = v
			}
			if d > 0 {
				dd = v
			}
			return rr, dd
		}
		switch c.Name {
		case e11RawVectors:
			r, d = to(float64(4 * dim))
		case "embedding as a JSON array":
			r, d = to(float64(dim*(e11JSONSlot+e11JSONF64) + e11JSONArrayHdr))
		case e11Codes:
			corr := math.Max(r, d) - float64(fromDim)/8
			r, d = to(float64(dim)/8 + corr)
		case "write-ahead log":
			rec := float64(4*dim+e11QdrantWALRecord) + stored
			segs := math.Ceil(rec * float64(n) / e11QdrantWALSegment)
			r, d = to(segs * e11QdrantWALSegment / float64(n))
		}
		ram, disk = ram+r, disk+d
	}
	return ram, disk
}

// Projection tabulates each store's RAM and disk bytes per document
// projected to each shape, and the last shape's total in GB.
func Projection(env *experiment.Env, fs []Footprint, shapes []Shape) *table.Table {
	m := profile.Default(profile.PGVector).M
	t := table.New("E11 projected bytes per document (model from the lab's components; RAM / disk)", table.Col("store", ""))
	for _, s := range shapes {
		t.AddColumns(table.Column{Header: fmt.Sprintf("%d × %d RAM", s.N, s.Dim), Unit: "B/doc", Source: table.Lab, Prec: -1, Align: table.Right},
			table.Column{Header: fmt.Sprintf("%d × %d disk", s.N, s.Dim), Unit: "B/doc", Source: table.Lab, Prec: -1, Align: table.Right})
	}
	if len(shapes) > 0 {
		last := shapes[len(shapes)-1]
		t.AddColumns(table.Column{Header: fmt.Sprintf("%d × %d total", last.N, last.Dim), Unit: "GB", Source: table.Lab, Prec: 2, Align: table.Right})
	}
	for _, f := range fs {
		row := []any{f.Kind.String()}
		var r, d float64
		var n int
		for _, s := range shapes {
			r, d = e11Project(f, env.Scale.Dim, s.N, s.Dim, m)
			n = s.N
			row = append(row, r, d)
		}
		if len(shapes) > 0 {
			row = append(row, (r+d)*float64(n)/1e9)
		}
		_ = t.AddValues(row...)
	}
	t.Note("the first pair is the lab's own scale recomputed by the projection: it reproduces the totals measured above")
	t.Note("GB = (RAM + disk) per document × documents; a component kept in RAM and on disk counts twice")
	return t
}

// Split tabulates each store's RAM and disk per document and how much
// of its total is modelled rather than measured, and charts RAM and disk
// per store.
func Split(env *experiment.Env, fs []Footprint) (*table.Table, *chart.Bars) {
	stores := make([]string, len(fs))
	ramV, diskV := make([]float64, len(fs)), make([]float64, len(fs))
	t := table.New(fmt.Sprintf("E11 RAM and disk per document, measured vs modelled (lab: %d × %d)", env.Scale.N, env.Scale.Dim),
		table.Col("store", ""),
		table.Column{Header: "RAM", Unit: "B/doc", Source: table.Lab, Prec: -1, Align: table.Right},
		table.Column{Header: "disk", Unit: "B/doc", Source: table.Lab, Prec: -1, Align: table.Right},
		table.Column{Header: "measured", Unit: "B/doc", Source: table.Lab, Prec: -1, Align: table.Right},
		table.Column{Header: "modelled", Unit: "B/doc", Source: table.Lab, Prec: -1, Align: table.Right},
		table.Column{Header: "modelled share", Unit: "%", Source: table.Lab, Prec: 1, Align: table.Right})
	for i, f := range fs {
		var meas, mod float64
		for _, c := range f.Components {
			if c.Model {
				mod += c.RAM + c.Disk
			} else {
				meas += c.RAM + c.Disk
			}
		}
		stores[i], ramV[i], diskV[i] = f.Kind.String(), f.ram(), f.Disk()
		_ = t.AddValues(f.Kind.String(), f.ram(), f.Disk(), meas, mod, 100*mod/(meas+mod))
	}
	t.Note("measured + modelled counts a component kept both in RAM and on disk twice (Qdrant's segments, Elasticsearch's codes and links)")
	c := chart.NewBars(fmt.Sprintf("E11 where each store keeps a document (lab, %d × %d)", env.Scale.N, env.Scale.Dim), "bytes per document", stores...)
	c.Add("RAM", ramV)
	c.Add("disk", diskV)
	return t, c
}
