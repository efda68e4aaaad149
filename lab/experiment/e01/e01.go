package e01

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// e01 is the article's ingest measurement (01-ingest.txt).
var Experiment = experiment.Experiment{
	ID:      "E01",
	Claims:  claims,
	Title:   "ingest in batches: docs/s per store, and ingest finished ≠ searchable",
	Article: "Spring AI VectorStore article, 01-ingest.txt: 30,000 documents × 384 dims in batches of 1,000, embeddings looked up",
	Figures: []experiment.Figure{
		{Row: "pgvector", Measure: "ingest", Value: 46.5, Unit: "s"}, {Row: "pgvector", Measure: "docs/s", Value: 645, Unit: "docs/s"},
		{Row: "redis", Measure: "ingest", Value: 9.5, Unit: "s"}, {Row: "redis", Measure: "docs/s", Value: 3158, Unit: "docs/s"},
		{Row: "qdrant", Measure: "ingest", Value: 1.7, Unit: "s"}, {Row: "qdrant", Measure: "docs/s", Value: 17382, Unit: "docs/s"},
		{Row: "elasticsearch", Measure: "ingest", Value: 9.9, Unit: "s"}, {Row: "elasticsearch", Measure: "docs/s", Value: 3039, Unit: "docs/s"},
	},
}

func init() {
	Experiment.Run, Experiment.Notebook = runE01, "01-four-stores-on-defaults.ipynb"
	experiment.Register(Experiment)
}

var visibilityStep = map[string]string{
	profile.PGVector.String():      "row and index entry written in the inserting transaction: visible at commit",
	profile.Redis.String():         "vectors indexed from a queue by a background thread (percent_indexed)",
	profile.Qdrant.String():        "points searchable at once in plain segments; the optimizer builds HNSW in the background (status yellow → green)",
	profile.Elasticsearch.String(): "documents visible only after a refresh (refresh_interval 1s, or _refresh), which seals them into a segment and builds its graph",
}

// Measure ingests the data set into a fresh store of p in the scale's
// batches through measure.Ingest (timing the acknowledgements, counting
// what a search sees at that moment, then waiting for the store's own
// "searchable" signal). The store is kept in env (a later experiment
// measures the same index).
func Measure(env *experiment.Env, p profile.Profile) (measure.Ingested, error) {
	ds, err := env.Dataset()
	if err != nil {
		return measure.Ingested{}, err
	}
	q, err := queries(env)
	if err != nil {
		return measure.Ingested{}, err
	}
	p = env.Fill(p)
	s, in, err := measure.Ingest(p, ds.Base, profile.BuildOptions{Batch: env.Scale.Batch, Progress: env.Step}, q)
	if err != nil {
		return measure.Ingested{}, err
	}
	env.Adopt(p, s)
	return in, nil
}

// queries are the environment's queries with their exact top-K over all
// documents (the environment's cached truth), as measure's verbs take them.
func queries(env *experiment.Env) (*measure.Queries, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	truth, err := env.Truth(env.Scale.K)
	if err != nil {
		return nil, err
	}
	return &measure.Queries{Vectors: ds.Queries, K: env.Scale.K, Truth: truth.IDs, Metric: env.Metric(), Warmup: env.Scale.Warmup}, nil
}

// e01Ack opens a fresh store of p and ingests base in the scale's
// batches, returning the open store and the time until the last batch was
// acknowledged (the store's opening, done before the clock starts, is not
// counted).
func e01Ack(env *experiment.Env, p profile.Profile, base *vec.Matrix, progress bool) (*profile.Store, time.Duration, error) {
	s, err := p.Open(base.Dim)
	if err != nil {
		return nil, 0, err
	}
	batch := env.Scale.Batch
	what := "E01 ingest " + p.Kind.String()
	start := time.Now()
	for lo := 0; lo < base.N; lo += batch {
		hi := min(lo+batch, base.N)
		m := &vec.Matrix{N: hi - lo, Dim: base.Dim, Stride: base.Stride, Data: base.Data[lo*base.Stride:]}
		if err := s.Ingest(m); err != nil {
			s.Close()
			return nil, 0, err
		}
		if progress {
			env.Step(hi, base.N, what)
		}
	}
	return s, time.Since(start), nil
}

