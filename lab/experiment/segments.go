package experiment

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/segment"
	"github.com/veclab/veclab/engine/vfs"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/scratch"
)

// segmentSetup is how E16, E17, E18, E20 and `veclab bench segments`
// build a segmented collection (engine/segment) over the environment's
// data set: the Lucene mechanics of Elastic's reply to Qdrant.
type SegmentSetup struct {
	// Segments, when positive, refreshes after every N/Segments documents
	// so that the collection holds that many segments (one writer).
	Segments int
	// Writers is the number of concurrent writers (parallel ingest, each
	// on its own goroutine with its own buffer); default 1.
	Writers int
	// BuildWorkers is the number of goroutines each segment's graph is
	// built with (default 1: every core busy is the writers' job).
	BuildWorkers int
	// FlushDocs is the shared indexing buffer (default: the data set, so
	// only Segments or the final refresh cut segments).
	FlushDocs int
	// M and EfConstruction configure the graphs (default 16 and 100,
	// Elasticsearch's and Lucene's).
	M, EfConstruction int
	// StoredBlockBytes is the stored-fields block size (default the
	// engine's 60 KiB).
	StoredBlockBytes int
	// Index is what each segment builds (default HNSW).
	Index segment.IndexKind
	// Dir is where the collection lives (default a new temporary
	// directory, removed by SegmentBuild.Close; in memory where there is
	// no file system, as in the browser).
	Dir string
}

// SegmentBuild is a built collection and what building it cost.
type SegmentBuild struct {
	Collection *segment.Collection
	Setup      SegmentSetup
	Docs       int
	Elapsed    time.Duration // ingest wall time, final refresh included
	CPU        time.Duration // the process's CPU time over the same span (0 where it cannot be read)
	// CriticalCPU is the busiest writer's thread CPU time plus the final
	// refresh's: the ingest's time with a core per writer and no other
	// job, which a busy machine does not stretch (0 where thread CPU
	// time cannot be read, and for a build by segment count).
	CriticalCPU time.Duration
	Segments    int
	temp        *scratch.Dir
}

// DocsPerSec is the ingest throughput.
func (b *SegmentBuild) DocsPerSec() float64 { return float64(b.Docs) / b.Elapsed.Seconds() }

// Close closes the collection and removes a temporary directory.
func (b *SegmentBuild) Close() error {
	err := b.Collection.Close()
	if b.temp != nil {
		b.temp.Remove()
	}
	return err
}

// buildSegments ingests the environment's data set (key i = row i) into
// a new collection, in the scale's batches.
func BuildSegments(env *Env, s SegmentSetup) (*SegmentBuild, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	n := ds.Base.N
	if s.Writers == 0 {
		s.Writers = 1
	}
	if s.BuildWorkers == 0 {
		s.BuildWorkers = 1
	}
	if s.FlushDocs == 0 {
		s.FlushDocs = n + 1
	}
	if s.Segments < 0 || s.Writers < 1 || s.Segments > n {
		return nil, fmt.Errorf("experiment: segments: %d segments with %d writers over %d documents: %w", s.Segments, s.Writers, n, ErrBadArgument)
	}
	b := &SegmentBuild{Setup: s, Docs: n}
	dir := s.Dir
	var fsys vfs.FS
	if dir == "" {
		if b.temp, err = scratch.New("veclab-segments-"); err != nil {
			return nil, fmt.Errorf("experiment: segments: %w", err)
		}
		fsys, dir = b.temp.FS, b.temp.Path
	}
	cfg := segment.Config{FS: fsys, Dir: dir, Dim: ds.Base.Dim, Metric: env.Metric(), Graph: hnsw.Config{M: s.M, EfConstruction: s.EfConstruction},
		BuildWorkers: s.BuildWorkers, Seed: env.Seed, FlushDocs: s.FlushDocs, Writers: s.Writers,
		StoredBlockBytes: s.StoredBlockBytes, Index: s.Index}
	c, err := segment.Open(cfg)
	if err != nil {
		b.Close0()
		return nil, err
	}
	b.Collection = c
	batch := env.Scale.Batch
	docs := func(lo, hi int) []segment.Doc {
		out := make([]segment.Doc, 0, hi-lo)
		for i := lo; i < hi; i++ {
			out = append(out, segment.Doc{Key: uint64(i), Vector: ds.Base.Row(i), Source: dataset.Document(i)})
		}
		return out
	}
	cpu0, okCPU := metrics.ProcessCPU()
	t0 := time.Now()
	switch {
	case s.Segments > 0:
		done := 0
		for g := 0; g < s.Segments; g++ {
			hi := (g + 1) * n / s.Segments
			for lo := done; lo < hi; lo += batch {
				if err := c.Add(docs(lo, min(lo+batch, hi))); err != nil {
					b.Close()
					return nil, err
				}
			}
			done = hi
			if err := c.Refresh(); err != nil {
				b.Close()
				return nil, err
			}
			env.Step(done, n, "segments: ingest")
		}
	default:
		// Writers take batches in turn from a shared counter, as bulk
		// requests spread over indexing threads.
		var next int64
		var mu sync.Mutex
		var wg sync.WaitGroup
		errs := make([]error, s.Writers)
		writerCPU := make([]time.Duration, s.Writers)
		for w := 0; w < s.Writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Each writer keeps its thread, so its thread's CPU time
				// is the work it did (the graphs of the segments it seals).
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				c0 := metrics.ThreadCPU()
				defer func() { writerCPU[w] = metrics.ThreadCPU() - c0 }()
				for {
					mu.Lock()
					lo := int(next)
					next += int64(batch)
					mu.Unlock()
					if lo >= n {
						return
					}
					if err := c.Add(docs(lo, min(lo+batch, n))); err != nil {
						errs[w] = err
						return
					}
					env.Step(min(lo+batch, n), n, "segments: ingest")
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				b.Close()
				return nil, err
			}
		}
		runtime.LockOSThread()
		r0 := metrics.ThreadCPU()
		err := c.Refresh()
		refreshCPU := metrics.ThreadCPU() - r0
		runtime.UnlockOSThread()
		if err != nil {
			b.Close()
			return nil, err
		}
		if r0 > 0 {
			b.CriticalCPU = slices.Max(writerCPU) + refreshCPU
		}
	}
	b.Elapsed = time.Since(t0)
	if cpu1, _ := metrics.ProcessCPU(); okCPU {
		b.CPU = cpu1 - cpu0
	}
	b.Segments = len(c.Segments())
	return b, nil
}

