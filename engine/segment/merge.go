package segment

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

// MergePolicy is a tiered merge policy after Lucene's TieredMergePolicy
// (org.apache.lucene.index.TieredMergePolicy), reduced to document
// counts: segments are grouped into tiers of FloorDocs·MergeFactor^t
// documents; when a tier holds more than SegmentsPerTier segments, the
// MaxMergeAtOnce smallest adjacent-in-size segments of it are merged
// into one, which usually lands in the next tier. Deleted documents count
// against a segment's size, so segments full of deletes merge first.
type MergePolicy struct {
	// SegmentsPerTier is how many segments a tier holds before a merge
	// (default 10, Lucene's segmentsPerTier).
	SegmentsPerTier int
	// MaxMergeAtOnce is how many segments one merge takes (default 10).
	MaxMergeAtOnce int
	// FloorDocs is the size below which every segment counts as the
	// smallest tier (default 1000; Lucene's floorSegmentMB of 2 MB).
	FloorDocs int
	// MaxSegmentDocs stops merging segments that would grow past it
	// (default 5,000,000; Lucene's maxMergedSegmentMB of 5 GB).
	MaxSegmentDocs int
}

// WithDefaults returns p with zero fields filled.
func (p MergePolicy) WithDefaults() MergePolicy {
	if p.SegmentsPerTier == 0 {
		p.SegmentsPerTier = 10
	}
	if p.MaxMergeAtOnce == 0 {
		p.MaxMergeAtOnce = 10
	}
	if p.FloorDocs == 0 {
		p.FloorDocs = 1000
	}
	if p.MaxSegmentDocs == 0 {
		p.MaxSegmentDocs = 5_000_000
	}
	return p
}

// Validate checks the policy.
func (p MergePolicy) Validate() error {
	var bad []string
	if p.SegmentsPerTier < 2 {
		bad = append(bad, fmt.Sprintf("Merge.SegmentsPerTier must be at least 2, got %d", p.SegmentsPerTier))
	}
	if p.MaxMergeAtOnce < 2 {
		bad = append(bad, fmt.Sprintf("Merge.MaxMergeAtOnce must be at least 2, got %d", p.MaxMergeAtOnce))
	}
	if p.FloorDocs < 1 || p.MaxSegmentDocs < 1 {
		bad = append(bad, "Merge.FloorDocs and Merge.MaxSegmentDocs must be positive")
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return nil
}

// sized is what the policy sees of a segment.
type sized struct {
	id   uint64
	docs int // documents including deleted ones
	live int
}

// pick returns the ids of the segments to merge next, or nil. Segments in
// merges already running are not offered.
func (p MergePolicy) pick(segs []sized) []uint64 {
	if len(segs) < 2 {
		return nil
	}
	s := append([]sized(nil), segs...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].live != s[j].live {
			return s[i].live < s[j].live
		}
		return s[i].id < s[j].id
	})
	// Tier of a segment: how many times MergeFactor (= MaxMergeAtOnce)
	// fits between the floor and its live size.
	tier := func(n int) int {
		t := 0
		for lim := p.FloorDocs; n > lim && t < 30; lim *= p.MaxMergeAtOnce {
			t++
		}
		return t
	}
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && tier(s[j].live) == tier(s[i].live) {
			j++
		}
		if j-i > p.SegmentsPerTier {
			var ids []uint64
			total := 0
			for _, x := range s[i:min(j, i+p.MaxMergeAtOnce)] {
				if total+x.live > p.MaxSegmentDocs && len(ids) >= 2 {
					break
				}
				total += x.live
				ids = append(ids, x.id)
			}
			if len(ids) >= 2 {
				return ids
			}
		}
		i = j
	}
	// A segment more than half deleted is rewritten with its neighbour
	// (Lucene's deletesPctAllowed, much simplified).
	for i, x := range s {
		if x.docs > 0 && 2*(x.docs-x.live) > x.docs {
			other := s[(i+1)%len(s)]
			return []uint64{x.id, other.id}
		}
	}
	return nil
}

// MaybeMerge runs the merge policy until it finds nothing to merge and
// returns the number of merges done. Merges build outside every lock:
// searches and Adds go on meanwhile.
func (c *Collection) MaybeMerge() (int, error) {
	done := 0
	for {
		ids := c.pickMerge()
		if ids == nil {
			return done, nil
		}
		if err := c.merge(ids); err != nil {
			return done, err
		}
		done++
	}
}

