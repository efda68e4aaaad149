package metrics_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%v is not %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%q does not say %q", err, tc.msg)
			}
		})
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

func TestRecallHeader(t *testing.T) {
	if h := metrics.RecallHeader(10); h != "recall@10" {
		t.Errorf("header %q", h)
	}
	if !strings.Contains(metrics.RecallDefinition, "/ k") {
		t.Errorf("definition %q does not state the denominator", metrics.RecallDefinition)
	}
}
