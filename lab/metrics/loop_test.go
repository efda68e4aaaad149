package metrics_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/metrics"
)

// exactSetup builds an exact index over seeded random vectors and the
// exact top k of each query: the real search the loop measures.
func exactSetup(t *testing.T, n, nq, dim, k int) (*flat.Index, *vec.Matrix, [][]engine.ID) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	fill := func(m *vec.Matrix) *vec.Matrix {
		for i := range m.Data {
			m.Data[i] = float32(r.NormFloat64())
		}
		return m
	}
	base, qs := fill(vec.NewMatrix(n, dim)), fill(vec.NewMatrix(nq, dim))
	x, err := flat.New(base, flat.Config{Metric: engine.L2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	truth := make([][]engine.ID, nq)
	for i := range truth {
		rs, _, err := x.Search(qs.Row(i), k, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			truth[i] = append(truth[i], r.ID)
		}
	}
	return x, qs, truth
}

func TestLoopRecallAndPasses(t *testing.T) {
	const k = 10
	x, qs, truth := exactSetup(t, 500, 20, 8, k)
	exact := func(pass, i int) ([]engine.Result, error) {
		rs, _, err := x.Search(qs.Row(i), k, nil)
		return rs, err
	}
	// half drops every second result: recall@10 is 0.5 exactly.
	half := func(pass, i int) ([]engine.Result, error) {
		rs, _, err := x.Search(qs.Row(i), k, nil)
		var out []engine.Result
		for j, r := range rs {
			if j%2 == 0 {
				out = append(out, r)
			}
		}
		return out, err
	}
	for _, tc := range []struct {
		name       string
		loop       metrics.Loop
		q          metrics.Query
		recall     float64
		hits       float64
		passes     int
		latencies  int // samples behind Latency
		zeroLatncy bool
	}{
		{"exact, one pass", metrics.Loop{Queries: 20, K: k, Truth: truth}, exact, 1, 10, 1, 20, false},
		{"half, three passes, median", metrics.Loop{Queries: 20, K: k, Truth: truth, Passes: 3, Pick: metrics.MedianPass}, half, 0.5, 5, 3, 60, false},
		{"best per query keeps one sample a query", metrics.Loop{Queries: 20, K: k, Truth: truth, Passes: 4, Pick: metrics.BestPerQuery}, exact, 1, 10, 4, 20, false},
		{"per pass has no latencies", metrics.Loop{Queries: 20, K: k, Truth: truth, Passes: 2, PerPass: true, Pick: metrics.BestPass}, exact, 1, 10, 2, 0, true},
		{"no truth, no recall", metrics.Loop{Queries: 20, K: k}, exact, 0, 10, 1, 20, false},
		{"fewer queries than truth", metrics.Loop{Queries: 5, K: k, Truth: truth}, exact, 1, 10, 1, 5, false},
		{"recall@5 of the top 10", metrics.Loop{Queries: 20, K: 5, Truth: truth}, half, 0.6, 5, 1, 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.loop.Run(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(m.Recall-tc.recall) > 1e-12 || m.MeanHits != tc.hits || m.Passes != tc.passes || len(m.PassTimes) != tc.passes {
				t.Errorf("recall %v hits %v passes %d (%d times), want %v %v %d", m.Recall, m.MeanHits, m.Passes, len(m.PassTimes), tc.recall, tc.hits, tc.passes)
			}
			if m.Latency.N != tc.latencies || (m.Latency.P50 == 0) != tc.zeroLatncy {
				t.Errorf("latency %+v, want %d samples (zero: %v)", m.Latency, tc.latencies, tc.zeroLatncy)
			}
			if m.QPS <= 0 || m.Elapsed <= 0 {
				t.Errorf("QPS %v elapsed %v, want > 0", m.QPS, m.Elapsed)
			}
		})
	}
}

func TestLoopKeyMapsIDs(t *testing.T) {
	// The results come back in a shifted id space (as an index's internal
	// ids against the truth's keys); Key maps them back before scoring.
	const k = 5
	x, qs, truth := exactSetup(t, 200, 10, 4, k)
	shifted := func(pass, i int) ([]engine.Result, error) {
		rs, _, err := x.Search(qs.Row(i), k, nil)
		for j := range rs {
			rs[j].ID += 1000
		}
		return rs, err
	}
	l := metrics.Loop{Queries: 10, K: k, Truth: truth}
	if m, _ := l.Run(context.Background(), shifted); m.Recall != 0 {
		t.Errorf("unmapped recall %v, want 0", m.Recall)
	}
	l.Key = func(id engine.ID) engine.ID { return id - 1000 }
	if m, _ := l.Run(context.Background(), shifted); m.Recall != 1 {
		t.Errorf("mapped recall %v, want 1", m.Recall)
	}
}

func TestLoopWarmupMinTimeAndOrder(t *testing.T) {
	var calls []int // pass*100 + i, warm-up as −1
	q := func(pass, i int) ([]engine.Result, error) {
		if pass < 0 {
			calls = append(calls, -1-i)
		} else {
			calls = append(calls, pass*100+i)
		}
		time.Sleep(100 * time.Microsecond)
		return nil, nil
	}
	var after []int // len(calls) at each AfterPass
	l := metrics.Loop{Queries: 6, Warmup: 3, Seed: 42, Passes: 2, AfterPass: func(p int) error {
		after = append(after, p, len(calls))
		return nil
	}}
	if _, err := l.Run(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after, []int{0, 9, 1, 15}) {
		t.Errorf("AfterPass (pass, calls so far): %v, want [0 9 1 15]", after)
	}
	l.AfterPass = nil
	first := slices.Clone(calls)
	if !slices.Equal(first[:3], []int{-1, -2, -3}) || len(first) != 3+12 {
		t.Fatalf("calls %v: want 3 warm-ups in order then 2 passes of 6", first)
	}
	if slices.IsSorted(first[3:9]) && slices.IsSorted(first[9:]) {
		t.Errorf("seeded passes ran in order: %v", first)
	}
	if slices.Equal(first[3:9], []int{0, 1, 2, 3, 4, 5}) && slices.Equal(first[9:], []int{100, 101, 102, 103, 104, 105}) {
		t.Errorf("seed had no effect: %v", first)
	}
	calls = nil
	if _, err := l.Run(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, first) {
		t.Errorf("same seed, different order:\n%v\n%v", first, calls)
	}
	calls = nil
	l.Seed = 0
	l.Passes, l.MinTime, l.MaxPasses = 1, 40*time.Millisecond, 500
	m, err := l.Run(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(calls[3:9]) {
		t.Errorf("seed 0 should run in order: %v", calls[3:9])
	}
	if m.Elapsed < 40*time.Millisecond || m.Passes < 2 || m.Passes > 500 {
		t.Errorf("min time 40ms: %d passes in %v", m.Passes, m.Elapsed)
	}
	l.MinTime, l.MaxPasses = time.Hour, 3
	if m, _ := l.Run(context.Background(), q); m.Passes != 3 {
		t.Errorf("max passes 3: ran %d", m.Passes)
	}
}

func TestLoopErrors(t *testing.T) {
	ok := func(pass, i int) ([]engine.Result, error) { return nil, nil }
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		loop metrics.Loop
		q    metrics.Query
		ctx  func() context.Context
		is   error
		msg  string
	}{
		{"no queries", metrics.Loop{}, ok, nil, engine.ErrInvalidArgument, "queries 0"},
		{"truth without k", metrics.Loop{Queries: 1, Truth: [][]engine.ID{{1}}}, ok, nil, engine.ErrInvalidArgument, "k 0"},
		{"short truth", metrics.Loop{Queries: 2, K: 1, Truth: [][]engine.ID{{1}}}, ok, nil, engine.ErrInvalidArgument, "truth for 1 queries of 2"},
		{"negative warm-up", metrics.Loop{Queries: 1, Warmup: -1}, ok, nil, engine.ErrInvalidArgument, "warmup -1"},
		{"bad pick", metrics.Loop{Queries: 1, Pick: 9}, ok, nil, engine.ErrInvalidArgument, "pick 9"},
		{"per pass with before", metrics.Loop{Queries: 1, PerPass: true, Before: func() error { return nil }}, ok, nil, engine.ErrInvalidArgument, "Before hook"},
		{"nil query", metrics.Loop{Queries: 1}, nil, nil, engine.ErrInvalidArgument, "nil query"},
		{"query error", metrics.Loop{Queries: 3}, func(p, i int) ([]engine.Result, error) {
			if i == 2 {
				return nil, boom
			}
			return nil, nil
		}, nil, boom, "query 2"},
		{"warm-up error", metrics.Loop{Queries: 3, Warmup: 1}, func(p, i int) ([]engine.Result, error) {
			if p < 0 {
				return nil, boom
			}
			return nil, nil
		}, nil, boom, "warm-up query 0"},
		{"before error", metrics.Loop{Queries: 3, Before: func() error { return boom }}, ok, nil, boom, "before query 0"},
		{"after-pass error", metrics.Loop{Queries: 3, Passes: 3, AfterPass: func(p int) error {
			if p == 1 {
				return boom
			}
			return nil
		}}, ok, nil, boom, "after pass 1"},
		{"cancelled", metrics.Loop{Queries: 3}, ok, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, context.Canceled, "canceled"},
		{"panic", metrics.Loop{Queries: 1}, func(p, i int) ([]engine.Result, error) { panic("bad index") }, nil, nil, "query panicked: bad index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.ctx != nil {
				ctx = tc.ctx()
			}
			_, err := tc.loop.Run(ctx, tc.q)
			wantErr(t, err, tc.is, tc.msg)
		})
	}
}

