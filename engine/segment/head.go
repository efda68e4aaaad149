package segment

import (
	"errors"
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/vec"
)

// The head segment takes documents under the OnAdd, Queued and Plain
// visibilities: one appendable segment that grows in place (its graph, or
// its rows for an exact scan), published anew after every change as an
// immutable *segment value of the documents visible then. A search of an
// older value may meet graph nodes added since: limit hides them.

// headState is an appendable segment being written. Guarded by
// Collection.headMu.
type headState struct {
	id   uint64
	keys []uint64
	srcs [][]byte
	// data is, dim apart, every acknowledged vector of a Plain head; of a
	// head with a graph, only the rows visible… not yet in the graph:
	// once indexed a row lives in the graph's slab alone, so the head
	// holds each vector once (as a sealed segment does) instead of twice.
	data  []float32
	graph *hnsw.Index // OnAdd, Queued: the growing graph
	// visible is how many documents searches see: all of them under OnAdd
	// and Plain, the indexed ones under Queued.
	visible int
	live    *engine.Bitset // deletions among the head's documents, nil: none
	deleted int
}

// limit allows the first n ids that live allows (nil: all).
type limit struct {
	n    int
	live *engine.Bitset
}

func (l limit) Allowed(id engine.ID) bool {
	return int(id) < l.n && (l.live == nil || l.live.Allowed(id))
}

// newHeadLocked starts a head segment. Caller holds headMu.
func (c *Collection) newHeadLocked() (*headState, error) {
	c.mu.Lock()
	id := c.nextID
	c.nextID++
	c.mu.Unlock()
	h := &headState{id: id}
	if c.cfg.Visibility != Plain {
		g, err := hnsw.New(c.cfg.graph(id))
		if err != nil {
			return nil, fmt.Errorf("segment: %w", err)
		}
		if c.cfg.HeadCapacity > 0 {
			g.Reserve(c.cfg.HeadCapacity)
			h.keys = make([]uint64, 0, c.cfg.HeadCapacity)
			h.srcs = make([][]byte, 0, c.cfg.HeadCapacity)
		}
		h.graph = g
	}
	return h, nil
}

// view returns the immutable segment value of the head's visible
// documents. Caller holds headMu.
func (c *Collection) viewLocked(h *headState) (*segment, error) {
	n := h.visible
	s := &segment{id: h.id, n: n, keys: h.keys[:n:n], srcs: h.srcs[:n:n], mutable: true, kind: HNSW}
	if h.graph != nil {
		// The graph's slab (normalised under Cosine, as a sealed
		// segment's vectors are); rows below n never change.
		g := h.graph.Vectors()
		s.index, s.graph = h.graph, h.graph
		s.vecs = &vec.Matrix{N: n, Dim: c.cfg.Dim, Stride: c.cfg.Dim, Data: g.Data[: n*c.cfg.Dim : n*c.cfg.Dim]}
	} else {
		s.kind = Flat
		s.vecs = &vec.Matrix{N: n, Dim: c.cfg.Dim, Stride: c.cfg.Dim, Data: h.data[: n*c.cfg.Dim : n*c.cfg.Dim]}
		ix, err := flat.New(s.vecs, flat.Config{Metric: c.cfg.Metric, Workers: 1})
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", h.id, err)
		}
		s.index = ix
	}
	if h.live != nil {
		s.live = engine.NewBitset(n)
		for i := 0; i < n; i++ {
			if h.live.Allowed(engine.ID(i)) {
				s.live.Set(engine.ID(i))
			}
		}
		s.deleted = n - s.live.Count()
	}
	return s, nil
}

// publishHeadLocked replaces (or adds) the head's value in the snapshot.
// Caller holds headMu.
func (c *Collection) publishHeadLocked(h *headState) error {
	s, err := c.viewLocked(h)
	if err != nil {
		return err
	}
	c.replace(s)
	return nil
}

// replace puts s in the snapshot in place of the segment with its id (or
// at the end), pointing the keys of its live documents at it.
func (c *Collection) replace(s *segment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := make([]*segment, 0, len(c.snap)+1)
	placed := false
	for _, x := range c.snap {
		if x.id == s.id {
			next = append(next, s)
			placed = true
			continue
		}
		next = append(next, x)
	}
	if !placed {
		next = append(next, s)
	}
	c.snap = next
}

