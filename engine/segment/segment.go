package segment

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/internal/blockfile"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// File names and magics. Part of the file format; never change.
const (
	segMagic = "VLSEG\x00\x00\x00"
	// segVersion history: 1 = META of 18 bytes, no codes; 2 = META of 19
	// bytes (the encoding last) and a QUNT section for quantized
	// segments. Version 1 files are not read (no commit of them is kept
	// anywhere).
	segVersion  = 2
	liveMagic   = "VLLIVE\x00\x00"
	liveVersion = 1
)

func segName(dir string, id uint64) string   { return fmt.Sprintf("%s/_%d.seg", dir, id) }
func graphName(dir string, id uint64) string { return fmt.Sprintf("%s/_%d.hnsw", dir, id) }
func liveName(dir string, id uint64, gen int) string {
	return fmt.Sprintf("%s/_%d_%d.liv", dir, id, gen)
}

// segment is one immutable segment: its documents' keys (the id column),
// vectors, index and stored fields. Only its live-document bitset changes,
// and that by copy: a deletion makes a new *segment value sharing
// everything else, so a search's snapshot never sees a half-applied delete.
type segment struct {
	id    uint64
	n     int
	keys  []uint64 // the id column (doc values): local id → key
	vecs  *vec.Matrix
	index engine.Index // every search goes through it
	kind  IndexKind
	// graph is index when kind is HNSW: the file it saves to, and the
	// float32 vectors a quantized search rescores with.
	graph *hnsw.Index
	// lists is an IVF segment's list count: Options.Visit is a fraction
	// of it.
	lists  int
	enc    Encoding     // the codes the graph is searched over (Float: none)
	codes  *quant.Store // with enc != Float
	stored *storedIndex
	// live is nil when no document is deleted.
	live    *engine.Bitset
	deleted int
	delGen  int // generation of the committed .liv file (0: none)
	dirty   bool
	// mutable marks a value of the head segment: its index may hold more
	// documents than n (searches are limited to the first n), and its
	// stored fields are srcs, not yet compressed.
	mutable bool
	srcs    [][]byte
}

func (s *segment) liveCount() int { return s.n - s.deleted }

// withDeleted returns a copy of s with local ids deleted.
func (s *segment) withDeleted(ids []uint32) *segment {
	c := *s
	c.live = engine.NewBitset(s.n)
	if s.live != nil {
		s.live.ForEach(func(id engine.ID) { c.live.Set(id) })
	} else {
		for i := 0; i < s.n; i++ {
			c.live.Set(engine.ID(i))
		}
	}
	for _, id := range ids {
		if c.live.Allowed(engine.ID(id)) {
			c.live.Clear(engine.ID(id))
			c.deleted++
		}
	}
	c.dirty = true
	return &c
}

