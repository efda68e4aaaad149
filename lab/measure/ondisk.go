package measure

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/scratch"
	"github.com/veclab/veclab/lab/table"
)

// The verbs of an index whose float32 originals are on disk: its search
// gathers candidates in RAM (codes, a graph, posting lists that may be a
// file too) and rescores them with vectors read from a vector file
// (engine/store through engine/rescore), whose reads are counted. The disk
// experiments (E13–E15, E26, E27) measure every setting this way.

// DiskRepeats is the number of timed passes of a warm disk measurement:
// the median pass gives QPS, so one stall of a shared machine does not
// make QPS and p50 disagree.
const DiskRepeats = 3

// DiskSearch answers one query on a disk-backed index: its results (ids
// are the data set's row numbers), the reads of the vector file
// (rescoring) and of the posting-list file (IVF lists on disk; zero
// otherwise).
type DiskSearch func(q []float32, k int) (res []engine.Result, vectors, lists store.IOStats, err error)

// DiskResult is one measured setting of a disk-backed search.
type DiskResult struct {
	Label       string
	Param       float64 // the swept value (ef, visit %)
	K           int
	Queries     int     // timed queries
	Recall      float64 // mean recall@K
	QPS         float64 // single goroutine, wall time
	P50ms       float64
	P95ms       float64
	Reads       float64 // full-vector reads per query (rescoring)
	DeviceReads float64 // of which not served by the page cache
	KB          float64 // KiB requested per query (rescoring)
	ListReads   float64 // posting-list reads per query (IVF lists on disk)
	ListDevice  float64 // of which not served by the page cache
	Simulated   float64 // simulated device ms per query (a store.Model)
	// DevPages is the rescoring reads' pages per query that were not
	// resident when read: the pages the device served, in the page
	// cache's 4 KiB units, read-ahead aside.
	DevPages float64
	// DevKB is the KiB per query the kernel read from the device for this
	// process during the first timed pass (/proc/self/io read_bytes:
	// whole pages, and any read-ahead), NaN where that is not known.
	DevKB float64
	// Wide, when measured (E13), is the same cold rescoring reads
	// repeated on rows of another width: the article's 768 dims.
	Wide *RowReads
}

// RowReads is what a pass of rescoring reads cost the device, cold, on a
// vector file of a given row width.
type RowReads struct {
	Dim      int     // components per row
	RowBytes int     // bytes per row (4·Dim and its CRC)
	Reads    float64 // rows read per query
	KB       float64 // KiB requested per query
	DevPages float64 // pages per query not resident when read
	DevKB    float64 // KiB per query the device read (/proc/self/io), NaN where unknown
}

// IVFDisk is the search of ix (engine/ivf, codes in its posting lists, in
// RAM or on disk) scanning visit % of the vectors in centroid order
// (Elasticsearch bbq_disk's visit_percentage) and rescoring the best
// ⌈oversample·k⌉ through rs.
func IVFDisk(ix *ivf.Index, visit, oversample float64, rs *rescore.Rescorer) DiskSearch {
	return func(q []float32, k int) ([]engine.Result, store.IOStats, store.IOStats, error) {
		if ix == nil || rs == nil {
			return nil, store.IOStats{}, store.IOStats{}, fmt.Errorf("measure: IVFDisk: an index and a rescorer are needed: %w", engine.ErrInvalidArgument)
		}
		res, st, err := ix.SearchWith(q, ivf.SearchOptions{K: k, VisitPercentage: visit, Oversample: oversample, Rescorer: rs})
		return res, st.Rescore.IO, st.ListIO, err
	}
}

// HNSWDisk is the search of ix (engine/hnsw, walked with the codes
// attached to it, if any) with beam max(ef, k), rescoring the best
// ⌈oversample·k⌉ through rs (hnsw.Rescore). Result ids are ix's keys,
// which must be the data set's row numbers.
func HNSWDisk(ix *hnsw.Index, ef int, oversample float64, rs *rescore.Rescorer) DiskSearch {
	var s *hnsw.Searcher
	return func(q []float32, k int) ([]engine.Result, store.IOStats, store.IOStats, error) {
		if ix == nil || rs == nil {
			return nil, store.IOStats{}, store.IOStats{}, fmt.Errorf("measure: HNSWDisk: an index and a rescorer are needed: %w", engine.ErrInvalidArgument)
		}
		if s == nil {
			s = ix.NewSearcher()
		}
		p := &hnsw.Rescore{Rescorer: rs, Oversample: oversample}
		res, err := s.Search(q, engine.Request{K: k, Breadth: max(ef, k), Params: p})
		if err != nil {
			return nil, store.IOStats{}, store.IOStats{}, err
		}
		for i := range res {
			res[i].ID = engine.ID(ix.Key(res[i].ID))
		}
		return res, p.Stats.IO, store.IOStats{}, nil
	}
}