// addHead is Add under OnAdd, Queued and Plain. The batch goes to the
// head with the fewest documents (under Plain there are Config.Heads of
// them; Qdrant routes new points to its smallest appendable segment,
// SegmentHolder::smallest_appendable_segment in lib/segment's holder).
func (c *Collection) addHead(docs []Doc) error {
	c.headMu.Lock()
	defer c.headMu.Unlock()
	slot := 0
	for i, h := range c.heads {
		if h == nil || c.heads[slot] != nil && len(h.keys) < len(c.heads[slot].keys) {
			slot = i
			if h == nil {
				break
			}
		}
	}
	h := c.heads[slot]
	if h == nil {
		var err error
		if h, err = c.newHeadLocked(); err != nil {
			return err
		}
		c.heads[slot] = h
	}
	// Updates: older versions of these keys elsewhere die when the new
	// ones become visible (under Queued: when they are acknowledged, so a
	// key is never visible twice).
	first := len(h.keys)
	if c.cfg.Visibility == Plain {
		c.reservePlainLocked(h, len(docs))
	}
	for _, d := range docs {
		h.keys = append(h.keys, d.Key)
		h.srcs = append(h.srcs, append([]byte(nil), d.Source...))
		h.data = append(h.data, d.Vector...)
	}
	if h.live != nil {
		h.live = growLive(h.live, len(h.keys))
	}
	c.acked.Add(int64(len(docs)))
	c.claimKeys(h, first)
	switch c.cfg.Visibility {
	case OnAdd:
		if err := c.indexHeadLocked(h, len(h.keys)); err != nil {
			return err
		}
	case Plain:
		h.visible = len(h.keys)
	case Queued:
		c.queue.Signal()
	}
	if err := c.publishHeadLocked(h); err != nil {
		return err
	}
	switch {
	case c.cfg.Visibility == Plain && len(h.keys) >= c.cfg.IndexingThreshold:
		c.heads[slot] = nil
		c.optimize(h)
	case c.cfg.Visibility != Plain && len(h.keys) >= c.cfg.FlushDocs:
		if err := c.sealHeadsLocked(); err != nil {
			return err
		}
	}
	return nil
}

// reservePlainLocked makes room in a Plain head for a batch of n
// documents. A Plain head fills up to IndexingThreshold (and the batch
// that crosses it), so its rows are allocated once for that many — no
// more than its share of HeadCapacity when that is given — instead of
// grown by append, whose doublings left each head's earlier arrays as
// garbage and its last one up to twice the rows it holds (Qdrant's
// build of 100,000 × 768: two heads of about 4,000 rows, 12 MB each,
// every 3,333 rows). Caller holds headMu.
func (c *Collection) reservePlainLocked(h *headState, n int) {
	dim := c.cfg.Dim
	need := len(h.data) + n*dim
	if need <= cap(h.data) {
		return
	}
	rows := c.cfg.IndexingThreshold
	if c.cfg.HeadCapacity > 0 {
		rows = min(rows, (c.cfg.HeadCapacity+c.cfg.Heads-1)/c.cfg.Heads)
	}
	data := make([]float32, len(h.data), max(need, (rows+n)*dim))
	copy(data, h.data)
	h.data = data
}

// growLive extends a live bitset to n ids, the new ones live.
func growLive(b *engine.Bitset, n int) *engine.Bitset {
	nb := engine.NewBitset(n)
	for i := 0; i < n; i++ {
		if i >= b.Len() || b.Allowed(engine.ID(i)) {
			nb.Set(engine.ID(i))
		}
	}
	return nb
}

// claimKeys points the head's documents from first on at the head and
// deletes the older versions of their keys.
func (c *Collection) claimKeys(h *headState, first int) {
	c.mu.Lock()
	dels := map[uint64][]uint32{}
	for i := first; i < len(h.keys); i++ {
		k := h.keys[i]
		if old, ok := c.where[k]; ok {
			if old.seg == h.id {
				if h.live == nil {
					h.live = growLive(engine.NewBitset(0), len(h.keys))
				}
				if h.live.Allowed(engine.ID(old.local)) {
					h.live.Clear(engine.ID(old.local))
					h.deleted++
				}
			} else {
				dels[old.seg] = append(dels[old.seg], old.local)
			}
			c.acked.Add(-1)
		}
		c.where[k] = loc{h.id, uint32(i)}
	}
	for i, s := range c.snap {
		if d := dels[s.id]; len(d) > 0 {
			c.snap[i] = s.withDeleted(d)
		}
	}
	c.mu.Unlock()
}