// retimeE01 is e01Retime; a test replaces it to decide from given
// rates.
var retimeE01 = e01Retime

// e01Rounds is how many alternating rounds re-time the stores whose one
// timing put them out of the article's order, and the Qdrant–Redis pair.
const e01Rounds = 5

// e01Retime re-times the acknowledgement of the stores named in ins in
// e01Rounds alternating rounds — each round every store in turn, in the
// given order in even rounds and reversed in odd ones, a fresh store each
// time, closed at once so that no background indexing of one runs into
// the next one's timing — and returns each store's docs/s per round. One
// timing of Redis's or Qdrant's acknowledgement (a queue append, about a
// second for 30,000 documents) on a machine shared with other jobs can
// move by half; alternating rounds share the load between them.
func e01Retime(env *experiment.Env, names []string) (map[string][]float64, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	byName := map[string]profile.Profile{}
	for _, p := range profile.Defaults() {
		byName[p.Kind.String()] = env.Fill(p)
	}
	rates := map[string][]float64{}
	for r := 0; r < e01Rounds; r++ {
		order := append([]string(nil), names...)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, name := range order {
			p, ok := byName[name]
			if !ok {
				return nil, fmt.Errorf("experiment: E01: no store %q to re-time: %w", name, experiment.ErrBadArgument)
			}
			s, acked, err := e01Ack(env, p, ds.Base, false)
			if err != nil {
				return nil, err
			}
			s.Close()
			rates[name] = append(rates[name], float64(ds.Base.N)/acked.Seconds())
		}
	}
	return rates, nil
}

// e01Median returns the median of rates (0 without any).
func e01Median(rates []float64) float64 {
	if len(rates) == 0 {
		return 0
	}
	rs := append([]float64(nil), rates...)
	sort.Float64s(rs)
	return rs[len(rs)/2]
}

// Table puts the ingest runs beside the article's figures.
func Table(env *experiment.Env, ins []measure.Ingested) *table.Table {
	t := table.New(fmt.Sprintf("E01 ingest: %d documents × %d dims in batches of %d, one writer", env.Scale.N, env.Scale.Dim, env.Scale.Batch),
		table.Col("store", ""))
	t.AddColumns(table.Pair("ingest", "s", 1)...)
	t.AddColumns(table.Pair("docs/s", "", -1)...)
	t.AddColumns(table.Column{Header: "visible at last ack", Source: table.Lab, Prec: -1})
	t.AddColumns(table.Column{Header: metrics.RecallHeader(env.Scale.K) + " at last ack", Source: table.Lab, Prec: 3})
	t.AddColumns(table.Column{Header: "searchable after", Unit: "s", Source: table.Lab, Prec: 1})
	live, liveErr := env.LiveLoad()
	if live != nil {
		t.AddColumns(experiment.LiveColumns(env, table.Column{Header: "ingest", Unit: "s", Prec: 1}, table.Column{Header: "docs/s", Prec: -1})...)
	}
	for _, in := range ins {
		vals := []any{in.Label,
			Experiment.ArticleValue(in.Label, "ingest"), in.Acked.Seconds(),
			Experiment.ArticleValue(in.Label, "docs/s"), in.DocsPerSecond(),
			fmt.Sprintf("%d of %d", in.Visible, in.Docs), in.RecallAck, in.Searchable.Seconds()}
		if live != nil {
			if in.Label == profile.PGVector.String() {
				sec := live.Inserts().Seconds()
				vals = append(vals, sec, float64(live.Load.Rows)/sec)
			} else {
				vals = append(vals, "", "")
			}
		}
		_ = t.AddValues(vals...)
	}
	if live != nil {
		t.Note("real pgvector: the INSERTs of %d rows in batches of %d into Spring AI's table with its HNSW index already there (every row enters the graph as it is inserted, as in the article), on PostgreSQL compiled to WebAssembly: single-threaded and slower than native PostgreSQL, so only the lab's and the article's docs/s compare", live.Load.Rows, env.Scale.Batch)
	} else if liveErr != nil {
		t.Note("real pgvector: %v", liveErr)
	}
	for _, in := range ins {
		t.Note("%s: %s; at the last ack it reported: %s", in.Label, visibilityStep[in.Label], in.StatusAck)
	}
	t.Note("recall@10 at last ack: the queries run the moment the last batch is acknowledged, before waiting for the store's searchable signal, against the truth over all documents")
	t.Note("lab stores build their graphs single-threaded for determinism; the article's services used their own thread pools on 2 vCPUs")
	return t
}