// buildSegment indexes docs (already validated; vectors as given) as
// segment id; merged says the segment comes from a merge, whose graph a
// quantized collection builds over the codes. q, when not nil, is the
// merged segment's quantizer (mergeQuantizer); otherwise one is trained
// on vecs.
func buildSegment(cfg Config, id uint64, keys []uint64, vecs *vec.Matrix, sources [][]byte, merged bool, q quant.Quantizer) (*segment, error) {
	s := &segment{id: id, n: len(keys), keys: keys, kind: cfg.Index}
	switch cfg.Index {
	case HNSW:
		hc := cfg.graph(id)
		if cfg.Encoding != Float {
			if q == nil {
				var err error
				if q, err = trainQuantizer(cfg, id, vecs); err != nil {
					return nil, err
				}
			}
			s.enc, s.codes = cfg.Encoding, quant.NewStore(q)
			if merged || cfg.Encoding.qdrant() {
				// Lucene builds a merged graph over the codes; Qdrant
				// every graph (see QdrantInt8).
				hc.Codes = s.codes
			}
		}
		ix, err := hnsw.New(hc)
		if err != nil {
			return nil, fmt.Errorf("segment: %w", err)
		}
		rows := make([]uint64, len(keys))
		for i := range rows {
			rows[i] = uint64(i)
		}
		add := ix.AddBatch
		if merged && vecs.Stride == vecs.Dim {
			// A merge gathered these rows for this graph alone: it
			// takes them as its slab (the sources stay as they are).
			add = ix.AddBatchInPlace
		}
		if err := add(rows, vecs); err != nil {
			return nil, fmt.Errorf("segment %d: %w", id, err)
		}
		if s.codes != nil {
			if hc.Codes == nil {
				// Flushed: the graph was built over float32 vectors; the
				// codes are attached for searching.
				if err := ix.AttachCodes(s.codes); err != nil {
					return nil, fmt.Errorf("segment %d: %w", id, err)
				}
			}
			s.codes.DropBuildCodes()
		}
		s.index, s.graph, s.vecs = ix, ix, ix.Vectors()
	case Flat:
		ix, err := flat.New(vecs, flat.Config{Metric: cfg.Metric, Workers: 1})
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", id, err)
		}
		s.index, s.vecs = ix, vecs
	case IVF:
		ix, err := buildIVF(cfg, id, vecs)
		if err != nil {
			return nil, err
		}
		s.index, s.lists, s.vecs = ix, ix.Nlist(), vecs
	}
	sw := storedWriter{blockBytes: cfg.StoredBlockBytes}
	for i, k := range keys {
		var src []byte
		if sources != nil {
			src = sources[i]
		}
		if err := sw.add(k, src); err != nil {
			return nil, err
		}
	}
	if err := sw.cut(); err != nil {
		return nil, err
	}
	s.stored = &storedIndex{n: sw.n, first: sw.first, offs: sw.offs, data: sw.data}
	return s, nil
}

// trainQuantizer fits the encoding's quantizer on a segment's vectors,
// seeded by the segment (Lucene computes a segment's quantiles or
// centroid from its own vectors at flush, and at a merge that cannot
// combine its sources' centroids: see mergeQuantizer).
func trainQuantizer(cfg Config, id uint64, vecs *vec.Matrix) (quant.Quantizer, error) {
	var q quant.Quantizer
	var err error
	switch cfg.Encoding {
	case Int8:
		q, err = quant.TrainScalar(vecs, cfg.Metric, quant.ScalarConfig{Bits: 7, Seed: cfg.Seed + id})
	case Int4:
		q, err = quant.TrainScalar(vecs, cfg.Metric, quant.ScalarConfig{Bits: 4, Seed: cfg.Seed + id})
	case BBQ, Int8OSQ, Int4OSQ:
		q, err = quant.TrainOSQ(vecs, cfg.Metric, osqConfig(cfg, id))
	case QdrantInt8:
		// Every vector of the segment (EncodedVectorsU8::encode).
		q, err = quant.TrainQdrantScalar(vecs, cfg.Metric, quant.QdrantScalarConfig{Quantile: cfg.Quantile, Seed: cfg.Seed + id})
	case QdrantBinary:
		q, err = quant.TrainBinary(vecs, cfg.Metric, quant.BinaryConfig{Encoding: quant.OneBit})
	default:
		return nil, fmt.Errorf("segment: %d: unknown encoding %d: %w", id, cfg.Encoding, engine.ErrInvalidArgument)
	}
	if err != nil {
		return nil, fmt.Errorf("segment %d: training the %s quantizer: %w", id, cfg.Encoding, err)
	}
	return q, nil
}

// osqConfig is the OSQ configuration of a BBQ, Int8OSQ or Int4OSQ
// segment. BBQ: 1-bit documents, 4-bit queries, Σq stored as a short
// (ES818BinaryQuantizedVectorsWriter, elastic/elasticsearch 9.x).
// Int8OSQ: 7-bit documents and 7-bit queries (ScalarEncoding.SEVEN_BIT);
// Int4OSQ: 4-bit documents and 4-bit queries (PACKED_NIBBLE) — an
// encoding's query bits are its bits unless it names others (apache/lucene
// 10.4 Lucene104ScalarQuantizedVectorsFormat.ScalarEncoding; Elasticsearch
// 9.4+'s ES94ScalarQuantizedVectorsFormat quantizes the query with
// getQueryBits()), Σq stored as an int (Lucene104ScalarQuantizedVectorsWriter).
// All centre on the plain mean of the segment's vectors when the field is
// Elasticsearch's cosine-as-DOT_PRODUCT, on that mean normalised when
// Lucene sees the field as COSINE (the writers' flush).
func osqConfig(cfg Config, id uint64) quant.OSQConfig {
	c := quant.OSQConfig{Bits: 1, QueryBits: 4, Seed: cfg.Seed + id, MeanCentroid: cfg.CosineAsDotProduct}
	switch cfg.Encoding {
	case Int8OSQ:
		c.Bits, c.QueryBits, c.IntSum = 7, 7, true
	case Int4OSQ:
		c.Bits, c.QueryBits, c.IntSum = 4, 4, true
	}
	return c
}