// indexHeadLocked inserts the head's documents up to n into its graph.
func (c *Collection) indexHeadLocked(h *headState, n int) error {
	if n <= h.visible {
		return nil
	}
	rows := make([]uint64, n-h.visible)
	for i := range rows {
		rows[i] = uint64(h.visible + i)
	}
	m := &vec.Matrix{N: len(rows), Dim: c.cfg.Dim, Stride: c.cfg.Dim, Data: h.data[: len(rows)*c.cfg.Dim : len(rows)*c.cfg.Dim]}
	if err := h.graph.AddBatch(rows, m); err != nil {
		return fmt.Errorf("segment %d: %w", h.id, err)
	}
	h.visible = n
	// The indexed rows are the graph's now. The queue's array is
	// released when it empties, or left behind by append's next growth.
	if h.data = h.data[len(rows)*c.cfg.Dim:]; len(h.data) == 0 {
		h.data = nil
	}
	return nil
}

// indexer is the Queued visibility's background indexer: it moves queued
// head documents into the graph IndexChunk at a time.
func (c *Collection) indexer() {
	defer c.bg.Done()
	for {
		c.headMu.Lock()
		// Queued has one head (Config.Heads > 1 is Plain only).
		for !c.stopping && (c.heads[0] == nil || c.heads[0].visible == len(c.heads[0].keys)) {
			c.idle.Broadcast()
			c.queue.Wait()
		}
		if c.stopping {
			c.idle.Broadcast()
			c.headMu.Unlock()
			return
		}
		h := c.heads[0]
		err := c.indexHeadLocked(h, min(len(h.keys), h.visible+c.cfg.IndexChunk))
		if err == nil {
			err = c.publishHeadLocked(h)
		}
		c.headMu.Unlock()
		if err != nil {
			c.setBgErr(err)
		}
	}
}

// WaitIndexed waits until every acknowledged document is searchable (the
// Queued indexer's queue is empty and no Plain head is being optimised):
// Redis's percent_indexed = 1, Qdrant's green status.
func (c *Collection) WaitIndexed() error {
	c.headMu.Lock()
	for c.queuedLocked() && !c.stopping {
		c.queue.Signal()
		c.idle.Wait()
	}
	c.headMu.Unlock()
	c.optimizing.Wait()
	c.idleMrg.Wait() // started before the last optimizer job ended
	return c.bgError()
}

// queuedLocked reports whether a head has acknowledged documents that are
// not searchable yet. Caller holds headMu.
func (c *Collection) queuedLocked() bool {
	for _, h := range c.heads {
		if h != nil && h.visible < len(h.keys) {
			return true
		}
	}
	return false
}

// Indexing reports whether background indexing is under way now: queued
// documents waiting for the Queued indexer (Redis's percent_indexed < 1)
// or a Plain head being optimised (Qdrant's yellow status).
func (c *Collection) Indexing() bool {
	if c.running.Load() > 0 {
		return true
	}
	c.headMu.Lock()
	defer c.headMu.Unlock()
	return c.queuedLocked()
}

// optimize builds the graph of a full Plain head in the background (the
// optimizer) and swaps the indexed segment in; the head stays searchable
// exactly until then.
func (c *Collection) optimize(h *headState) {
	c.optimizing.Add(1)
	c.running.Add(1)
	go func() {
		defer c.optimizing.Done()
		s, err := c.sealHead(h, HNSW)
		if err != nil {
			c.running.Add(-1)
			c.setBgErr(err)
			return
		}
		c.replaceSealed(s)
		if c.running.Add(-1) == 0 && c.cfg.IdleMerge > 0 {
			// The indexing optimizer is idle: Qdrant's update handler
			// now runs the merge optimizer. Counted before this job's
			// Done, so WaitIndexed and Close wait for it.
			c.idleMrg.Add(1)
			go c.idleMerge()
		}
	}()
}