// Close0 removes the temporary directory of a build that never opened.
func (b *SegmentBuild) Close0() {
	if b.temp != nil {
		b.temp.Remove()
	}
}

// SegmentSearch is one search setting over a collection.
type SegmentSearch struct {
	K, Ef       int
	Mode        segment.Mode
	SharedBound bool
	Fetch       segment.Fetch
	Visit       float64 // IVF segments: the fraction of lists probed (0: the engine's 0.05)
}

func (o SegmentSearch) Options() segment.Options {
	return segment.Options{K: o.K, Ef: o.Ef, Mode: o.Mode, SharedBound: o.SharedBound, Fetch: o.Fetch, Visit: o.Visit}
}

// String names the setting, e.g. "ef 150, concurrent, shared bound".
func (o SegmentSearch) String() string {
	s := fmt.Sprintf("ef %d", o.Ef)
	if o.Mode == segment.Concurrent {
		s += ", concurrent"
	} else {
		s += ", sequential"
	}
	if o.SharedBound {
		s += ", shared bound"
	}
	if o.Fetch != segment.IDsFromColumn {
		s += ", " + o.Fetch.String()
	}
	return s
}

// SegmentMeasurement is what a setting answered.
type SegmentMeasurement struct {
	Label        string
	Search       SegmentSearch
	Segments     int
	Queries      int
	Recall       float64 // mean recall@K against the exact top-K
	QPS          float64 // single client
	P50ms        float64
	DistComps    float64 // mean distance computations per query
	Decompressed float64 // mean stored-field bytes decompressed per query
}

// measureSegments runs the environment's queries against the collection:
// Scale.Warmup warm-up queries, then every query reps times (at least 1),
// one at a time; QPS and p50 come from all repetitions, recall and counts
// from the first.
func MeasureSegments(env *Env, c *segment.Collection, o SegmentSearch, reps int, label string) (SegmentMeasurement, error) {
	ds, err := env.Dataset()
	if err != nil {
		return SegmentMeasurement{}, err
	}
	if o.K == 0 {
		o.K = env.Scale.K
	}
	truth, err := env.Truth(o.K)
	if err != nil {
		return SegmentMeasurement{}, err
	}
	qs := ds.Queries
	m := SegmentMeasurement{Label: label, Search: o, Segments: len(c.Segments()), Queries: qs.N}
	res := make([]engine.Result, 0, o.K) // the hits as results, keyed by document
	loop := metrics.Loop{Queries: qs.N, K: o.K, Truth: truth.IDs, Warmup: env.Scale.Warmup, Passes: max(reps, 1)}
	lm, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		hs, st, err := c.Search(qs.Row(i), o.Options())
		if pass != 0 {
			return nil, err
		}
		m.DistComps += float64(st.DistComps)
		m.Decompressed += float64(st.Decompressed)
		res = res[:0]
		for _, h := range hs {
			res = append(res, engine.Result{ID: engine.ID(h.Key)})
		}
		return res, err
	})
	if err != nil {
		return SegmentMeasurement{}, fmt.Errorf("experiment: %s: %w", label, err)
	}
	n := float64(qs.N)
	m.Recall = lm.Recall
	m.DistComps /= n
	m.Decompressed /= n
	m.QPS = lm.QPS
	m.P50ms = ms(lm.Latency.P50)
	return m, nil
}

// SegmentsChart draws recall against distance computations per query for
// several sweeps (one line each, a point per measurement labelled with
// its segments or ef): the work a setting costs for the recall it buys.
func SegmentsChart(title string, names []string, sweeps ...[]SegmentMeasurement) *chart.Line {
	k := 0
	if len(sweeps) > 0 && len(sweeps[0]) > 0 {
		k = sweeps[0][0].Search.K
	}
	c := chart.NewLine(title, "distance computations per query", fmt.Sprintf("recall@%d", k))
	c.LogX = true
	for i, ms := range sweeps {
		var xs, ys []float64
		var ls []string
		for _, m := range ms {
			xs, ys = append(xs, m.DistComps), append(ys, m.Recall)
			ls = append(ls, m.pointLabel())
		}
		name := fmt.Sprintf("sweep %d", i+1)
		if i < len(names) {
			name = names[i]
		}
		c.AddLabeled(name, xs, ys, ls)
	}
	return c
}

func (m SegmentMeasurement) pointLabel() string {
	if strings.HasSuffix(m.Label, "segments") {
		return fmt.Sprintf("%d seg", m.Segments)
	}
	return fmt.Sprintf("ef %d", m.Search.Ef)
}