func runE01(env *experiment.Env) (*experiment.Report, error) {
	var ins []measure.Ingested
	for _, p := range profile.Defaults() {
		in, err := Measure(env, p)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	r := experiment.NewReport(Experiment, env)
	t := Table(env, ins)
	r.AddTable(t)
	if c, err := chart.Compare(t, "docs/s"); err == nil {
		c.Title = "E01 ingest docs/s (acknowledged): article vs lab"
		c.YLabel = "docs/s"
		r.AddChart(c)
	}
	r.Verdicts = append(r.Verdicts, Verdicts(env, ins, nil)...)
	return r, nil
}

// Lag watches the seconds between "acknowledged" and "searchable":
// for Redis, Qdrant and Elasticsearch (pgvector's commit is its
// visibility step) it ingests the data set again into a fresh store and,
// from the moment the last batch is acknowledged, runs every query
// repeatedly until the store reports itself searchable (at most 40
// samples, about ten over the lag ins measured; Elasticsearch over one
// refresh interval). Each row gives the documents acknowledged, those a
// search sees, those in a graph, the recall@K of that pass and what the
// store reports. For Elasticsearch the last batch is sent right after a
// refresh, so the first sample falls between its acknowledgement and the
// next refresh; a note says so if the refresh came first anyway.
func Lag(env *experiment.Env, ins []measure.Ingested) (*table.Table, *chart.Line, error) {
	ds, err := env.Dataset()
	if err != nil {
		return nil, nil, err
	}
	k := env.Scale.K
	t := table.New(fmt.Sprintf("After the last acknowledgement: %d queries repeated until the store reports itself searchable, topK=%d (lab)", env.Scale.Queries, k),
		table.Col("store", ""),
		table.Column{Header: "since last ack", Unit: "s", Source: table.Lab, Prec: 2},
		table.Column{Header: "acknowledged", Source: table.Lab, Prec: -1},
		table.Column{Header: "searchable", Source: table.Lab, Prec: -1},
		table.Column{Header: "in a graph", Source: table.Lab, Prec: -1},
		table.Column{Header: fmt.Sprintf("recall@%d", k), Source: table.Lab, Prec: 3},
		table.Column{Header: "the store reports", Source: table.Lab})
	c := chart.NewLine(fmt.Sprintf("recall@%d of the queries run t seconds after the last acknowledgement (lab)", k), "seconds since the last acknowledgement", fmt.Sprintf("recall@%d", k))
	lagOf := map[string]time.Duration{}
	for _, in := range ins {
		lagOf[in.Label] = in.Searchable - in.Acked
	}
	q, err := queries(env)
	if err != nil {
		return nil, nil, err
	}
	base, batch := ds.Base, env.Scale.Batch
	for _, p := range profile.Defaults() {
		if p.Kind == profile.PGVector {
			continue
		}
		p = env.Fill(p)
		s, err := p.Open(base.Dim)
		if err != nil {
			return nil, nil, err
		}
		for lo := 0; lo < base.N; lo += batch {
			hi := min(lo+batch, base.N)
			if err := s.Ingest(&vec.Matrix{N: hi - lo, Dim: base.Dim, Stride: base.Stride, Data: base.Data[lo*base.Stride:]}); err != nil {
				s.Close()
				return nil, nil, err
			}
			env.Step(hi, base.N, "E01 ingest "+p.Kind.String())
		}
		ack := time.Now()
		lag := lagOf[p.Kind.String()]
		if p.Kind == profile.Elasticsearch {
			lag = p.RefreshInterval
		}
		step := max(lag/10, 50*time.Millisecond)
		var xs, ys []float64
		refreshed := false
		for n := 0; ; n++ {
			since := time.Since(ack)
			if p.Kind == profile.Elasticsearch && !refreshed && since >= p.RefreshInterval {
				// The store's refreshes count acknowledged documents
				// (profile.ESIngestRate), so the documents after the
				// last one wait for the scheduled refresh, which comes
				// refresh_interval after the last acknowledgement here.
				if err := s.Refresh(); err != nil {
					s.Close()
					return nil, nil, err
				}
				refreshed = true
				since = time.Since(ack)
			}
			st := s.Status()
			r, err := measure.AtOnce(s, q)
			if err != nil {
				s.Close()
				return nil, nil, err
			}
			_ = t.AddValues(p.Kind.String(), since.Seconds(), st.Docs, st.Visible, st.Indexed, r, st.String())
			xs, ys = append(xs, since.Seconds()), append(ys, r)
			if st.Ready || n >= e01MaxSamples {
				break
			}
			if n >= 20 && n%10 == 0 {
				// Still not searchable after 20 samples (a background
				// merge building a graph, on a slow or busy machine):
				// sample half as often every 10 samples, so the timeline
				// reaches the end (about a minute at 50 ms) in few rows.
				step *= 2
			}
			time.Sleep(step - time.Since(ack)%step)
		}
		c.Add(p.Kind.String(), xs, ys)
		if err := s.Close(); err != nil {
			return nil, nil, err
		}
	}
	t.Note("each row: the store's status, then every query run once; the last row of a store is the first sample at which it reported itself searchable")
	t.Note("searchable and in a graph are read one after the other while the indexing thread runs, so they may be a few documents apart")
	t.Note("Qdrant stays searchable throughout (plain segments are scanned exactly) and reports green once its indexing optimizer has gone idle and its merge optimizer, which then starts in the background, has merged down to default_segment_number; Redis answers from the part of its graph the indexing thread has reached; Elasticsearch shows nothing of the documents acknowledged since its last refresh (a refresh comes every %d docs/s × refresh_interval of acknowledged documents, the article's ingest rate) until the scheduled one, refresh_interval after the last acknowledgement", profile.ESIngestRate)
	c.Width = 800
	return t, c, nil
}

// e01MaxSamples caps Lag's samples of one store.
const e01MaxSamples = 80

// e01Order is the article's ingest order, fastest first (§ "Getting the
// data in": qdrant 17,382, redis 3,158, elasticsearch 3,039, pgvector 645
// docs/s).
const e01Order = "qdrant > redis > elasticsearch > pgvector"

// e01OrderAgrees says whether the lab's order (fastest first) is the
// article's. Until this commit two stores within 20 % of each other
// counted as tied, a rule added after runs that put Redis ahead of
// Qdrant (47,928 against 46,522 docs/s): a tie band lets the opposite
// order agree, so it is gone; the re-timing in alternating rounds
// (e01RetimedOrder), also added after runs that differed, stays, and its
// reason says so.
func e01OrderAgrees(ins []measure.Ingested, order string) (bool, string) {
	const base = "the order of the acknowledged docs/s; the seconds are not comparable (the article's include the network)"
	if order == e01Order {
		return true, base
	}
	return false, base
}

// e01Ratio is the article's Qdrant-over-Redis ingest ratio (§ "Getting
// the data in": 17,382 against 3,158 docs/s, 5.5×).
const e01Ratio = 17382.0 / 3158

// Verdicts compares Ingest's runs with the article's findings
// (§ "Getting the data in"): the stores ingest in the article's order
// (an order, so no tolerance: the seconds themselves are not comparable,
// the article timed services over the network), and "ingest finished is
// not searchable": each store's visibility step shows at the last
// acknowledgement. lag is Lag's table or nil: whether an Elasticsearch
// refresh falls just after the last batch is a matter of timing, so its
// first sample (taken after a last batch sent right after a refresh)
// also counts as seeing the unrefreshed documents. The article's one
// gap with a magnitude, Qdrant 5.5× as fast as Redis, is judged as a
// direction and a magnitude (e01Pair).
func Verdicts(env *experiment.Env, ins []measure.Ingested, lag *table.Table) experiment.Verdicts {
	idx := make([]int, len(ins))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ins[idx[a]].DocsPerSecond() > ins[idx[b]].DocsPerSecond() })
	var names []string
	for _, i := range idx {
		names = append(names, ins[i].Label)
	}
	order := strings.Join(names, " > ")
	agrees, why := e01OrderAgrees(ins, order)
	if !agrees {
		agrees, why = e01RetimedOrder(env, ins, order, why)
	}
	out := experiment.Verdicts{experiment.Holds("E01", "the stores ingest in the article's order (§ Getting the data in)", e01Order, order, agrees, why)}
	out = append(out, e01Pair(env, ins)...)
	for _, in := range ins {
		seen := fmt.Sprintf("%d of %d searchable at the last ack", in.Visible, in.Docs)
		switch in.Label {
		case "pgvector":
			out = append(out, experiment.Holds("E01", "pgvector: everything visible at the last ack (commit is the visibility step)",
				"visible at commit", seen, in.Visible == in.Docs, visibilityStep[in.Label]))
		case "redis":
			out = append(out, experiment.Holds("E01", "redis: at the last ack its indexing queue has not caught up (§ Getting the data in: Redis drains an indexing queue)",
				"fewer visible than acknowledged", seen, in.Visible < in.Docs, visibilityStep[in.Label]))
		case "qdrant":
			out = append(out, experiment.Holds("E01", "qdrant: all points searchable at once while the optimizer runs (plain segments are scanned exactly)",
				"searchable at once", seen, in.Visible == in.Docs, visibilityStep[in.Label]))
		case "elasticsearch":
			ok := in.Visible < in.Docs
			if lag != nil {
				if first, found := lag.Lookup("elasticsearch", "searchable (lab)"); found && first.Kind == table.IntKind {
					seen += fmt.Sprintf("; %d of %d in the timeline's first sample", first.Int, in.Docs)
					ok = ok || int(first.Int) < in.Docs
				}
			}
			out = append(out, experiment.Holds("E01", "elasticsearch: acknowledged documents stay invisible until the next refresh, a matter of time (§ Getting the data in)",
				"invisible until a refresh", seen, ok, visibilityStep[in.Label]))
		}
	}
	return out
}

