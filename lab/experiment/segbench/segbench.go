package segbench

import (
	"fmt"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/experiment/e16"
	"github.com/veclab/veclab/lab/experiment/e18"
	"github.com/veclab/veclab/lab/experiment/e20"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/table"
)

// Config says what [Run] measures, the parts of
// E18 (ingest), E16 (segment count) and E20 (search modes) that `veclab
// bench segments` runs with its own sizes. Start from
// [DefaultConfig]. (It lives here rather than in lab/bench
// because the measurements are this package's, and this package already
// imports lab/bench for its CPU-time and read-byte probes.)
type Config struct {
	K            int   // results per query (recall@K; the article: 100)
	Ef           int   // per-segment ef of the ingest and segment-count rows
	Efs          []int // ef sweep of the search-mode comparison
	Counts       []int // segment counts, largest first (each later one a force merge)
	ModeSegments int   // segments of the search-mode comparison
	Writers      int   // parallel writers of the ingest comparison (0: one per core, at least 2)
	Flush        int   // shared indexing buffer in documents (0: an eighth of the data set)
	// SkipIngest, SkipCounts and SkipModes leave a part out.
	SkipIngest, SkipCounts, SkipModes bool
}

// DefaultConfig is `veclab bench segments`' defaults.
func DefaultConfig() Config {
	return Config{K: 100, Ef: 150, Efs: []int{100, 150, 200, 300, 500}, Counts: []int{64, 16, 4, 1}, ModeSegments: 16}
}

