package segment

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// Doc is one document: its key (the caller's id), its vector and its
// stored fields (any bytes, e.g. a JSON source).
type Doc struct {
	Key    uint64
	Vector []float32
	Source []byte
}

// loc is where a key's live document is.
type loc struct {
	seg   uint64
	local uint32
}

// buffer is one per-thread writer's RAM buffer (Lucene's
// DocumentsWriterPerThread): acknowledged documents not in a segment yet.
type buffer struct {
	keys []uint64
	vecs []float32
	srcs [][]byte
}

func (b *buffer) len() int { return len(b.keys) }

// Collection is a segmented, crash-safe vector collection: writers buffer
// documents and seal them into immutable segments, each with its own index
// and stored fields; a commit point names the segments that survive a
// crash; merges rewrite several segments into one in the background.
//
// # Concurrency
//
// Every method is safe for concurrent use. Searches read an immutable
// snapshot of the segment list and are never blocked by ingest, flushes or
// merges (which build outside any lock and swap the list at the end).
// Up to Config.Writers Add calls run at once, each into its own buffer.
type Collection struct {
	cfg Config

	mu      sync.RWMutex // guards everything below up to the blank line
	snap    []*segment   // searchable segments, oldest first; replaced, never mutated
	where   map[uint64]loc
	nextID  uint64
	merging map[uint64]bool // segments in a running merge
	last    *commitPoint    // the last commit (nil before the first)
	closed  bool

	// The head segments (OnAdd, Queued, Plain): Config.Heads slots, nil
	// until a document arrives.
	headMu     sync.Mutex // guards heads and stopping; held for every head write
	heads      []*headState
	stopping   bool
	queue      *sync.Cond     // (headMu) wakes the Queued indexer
	idle       *sync.Cond     // (headMu) broadcast when the indexer has nothing to do
	optimizing sync.WaitGroup // Plain heads being indexed in the background
	running    atomic.Int32   // of which still running (Indexing)

	commitMu sync.Mutex     // serialises Commit, Refresh and file removal
	writers  chan *buffer   // the free per-thread buffers
	acked    atomic.Int64   // documents acknowledged (added, not deleted)
	bg       sync.WaitGroup // the Queued indexer
	merges   sync.WaitGroup // background merges
	idleMrg  sync.WaitGroup // the merge optimizer's runs (Config.IdleMerge)
	bgMu     sync.Mutex
	bgErr    error // first background merge failure, guarded by bgMu
}

// Open opens the collection in cfg.Dir, recovering the last commit (an
// empty collection when there is none). Files no commit names — segments
// flushed or merged after the last commit, temporary files of writes a
// crash interrupted — are removed, so nothing uncommitted is half-visible.
func Open(cfg Config) (*Collection, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.FS.MkdirAll(cfg.Dir); err != nil {
		return nil, fmt.Errorf("segment: open %s: %w", cfg.Dir, err)
	}
	c := &Collection{cfg: cfg, where: map[uint64]loc{}, merging: map[uint64]bool{},
		writers: make(chan *buffer, cfg.Writers)}
	for i := 0; i < cfg.Writers; i++ {
		c.writers <- &buffer{}
	}
	c.queue, c.idle = sync.NewCond(&c.headMu), sync.NewCond(&c.headMu)
	c.heads = make([]*headState, cfg.Heads)
	names, err := cfg.FS.List(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("segment: open %s: %w", cfg.Dir, err)
	}
	if gens := commitGens(names); len(gens) > 0 {
		cp, err := readCommit(cfg, gens[len(gens)-1])
		if err != nil {
			return nil, err
		}
		if cp.dim != cfg.Dim || cp.metric != cfg.Metric {
			return nil, fmt.Errorf("segment: %s holds %d-d %s vectors, opened as %d-d %s: %w", cfg.Dir, cp.dim, cp.metric, cfg.Dim, cfg.Metric, engine.ErrInvalidArgument)
		}
		for _, cs := range cp.segs {
			s, err := readSegment(cfg, cs.id, cs.n)
			if err == nil && cs.delGen > 0 {
				err = s.readLive(cfg, cs.delGen)
			}
			if errors.Is(err, fs.ErrNotExist) {
				// A file the commit names is gone: the directory is damaged.
				err = fmt.Errorf("segment: %s names a missing file: %v: %w", commitName(cfg.Dir, cp.gen), err, engine.ErrCorrupt)
			}
			if err != nil {
				return nil, err
			}
			c.snap = append(c.snap, s)
		}
		c.nextID, c.last = cp.nextID, cp
		c.rebuildWhere()
	}
	c.acked.Store(int64(c.searchable()))
	c.removeUnreferenced(names)
	if cfg.Visibility == Queued {
		c.bg.Add(1)
		go c.indexer()
	}
	return c, nil
}