// wantErr fails t unless err is an error that is `is` (when not nil) and
// says msg.
func wantErr(t *testing.T, err, is error, msg string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("%v is not %v", err, is)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("%q does not say %q", err, msg)
	}
}

func TestLoopCPUClock(t *testing.T) {
	// A CPU clock that advances 1 ms per reading: every query costs 1 ms
	// of it, so CPUQPS is 1000 whatever the wall clock says.
	var c time.Duration
	clock := func() time.Duration { c += time.Millisecond; return c }
	for _, perPass := range []bool{false, true} {
		c = 0
		l := metrics.Loop{Queries: 4, Passes: 2, CPU: clock, PerPass: perPass}
		m, err := l.Run(context.Background(), func(p, i int) ([]engine.Result, error) { return nil, nil })
		if err != nil {
			t.Fatal(err)
		}
		want := 1000.0
		if perPass {
			want = 4000 // one reading pair a pass of 4 queries
		}
		if m.CPUQPS != want {
			t.Errorf("per pass %v: CPU QPS %v, want %v", perPass, m.CPUQPS, want)
		}
	}
}

// TestLoopCPULatency: with a CPU clock, each query's CPU time is
// summarised as CPULatency beside the wall times: here query i costs
// i+1 ms of CPU (and pass p p ms more), and the wall clock almost nothing,
// so the CPU quantiles are the costs' and the wall ones far below them;
// BestPerQuery takes each query's least CPU time, as it does wall times.
func TestLoopCPULatency(t *testing.T) {
	var c time.Duration
	clock := func() time.Duration { return c }
	for _, tc := range []struct {
		pick          metrics.Pick
		p50, p95, max time.Duration
		n             int
	}{
		// 2 passes of 10 queries: pass 0 costs 1…10 ms, pass 1 2…11 ms.
		{metrics.AllPasses, 6 * time.Millisecond, 10 * time.Millisecond, 11 * time.Millisecond, 20},
		{metrics.BestPerQuery, 5 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond, 10},
	} {
		c = 0
		l := metrics.Loop{Queries: 10, Passes: 2, CPU: clock, Pick: tc.pick}
		m, err := l.Run(context.Background(), func(p, i int) ([]engine.Result, error) {
			c += time.Duration(i+1+p) * time.Millisecond
			return nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Times and CPUTimes are every timed query's, in the order run:
		// query i of pass p cost i+1+p ms of CPU.
		if len(m.Times) != 20 || len(m.CPUTimes) != 20 {
			t.Errorf("%v: %d wall and %d CPU times, want 20 of each (2 passes of 10)", tc.pick, len(m.Times), len(m.CPUTimes))
		}
		for j, d := range m.CPUTimes {
			if want := time.Duration(j%10+1+j/10) * time.Millisecond; d != want {
				t.Errorf("%v: CPU time %d is %v, want %v (query %d of pass %d)", tc.pick, j, d, want, j%10, j/10)
				break
			}
		}
		got := m.CPULatency
		if got.N != tc.n || got.P50 != tc.p50 || got.P95 != tc.p95 || got.Max != tc.max {
			t.Errorf("%v: CPU latency %+v, want n %d p50 %v p95 %v max %v", tc.pick, got, tc.n, tc.p50, tc.p95, tc.max)
		}
		if m.Latency.Max >= time.Millisecond {
			t.Errorf("%v: the wall latency %v took the CPU clock's costs", tc.pick, m.Latency)
		}
	}
	m, err := metrics.Loop{Queries: 3}.Run(context.Background(), func(p, i int) ([]engine.Result, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if m.CPULatency != (metrics.Latency{}) || m.CPUTimes != nil || len(m.Times) != 3 {
		t.Errorf("CPU latency %+v, %d CPU times and %d wall times without a CPU clock (want none, none, 3)", m.CPULatency, len(m.CPUTimes), len(m.Times))
	}
}

func TestRecallHeader(t *testing.T) {
	if h := metrics.RecallHeader(10); h != "recall@10" {
		t.Errorf("header %q", h)
	}
	if !strings.Contains(metrics.RecallDefinition, "/ k") {
		t.Errorf("definition %q does not state the denominator", metrics.RecallDefinition)
	}
}

// TestLoopRuns checks the four ways of running the one loop against the
// same exact search: recall and hits are the same whichever runs them;
// what each times differs as its doc says.
func TestLoopRuns(t *testing.T) {
	const k, nq = 10, 24
	x, qs, truth := exactSetup(t, 400, nq, 8, k)
	search := func(i int) []engine.Result {
		rs, _, err := x.Search(qs.Row(i), k, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	exact := func(pass, i int) ([]engine.Result, error) { return search(i), nil }
	// reported says query i took (i+1) ms by the system's clock.
	reported := func(pass, i int) ([]engine.Result, time.Duration, error) {
		return search(i), time.Duration(i+1) * time.Millisecond, nil
	}
	var calls [][2]int // the batch calls of pass 0: [lo, hi)
	var mu sync.Mutex
	batch := func(pass, lo, hi int) ([][]engine.Result, error) {
		if pass == 0 {
			mu.Lock()
			calls = append(calls, [2]int{lo, hi})
			mu.Unlock()
		}
		out := make([][]engine.Result, hi-lo)
		for i := range out {
			out[i] = search(lo + i)
		}
		return out, nil
	}
	// The second arm keeps half of what the first returned for the same
	// query: it runs after it and may read it.
	var last []engine.Result
	first := func(pass, i int) ([]engine.Result, error) { last = search(i); return last, nil }
	half := func(pass, i int) ([]engine.Result, error) { return last[:k/2], nil }

	base := metrics.Loop{Queries: nq, K: k, Truth: truth, Passes: 2}
	untimed := base
	untimed.Untimed = true
	for _, tc := range []struct {
		name    string
		run     func() ([]metrics.Measured, error)
		recall  []float64
		hits    []float64
		clients int
		timed   bool // QPS and pass times
		latN    int  // latency samples (0: none)
		check   func(t *testing.T, m []metrics.Measured)
	}{
		{"untimed recall pass", func() ([]metrics.Measured, error) {
			m, err := untimed.Run(context.Background(), exact)
			return []metrics.Measured{m}, err
		}, []float64{1}, []float64{k}, 1, false, 0, nil},
		{"timed by the system", func() ([]metrics.Measured, error) {
			m, err := base.RunTimed(context.Background(), reported)
			return []metrics.Measured{m}, err
		}, []float64{1}, []float64{k}, 1, true, 2 * nq, func(t *testing.T, m []metrics.Measured) {
			// Σ (i+1) ms over 24 queries = 300 ms a pass: 80 QPS exactly.
			if m[0].Elapsed != 600*time.Millisecond || math.Abs(m[0].QPS-80) > 1e-9 {
				t.Errorf("elapsed %v QPS %v, want 600ms and 80 (the reported times)", m[0].Elapsed, m[0].QPS)
			}
			if m[0].Latency.Min != time.Millisecond || m[0].Latency.Max != nq*time.Millisecond || m[0].Latency.P50 != 12*time.Millisecond {
				t.Errorf("latency %+v, want 1ms…24ms, p50 12ms", m[0].Latency)
			}
		}},
		{"interleaved arms", func() ([]metrics.Measured, error) {
			return base.RunInterleaved(context.Background(), first, half)
		}, []float64{1, 0.5}, []float64{k, k / 2}, 1, true, 2 * nq, nil},
		{"one batch client", func() ([]metrics.Measured, error) {
			calls = nil
			m, err := base.RunBatch(context.Background(), batch)
			return []metrics.Measured{m}, err
		}, []float64{1}, []float64{k}, 1, true, 0, func(t *testing.T, _ []metrics.Measured) {
			if !slices.Equal(calls, [][2]int{{0, nq}}) {
				t.Errorf("calls %v, want one of all queries", calls)
			}
		}},
		{"five batch clients", func() ([]metrics.Measured, error) {
			calls = nil
			l := base
			l.Clients = 5
			m, err := l.RunBatch(context.Background(), batch)
			return []metrics.Measured{m}, err
		}, []float64{1}, []float64{k}, 5, true, 0, func(t *testing.T, _ []metrics.Measured) {
			slices.SortFunc(calls, func(a, b [2]int) int { return a[0] - b[0] })
			if !slices.Equal(calls, [][2]int{{0, 4}, {4, 9}, {9, 14}, {14, 19}, {19, 24}}) {
				t.Errorf("calls %v, want five contiguous shares", calls)
			}
		}},
		{"more clients than queries", func() ([]metrics.Measured, error) {
			l := base
			l.Clients = 100
			m, err := l.RunBatch(context.Background(), batch)
			return []metrics.Measured{m}, err
		}, []float64{1}, []float64{k}, nq, true, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != len(tc.recall) {
				t.Fatalf("%d measurements, want %d", len(ms), len(tc.recall))
			}
			for a, m := range ms {
				if math.Abs(m.Recall-tc.recall[a]) > 1e-12 || m.MeanHits != tc.hits[a] || m.Passes != 2 || m.Clients != tc.clients {
					t.Errorf("arm %d: recall %v hits %v passes %d clients %d, want %v %v 2 %d", a, m.Recall, m.MeanHits, m.Passes, m.Clients, tc.recall[a], tc.hits[a], tc.clients)
				}
				if timed := m.QPS > 0 && len(m.PassTimes) == 2 && m.Elapsed > 0; timed != tc.timed {
					t.Errorf("arm %d: QPS %v pass times %v elapsed %v, want timed %v", a, m.QPS, m.PassTimes, m.Elapsed, tc.timed)
				}
				if m.Latency.N != tc.latN {
					t.Errorf("arm %d: %d latency samples, want %d", a, m.Latency.N, tc.latN)
				}
			}
			if tc.check != nil {
				tc.check(t, ms)
			}
		})
	}
}

func TestLoopRunErrors(t *testing.T) {
	ok := func(pass, i int) ([]engine.Result, error) { return nil, nil }
	okTimed := func(pass, i int) ([]engine.Result, time.Duration, error) { return nil, time.Millisecond, nil }
	okBatch := func(pass, lo, hi int) ([][]engine.Result, error) { return make([][]engine.Result, hi-lo), nil }
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		run  func() error
		is   error
		msg  string
	}{
		{"untimed with min time", func() error {
			_, err := metrics.Loop{Queries: 1, Untimed: true, MinTime: time.Second}.Run(context.Background(), ok)
			return err
		}, engine.ErrInvalidArgument, "untimed"},
		{"negative clients", func() error {
			_, err := metrics.Loop{Queries: 1, Clients: -1}.RunBatch(context.Background(), okBatch)
			return err
		}, engine.ErrInvalidArgument, "clients -1"},
		{"clients without batches", func() error {
			_, err := metrics.Loop{Queries: 4, Clients: 2}.Run(context.Background(), ok)
			return err
		}, engine.ErrInvalidArgument, "RunBatch"},
		{"timed with a CPU clock", func() error {
			_, err := metrics.Loop{Queries: 1, CPU: func() time.Duration { return 0 }}.RunTimed(context.Background(), okTimed)
			return err
		}, engine.ErrInvalidArgument, "CPU clock"},
		{"nil timed query", func() error {
			_, err := metrics.Loop{Queries: 1}.RunTimed(context.Background(), nil)
			return err
		}, engine.ErrInvalidArgument, "nil query"},
		{"timed query error", func() error {
			_, err := metrics.Loop{Queries: 2}.RunTimed(context.Background(), func(p, i int) ([]engine.Result, time.Duration, error) { return nil, 0, boom })
			return err
		}, boom, "query 0"},
		{"no arms", func() error {
			_, err := metrics.Loop{Queries: 1}.RunInterleaved(context.Background())
			return err
		}, engine.ErrInvalidArgument, "no arms"},
		{"nil arm", func() error {
			_, err := metrics.Loop{Queries: 1}.RunInterleaved(context.Background(), ok, nil)
			return err
		}, engine.ErrInvalidArgument, "nil arm 1"},
		{"interleaved per pass", func() error {
			_, err := metrics.Loop{Queries: 1, PerPass: true}.RunInterleaved(context.Background(), ok, ok)
			return err
		}, engine.ErrInvalidArgument, "per-pass"},
		{"arm error", func() error {
			_, err := metrics.Loop{Queries: 3}.RunInterleaved(context.Background(), ok, func(p, i int) ([]engine.Result, error) { return nil, boom })
			return err
		}, boom, "arm 1 query 0"},
		{"batch with before", func() error {
			_, err := metrics.Loop{Queries: 1, Before: func() error { return nil }}.RunBatch(context.Background(), okBatch)
			return err
		}, engine.ErrInvalidArgument, "Before hook"},
		{"batch with seed", func() error {
			_, err := metrics.Loop{Queries: 1, Seed: 3}.RunBatch(context.Background(), okBatch)
			return err
		}, engine.ErrInvalidArgument, "seeded order"},
		{"nil batch", func() error {
			_, err := metrics.Loop{Queries: 1}.RunBatch(context.Background(), nil)
			return err
		}, engine.ErrInvalidArgument, "nil query"},
		{"short batch", func() error {
			_, err := metrics.Loop{Queries: 4, Clients: 2}.RunBatch(context.Background(), func(p, lo, hi int) ([][]engine.Result, error) {
				return make([][]engine.Result, 1), nil
			})
			return err
		}, engine.ErrInvalidArgument, "1 results for queries 0…1"},
		{"batch error", func() error {
			_, err := metrics.Loop{Queries: 4, Clients: 2}.RunBatch(context.Background(), func(p, lo, hi int) ([][]engine.Result, error) {
				if lo > 0 {
					return nil, boom
				}
				return make([][]engine.Result, hi-lo), nil
			})
			return err
		}, boom, "client 1"},
		{"batch warm-up error", func() error {
			_, err := metrics.Loop{Queries: 4, Warmup: 2}.RunBatch(context.Background(), func(p, lo, hi int) ([][]engine.Result, error) {
				if p < 0 {
					return nil, boom
				}
				return make([][]engine.Result, hi-lo), nil
			})
			return err
		}, boom, "warm-up batch"},
		{"client panic", func() error {
			_, err := metrics.Loop{Queries: 4, Clients: 2}.RunBatch(context.Background(), func(p, lo, hi int) ([][]engine.Result, error) {
				panic("bad share")
			})
			return err
		}, nil, "panicked: bad share"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, tc.run(), tc.is, tc.msg)
		})
	}
}

func TestRecallKAndCaption(t *testing.T) {
	for _, tc := range []struct {
		header string
		k      int
		ok     bool
	}{
		{"recall@10", 10, true},
		{"filtered recall@10 (lab)", 10, true},
		{"HNSW recall@100", 100, true},
		{"recall@10 no rescoring", 10, true},
		{"recall", 0, false},
		{"recall@k", 0, false},
		{"recall@0", 0, false},
		{"QPS", 0, false},
	} {
		if k, ok := metrics.RecallK(tc.header); k != tc.k || ok != tc.ok {
			t.Errorf("RecallK(%q) = %d, %v; want %d, %v", tc.header, k, ok, tc.k, tc.ok)
		}
	}
	for _, tc := range []struct {
		ks   []int
		want string // a part of the caption; "" for none
	}{
		{nil, ""},
		{[]int{0}, ""},
		{[]int{10}, "recall@10 = |returned top 10 ∩ exact top 10| / 10, the mean over the queries"},
		{[]int{10, 10}, "recall@10 = |returned top 10 ∩ exact top 10| / 10"},
		{[]int{10, 100, 10}, "/ k for k = 10, 100, the mean"},
	} {
		got := metrics.RecallCaption(tc.ks...)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("RecallCaption(%v) = %q, want it to say %q", tc.ks, got, tc.want)
		}
	}
	if c := (metrics.Measured{K: 5}).RecallCaption(); !strings.HasPrefix(c, "recall@5 = ") {
		t.Errorf("Measured.RecallCaption: %q", c)
	}
}