// buildIVF clusters a segment's vectors (IVF-Flat, DiskBBQ's 384 vectors
// per list, the segment's seed), the same lists at build and at open.
func buildIVF(cfg Config, id uint64, vecs *vec.Matrix) (*ivf.Index, error) {
	ix, err := ivf.Build(vecs, ivf.Config{Metric: cfg.Metric, Seed: cfg.Seed + id, Workers: cfg.BuildWorkers})
	if err != nil {
		return nil, fmt.Errorf("segment %d: %w", id, err)
	}
	return ix, nil
}

// write saves the segment's files: the graph (HNSW) and the segment file,
// each atomically; the segment file last, so that a segment file on disk
// always has its graph beside it.
func (s *segment) write(cfg Config) error {
	if s.graph != nil {
		if err := s.graph.Save(cfg.FS, graphName(cfg.Dir, s.id)); err != nil {
			return fmt.Errorf("segment %d: %w", s.id, err)
		}
	}
	path := segName(cfg.Dir, s.id)
	w, err := blockfile.Create(cfg.FS, path, segMagic, segVersion)
	if err != nil {
		return fmt.Errorf("segment %d: %w", s.id, err)
	}
	defer w.Abort()
	le := binary.LittleEndian
	meta := le.AppendUint64(nil, s.id)
	meta = le.AppendUint32(meta, uint32(s.n))
	meta = le.AppendUint32(meta, uint32(cfg.Dim))
	meta = append(meta, byte(cfg.Metric), byte(s.kind), byte(s.enc))
	keys := make([]byte, 0, 8*s.n)
	for _, k := range s.keys {
		keys = le.AppendUint64(keys, k)
	}
	secs := []struct {
		tag  string
		data []byte
	}{{"META", meta}, {"KEYS", keys}}
	if s.kind != HNSW {
		v := make([]byte, 0, 4*s.n*cfg.Dim)
		for i := 0; i < s.n; i++ {
			for _, x := range s.vecs.Row(i) {
				v = le.AppendUint32(v, math.Float32bits(x))
			}
		}
		secs = append(secs, struct {
			tag  string
			data []byte
		}{"VECS", v})
	}
	if s.codes != nil {
		// QUNT: u32 codebook length, the codebook (quant's MarshalBinary),
		// then docs × CodeSize code bytes in local id order.
		book, err := s.codes.Quantizer().MarshalBinary()
		if err != nil {
			return fmt.Errorf("segment %d: %w", s.id, err)
		}
		size := s.codes.Quantizer().CodeSize()
		q := make([]byte, 0, 4+len(book)+s.n*size)
		q = le.AppendUint32(q, uint32(len(book)))
		q = append(q, book...)
		for i := 0; i < s.n; i++ {
			q = append(q, s.codes.Code(engine.ID(i))...)
		}
		secs = append(secs, struct {
			tag  string
			data []byte
		}{"QUNT", q})
	}
	secs = append(secs, struct {
		tag  string
		data []byte
	}{"SIDX", s.stored.encodeIndex()}, struct {
		tag  string
		data []byte
	}{"SDAT", s.stored.data})
	for _, sec := range secs {
		if err := w.Section(sec.tag, sec.data); err != nil {
			return fmt.Errorf("segment %d: %w", s.id, err)
		}
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("segment %d: %w", s.id, err)
	}
	return nil
}