func (c *Collection) rebuildWhere() {
	c.where = map[uint64]loc{}
	for _, s := range c.snap {
		for i, k := range s.keys {
			if s.live == nil || s.live.Allowed(engine.ID(i)) {
				c.where[k] = loc{s.id, uint32(i)}
			}
		}
	}
}

// removeUnreferenced deletes files in names that neither the last commit
// nor the current snapshot needs. Caller holds commitMu or is Open.
func (c *Collection) removeUnreferenced(names []string) {
	c.mu.RLock()
	keep := referenced(c.last, c.snap)
	c.mu.RUnlock()
	for _, n := range names {
		if b := base(n); !keep[b] {
			c.cfg.FS.Remove(c.cfg.Dir + "/" + b)
		}
	}
}

// Config returns the effective configuration.
func (c *Collection) Config() Config { return c.cfg }

func (c *Collection) searchable() int {
	n := 0
	for _, s := range c.snap {
		n += s.liveCount()
	}
	return n
}

// Acknowledged returns the number of documents Add has accepted (and not
// deleted since), searchable or not.
func (c *Collection) Acknowledged() int { return int(c.acked.Load()) }

// Searchable returns the number of documents a search sees now.
func (c *Collection) Searchable() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.searchable()
}

// SegmentInfo describes one segment.
type SegmentInfo struct {
	ID      uint64
	Docs    int // documents, deleted ones included
	Deleted int
	Index   IndexKind
	// Committed reports whether the last commit names the segment.
	Committed bool
}

// Segments lists the searchable segments, oldest first.
func (c *Collection) Segments() []SegmentInfo {
	c.mu.RLock()
	defer c.mu.RUnlock()
	in := map[uint64]bool{}
	if c.last != nil {
		for _, s := range c.last.segs {
			in[s.id] = true
		}
	}
	out := make([]SegmentInfo, len(c.snap))
	for i, s := range c.snap {
		out[i] = SegmentInfo{ID: s.id, Docs: s.n, Deleted: s.deleted, Index: s.kind, Committed: in[s.id]}
	}
	return out
}

// SegmentData is one searchable segment's contents, for callers that bind
// it to more than the collection does (engine/filtered's metadata): its
// index (an *hnsw.Index, *flat.Index or *ivf.Index; a head's graph may
// hold more than Docs nodes, and only its first Docs are the segment's),
// its vectors and its id column. Everything is shared with the collection
// and must not be modified.
type SegmentData struct {
	SegmentInfo
	Index   engine.Index
	Vectors *vec.Matrix    // Docs rows
	Keys    []uint64       // local id → key, Docs of them
	Live    *engine.Bitset // nil when no document is deleted
	// Quantizer is a quantized segment's quantizer (its codes' codebook
	// or centroid); nil when the segment keeps float32 vectors only.
	Quantizer quant.Quantizer
}

// Segment returns the i-th searchable segment (in Segments' order).
func (c *Collection) Segment(i int) (SegmentData, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if i < 0 || i >= len(c.snap) {
		return SegmentData{}, fmt.Errorf("segment: segment %d of %d: %w", i, len(c.snap), engine.ErrInvalidArgument)
	}
	s := c.snap[i]
	committed := false
	if c.last != nil {
		for _, x := range c.last.segs {
			committed = committed || x.id == s.id
		}
	}
	d := SegmentData{SegmentInfo: SegmentInfo{ID: s.id, Docs: s.n, Deleted: s.deleted, Index: s.kind, Committed: committed},
		Index: s.index, Vectors: s.vecs, Keys: s.keys[:s.n:s.n], Live: s.live}
	if s.codes != nil {
		d.Quantizer = s.codes.Quantizer()
	}
	return d, nil
}

