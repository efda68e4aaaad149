package measure

import (
	"errors"
	"fmt"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/profile"
	"github.com/veclab/veclab/lab/table"
)

// Ingested is what one timed ingest found: how long the store took to
// acknowledge every batch, what a search saw the moment the last batch
// was acknowledged, and how long until the store reported everything
// searchable (each store's own visibility step: pgvector's commit,
// Redis's indexing queue, Qdrant's optimizers, Elasticsearch's refresh;
// see profile.Store).
type Ingested struct {
	Label      string        // the store (its profile's kind)
	Docs       int           // documents ingested
	Batch      int           // documents per Ingest call
	Acked      time.Duration // from the first batch sent until the last one was acknowledged
	Visible    int           // documents a search saw right after the last acknowledgement
	RecallAck  float64       // recall@K of the queries run right then, against the exact answers over all documents
	K          int           // the K of RecallAck
	StatusAck  string        // what the store reported about itself right then
	Searchable time.Duration // from the first batch sent until the store reported everything searchable
}

// DocsPerSecond is the acknowledged ingest rate: the documents over Acked.
func (in Ingested) DocsPerSecond() float64 {
	if in.Acked <= 0 {
		return 0
	}
	return float64(in.Docs) / in.Acked.Seconds()
}

// String prints the ingest on one line, e.g. "redis: 30,000 documents in
// batches of 1,000 acknowledged in 0.9 s (34,619 docs/s); at the last ack
// 2,816 searchable, recall@10 0.111, FT.INFO …; everything searchable
// after 12.7 s".
func (in Ingested) String() string {
	return fmt.Sprintf("%s: %s documents in batches of %s acknowledged in %.1f s (%s docs/s); at the last ack %s searchable, %s %.3f, %s; everything searchable after %.1f s",
		in.Label, grouped(float64(in.Docs)), grouped(float64(in.Batch)), in.Acked.Seconds(), grouped(in.DocsPerSecond()),
		grouped(float64(in.Visible)), metrics.RecallHeader(in.K), in.RecallAck, in.StatusAck, in.Searchable.Seconds())
}

// Ingest opens a fresh store of p and loads base in batches of opt.Batch
// (default 1,000, the article's) the way a client does, one writer, one
// batch after the other, and times it: Acked is the time until the last
// batch is acknowledged (each store acknowledges by its own rule, see
// profile.Store); right then it reads what the store reports, counts the
// documents a search sees and runs every query of q once (untimed,
// unfiltered), scoring it against q's exact answers — what a benchmark
// that searches the moment add() returns would get; then it waits for the
// store's own "searchable" signal (profile.Store.WaitSearchable) and
// returns the open store, ready for measuring. Unlike profile.Build,
// Qdrant's merge optimizer runs in the background, as in the service, so
// when it ends is a matter of timing. The clock starts at the first batch:
// opening an empty in-memory store is not ingest.
func Ingest(p profile.Profile, base *vec.Matrix, opt profile.BuildOptions, q *Queries) (*profile.Store, Ingested, error) {
	if base == nil || base.N == 0 {
		return nil, Ingested{}, fmt.Errorf("measure: Ingest(%s): no documents to ingest: %w", p.Kind, engine.ErrInvalidArgument)
	}
	if opt.Batch < 0 {
		return nil, Ingested{}, fmt.Errorf("measure: Ingest(%s): a batch of %d documents: it must be ≥ 1 (0: the article's 1,000): %w", p.Kind, opt.Batch, engine.ErrInvalidArgument)
	}
	if err := q.check("Ingest"); err != nil {
		return nil, Ingested{}, err
	}
	if q.Filter != "" {
		return nil, Ingested{}, fmt.Errorf("measure: Ingest(%s): the queries run at the last acknowledgement are unfiltered; these are restricted to %s: %w", p.Kind, q.Filter, engine.ErrInvalidArgument)
	}
	if q.Vectors.Dim != base.Dim {
		return nil, Ingested{}, fmt.Errorf("measure: Ingest(%s): queries of %d dimensions for documents of %d: %w", p.Kind, q.Vectors.Dim, base.Dim, engine.ErrInvalidArgument)
	}
	batch := opt.Batch
	if batch == 0 {
		batch = 1000
	}
	s, err := p.Open(base.Dim)
	if err != nil {
		return nil, Ingested{}, err
	}
	what := "ingest " + p.Kind.String()
	start := time.Now()
	for lo := 0; lo < base.N; lo += batch {
		hi := min(lo+batch, base.N)
		m := &vec.Matrix{N: hi - lo, Dim: base.Dim, Stride: base.Stride, Data: base.Data[lo*base.Stride:]}
		if err := s.Ingest(m); err != nil {
			s.Close()
			return nil, Ingested{}, fmt.Errorf("measure: Ingest(%s): documents %d…%d: %w", p.Kind, lo, hi-1, err)
		}
		if opt.Progress != nil {
			opt.Progress(hi, base.N, what)
		}
	}
	in := Ingested{Label: p.Kind.String(), Docs: base.N, Batch: batch, Acked: time.Since(start), K: q.K}
	in.Visible, in.StatusAck = s.Visible(), s.Status().String()
	if in.RecallAck, err = AtOnce(s, q); err != nil {
		s.Close()
		return nil, Ingested{}, err
	}
	if err := s.WaitSearchable(); err != nil {
		s.Close()
		return nil, Ingested{}, err
	}
	in.Searchable = time.Since(start)
	return s, in, nil
}