// readSegment opens segment id of n documents written under cfg.
func readSegment(cfg Config, id uint64, n int) (*segment, error) {
	path := segName(cfg.Dir, id)
	r, f, err := blockfile.Open(cfg.FS, path, segMagic, segVersion)
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	defer f.Close()
	le := binary.LittleEndian
	sec, err := r.Expect("META")
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	if len(sec.Data) != 19 {
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("is %d bytes, want 19", len(sec.Data))))
	}
	gotID, gotN, dim := le.Uint64(sec.Data), int(le.Uint32(sec.Data[8:])), int(le.Uint32(sec.Data[12:]))
	metric, kind, enc := engine.Metric(sec.Data[16]), IndexKind(sec.Data[17]), Encoding(sec.Data[18])
	switch {
	case gotID != id:
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("names segment %d, the commit %d", gotID, id)))
	case gotN != n:
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("holds %d documents, the commit says %d", gotN, n)))
	case dim != cfg.Dim || metric != cfg.Metric:
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("is %d-d %s, the collection %d-d %s", dim, metric, cfg.Dim, cfg.Metric)))
	case kind > IVF:
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("unknown index kind %d", kind)))
	case enc > lastEncoding || enc != Float && kind != HNSW:
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("encoding %d on a %s segment", enc, kind)))
	}
	s := &segment{id: id, n: n, kind: kind, enc: enc}
	if sec, err = r.Expect("KEYS"); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	if len(sec.Data) != 8*n {
		return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("is %d bytes for %d keys", len(sec.Data), n)))
	}
	s.keys = make([]uint64, n)
	for i := range s.keys {
		s.keys[i] = le.Uint64(sec.Data[8*i:])
	}
	if kind != HNSW {
		if sec, err = r.Expect("VECS"); err != nil {
			return nil, fmt.Errorf("segment: %w", err)
		}
		if len(sec.Data) != 4*n*dim {
			return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("is %d bytes for %d × %d floats", len(sec.Data), n, dim)))
		}
		m := vec.NewMatrix(n, dim)
		for i := range m.Data {
			m.Data[i] = math.Float32frombits(le.Uint32(sec.Data[4*i:]))
		}
		if kind == Flat {
			s.index, err = flat.New(m, flat.Config{Metric: metric, Workers: 1})
		} else {
			var ix *ivf.Index
			if ix, err = buildIVF(cfg, id, m); err == nil {
				s.index, s.lists = ix, ix.Nlist()
			}
		}
		if err != nil {
			return nil, fmt.Errorf("segment: %s: %w", path, err)
		}
		s.vecs = m
	}
	if enc != Float {
		if sec, err = r.Expect("QUNT"); err != nil {
			return nil, fmt.Errorf("segment: %w", err)
		}
		if s.codes, err = decodeCodes(sec.Data, n, dim, metric); err != nil {
			return nil, fmt.Errorf("segment: %w", r.Corrupt(sec, err.Error()))
		}
	}
	idx, err := r.Expect("SIDX")
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	dat, err := r.Expect("SDAT")
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	if s.stored, err = decodeIndex(idx.Data, len(dat.Data), n); err != nil {
		return nil, fmt.Errorf("segment: %w", r.Corrupt(idx, err.Error()))
	}
	s.stored.data = dat.Data
	if err := r.Finish(); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	if kind == HNSW {
		ix, err := hnsw.Load(cfg.FS, graphName(cfg.Dir, id))
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", id, err)
		}
		if ix.Len() != n || ix.Dim() != dim || ix.Metric() != metric {
			return nil, fmt.Errorf("segment: segment %d: graph %s holds %d %d-d %s vectors, the segment %d %d-d %s: %w", id, graphName(cfg.Dir, id), ix.Len(), ix.Dim(), ix.Metric(), n, dim, metric, engine.ErrCorrupt)
		}
		if s.codes != nil {
			if err := ix.UseCodes(s.codes); err != nil {
				return nil, fmt.Errorf("segment: %d: %v: %w", id, err, engine.ErrCorrupt)
			}
		}
		s.index, s.graph, s.vecs = ix, ix, ix.Vectors()
	}
	return s, nil
}

