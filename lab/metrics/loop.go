package metrics

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/veclab/veclab/engine"
)

// RecallDefinition states, once, what every recall figure of the lab
// means; tables print [RecallHeader] and cite it.
const RecallDefinition = "recall@k = |returned top k ∩ true top k| / k (k = |true top k| when a filter leaves fewer than k matches)"

// RecallHeader is the column header of a recall@k figure, e.g. "recall@10".
func RecallHeader(k int) string { return fmt.Sprintf("recall@%d", k) }

// RecallK reads k from a header or label that names a recall@k figure
// ("recall@10", "filtered recall@10 (lab)", "HNSW recall@100"): the
// number after the first "recall@". ok is false when there is none.
func RecallK(header string) (k int, ok bool) {
	_, rest, found := strings.Cut(header, "recall@")
	if !found {
		return 0, false
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	k, err := strconv.Atoi(rest[:end])
	if err != nil || k < 1 {
		return 0, false
	}
	return k, true
}

// RecallCaption is the one line a table or chart prints to say what its
// recall@k figures are, for the ks it shows (in the order given, each
// once): [RecallDefinition] with k filled in, and the mean over queries.
// It is "" without a k ≥ 1.
func RecallCaption(ks ...int) string {
	var seen []int
	for _, k := range ks {
		if k >= 1 && !slices.Contains(seen, k) {
			seen = append(seen, k)
		}
	}
	switch len(seen) {
	case 0:
		return ""
	case 1:
		k := seen[0]
		return fmt.Sprintf("recall@%d = |returned top %d ∩ exact top %d| / %d, the mean over the queries (a filter matching fewer than %d documents: over those)", k, k, k, k, k)
	}
	s := make([]string, len(seen))
	for i, k := range seen {
		s[i] = strconv.Itoa(k)
	}
	return fmt.Sprintf("recall@k = |returned top k ∩ exact top k| / k for k = %s, the mean over the queries (a filter matching fewer than k documents: over those)", strings.Join(s, ", "))
}

// RecallCaption is [RecallCaption] for the k this loop measured.
func (m Measured) RecallCaption() string { return RecallCaption(m.K) }

// Pick says how a [Loop] reads its timed passes as one QPS figure.
type Pick int

const (
	// AllPasses divides every timed query by the time of every pass:
	// the mean throughput.
	AllPasses Pick = iota
	// MedianPass is the QPS of the median pass: one stall of a shared
	// machine moves neither it nor the latency quantiles much.
	MedianPass
	// BestPass is the QPS of the fastest pass (best-of-N): the cost of
	// the search itself, with as little of the machine's other work in it
	// as N passes allow.
	BestPass
	// BestPerQuery keeps each query's fastest time over the passes; QPS
	// is the queries over the sum of those minima and the latency
	// quantiles are over the minima (with per-pass timing it is BestPass).
	BestPerQuery
)

// String names the pick as a table note prints it.
func (p Pick) String() string {
	switch p {
	case AllPasses:
		return "all passes"
	case MedianPass:
		return "median pass"
	case BestPass:
		return "best pass"
	case BestPerQuery:
		return "best time per query"
	}
	return fmt.Sprintf("Pick(%d)", int(p))
}

// Query answers query i in pass pass (pass −1 is the warm-up; timed
// passes count from 0). Only the call is timed. The results are scored
// (recall, hits) in pass 0 before the next call, so the slice may be a
// buffer the next call reuses; a caller that counts per-query statistics
// counts them when pass is 0.
type Query func(pass, i int) ([]engine.Result, error)

// TimedQuery is a [Query] timed by the system it asks: it returns how
// long query i took by that system's own clock (a database client's
// round trip around the statement alone, say), and the loop reads no
// clock around the call. See [Loop.RunTimed].
type TimedQuery func(pass, i int) ([]engine.Result, time.Duration, error)

// BatchQuery answers queries lo…hi−1 of pass pass with one call (one
// client's batch); result j is query lo+j's. Concurrent clients call it
// at once with disjoint ranges. See [Loop.RunBatch].
type BatchQuery func(pass, lo, hi int) ([][]engine.Result, error)

// Loop is the one measuring loop of the lab: warm-up, timed passes over
// the queries, recall@K against exact truth, QPS, latency quantiles. The
// zero value of an optional field is its default.
//
// One query at a time is [Loop.Run]; several measured calls for the same
// query, one after the other, is [Loop.RunInterleaved]; a query the
// system times itself is [Loop.RunTimed]; concurrent clients sending
// batches is [Loop.RunBatch]. All four share the passes, the warm-up,
// the scoring and the reading of QPS below.
type Loop struct {
	Queries int           // queries 0…Queries−1 (required, ≥ 1)
	K       int           // recall@K (required when Truth is set, ≥ 1)
	Truth   [][]engine.ID // exact top-K ids per query, nearest first; nil: no recall
	// Key maps a result's id to the truth's id space before scoring
	// (outside the timing); nil: the identity.
	Key func(engine.ID) engine.ID

	Warmup int // untimed queries 0…Warmup−1 before the timed passes (capped at Queries)
	// Passes is the least number of timed passes over all queries
	// (default 1); MinTime adds passes until the timed passes together
	// took at least that long, and MaxPasses (default 1000) caps both.
	Passes    int
	MinTime   time.Duration
	MaxPasses int
	Pick      Pick
	// PerPass reads the clock once per pass instead of around every
	// query: for a clock too coarse for one query (a browser's
	// performance.now, 0.1–1 ms). Latency quantiles are then unknown
	// (zero), and Before must be nil.
	PerPass bool
	// Seed, when not 0, runs each timed pass in its own seeded
	// permutation of the queries (pass p draws from PCG(Seed, p)), so
	// that no query always follows the same one; the figures other than
	// timings do not depend on the order.
	Seed uint64
	// Before, when set, runs untimed before every timed query (dropping
	// a cache, for a cold measurement); with RunInterleaved, before
	// every arm's call.
	Before func() error
	// AfterPass, when set, runs untimed after each timed pass (reading a
	// counter that the first pass alone should fill, say).
	AfterPass func(pass int) error
	// CPU, when set, is a second clock (a thread's or the process's CPU
	// time) read around the same span as the wall clock; it gives CPUQPS
	// and, timed per query, CPULatency.
	CPU func() time.Duration
	// Clients is how many concurrent clients [Loop.RunBatch] starts
	// together in every pass (default 1, capped at Queries); the other
	// runs take one client only.
	Clients int
	// Untimed reads no clock at all: a recall pass (Recall, MeanHits)
	// whose QPS, latencies and pass times are zero. It takes no MinTime,
	// CPU clock or PerPass.
	Untimed bool
}

// ClockCost returns what reading clock adds to a span it bounds: the
// median difference of n back-to-back readings (at least one). A thread's
// CPU clock is a system call on Linux (clock_gettime is not in the vDSO
// for CLOCK_THREAD_CPUTIME_ID), about 0.3–1 µs, which a per-query span
// pays once; against queries of tens of µs it is a few per cent, and a
// ratio of two such spans moves toward 1× by that much at most.
func ClockCost(clock func() time.Duration, n int) time.Duration {
	ds := make([]time.Duration, max(n, 1))
	for i := range ds {
		t0 := clock()
		ds[i] = clock() - t0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// Measured is what a Loop measured.
type Measured struct {
	Queries   int
	K         int
	Passes    int             // timed passes run
	Pick      Pick            // how QPS read them
	Recall    float64         // mean recall@K of pass 0 (0 without truth)
	MeanHits  float64         // mean results per query in pass 0
	QPS       float64         // queries per second, read as Pick says
	CPUQPS    float64         // timed queries over their CPU time (0 without a CPU clock)
	Latency   Latency         // per-query wall times (zero with PerPass)
	PassTimes []time.Duration // wall time of each timed pass, in order
	Elapsed   time.Duration   // wall time of all timed passes
	Clients   int             // concurrent clients (1 but for RunBatch)
	// CPULatency is over the per-query times on the CPU clock, read
	// around the same span as Latency (zero without a CPU clock and with
	// PerPass): what another job on the machine does not stretch, where
	// Latency counts every preemption.
	CPULatency Latency
	// Times and CPUTimes are every timed query's wall and CPU time, in
	// the order run, pass after pass (nil with PerPass, and CPUTimes
	// without a CPU clock): what Latency and CPULatency summarise, for a
	// caller that summarises a share of the run on its own (a round of
	// an alternating measurement).
	Times, CPUTimes []time.Duration
}

// String prints "recall@10 0.953, 1234 QPS (best pass of 5), p50 …".
func (m Measured) String() string {
	return fmt.Sprintf("%s %.3f, %.0f QPS (%s of %d), %v", RecallHeader(m.K), m.Recall, m.QPS, m.Pick, m.Passes, m.Latency)
}

// Validate reports every bad field at once.
func (l Loop) Validate() error {
	var bad []string
	if l.Queries < 1 {
		bad = append(bad, fmt.Sprintf("queries %d (want ≥ 1)", l.Queries))
	}
	if l.Truth != nil {
		if l.K < 1 {
			bad = append(bad, fmt.Sprintf("k %d (want ≥ 1)", l.K))
		}
		if len(l.Truth) < l.Queries {
			bad = append(bad, fmt.Sprintf("truth for %d queries of %d", len(l.Truth), l.Queries))
		}
	}
	if l.Warmup < 0 || l.Passes < 0 || l.MinTime < 0 || l.MaxPasses < 0 || l.Clients < 0 {
		bad = append(bad, fmt.Sprintf("warmup %d, passes %d, min time %v, max passes %d, clients %d (want ≥ 0)", l.Warmup, l.Passes, l.MinTime, l.MaxPasses, l.Clients))
	}
	if l.Pick < AllPasses || l.Pick > BestPerQuery {
		bad = append(bad, fmt.Sprintf("pick %d (want AllPasses…BestPerQuery)", int(l.Pick)))
	}
	if l.PerPass && l.Before != nil {
		bad = append(bad, "per-pass timing with a Before hook (the hook would be timed)")
	}
	if l.Untimed && (l.MinTime > 0 || l.CPU != nil || l.PerPass) {
		bad = append(bad, "untimed with a min time, a CPU clock or per-pass timing (nothing is timed)")
	}
	if len(bad) > 0 {
		return fmt.Errorf("metrics: loop: %s: %w", joinBad(bad), engine.ErrInvalidArgument)
	}
	return nil
}

func joinBad(bad []string) string {
	s := bad[0]
	for _, b := range bad[1:] {
		s += "; " + b
	}
	return s
}

// invalid is the error of a run that cannot take l's options.
func invalid(run, why string) error {
	return fmt.Errorf("metrics: loop: %s: %s: %w", run, why, engine.ErrInvalidArgument)
}

// Run measures q. It stops with ctx's error between queries when ctx is
// done, and turns a panic of q into an error.
func (l Loop) Run(ctx context.Context, q Query) (Measured, error) {
	if q == nil {
		return Measured{}, invalid("run", "nil query")
	}
	ms, err := l.run(ctx, []arm{{q: q}}, nil)
	if err != nil {
		return Measured{}, err
	}
	return ms[0], nil
}

// RunTimed measures q by the times q reports: Latency is over them, and
// a pass's time is their sum (what the system spent, not the client's
// wall clock around it). It takes no PerPass or CPU clock.
func (l Loop) RunTimed(ctx context.Context, q TimedQuery) (Measured, error) {
	switch {
	case q == nil:
		return Measured{}, invalid("timed run", "nil query")
	case l.PerPass || l.CPU != nil:
		return Measured{}, invalid("timed run", "per-pass timing or a CPU clock around a query the system times")
	}
	ms, err := l.run(ctx, []arm{{tq: q}}, nil)
	if err != nil {
		return Measured{}, err
	}
	return ms[0], nil
}

// RunInterleaved measures several arms over the same queries at once:
// for each query, arm 0's call, then arm 1's, and so on (Before ahead of
// every call), each timed and scored on its own, so every arm sees the
// cache state the arms before it left for that query, as a request that
// searches and then rescores does. A later arm may use an earlier arm's
// results for the same query (they run in order). One Measured per arm;
// MinTime counts every arm's time. It takes no PerPass.
func (l Loop) RunInterleaved(ctx context.Context, arms ...Query) ([]Measured, error) {
	if len(arms) == 0 {
		return nil, invalid("interleaved run", "no arms")
	}
	if l.PerPass {
		return nil, invalid("interleaved run", "per-pass timing cannot tell the arms apart")
	}
	as := make([]arm, len(arms))
	for i, q := range arms {
		if q == nil {
			return nil, invalid("interleaved run", fmt.Sprintf("nil arm %d", i))
		}
		as[i].q = q
	}
	return l.run(ctx, as, nil)
}

// RunBatch measures concurrent clients: every pass splits the queries
// into Clients contiguous shares, starts the clients together, each
// answering its share with one call of q, and times the pass from the
// start to the last answer (a batch has no per-query time, so Latency is
// zero, as with PerPass). The warm-up is one untimed call for queries
// 0…Warmup−1. The CPU clock, if any, is read around each pass. It takes
// no Before hook or Seed, and turns a client's panic into an error.
func (l Loop) RunBatch(ctx context.Context, q BatchQuery) (Measured, error) {
	switch {
	case q == nil:
		return Measured{}, invalid("batch run", "nil query")
	case l.Before != nil || l.Seed != 0:
		return Measured{}, invalid("batch run", "a Before hook or a seeded order (a client sends its share in one call)")
	}
	ms, err := l.run(ctx, nil, q)
	if err != nil {
		return Measured{}, err
	}
	return ms[0], nil
}

// arm is one measured call per query: q timed by the loop, or tq timed
// by the system.
type arm struct {
	q  Query
	tq TimedQuery
}

// armState is what the loop gathers for one arm.
type armState struct {
	m        Measured
	lat      []time.Duration // per-query times (per-query timing only)
	best     []time.Duration // each query's fastest time (BestPerQuery)
	cpuLat   []time.Duration // per-query CPU times (per-query timing with a CPU clock)
	cpuBest  []time.Duration // each query's least CPU time (BestPerQuery)
	cpu      time.Duration
	passTime time.Duration
}

// run is the loop itself: warm-up, then passes until Passes and MinTime
// are met (within MaxPasses), per query over arms or per pass over
// batch's clients; it scores pass 0 and reads the figures.
func (l Loop) run(ctx context.Context, arms []arm, batch BatchQuery) (ms []Measured, err error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			ms, err = nil, fmt.Errorf("metrics: loop: query panicked: %v", r)
		}
	}()
	n := l.Queries
	perPass := l.PerPass || batch != nil
	timed := !l.Untimed
	clients := 1
	if batch != nil {
		clients = min(max(l.Clients, 1), n)
	} else if l.Clients > 1 {
		return nil, invalid("run", fmt.Sprintf("%d clients: concurrent clients send batches (RunBatch)", l.Clients))
	}
	minPasses := max(l.Passes, 1)
	maxPasses := l.MaxPasses
	if maxPasses == 0 {
		maxPasses = 1000
	}
	maxPasses = max(maxPasses, minPasses)
	if err := l.warmup(ctx, arms, batch); err != nil {
		return nil, err
	}
	st := make([]armState, max(len(arms), 1))
	for a := range st {
		st[a].m = Measured{Queries: n, K: l.K, Pick: l.Pick, Clients: clients}
		if timed && !perPass {
			st[a].lat = make([]time.Duration, 0, n*minPasses)
			if l.Pick == BestPerQuery {
				st[a].best = make([]time.Duration, n)
			}
			if l.CPU != nil {
				st[a].cpuLat = make([]time.Duration, 0, n*minPasses)
				if l.Pick == BestPerQuery {
					st[a].cpuBest = make([]time.Duration, n)
				}
			}
		}
	}
	var elapsed time.Duration // every arm's timed passes
	var batchRes [][]engine.Result
	if batch != nil {
		batchRes = make([][]engine.Result, n)
	}
	order := make([]int, n)
	for pass := 0; pass < minPasses || elapsed < l.MinTime && pass < maxPasses; pass++ {
		for i := range order {
			order[i] = i
		}
		if l.Seed != 0 {
			r := rand.New(rand.NewPCG(l.Seed, uint64(pass)))
			r.Shuffle(n, func(a, b int) { order[a], order[b] = order[b], order[a] })
		}
		for a := range st {
			st[a].passTime = 0
		}
		var c0 time.Duration
		var t0 time.Time
		if perPass {
			if l.CPU != nil {
				c0 = l.CPU()
			}
			t0 = time.Now()
		}
		if batch != nil {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := runClients(batch, pass, n, clients, batchRes); err != nil {
				return nil, err
			}
		} else {
			for _, i := range order {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				for a, ar := range arms {
					s := &st[a]
					if l.Before != nil {
						if err := l.Before(); err != nil {
							return nil, fmt.Errorf("before query %d: %w", i, err)
						}
					}
					var res []engine.Result
					var qerr error
					switch {
					case ar.tq != nil:
						var d time.Duration
						res, d, qerr = ar.tq(pass, i)
						s.add(pass, i, d)
					case perPass || !timed:
						res, qerr = ar.q(pass, i)
					default:
						if l.CPU != nil {
							c0 = l.CPU()
						}
						t := time.Now()
						res, qerr = ar.q(pass, i)
						d := time.Since(t)
						if l.CPU != nil {
							s.addCPU(pass, i, l.CPU()-c0)
						}
						s.add(pass, i, d)
					}
					if qerr != nil {
						if len(arms) > 1 {
							return nil, fmt.Errorf("arm %d query %d: %w", a, i, qerr)
						}
						return nil, fmt.Errorf("query %d: %w", i, qerr)
					}
					if pass == 0 {
						s.score(l, i, res)
					}
				}
			}
		}
		if perPass && timed {
			st[0].passTime = time.Since(t0)
			if l.CPU != nil {
				st[0].cpu += l.CPU() - c0
			}
		}
		if batch != nil && pass == 0 {
			for i, res := range batchRes {
				st[0].score(l, i, res)
			}
		}
		for a := range st {
			s := &st[a]
			s.m.PassTimes = append(s.m.PassTimes, s.passTime)
			s.m.Elapsed += s.passTime
			s.m.Passes++
			elapsed += s.passTime
		}
		if l.AfterPass != nil {
			if err := l.AfterPass(pass); err != nil {
				return nil, fmt.Errorf("after pass %d: %w", pass, err)
			}
		}
	}
	ms = make([]Measured, len(st))
	for a := range st {
		ms[a] = st[a].read(l, n, perPass, timed)
	}
	return ms, nil
}

// warmup runs the untimed warm-up queries: each arm in turn per query,
// or one batch call.
func (l Loop) warmup(ctx context.Context, arms []arm, batch BatchQuery) error {
	w := min(l.Warmup, l.Queries)
	if batch != nil && w > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := batch(-1, 0, w); err != nil {
			return fmt.Errorf("warm-up batch: %w", err)
		}
		return nil
	}
	for i := 0; i < w; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, ar := range arms {
			var err error
			if ar.tq != nil {
				_, _, err = ar.tq(-1, i)
			} else {
				_, err = ar.q(-1, i)
			}
			if err != nil {
				return fmt.Errorf("warm-up query %d: %w", i, err)
			}
		}
	}
	return nil
}

