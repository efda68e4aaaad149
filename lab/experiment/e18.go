package experiment

import (
	"fmt"

	"github.com/veclab/veclab/engine/segment"

	"github.com/veclab/veclab/lab/table"
)

// e18 is ingest speed vs query speed (Elastic's reply to Qdrant): parallel ingest is fast
// and leaves many segments, single-threaded ingest is slow and leaves few.
var e18 = Experiment{
	ID:    "E18",
	Title: "ingest speed vs query speed: parallel writers (many small segments) vs one writer (few large segments), HNSW and IVF, then queries at the same breadth",
	Article: "Elastic's reply to Qdrant: parallel ingest is fast and makes many segments; single-threaded ingest is slow and makes few; " +
		"IVF is cheap to build and less sensitive to segment count than HNSW (no figures)",
}

func init() { e18.Run, e18.Notebook = runE18, "08-segments-and-merges.ipynb"; Register(e18) }

// E18Ingest is one ingest mode's build and the queries after it.
type E18Ingest struct {
	Index     segment.IndexKind
	Mode      string
	Writers   int
	Segments  int
	DocsPerS  float64
	Seconds   float64
	Search    SegmentMeasurement
	FlushDocs int
}

// E18Measure ingests the data set once with writers concurrent writers
// (each building its segments' graphs on one goroutine) and once with a
// single writer, under the same shared indexing buffer of flushDocs
// documents, and measures both at (k, ef).
//
// writers 0 means one per core (at least 2); flushDocs 0 a quarter of the
// data set.
func E18Measure(env *Env, writers, flushDocs, k, ef int) ([]E18Ingest, error) {
	if writers == 0 {
		writers = max(env.Machine.Cores, 2)
	}
	if flushDocs == 0 {
		flushDocs = max(env.Scale.N/4, 1)
	}
	if writers < 2 || flushDocs < 1 {
		return nil, fmt.Errorf("experiment: E18: %d writers (want ≥ 2), buffer of %d documents: %w", writers, flushDocs, ErrBadArgument)
	}
	var out []E18Ingest
	for _, kind := range []segment.IndexKind{segment.HNSW, segment.IVF} {
		for _, w := range []int{writers, 1} {
			mode := "single writer"
			if w > 1 {
				mode = fmt.Sprintf("%d parallel writers", w)
			}
			mode = kind.String() + ", " + mode
			env.logf("E18: %s", mode)
			b, err := buildSegments(env, SegmentSetup{Writers: w, BuildWorkers: 1, FlushDocs: flushDocs, Index: kind})
			if err != nil {
				return nil, err
			}
			m, err := measureSegments(env, b.Collection, SegmentSearch{K: k, Ef: ef, Visit: E18Visit}, 3, mode)
			b.Close()
			if err != nil {
				return nil, err
			}
			out = append(out, E18Ingest{Index: kind, Mode: mode, Writers: w, Segments: b.Segments, DocsPerS: b.DocsPerSec(),
				Seconds: b.Elapsed.Seconds(), Search: m, FlushDocs: flushDocs})
		}
	}
	return out, nil
}

// E18Visit is the fraction of each IVF segment's lists E18 probes.
const E18Visit = 0.1