// idleMerge is Qdrant's merge optimizer (lib/shard/src/optimizers/
// merge_optimizer.rs, planned after the indexing optimizer by
// lib/collection/src/update_handler.rs): with more than IdleMerge
// segments, heads included, force-merge down to IdleMerge. It runs the
// same ForceMerge a caller would, on the same segments, so the merged
// graphs (their seeds follow segment ids) are those of a ForceMerge
// called once indexing is done — unless documents arrive while it runs
// (they go to new heads, and the next idle moment merges again).
func (c *Collection) idleMerge() {
	defer c.idleMrg.Done()
	c.mu.RLock()
	closed, n := c.closed, len(c.snap)
	c.mu.RUnlock()
	if closed || n <= c.cfg.IdleMerge {
		return
	}
	if err := c.ForceMerge(c.cfg.IdleMerge); err != nil && !errors.Is(err, engine.ErrClosed) {
		c.setBgErr(err)
	}
}

// sealHead writes head h as an immutable segment of the given kind.
func (c *Collection) sealHead(h *headState, kind IndexKind) (*segment, error) {
	n := len(h.keys)
	var s *segment
	var err error
	if h.graph != nil && h.visible == n {
		s, err = sealGraph(c.cfg, h.id, h.keys, h.graph, h.srcs)
	} else {
		data := h.data
		if h.graph != nil {
			// Not reached (sealHeadsLocked indexes a graph head's queue
			// first): the graph's rows, then the queued ones.
			data = append(append(make([]float32, 0, n*c.cfg.Dim), h.graph.Vectors().Data...), h.data...)
		}
		m := &vec.Matrix{N: n, Dim: c.cfg.Dim, Stride: c.cfg.Dim, Data: data[: n*c.cfg.Dim : n*c.cfg.Dim]}
		cfg := c.cfg
		cfg.Index = kind
		s, err = buildSegment(cfg, h.id, h.keys, m, h.srcs, false, nil)
	}
	if err == nil {
		err = s.write(c.cfg)
	}
	if err != nil {
		removeFiles(c.cfg, h.id)
		return nil, err
	}
	if h.live != nil && h.deleted > 0 {
		var dead []uint32
		for i := 0; i < n; i++ {
			if !h.live.Allowed(engine.ID(i)) {
				dead = append(dead, uint32(i))
			}
		}
		s = s.withDeleted(dead)
	}
	return s, nil
}

// replaceSealed swaps a sealed head in, carrying over deletions made
// while it was being written.
func (c *Collection) replaceSealed(s *segment) {
	c.mu.Lock()
	var late []uint32
	for _, x := range c.snap {
		if x.id == s.id && x.live != nil {
			for i := 0; i < x.n; i++ {
				if !x.live.Allowed(engine.ID(i)) && (s.live == nil || s.live.Allowed(engine.ID(i))) {
					late = append(late, uint32(i))
				}
			}
		}
	}
	c.mu.Unlock()
	if len(late) > 0 {
		s = s.withDeleted(late)
	}
	c.replace(s)
}

// sealHeadsLocked seals every head (indexing its queue first); new heads
// start on the next Add. Caller holds headMu.
func (c *Collection) sealHeadsLocked() error {
	for i, h := range c.heads {
		if h == nil || len(h.keys) == 0 {
			continue
		}
		if h.graph != nil {
			if err := c.indexHeadLocked(h, len(h.keys)); err != nil {
				return err
			}
		}
		kind := Flat
		if c.cfg.Visibility != Plain {
			kind = HNSW
		}
		s, err := c.sealHead(h, kind)
		if err != nil {
			return err
		}
		c.heads[i] = nil
		c.replaceSealed(s)
	}
	c.maybeMergeBackground()
	return nil
}

// sealGraph makes a sealed segment of an already built graph.
func sealGraph(cfg Config, id uint64, keys []uint64, g *hnsw.Index, srcs [][]byte) (*segment, error) {
	s := &segment{id: id, n: len(keys), keys: keys, kind: HNSW, index: g, graph: g, vecs: g.Vectors()}
	sw := storedWriter{blockBytes: cfg.StoredBlockBytes}
	for i, k := range keys {
		if err := sw.add(k, srcs[i]); err != nil {
			return nil, err
		}
	}
	if err := sw.cut(); err != nil {
		return nil, err
	}
	s.stored = &storedIndex{n: sw.n, first: sw.first, offs: sw.offs, data: sw.data}
	return s, nil
}