// runClients starts c clients together, client j answering the j-th
// contiguous share of n queries with one call, and waits for all of
// them; results land in res by query.
func runClients(q BatchQuery, pass, n, c int, res [][]engine.Result) error {
	errs := make([]error, c)
	var wg sync.WaitGroup
	for j := range c {
		lo, hi := j*n/c, (j+1)*n/c
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[j] = fmt.Errorf("metrics: loop: client %d panicked: %v", j, r)
				}
			}()
			r, err := q(pass, lo, hi)
			if err == nil && len(r) != hi-lo {
				err = fmt.Errorf("%d results for queries %d…%d: %w", len(r), lo, hi-1, engine.ErrInvalidArgument)
			}
			if err != nil {
				errs[j] = fmt.Errorf("client %d: %w", j, err)
				return
			}
			copy(res[lo:hi], r)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// add records query i's time d in pass pass.
func (s *armState) add(pass, i int, d time.Duration) {
	s.passTime += d
	s.lat = append(s.lat, d)
	if s.best != nil && (pass == 0 || d < s.best[i]) {
		s.best[i] = d
	}
}

// addCPU records query i's CPU time d in pass pass.
func (s *armState) addCPU(pass, i int, d time.Duration) {
	s.cpu += d
	s.cpuLat = append(s.cpuLat, d)
	if s.cpuBest != nil && (pass == 0 || d < s.cpuBest[i]) {
		s.cpuBest[i] = d
	}
}