// Add validates every document of the batch, then acknowledges them all
// or none: a document of the wrong dimension, with a NaN or Inf component
// or a key twice in the batch refuses the batch with its position, and
// nothing of it becomes visible. A key already in the collection is
// replaced when the new version becomes searchable (Lucene's
// updateDocument). Under OnAdd the batch is searchable when Add returns;
// under OnRefresh after the next Refresh (or a flush at FlushDocs).
func (c *Collection) Add(docs []Doc) error {
	seen := make(map[uint64]int, len(docs))
	var errs []error
	for i, d := range docs {
		if err := engine.CheckVector(d.Vector, c.cfg.Dim, c.cfg.Metric); err != nil {
			errs = append(errs, fmt.Errorf("segment: add: document %d (key %d): %w", i, d.Key, err))
		}
		if j, dup := seen[d.Key]; dup {
			errs = append(errs, fmt.Errorf("segment: add: documents %d and %d both have key %d: %w", j, i, d.Key, engine.ErrDuplicateID))
		}
		seen[d.Key] = i
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := c.checkOpen(); err != nil {
		return err
	}
	if c.cfg.Visibility != OnRefresh {
		return c.addHead(docs)
	}
	b := <-c.writers
	defer func() { c.writers <- b }()
	for _, d := range docs {
		b.keys = append(b.keys, d.Key)
		b.vecs = append(b.vecs, d.Vector...)
		b.srcs = append(b.srcs, append([]byte(nil), d.Source...))
	}
	c.acked.Add(int64(len(docs)))
	// The writers share one indexing buffer of FlushDocs documents, as
	// Lucene's per-thread writers share indices.memory.index_buffer_size:
	// more writers flush smaller segments.
	if b.len() >= max(1, c.cfg.FlushDocs/c.cfg.Writers) || c.cfg.Visibility == OnAdd {
		return c.seal(b)
	}
	return nil
}

func (c *Collection) checkOpen() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return fmt.Errorf("segment: %w", engine.ErrClosed)
	}
	return nil
}

// seal turns buffer b into a segment on disk and publishes it. The buffer
// is emptied whether or not sealing succeeds: on an error (a full disk)
// its documents are lost from RAM but nothing half-written is visible, and
// the last commit still opens.
func (c *Collection) seal(b *buffer) error {
	if b.len() == 0 {
		return nil
	}
	keys, srcs := b.keys, b.srcs
	m := &vec.Matrix{N: len(keys), Dim: c.cfg.Dim, Stride: c.cfg.Dim, Data: b.vecs}
	*b = buffer{}
	c.mu.Lock()
	id := c.nextID
	c.nextID++
	c.mu.Unlock()
	s, err := buildSegment(c.cfg, id, keys, m, srcs, false, nil)
	if err == nil {
		err = s.write(c.cfg)
	}
	if err != nil {
		c.acked.Add(-int64(len(keys)))
		removeFiles(c.cfg, id)
		return err
	}
	c.publish(s, nil)
	c.maybeMergeBackground()
	return nil
}

// publish adds s (a new or merged segment) to the snapshot, replacing the
// segments in gone, and points its keys at it; older versions of its keys
// in other segments are deleted.
func (c *Collection) publish(s *segment, gone map[uint64]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dels := map[uint64][]uint32{}
	for i, k := range s.keys {
		if s.live != nil && !s.live.Allowed(engine.ID(i)) {
			continue
		}
		if old, ok := c.where[k]; ok && !gone[old.seg] {
			dels[old.seg] = append(dels[old.seg], old.local)
			c.acked.Add(-1) // the older version of an updated document
		}
		c.where[k] = loc{s.id, uint32(i)}
	}
	next := make([]*segment, 0, len(c.snap)+1)
	for _, x := range c.snap {
		if gone[x.id] {
			continue
		}
		if d := dels[x.id]; len(d) > 0 {
			x = x.withDeleted(d)
		}
		next = append(next, x)
	}
	c.snap = append(next, s)
}

// Refresh seals every writer's buffer into a segment, making every
// acknowledged document searchable (Elasticsearch's _refresh).
func (c *Collection) Refresh() error {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	return c.refreshLocked()
}

func (c *Collection) refreshLocked() error {
	// Take every buffer, so no Add is half-way through one.
	bufs := make([]*buffer, 0, c.cfg.Writers)
	for i := 0; i < c.cfg.Writers; i++ {
		bufs = append(bufs, <-c.writers)
	}
	defer func() {
		for _, b := range bufs {
			c.writers <- b
		}
	}()
	var errs []error
	for _, b := range bufs {
		if err := c.seal(b); err != nil {
			errs = append(errs, err)
		}
	}
	c.headMu.Lock()
	if err := c.sealHeadsLocked(); err != nil {
		errs = append(errs, err)
	}
	c.headMu.Unlock()
	c.optimizing.Wait()
	return errors.Join(errs...)
}