// e01RetimedOrder decides the order again when one timing put a store
// behind one the article ranks below it: the stores of every such pair
// whose rates are within 2× of each other (further apart, a re-timing
// would not reorder them) are re-timed in alternating rounds
// (e01Retime), and their medians replace the single timings. An error
// re-timing leaves the first verdict, saying why.
func e01RetimedOrder(env *experiment.Env, ins []measure.Ingested, order, why string) (bool, string) {
	rate := map[string]float64{}
	for _, in := range ins {
		rate[in.Label] = in.DocsPerSecond()
	}
	art := strings.Split(e01Order, " > ")
	pick := map[string]bool{}
	for i, a := range art {
		for _, b := range art[i+1:] {
			ra, rb := rate[a], rate[b]
			if ra > 0 && rb > 0 && ra < rb && rb < 2*ra {
				pick[a], pick[b] = true, true
			}
		}
	}
	if len(pick) == 0 {
		return false, why
	}
	var names []string
	for _, s := range art {
		if pick[s] {
			names = append(names, s)
		}
	}
	med, err := retimeE01(env, names)
	if err != nil {
		return false, why + "; re-timing failed: " + err.Error()
	}
	re := make([]measure.Ingested, len(ins))
	copy(re, ins)
	var got []string
	for i, in := range re {
		if r := e01Median(med[in.Label]); r > 0 {
			re[i].Acked = time.Duration(float64(in.Docs) / r * float64(time.Second))
			got = append(got, fmt.Sprintf("%s %.0f docs/s (one timing %.0f)", in.Label, r, rate[in.Label]))
		}
	}
	sort.SliceStable(re, func(a, b int) bool { return re[a].DocsPerSecond() > re[b].DocsPerSecond() })
	var reOrder []string
	for _, in := range re {
		reOrder = append(reOrder, in.Label)
	}
	agrees, why2 := e01OrderAgrees(re, strings.Join(reOrder, " > "))
	return agrees, why2 + fmt.Sprintf("; one timing gave %s, so the stores within 2× of each other were re-timed in %d alternating rounds (median; a rule added after runs that differed): %s",
		order, e01Rounds, strings.Join(got, ", "))
}