// Evicter is a file whose pages can be dropped from the page cache: a
// store.File (vector file) or store.Blob (posting lists).
type Evicter interface {
	Evict() (stillCached int, err error)
}

// Evict returns a function that drops files' pages from the page cache
// (engine/store: fsync, unmap and posix_fadvise DONTNEED; a simulated page
// cache in a browser) and fails if any page stayed: [Disk]'s before, for a
// cold measurement.
func Evict(files ...Evicter) func() error {
	return func() error {
		for _, f := range files {
			if f == nil {
				return fmt.Errorf("measure: Evict: no file: %w", engine.ErrInvalidArgument)
			}
			left, err := f.Evict()
			if err != nil {
				return err
			}
			if left != 0 {
				return fmt.Errorf("measure: Evict: %d pages still cached after eviction", left)
			}
		}
		return nil
	}
}

// Disk runs the queries through search and measures recall@K, speed and
// reads. before == nil measures warm: after the warm-up, DiskRepeats timed
// passes, QPS from the median one, p50 from all. Otherwise before (say
// [Evict]) runs untimed before every timed query and the queries are timed
// once: a cold measurement, whose reads are the figure. Reads are counted
// on the first timed pass.
func Disk(label string, search DiskSearch, q *Queries, before func() error) (DiskResult, error) {
	if search == nil {
		return DiskResult{}, fmt.Errorf("measure: Disk(%q): no search (measure.IVFDisk, measure.HNSWDisk): %w", label, engine.ErrInvalidArgument)
	}
	if err := q.check("Disk"); err != nil {
		return DiskResult{}, err
	}
	nq, k := q.Vectors.N, q.K
	p := DiskResult{Label: label, K: k, Queries: nq, DevKB: math.NaN()}
	loop := metrics.Loop{Queries: nq, K: k, Truth: q.Truth, Warmup: q.warmup(), Passes: 1, Pick: metrics.MedianPass}
	if before == nil {
		loop.Passes = DiskRepeats
	} else {
		loop.Before = before
	}
	var vio, lio store.IOStats
	rb0, rbOK := metrics.ProcessReadBytes()
	loop.AfterPass = func(pass int) error {
		// The device's reads of the first pass (the later ones read the
		// same pages).
		if rb1, ok := metrics.ProcessReadBytes(); pass == 0 && ok && rbOK {
			p.DevKB = float64(rb1-rb0) / 1024 / float64(nq)
		}
		return nil
	}
	m, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		res, v, l, err := search(q.Vectors.Row(i), k)
		if pass == 0 { // recall and reads are the same every pass
			vio.Add(v)
			lio.Add(l)
		}
		return res, err
	})
	if err != nil {
		return DiskResult{}, fmt.Errorf("measure: Disk(%q): %w", label, err)
	}
	n := float64(nq)
	p.Recall, p.QPS, p.P50ms = m.Recall, m.QPS, float64(m.Latency.P50)/float64(time.Millisecond)
	p.P95ms = float64(m.Latency.P95) / float64(time.Millisecond)
	p.Reads, p.DeviceReads, p.KB = float64(vio.Reads)/n, float64(vio.DeviceReads())/n, float64(vio.Bytes)/1024/n
	p.ListReads, p.ListDevice = float64(lio.Reads)/n, float64(lio.DeviceReads())/n
	p.DevPages = float64(vio.Pages-vio.CachedPages) / n
	p.Simulated = float64(vio.Simulated+lio.Simulated) / float64(time.Millisecond) / n
	return p, nil
}

// SweepVisit measures ix warm at each visit percentage of visits (the
// share of the vectors scanned, Elasticsearch bbq_disk's
// visit_percentage: DiskBBQ's query-time knob), rescoring ⌈oversample·K⌉
// candidates through rs: one DiskResult per value, labelled "visit=5%".
func SweepVisit(ix *ivf.Index, visits []float64, oversample float64, rs *rescore.Rescorer, q *Queries) ([]DiskResult, error) {
	if ix == nil || rs == nil || len(visits) == 0 {
		return nil, fmt.Errorf("measure: SweepVisit: an index, a rescorer and at least one visit percentage are needed: %w", engine.ErrInvalidArgument)
	}
	if err := checkOversample("SweepVisit", oversample); err != nil {
		return nil, err
	}
	for _, v := range visits {
		if !(v > 0 && v <= 100) {
			return nil, fmt.Errorf("measure: SweepVisit: a visit percentage must be in (0, 100], got %v: %w", v, engine.ErrInvalidArgument)
		}
	}
	out := make([]DiskResult, 0, len(visits))
	for _, v := range visits {
		r, err := Disk("visit="+strconv.FormatFloat(v, 'g', -1, 64)+"%", IVFDisk(ix, v, oversample, rs), q, nil)
		if err != nil {
			return out, err
		}
		r.Param = v
		out = append(out, r)
	}
	return out, nil
}