// E18Table tabulates both ingest modes and the queries after them.
func E18Table(env *Env, res []E18Ingest) *table.Table {
	t := table.New(fmt.Sprintf("E18 ingest of %d documents through a shared indexing buffer of %d documents, then top %d at ef %d", env.Scale.N, res[0].FlushDocs, res[0].Search.Search.K, res[0].Search.Search.Ef),
		table.Col("index, ingest", ""), table.Col("segments", ""),
		table.Column{Header: "ingest", Unit: "docs/s", Source: table.Lab, Prec: -1},
		table.Column{Header: "build", Unit: "s", Source: table.Lab, Prec: 1},
		table.Column{Header: fmt.Sprintf("recall@%d", res[0].Search.Search.K), Source: table.Lab, Prec: 3},
		table.Column{Header: "QPS", Source: table.Lab, Prec: 1},
		table.Column{Header: "distances/query", Source: table.Lab, Prec: 0})
	for _, x := range res {
		_ = t.AddValues(x.Mode, x.Segments, x.DocsPerS, x.Seconds, x.Search.Recall, x.Search.QPS, x.Search.DistComps)
	}
	t.Note("HNSW segments are searched at ef %d, IVF segments (lists of about 384 float32 vectors) by probing %.0f %% of each segment's lists", res[0].Search.Search.Ef, 100*E18Visit)
	t.Note("the writers share one indexing buffer, as Lucene's per-thread writers share indices.memory.index_buffer_size: each writer's buffer is sealed at %d/writers documents, so more writers leave more, smaller segments", res[0].FlushDocs)
	return t
}

func runE18(env *Env) (*Report, error) {
	const ef = 40
	res, err := E18Measure(env, 0, 0, env.Scale.K, ef)
	if err != nil {
		return nil, err
	}
	r := newReport(e18, env)
	r.AddTable(E18Table(env, res))
	hp, hs, ip, is := res[0], res[1], res[2], res[3]
	r.Note("HNSW: %s ingest %.2f× as fast as one writer and leave %d segments instead of %d; at the same ef the fewer segments answer at %.2f× the QPS (recall %.3f vs %.3f)",
		hp.Mode, hp.DocsPerS/hs.DocsPerS, hp.Segments, hs.Segments, hs.Search.QPS/hp.Search.QPS, hs.Search.Recall, hp.Search.Recall)
	r.Note("IVF: building is %.1f× as fast as HNSW's (single writer), and the segment count moves its queries less: %.2f× the distance computations on %d segments as on %d, against %.2f× for HNSW — each IVF segment probes the same fraction of its lists, so the total work follows the documents, not the segments",
		is.DocsPerS/hs.DocsPerS, ip.Search.DistComps/is.Search.DistComps, ip.Segments, is.Segments, hp.Search.DistComps/hs.Search.DistComps)
	E18Verdicts(env, res)
	return r, nil
}

// E18Verdicts compares E18Measure's four ingests (HNSW parallel, HNSW one
// writer, IVF parallel, IVF one writer) with the article's claims, which
// give no figures: parallel ingest leaves more segments, IVF is cheap to
// build, and its query work is less sensitive to the segment count than
// HNSW's (distance computations, many segments over few).
func E18Verdicts(env *Env, res []E18Ingest) Verdicts {
	if len(res) < 4 {
		return Verdicts{env.Holds("E18", "parallel ingest leaves more segments than one writer", "more", "not measured", false, fmt.Sprintf("%d of 4 ingests", len(res)))}
	}
	hp, hs, ip, is := res[0], res[1], res[2], res[3]
	hr, ir := hp.Search.DistComps/hs.Search.DistComps, ip.Search.DistComps/is.Search.DistComps
	return Verdicts{
		env.Holds("E18", "parallel ingest leaves more segments than one writer", "more segments",
			fmt.Sprintf("%d vs %d", hp.Segments, hs.Segments), hp.Segments > hs.Segments, why(hp.Segments > hs.Segments, "each writer flushes its own segments", "the writers' buffers flushed as one")),
		env.Holds("E18", "IVF builds faster than HNSW (one writer)", "cheap to build",
			fmt.Sprintf("%.1f× the docs/s", is.DocsPerS/hs.DocsPerS), is.DocsPerS > hs.DocsPerS, why(is.DocsPerS > hs.DocsPerS, "k-means passes and one encoding per vector, no graph search per insert", "within this machine's timing noise")),
		env.Holds("E18", "IVF's query work moves less with the segment count than HNSW's", "less sensitive",
			fmt.Sprintf("distances many/few segments: IVF %.2f×, HNSW %.2f×", ir, hr), ir < hr, why(ir < hr, "each IVF segment probes the same share of its lists", "IVF's work moved as much as HNSW's here")),
	}
}