// Validate reports every problem of c at once.
func (c Config) Validate() error {
	var bad []string
	if c.K < 1 || c.Ef < 1 || c.ModeSegments < 1 || c.Writers < 0 || c.Flush < 0 {
		bad = append(bad, fmt.Sprintf("k %d, ef %d, mode segments %d must be positive, writers %d and flush %d non-negative", c.K, c.Ef, c.ModeSegments, c.Writers, c.Flush))
	}
	for _, l := range []struct {
		name string
		v    []int
	}{{"ef sweep", c.Efs}, {"segment counts", c.Counts}} {
		if len(l.v) == 0 {
			bad = append(bad, "no "+l.name)
		}
		for _, x := range l.v {
			if x < 1 {
				bad = append(bad, fmt.Sprintf("%s: %d < 1", l.name, x))
			}
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("experiment: segments bench: %s: %w", strings.Join(bad, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// Report is the outcome of [Run]; a part skipped
// is nil.
type Report struct {
	Config        Config // with Writers and Flush resolved
	Ingest        []e18.Ingest
	Counts        []experiment.SegmentMeasurement
	Modes         *e20.Result
	Pairs         []metrics.Pair // of Modes: shared bound vs none at comparable recall
	SearchWorkers int
}

// Run runs the parts cfg selects on env's data set: E18's
// ingest with parallel writers against one, E16's segment counts (built
// by refreshes, then force-merged) and E20's four search modes.
func Run(env *experiment.Env, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Writers == 0 {
		cfg.Writers = max(env.Machine.Cores, 2)
	}
	if cfg.Flush == 0 {
		cfg.Flush = max(env.Scale.N/8, 1)
	}
	rep := &Report{Config: cfg, SearchWorkers: env.Machine.Cores}
	var err error
	if !cfg.SkipIngest {
		res, err := e18.Measure(env, cfg.Writers, cfg.Flush, cfg.K, cfg.Ef)
		if err != nil {
			return nil, fmt.Errorf("experiment: segments bench: ingest: %w", err)
		}
		rep.Ingest = res.Ingests
	}
	if !cfg.SkipCounts {
		if rep.Counts, err = e16.Measure(env, cfg.Counts, cfg.K, cfg.Ef); err != nil {
			return nil, fmt.Errorf("experiment: segments bench: segment counts: %w", err)
		}
	}
	if !cfg.SkipModes {
		if rep.Modes, err = e20.Measure(env, cfg.ModeSegments, cfg.Efs, cfg.K); err != nil {
			return nil, fmt.Errorf("experiment: segments bench: search modes: %w", err)
		}
		rep.Pairs = e20.Pairs(rep.Modes)
	}
	return rep, nil
}

// Tables returns the report's tables in order: ingest, segment count,
// search modes and the shared-bound pairs (those of skipped parts left
// out).
func (r *Report) Tables() []*table.Table {
	c, k := r.Config, r.Config.K
	var out []*table.Table
	if r.Ingest != nil {
		t := table.New(fmt.Sprintf("Ingest: %d parallel writers vs one, a shared buffer of %d documents, each segment's graph built on one goroutine; queries at ef %d", c.Writers, c.Flush, c.Ef),
			table.Col("index, ingest", ""), table.Col("segments", ""), table.Column{Header: "build", Unit: "s", Prec: 1},
			table.Column{Header: "ingest", Unit: "docs/s", Prec: -1}, table.Column{Header: metrics.RecallHeader(k), Prec: 4},
			table.Column{Header: "QPS", Prec: 1}, table.Column{Header: "p50", Unit: "ms", Prec: 2}, table.Column{Header: "distances/query", Prec: 0})
		for _, x := range r.Ingest {
			t.AddValues(x.Mode, x.Segments, x.Seconds, x.DocsPerS, x.Search.Recall, x.Search.QPS, x.Search.P50ms, x.Search.DistComps)
		}
		for i := 0; i+1 < len(r.Ingest); i += 2 {
			p, s := r.Ingest[i], r.Ingest[i+1]
			t.Note("%s ratio parallel/single: ingest %.2f×, segments %.2f×, QPS %.2f×, distances %.2f×", p.Index, p.DocsPerS/s.DocsPerS,
				float64(p.Segments)/float64(s.Segments), p.Search.QPS/s.Search.QPS, p.Search.DistComps/s.Search.DistComps)
		}
		t.Note("IVF segments probe %.0f %% of their lists", 100*e18.Visit)
		out = append(out, t)
	}
	if r.Counts != nil {
		t := table.New(fmt.Sprintf("Segment count at ef %d (the first row built by refreshes, the others force-merged from it)", c.Ef),
			table.Col("segments", ""), table.Column{Header: metrics.RecallHeader(k), Prec: 4}, table.Column{Header: "QPS", Prec: 1},
			table.Column{Header: "p50", Unit: "ms", Prec: 2}, table.Column{Header: "distances/query", Prec: 0}, table.Column{Header: "QPS vs first", Unit: "×", Prec: 2})
		for _, m := range r.Counts {
			t.AddValues(m.Segments, m.Recall, m.QPS, m.P50ms, m.DistComps, m.QPS/r.Counts[0].QPS)
		}
		t.Note("article (E16): 128 segments recall@100 0.9745, 35.8 QPS; force-merged to 66: 0.9531, 53.3 QPS")
		out = append(out, t)
	}
	if r.Modes != nil {
		t := table.New(fmt.Sprintf("Search modes over %d segments (%d search workers)", c.ModeSegments, r.SearchWorkers),
			table.Col("ef", ""), table.Col("mode", ""), table.Column{Header: metrics.RecallHeader(k), Prec: 4},
			table.Column{Header: "QPS", Prec: 1}, table.Column{Header: "p50", Unit: "ms", Prec: 3},
			table.Column{Header: "distances/query", Prec: 0}, table.Column{Header: "QPS vs sequential", Unit: "×", Prec: 2})
		for i := range r.Modes.Sequential {
			seq := r.Modes.Sequential[i]
			for _, m := range []experiment.SegmentMeasurement{seq, r.Modes.Concurrent[i], r.Modes.Shared[i], r.Modes.SharedConcurrent[i]} {
				t.AddValues(m.Search.Ef, m.Label, m.Recall, m.QPS, m.P50ms, m.DistComps, m.QPS/seq.QPS)
			}
		}
		out = append(out, t)
		pt := table.New(fmt.Sprintf("Shared bound vs none at comparable recall (±%.2f)", e20.RecallTolerance),
			table.Col("shared bound", ""), table.Column{Header: metrics.RecallHeader(k), Prec: 4}, table.Col("without", ""), table.Column{Header: metrics.RecallHeader(k), Prec: 4},
			table.Column{Header: "distances saved", Unit: "%", Prec: 1})
		for _, p := range r.Pairs {
			pt.AddValues(p.A.Label, p.A.Recall, p.B.Label, p.B.Recall, 100*(1-1/p.Speedup))
		}
		out = append(out, pt)
	}
	return out
}