// AtOnce runs every query of q once on s, untimed, as it stands — while
// it is still indexing, say — and returns the mean recall@K against q's
// exact answers over all documents. A store with nothing searchable yet
// answers recall 0, not an error.
func AtOnce(s *profile.Store, q *Queries) (float64, error) {
	if s == nil {
		return 0, fmt.Errorf("measure: AtOnce: no store: %w", engine.ErrInvalidArgument)
	}
	if err := q.check("AtOnce"); err != nil {
		return 0, err
	}
	loop := metrics.Loop{Queries: q.Vectors.N, K: q.K, Truth: q.Truth, Untimed: true}
	m, err := loop.Run(engine.Context(), func(_, i int) ([]engine.Result, error) {
		res, err := s.Search(q.Vectors.Row(i), q.K)
		if errors.Is(err, engine.ErrEmpty) {
			return nil, nil // nothing searchable yet: recall 0 for this query
		}
		return res, err
	})
	if err != nil {
		return 0, fmt.Errorf("measure: AtOnce(%s): %w", s.Profile().Kind, err)
	}
	return m.Recall, nil
}

// BesideIngest puts the article's ingest figures beside the lab's, one row
// per store (matched by Label): "ingest" in seconds and "docs/s", each
// article column with the lab's beside it (chart.Compare draws either),
// then the lab's documents visible and recall@K at the last
// acknowledgement and its seconds until searchable. A figure of another
// measure or unit is an error.
func BesideIngest(title string, ins []Ingested, article []Figure) (*table.Table, error) {
	if len(ins) == 0 {
		return nil, fmt.Errorf("measure: BesideIngest(%q): no ingests: %w", title, engine.ErrInvalidArgument)
	}
	for _, f := range article {
		switch {
		case f.Measure == "ingest" && f.Unit == "s", f.Measure == "docs/s" && (f.Unit == "docs/s" || f.Unit == ""):
		default:
			return nil, fmt.Errorf("measure: BesideIngest(%q): the article's %v: the lab times ingest in s and docs/s: %w", title, f, engine.ErrInvalidArgument)
		}
	}
	articleValue := func(row, measure string) any {
		for _, f := range article {
			if f.Row == row && f.Measure == measure {
				return f.Value
			}
		}
		return nil
	}
	k := ins[0].K
	t := table.New(title, table.Col("store", ""))
	t.AddColumns(table.Pair("ingest", "s", 1)...)
	t.AddColumns(table.Pair("docs/s", "", -1)...)
	t.AddColumns(table.Column{Header: "searchable at last ack", Source: table.Lab, Prec: -1},
		table.Column{Header: metrics.RecallHeader(k) + " at last ack", Source: table.Lab, Prec: 3},
		table.Column{Header: "searchable after", Unit: "s", Source: table.Lab, Prec: 1})
	for _, in := range ins {
		if err := t.AddValues(in.Label, articleValue(in.Label, "ingest"), in.Acked.Seconds(), articleValue(in.Label, "docs/s"), in.DocsPerSecond(),
			fmt.Sprintf("%d of %d", in.Visible, in.Docs), in.RecallAck, in.Searchable.Seconds()); err != nil {
			return nil, fmt.Errorf("measure: BesideIngest(%q): %w", title, err)
		}
	}
	t.Note("lab: %d documents in batches of %d, one writer; ingest = until the last batch was acknowledged; %s at last ack = the queries run right then, against the exact answers over all documents",
		ins[0].Docs, ins[0].Batch, metrics.RecallHeader(k))
	for _, in := range ins {
		t.Note("%s at the last ack reported: %s", in.Label, in.StatusAck)
	}
	return t, nil
}