// e01Pair returns the verdicts on the article's Qdrant–Redis gap, 17,382
// against 3,158 docs/s: its direction (Qdrant faster: the rounds' lower
// quartile above 1×, FasterRounds with no noise beyond the rounds' own)
// and its magnitude (5.5× ± half its distance from 1×, 2.25×, a rule
// stated with this split; cut at 1×; on the rounds' median, the band not
// widened to their spread), both on the two stores re-timed in
// e01Rounds alternating rounds. Before this split the order verdict's
// 20 % tie let either store be ahead, so only the sign was ever judged.
func e01Pair(env *experiment.Env, ins []measure.Ingested) experiment.Verdicts {
	have := map[string]bool{}
	for _, in := range ins {
		have[in.Label] = true
	}
	var rounds experiment.Rounds
	var err error
	if have["qdrant"] && have["redis"] {
		var rates map[string][]float64
		if rates, err = retimeE01(env, []string{"qdrant", "redis"}); err == nil {
			q, r := rates["qdrant"], rates["redis"]
			rounds.Clock = experiment.WallTime
			for i := range min(len(q), len(r)) {
				if q[i] > 0 && r[i] > 0 {
					rounds.Ratios = append(rounds.Ratios, q[i]/r[i])
				}
			}
		}
	}
	mech := "both acknowledge a batch by appending it to an indexing queue (Redis's, Qdrant's WAL and optimizer), which costs both about the same; the article's gap is its clients' and network's (Spring AI over HTTP and RESP on 2 vCPUs), which the lab does not emulate"
	dir := experiment.FasterRounds("E01", "qdrant acknowledges documents faster than redis (§ Getting the data in: 17,382 against 3,158 docs/s)", "17,382 / 3,158 docs/s = 5.5×", rounds, 0,
		"", mech)
	// The magnitude's band is not widened to the rounds' spread
	// (as a tolerance widened to the spread would): small-scale rounds spread 1.9–18.5×, which
	// would let any ratio above 1× agree.
	mag := experiment.Toward(experiment.Within("E01", "qdrant ingests about 5.5× as fast as redis (§ Getting the data in)", e01Ratio, rounds.Median(), (e01Ratio-1)/2, "×"), 1)
	mag.Lab = rounds.String()
	if !mag.Agrees {
		mag = experiment.Because(mag, mech)
	}
	if err != nil {
		dir, mag = experiment.Because(dir, "re-timing failed: "+err.Error()), experiment.Because(mag, "re-timing failed: "+err.Error())
	}
	return experiment.Verdicts{dir, mag}
}