// SweepEfDisk measures ix warm at each beam width of efs (Qdrant's
// hnsw_ef), walking its attached codes and rescoring ⌈oversample·K⌉
// candidates through rs: one DiskResult per value, labelled "ef=100".
// It is [SweepEf] for a bare graph whose originals are on disk.
func SweepEfDisk(ix *hnsw.Index, efs []int, oversample float64, rs *rescore.Rescorer, q *Queries) ([]DiskResult, error) {
	if ix == nil || rs == nil || len(efs) == 0 {
		return nil, fmt.Errorf("measure: SweepEfDisk: an index, a rescorer and at least one ef are needed: %w", engine.ErrInvalidArgument)
	}
	if err := checkOversample("SweepEfDisk", oversample); err != nil {
		return nil, err
	}
	for _, ef := range efs {
		if ef < 1 {
			return nil, fmt.Errorf("measure: SweepEfDisk: ef must be ≥ 1, got %d: %w", ef, engine.ErrInvalidArgument)
		}
	}
	out := make([]DiskResult, 0, len(efs))
	for _, ef := range efs {
		r, err := Disk("ef="+strconv.Itoa(ef), HNSWDisk(ix, ef, oversample, rs), q, nil)
		if err != nil {
			return out, err
		}
		r.Param = float64(ef)
		out = append(out, r)
	}
	return out, nil
}

func checkOversample(verb string, x float64) error {
	if !(x >= 1) || math.IsInf(x, 0) {
		return fmt.Errorf("measure: %s: oversample must be ≥ 1 (1 rescores the k results themselves), got %v: %w", verb, x, engine.ErrInvalidArgument)
	}
	return nil
}

// First returns the first n of the queries with their exact answers (all
// of them when n is larger): fewer queries where each one waits for a
// simulated device. The warm-up is capped at n.
func (q *Queries) First(n int) (*Queries, error) {
	if err := q.check("First"); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("measure: First(%d): at least one query: %w", n, engine.ErrInvalidArgument)
	}
	if n >= q.Vectors.N {
		return q, nil
	}
	f := *q
	v := *q.Vectors
	v.N, v.Data = n, v.Data[:(n-1)*v.Stride+v.Dim]
	f.Vectors = &v
	f.Truth = q.Truth[:n]
	return &f, nil
}

// DiskTable tabulates disk results, one row each: recall@K, QPS, p50, the
// vector file's reads per query and those the device served (pages too),
// the posting-list file's, and the simulated device time.
func DiskTable(title string, rs []DiskResult) (*table.Table, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("measure: DiskTable(%q): no results: %w", title, engine.ErrInvalidArgument)
	}
	t := table.New(title, table.Col("setting", ""),
		table.Column{Header: metrics.RecallHeader(rs[0].K), Source: table.Lab, Prec: 3},
		table.Column{Header: "QPS", Source: table.Lab, Prec: -1},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 3},
		table.Column{Header: "vector reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "vector device reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "device pages/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "list reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "list device reads/q", Source: table.Lab, Prec: 1},
		table.Column{Header: "simulated device", Unit: "ms/q", Source: table.Lab, Prec: 2})
	for _, r := range rs {
		if err := t.AddValues(r.Label, r.Recall, r.QPS, r.P50ms, r.Reads, r.DeviceReads, r.DevPages, r.ListReads, r.ListDevice, r.Simulated); err != nil {
			return nil, fmt.Errorf("measure: DiskTable(%q): %w", title, err)
		}
	}
	t.Note("%s over %d queries, one at a time; device reads/q: the reads not served by the page cache; device pages/q: the vector file's 4 KiB pages not resident when read; simulated device: the latency a store.Model added (0 without one)", metrics.RecallHeader(rs[0].K), rs[0].Queries)
	SimulatedNote(t)
	return t, nil
}

// SimulatedNote notes on t, when the scratch files are in memory (a
// browser tab, lab/scratch), that its page cache and device reads are
// simulated: modelled by engine/store, not measured. Every table of
// device reads carries it (DiskTable here, lab/experiment's disk
// experiments).
func SimulatedNote(t *table.Table) {
	if scratch.Simulated() {
		t.Note("SIMULATED disk (this browser tab has no files): the files are in memory; engine/store keeps a simulated page cache, and a read of a page not in it is a device read priced by its model (%s), so device reads, cold and simulated-device times are modelled, not measured", store.DeviceModel)
	}
}