// score adds query i's pass-0 results to the recall and hits sums.
func (s *armState) score(l Loop, i int, res []engine.Result) {
	s.m.MeanHits += float64(len(res))
	if l.Truth != nil {
		s.m.Recall += l.recall(res, l.Truth[i])
	}
}

// read turns the sums into the figures.
func (s *armState) read(l Loop, n int, perPass, timed bool) Measured {
	m := s.m
	m.Recall /= float64(n)
	m.MeanHits /= float64(n)
	if !timed {
		m.PassTimes, m.Elapsed = nil, 0
		return m
	}
	if l.CPU != nil && s.cpu > 0 {
		m.CPUQPS = QPS(n*m.Passes, s.cpu)
	}
	var bestSum time.Duration
	for _, d := range s.best {
		bestSum += d
	}
	lat := s.lat
	if l.Pick == BestPerQuery && !perPass {
		lat = s.best
	}
	m.QPS = qpsOf(l.Pick, n, m.PassTimes, bestSum, perPass)
	if !perPass {
		m.Times, m.CPUTimes = s.lat, s.cpuLat
		m.Latency = Summarize(lat)
		if cl := s.cpuLat; len(cl) > 0 {
			if l.Pick == BestPerQuery {
				cl = s.cpuBest
			}
			m.CPULatency = Summarize(cl)
		}
	}
	return m
}

// recall scores one query's results against its truth (mapping ids with
// Key).
func (l Loop) recall(res []engine.Result, truth []engine.ID) float64 {
	if l.Key == nil {
		return Recall(res, truth, l.K)
	}
	ids := make([]engine.ID, 0, min(l.K, len(res)))
	for j := 0; j < len(res) && j < l.K; j++ {
		ids = append(ids, l.Key(res[j].ID))
	}
	return RecallIDs(ids, truth, l.K)
}

// qpsOf reads n queries' timed passes as pick says; bestSum is the sum
// of each query's fastest time (per-query timing only).
func qpsOf(pick Pick, n int, passes []time.Duration, bestSum time.Duration, perPass bool) float64 {
	if len(passes) == 0 {
		return 0
	}
	switch pick {
	case MedianPass:
		s := slices.Clone(passes)
		slices.Sort(s)
		return QPS(n, s[len(s)/2]) // the upper middle of an even count
	case BestPass:
		return QPS(n, slices.Min(passes))
	case BestPerQuery:
		if perPass {
			return QPS(n, slices.Min(passes))
		}
		return QPS(n, bestSum)
	}
	var all time.Duration
	for _, d := range passes {
		all += d
	}
	return QPS(n*len(passes), all)
}