// Delete removes the documents with the given keys (buffered or in
// segments) and returns how many it found. Deletions in segments are
// visible at once and durable at the next commit.
func (c *Collection) Delete(keys ...uint64) (int, error) {
	if err := c.checkOpen(); err != nil {
		return 0, err
	}
	want := map[uint64]bool{}
	for _, k := range keys {
		want[k] = true
	}
	found := 0
	// Buffered documents first.
	bufs := make([]*buffer, 0, c.cfg.Writers)
	for i := 0; i < c.cfg.Writers; i++ {
		bufs = append(bufs, <-c.writers)
	}
	for _, b := range bufs {
		var nb buffer
		for i, k := range b.keys {
			if want[k] {
				found++
				continue
			}
			nb.keys = append(nb.keys, k)
			nb.vecs = append(nb.vecs, b.vecs[i*c.cfg.Dim:(i+1)*c.cfg.Dim]...)
			nb.srcs = append(nb.srcs, b.srcs[i])
		}
		*b = nb
	}
	c.headMu.Lock()
	defer c.headMu.Unlock()
	c.mu.Lock()
	dels := map[uint64][]uint32{}
	for k := range want {
		if l, ok := c.where[k]; ok {
			dels[l.seg] = append(dels[l.seg], l.local)
			delete(c.where, k)
			found++
			for _, h := range c.heads {
				if h != nil && l.seg == h.id {
					// Remembered by the head, so its next value keeps it.
					if h.live == nil {
						h.live = growLive(engine.NewBitset(0), len(h.keys))
					}
					h.live.Clear(engine.ID(l.local))
					h.deleted++
				}
			}
		}
	}
	next := make([]*segment, len(c.snap))
	for i, s := range c.snap {
		if d := dels[s.id]; len(d) > 0 {
			s = s.withDeleted(d)
		}
		next[i] = s
	}
	c.snap = next
	c.mu.Unlock()
	for _, b := range bufs {
		c.writers <- b
	}
	c.acked.Add(-int64(found))
	return found, nil
}

// Commit makes every acknowledged document durable: it refreshes, writes
// the live-document files of segments with new deletions, then the commit
// point (temporary file, fsync, rename, directory fsync), and removes the
// files no commit or snapshot needs any more. A crash at any moment leaves
// the previous commit or this one, never a mixture.
func (c *Collection) Commit() error {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	if err := c.refreshLocked(); err != nil {
		return err
	}
	c.mu.RLock()
	snap := c.snap
	gen := uint64(1)
	if c.last != nil {
		gen = c.last.gen + 1
	}
	cp := &commitPoint{gen: gen, nextID: c.nextID, dim: c.cfg.Dim, metric: c.cfg.Metric}
	c.mu.RUnlock()
	written := map[uint64]*segment{}
	for _, s := range snap {
		if s.mutable {
			continue // a head started after the refresh: not written yet
		}
		delGen := s.delGen
		if s.dirty {
			delGen = s.delGen + 1
			if err := s.writeLive(c.cfg, delGen); err != nil {
				return err
			}
			written[s.id] = s
		}
		cp.segs = append(cp.segs, commitSeg{id: s.id, n: s.n, delGen: delGen})
	}
	if err := cp.write(c.cfg); err != nil {
		return err
	}
	c.mu.Lock()
	c.last = cp
	// Record the new live generations on the segments of the snapshot
	// (by copy: searches may hold the old values).
	for i, s := range c.snap {
		if w := written[s.id]; w != nil {
			// A copy made by a delete after the snapshot keeps its newer
			// deletions dirty, but must never rewrite the generation just
			// committed.
			x := *s
			x.delGen, x.dirty = w.delGen+1, s != w
			c.snap[i] = &x
		}
	}
	c.mu.Unlock()
	if names, err := c.cfg.FS.List(c.cfg.Dir); err == nil {
		c.removeUnreferenced(names)
	}
	return nil
}

// Close waits for background merges and releases the collection; buffered
// documents that were not committed are dropped, as a crash would.
func (c *Collection) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.headMu.Lock()
	c.stopping = true
	c.queue.Broadcast()
	c.idle.Broadcast()
	c.headMu.Unlock()
	c.optimizing.Wait()
	c.idleMrg.Wait()
	c.merges.Wait()
	c.bg.Wait()
	return c.bgError()
}

func (c *Collection) setBgErr(err error) {
	c.bgMu.Lock()
	defer c.bgMu.Unlock()
	if c.bgErr == nil {
		c.bgErr = err
	}
}

func (c *Collection) bgError() error {
	c.bgMu.Lock()
	defer c.bgMu.Unlock()
	return c.bgErr
}