// decodeCodes reads a QUNT section: the codebook of a quantizer for n
// dim-dimensional vectors under metric, then n codes.
func decodeCodes(b []byte, n, dim int, metric engine.Metric) (*quant.Store, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("is %d bytes, too short for the codebook length", len(b))
	}
	bl := int(binary.LittleEndian.Uint32(b))
	if bl > len(b)-4 {
		return nil, fmt.Errorf("codebook of %d bytes in %d", bl, len(b)-4)
	}
	q, err := quant.Restore(b[4 : 4+bl])
	if err != nil {
		return nil, fmt.Errorf("codebook: %v", err)
	}
	if q.Dim() != dim || q.Metric() != metric {
		return nil, fmt.Errorf("codebook for %d-d %s vectors, the segment %d-d %s", q.Dim(), q.Metric(), dim, metric)
	}
	size, codes := q.CodeSize(), b[4+bl:]
	if size < 1 || len(codes) != n*size {
		return nil, fmt.Errorf("holds %d code bytes for %d codes of %d", len(codes), n, size)
	}
	cs := quant.NewStore(q)
	cs.Reserve(n)
	for i := 0; i < n; i++ {
		if err := cs.SetCode(engine.ID(i), codes[i*size:(i+1)*size]); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// writeLive saves the live-document bitset as generation gen.
func (s *segment) writeLive(cfg Config, gen int) error {
	w, err := blockfile.Create(cfg.FS, liveName(cfg.Dir, s.id, gen), liveMagic, liveVersion)
	if err != nil {
		return fmt.Errorf("segment %d: %w", s.id, err)
	}
	defer w.Abort()
	le := binary.LittleEndian
	b := le.AppendUint64(nil, s.id)
	b = le.AppendUint32(b, uint32(s.n))
	b = le.AppendUint32(b, uint32(s.deleted))
	words := make([]uint64, (s.n+63)/64)
	s.live.ForEach(func(id engine.ID) { words[id>>6] |= 1 << (id & 63) })
	for _, x := range words {
		b = le.AppendUint64(b, x)
	}
	if err := w.Section("LIVE", b); err != nil {
		return fmt.Errorf("segment %d: %w", s.id, err)
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("segment %d: %w", s.id, err)
	}
	return nil
}

// readLive loads the live bitset of generation gen into s.
func (s *segment) readLive(cfg Config, gen int) error {
	path := liveName(cfg.Dir, s.id, gen)
	r, f, err := blockfile.Open(cfg.FS, path, liveMagic, liveVersion)
	if err != nil {
		return fmt.Errorf("segment: %w", err)
	}
	defer f.Close()
	sec, err := r.Expect("LIVE")
	if err != nil {
		return fmt.Errorf("segment: %w", err)
	}
	le := binary.LittleEndian
	words := (s.n + 63) / 64
	if len(sec.Data) != 16+8*words {
		return fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("is %d bytes for %d documents", len(sec.Data), s.n)))
	}
	if le.Uint64(sec.Data) != s.id || int(le.Uint32(sec.Data[8:])) != s.n {
		return fmt.Errorf("segment: %w", r.Corrupt(sec, "names another segment"))
	}
	live := engine.NewBitset(s.n)
	for i := 0; i < s.n; i++ {
		if le.Uint64(sec.Data[16+8*(i>>6):])&(1<<(i&63)) != 0 {
			live.Set(engine.ID(i))
		}
	}
	if del := s.n - live.Count(); del != int(le.Uint32(sec.Data[12:])) {
		return fmt.Errorf("segment: %w", r.Corrupt(sec, fmt.Sprintf("counts %d deletions, its bits %d", le.Uint32(sec.Data[12:]), del)))
	}
	if err := r.Finish(); err != nil && err != io.EOF {
		return fmt.Errorf("segment: %w", err)
	}
	s.live, s.deleted, s.delGen = live, s.n-live.Count(), gen
	return nil
}

// removeFiles deletes the segment's files (after it left every commit and
// snapshot); errors are ignored because the next commit retries.
func removeFiles(cfg Config, id uint64) {
	cfg.FS.Remove(segName(cfg.Dir, id))
	cfg.FS.Remove(graphName(cfg.Dir, id))
}