// pickMerge chooses a merge among segments not already merging and marks
// them as merging.
func (c *Collection) pickMerge() []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	var in []sized
	for _, s := range c.snap {
		if !c.merging[s.id] && !s.mutable {
			in = append(in, sized{id: s.id, docs: s.n, live: s.liveCount()})
		}
	}
	ids := c.cfg.Merge.pick(in)
	for _, id := range ids {
		c.merging[id] = true
	}
	return ids
}

func (c *Collection) maybeMergeBackground() {
	if !c.cfg.BackgroundMerge {
		return
	}
	c.merges.Add(1)
	go func() {
		defer c.merges.Done()
		if _, err := c.MaybeMerge(); err != nil {
			c.setBgErr(err)
		}
	}()
}

// ForceMerge merges the collection down to at most n segments (Lucene's
// forceMerge(n), Elasticsearch's _forcemerge?max_num_segments=n): the
// segments, oldest first, are cut into n runs of about equal live size and
// each run of two or more is rewritten into one segment with a new index.
// Buffered documents are sealed first.
func (c *Collection) ForceMerge(n int) error {
	if n < 1 {
		return fmt.Errorf("segment: force merge to %d segments: %w", n, engine.ErrInvalidArgument)
	}
	if err := c.Refresh(); err != nil {
		return err
	}
	c.merges.Wait()
	c.mu.Lock()
	var segs []*segment
	for _, s := range c.snap {
		if !c.merging[s.id] && !s.mutable {
			segs = append(segs, s)
		}
	}
	if len(segs) <= n && !anyDeleted(segs) {
		c.mu.Unlock()
		return nil
	}
	total := 0
	for _, s := range segs {
		total += s.liveCount()
	}
	var runs [][]uint64
	var run []uint64
	acc := 0
	for i, s := range segs {
		run = append(run, s.id)
		acc += s.liveCount()
		left := len(segs) - i - 1
		if (acc*n >= total*(len(runs)+1) && len(runs) < n-1) || left == 0 || left < n-len(runs)-1 {
			runs = append(runs, run)
			run = nil
		}
	}
	var todo [][]uint64
	for _, r := range runs {
		if len(r) > 1 || anyDeletedIDs(c.snap, r) {
			for _, id := range r {
				c.merging[id] = true
			}
			todo = append(todo, r)
		}
	}
	c.mu.Unlock()
	var errs []error
	for _, r := range todo {
		if err := c.merge(r); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func anyDeleted(segs []*segment) bool {
	for _, s := range segs {
		if s.deleted > 0 {
			return true
		}
	}
	return false
}

func anyDeletedIDs(segs []*segment, ids []uint64) bool {
	in := map[uint64]bool{}
	for _, id := range ids {
		in[id] = true
	}
	for _, s := range segs {
		if in[s.id] && s.deleted > 0 {
			return true
		}
	}
	return false
}

// merge rewrites the segments ids (marked as merging) into one new
// segment holding their live documents, with a freshly built index, then
// swaps it in. Documents deleted while the merge ran are deleted in the
// new segment too.
func (c *Collection) merge(ids []uint64) (err error) {
	defer func() {
		c.mu.Lock()
		for _, id := range ids {
			delete(c.merging, id)
		}
		c.mu.Unlock()
	}()
	c.mu.Lock()
	in := map[uint64]bool{}
	for _, id := range ids {
		in[id] = true
	}
	var src []*segment
	for _, s := range c.snap {
		if in[s.id] {
			src = append(src, s)
		}
	}
	id := c.nextID
	c.nextID++
	c.mu.Unlock()
	if len(src) != len(ids) {
		return fmt.Errorf("segment: merge: %d of %d segments are gone", len(ids)-len(src), len(ids))
	}
	type origin struct {
		seg   uint64
		local uint32
	}
	// Sized once: grown by append, the merged vectors would near the end
	// be held twice (the old array and one a quarter larger) beside the
	// sources and the graph being built from them.
	live := 0
	for _, s := range src {
		live += s.liveCount()
	}
	var (
		keys = make([]uint64, 0, live)
		data = make([]float32, 0, live*c.cfg.Dim)
		srcs = make([][]byte, 0, live)
		from = make([]origin, 0, live)
	)
	for _, s := range src {
		rd := s.stored.reader()
		for i := 0; i < s.n; i++ {
			if s.live != nil && !s.live.Allowed(engine.ID(i)) {
				continue
			}
			_, body, err := rd.record(uint32(i))
			if err != nil {
				return fmt.Errorf("segment: merge of segment %d: %w", s.id, err)
			}
			keys = append(keys, s.keys[i])
			data = append(data, s.vecs.Row(i)...)
			srcs = append(srcs, append([]byte(nil), body...))
			from = append(from, origin{s.id, uint32(i)})
		}
	}
	if len(keys) == 0 {
		// Everything was deleted: drop the segments.
		c.publishDrop(in)
		return nil
	}
	m := &vec.Matrix{N: len(keys), Dim: c.cfg.Dim, Stride: c.cfg.Dim, Data: data}
	cfg := c.cfg
	if cfg.Visibility == Plain && len(keys) < cfg.IndexingThreshold {
		// Under Plain a segment gets its index only past the threshold
		// (Qdrant's merge optimizer builds the merged segment's HNSW
		// only when it passes indexing_threshold).
		cfg.Index = Flat
	}
	q, err := mergeQuantizer(cfg, src)
	if err != nil {
		return fmt.Errorf("segment: merge: %w", err)
	}
	ns, err := buildSegment(cfg, id, keys, m, srcs, true, q)
	if err == nil {
		err = ns.write(c.cfg)
	}
	if err != nil {
		removeFiles(c.cfg, id)
		return fmt.Errorf("segment: merge: %w", err)
	}
	// Deletes that arrived while merging: a source's current live bitset.
	c.mu.RLock()
	cur := map[uint64]*segment{}
	for _, s := range c.snap {
		if in[s.id] {
			cur[s.id] = s
		}
	}
	c.mu.RUnlock()
	var late []uint32
	for i, o := range from {
		s := cur[o.seg]
		if s == nil || s.live != nil && !s.live.Allowed(engine.ID(o.local)) {
			late = append(late, uint32(i))
		}
	}
	if len(late) > 0 {
		ns = ns.withDeleted(late)
	}
	c.mu.Lock()
	// The merged keys now live in ns (except late deletions).
	for i, k := range ns.keys {
		if ns.live == nil || ns.live.Allowed(engine.ID(i)) {
			c.where[k] = loc{ns.id, uint32(i)}
		}
	}
	next := make([]*segment, 0, len(c.snap))
	placed := false
	for _, s := range c.snap {
		if in[s.id] {
			if !placed {
				next = append(next, ns) // where the oldest source was
				placed = true
			}
			continue
		}
		next = append(next, s)
	}
	c.snap = next
	c.mu.Unlock()
	return nil
}

func (c *Collection) publishDrop(gone map[uint64]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	next := c.snap[:0:0]
	for _, s := range c.snap {
		if !gone[s.id] {
			next = append(next, s)
		}
	}
	c.snap = next
}

// mergeQuantizer returns the quantizer of a BBQ, Int8OSQ or Int4OSQ segment merged
// from src when the writer combines its sources' centroids instead of
// recomputing one: every source has a centroid and no deleted document
// (ES818BinaryQuantizedVectorsWriter.mergeAndRecalculateCentroids,
// elastic/elasticsearch 9.x; the same rule in apache/lucene 10.4's
// Lucene104ScalarQuantizedVectorsWriter.mergeAndRecalculateCentroids;
// quant.MergeOSQ). It returns nil otherwise, and for the Lucene 9.9
// scalar encodings, whose merged quantizer buildSegment trains on the
// merged vectors.
func mergeQuantizer(cfg Config, src []*segment) (quant.Quantizer, error) {
	if cfg.Encoding != BBQ && cfg.Encoding != Int8OSQ && cfg.Encoding != Int4OSQ {
		return nil, nil
	}
	parts := make([]*quant.OSQ, 0, len(src))
	counts := make([]int, 0, len(src))
	for _, s := range src {
		if s.live != nil || s.codes == nil {
			return nil, nil
		}
		o, ok := s.codes.Quantizer().(*quant.OSQ)
		if !ok {
			return nil, nil
		}
		parts, counts = append(parts, o), append(counts, s.n)
	}
	return quant.MergeOSQ(parts, counts)
}
