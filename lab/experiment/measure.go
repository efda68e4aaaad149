package experiment

import (
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// Measurement is what one store answered for the environment's queries.
type Measurement struct {
	Label     string          // the row: a store name or a setting
	Queries   int             // measured queries
	K         int             // topK
	Recall    float64         // mean recall@K against the exact top-K
	Latency   metrics.Latency // per-query wall time, single goroutine
	QPS       float64         // measured queries / their total wall time
	MeanHits  float64         // mean number of results returned
	DistComps float64         // mean distance computations per query
	Plan      profile.Plan    // the query plan the store used
	Segments  int             // segments the store searched
	// CPULatency is each query's CPU time on the measuring thread (locked
	// to it), the figure the latency verdicts judge; zero where the
	// thread's CPU clock cannot be read (threadClock).
	CPULatency metrics.Latency
	// RoundLatency and RoundCPU are Latency and CPULatency over each
	// round's share of the queries when the row was measured in
	// alternating rounds beside others (Env.Alternate), nil otherwise: a
	// latency ratio is the median of its per-round ratios.
	RoundLatency, RoundCPU []metrics.Latency
	// Leaves, for an Elasticsearch filtered search, counts the paths its
	// segments took over all queries (profile.LeafPaths).
	Leaves profile.LeafPaths
	// Live is the real pgvector's answer to the same queries (nil without
	// Env.PG, and for the other stores).
	Live *LiveMeasurement
}

// Rows turns a notebook's measurements (lab/measure's verbs) into the rows
// an experiment's Verdicts read: label, queries, topK, recall, latency, QPS,
// hits and distances. Plan, Segments, Leaves and Live stay zero: they are
// what the experiments' own Measure records for reproduce, and the
// verdicts that read them take their rows from there.
func Rows(rs []measure.Result) []Measurement {
	ms := make([]Measurement, 0, len(rs))
	for _, r := range rs {
		ms = append(ms, Measurement{Label: r.Label, Queries: r.Queries, K: r.K, Recall: r.Recall,
			Latency: r.Latency, CPULatency: r.CPULatency, QPS: r.QPS, MeanHits: r.MeanHits, DistComps: r.DistComps})
	}
	return ms
}

// FilteredRows is Rows for filtered measurements (lab/measure's verbs on
// Queries.Where): the rows the filtered experiments' Verdicts read —
// label, recall, mean hits, latency, distances, payload reads and the
// plan. Matching, the per-query Hits and Live stay zero: the notebook
// shows those in its own cells (Live: set it from MeasureLive).
func FilteredRows(rs []measure.Result) []StrategyMeasurement {
	ms := make([]StrategyMeasurement, 0, len(rs))
	for _, r := range rs {
		ms = append(ms, StrategyMeasurement{Label: r.Label, Recall: r.Recall, MeanHits: r.MeanHits, Latency: r.Latency, CPULatency: r.CPULatency,
			DistComps: r.DistComps, PayloadChecks: r.PayloadReads, Plan: r.Plan})
	}
	return ms
}

// String prints the measurement on one line.
func (m Measurement) String() string {
	return fmt.Sprintf("%s: recall@%d %.3f, %v, %.0f QPS, mean hits %.1f, %.0f distances/query (%v)",
		m.Label, m.K, m.Recall, m.Latency, m.QPS, m.MeanHits, m.DistComps, m.Plan)
}

// P50ms and P95ms are the latency quantiles in milliseconds, for tables.
func (m Measurement) P50ms() float64 { return ms(m.Latency.P50) }

// P95ms is the 95th percentile latency in milliseconds.
func (m Measurement) P95ms() float64 { return ms(m.Latency.P95) }

// ms is d in milliseconds, for tables.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// threadClock returns the clock a measured loop reads beside the wall
// clock to time each query by the CPU its thread spent
// (metrics.ThreadCPU), or nil where it cannot be read (js/wasm, non-Linux):
// the latency verdicts then judge wall times and say so. The caller holds
// runtime.LockOSThread for the loop, and the searches it times run on
// that thread (every store's search is single-threaded: segment
// collections with SearchWorkers 1, flat scans with one worker).
func threadClock() func() time.Duration {
	if metrics.ThreadCPU() <= 0 {
		return nil
	}
	return metrics.ThreadCPU
}

// measure runs the environment's queries against s the way the article
// did, through lab/metrics' loop: the first Scale.Warmup queries once
// unmeasured, then every query measured one at a time with topK =
// Scale.K; recall@K (metrics.RecallDefinition) is against the exact top-K
// (cosine) of the whole data set, QPS the queries over their summed time.
// Each query is timed on the wall clock and on its thread's CPU clock
// (threadClock; the loop runs locked to one thread). Inside
// Env.Alternate the queries run in rounds beside the other rows'.
func Measure(env *Env, s *profile.Store, label string) (Measurement, error) {
	ds, err := env.Dataset()
	if err != nil {
		return Measurement{}, err
	}
	k := env.Scale.K
	truth, err := env.Truth(k)
	if err != nil {
		return Measurement{}, err
	}
	qs := ds.Queries
	var (
		dist int
		plan profile.Plan // the plan the store's searches ran, as they report it
	)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pause, rounds := env.rounds(qs.N)
	loop := metrics.Loop{Queries: qs.N, K: k, Truth: truth.IDs, Warmup: env.Scale.Warmup, CPU: threadClock(), Before: pause}
	m, err := loop.Run(engine.Context(), func(pass, i int) ([]engine.Result, error) {
		res, st, err := s.SearchStats(qs.Row(i), k)
		if pass == 0 {
			dist += st.DistComps
			plan = st.Plan
		}
		return res, err
	})
	if err != nil {
		return Measurement{}, fmt.Errorf("experiment: %s: %w", label, err)
	}
	return Measurement{
		Label: label, Queries: qs.N, K: k, Recall: m.Recall,
		Latency: m.Latency, CPULatency: m.CPULatency, QPS: m.QPS,
		RoundLatency: roundLatencies(m.Times, qs.N, rounds), RoundCPU: roundLatencies(m.CPUTimes, qs.N, rounds),
		MeanHits: m.MeanHits, DistComps: float64(dist) / float64(qs.N),
		Plan: plan, Segments: len(s.Segments()),
	}, nil
}

// MeasureProfile builds (or reuses) the store of p in env and measures it.
func MeasureProfile(env *Env, p profile.Profile) (Measurement, error) {
	s, err := env.Store(p)
	if err != nil {
		return Measurement{}, err
	}
	return Measure(env, s, p.Kind.String())
}

// CompareProfiles measures several profiles (built or reused in env) and
// tabulates them side by side: the lab's own comparison, for a notebook
// cell that changes one setting and measures again. labels name the rows
// (nil: each profile's store name).
func CompareProfiles(env *Env, title string, labels []string, ps []profile.Profile) (*table.Table, error) {
	if len(ps) == 0 {
		return nil, fmt.Errorf("experiment: CompareProfiles: no profiles: %w", ErrBadArgument)
	}
	if labels != nil && len(labels) != len(ps) {
		return nil, fmt.Errorf("experiment: CompareProfiles: %d labels for %d profiles: %w", len(labels), len(ps), ErrBadArgument)
	}
	t := table.New(title, table.Col("profile", ""),
		table.Column{Header: metrics.RecallHeader(env.Scale.K), Source: table.Lab, Prec: 3},
		table.Column{Header: "p50", Unit: "ms", Source: table.Lab, Prec: 2},
		table.Column{Header: "p95", Unit: "ms", Source: table.Lab, Prec: 2},
		table.Column{Header: "mean hits", Source: table.Lab, Prec: 1},
		table.Column{Header: "distances/query", Source: table.Lab, Prec: -1},
		table.Column{Header: "bytes/vector", Source: table.Lab, Prec: -1},
		table.Column{Header: "query plan", Source: table.Lab})
	for i, p := range ps {
		label := p.Kind.String()
		if labels != nil {
			label = labels[i]
		}
		env.Step(i, len(ps), "compare profiles")
		s, err := env.Store(p)
		if err != nil {
			return nil, err
		}
		m, err := Measure(env, s, label)
		if err != nil {
			return nil, err
		}
		_ = t.AddValues(label, m.Recall, m.P50ms(), m.P95ms(), m.MeanHits, m.DistComps, s.BytesPerVector(), m.Plan.String())
	}
	env.Step(len(ps), len(ps), "compare profiles")
	t.Note("one Go process, single-threaded queries; %d queries after %d warm-up, topK=%d", env.Scale.Queries, env.Scale.Warmup, env.Scale.K) // the recall definition is the table's caption
	return t, nil
}

// recallVerdicts records, for each measurement whose label has an article
// recall@10 figure in e, whether the lab's recall is within
// recallTolerance of it.
func RecallVerdicts(env *Env, e Experiment, ms []Measurement, what string) Verdicts {
	var out Verdicts
	for _, m := range ms {
		f, ok := e.Figure(m.Label, "recall@10")
		if !ok {
			continue
		}
		out = append(out, Within(e.ID, fmt.Sprintf("%s %s recall@10 is %.3f", m.Label, what, f.Value), f.Value, m.Recall, RecallTolerance, ""))
	}
	return out
}

func StoreFigures(m map[string][4]float64) []Figure {
	var fs []Figure
	for _, k := range []profile.Kind{profile.PGVector, profile.Redis, profile.Qdrant, profile.Elasticsearch} {
		v, ok := m[k.String()]
		if !ok {
			continue
		}
		fs = append(fs,
			Figure{Row: k.String(), Measure: "recall@10", Value: v[0]},
			Figure{Row: k.String(), Measure: "p50", Value: v[1], Unit: "ms"},
			Figure{Row: k.String(), Measure: "p95", Value: v[2], Unit: "ms"},
			Figure{Row: k.String(), Measure: "mean hits", Value: v[3]},
		)
	}
	return fs
}

// sweepChart draws recall@10 against a swept integer setting (each
// measurement's Label), the article's figures beside the lab's.
func SweepChart(e Experiment, title, xLabel string, ms []Measurement) *chart.Line {
	c := chart.NewLine(title, xLabel, "recall@10")
	c.LogX = true
	var ax, ay, lx, ly []float64
	for _, m := range ms {
		x, _ := strconv.Atoi(m.Label)
		lx, ly = append(lx, float64(x)), append(ly, m.Recall)
		if f, ok := e.Figure(m.Label, "recall@10"); ok {
			ax, ay = append(ax, float64(x)), append(ay, f.Value)
		}
	}
	if len(ax) > 0 {
		c.Add("article", ax, ay)
	}
	c.Add("lab", lx, ly)
	return c
}

// The lab's tolerances and repeats the experiments share.
const (
	// RecallTolerance is how far a lab recall@10 may sit from an article's
	// and still agree: 0.05, about the spread of recall over 100 queries
	// between seeds of the lab's set, and a tenth of the gaps the articles
	// draw conclusions from (Redis's 0.616 against the others' 0.99).
	RecallTolerance = 0.05
	// DiskRepeats is the number of timed passes of a warm disk measurement.
	DiskRepeats = measure.DiskRepeats
	// ReplyNoise is the run-to-run noise of a speed ratio by Elastic's reply
	// to Qdrant's own account: it calls its 13 % move (31.6 → 35.8 QPS)
	// "within the run-to-run noise", so a speed-up the reply claims (E15,
	// E18) counts only above 1.13×.
	ReplyNoise = 0.13
)
