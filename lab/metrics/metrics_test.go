package metrics

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/veclab/veclab/engine"
)

func ids(xs ...engine.ID) []engine.ID { return xs }

func res(xs ...engine.ID) []engine.Result {
	out := make([]engine.Result, len(xs))
	for i, x := range xs {
		out[i] = engine.Result{ID: x, Dist: float32(i)}
	}
	return out
}

func TestRecall(t *testing.T) {
	tests := []struct {
		name  string
		got   []engine.Result
		truth []engine.ID
		k     int
		want  float64
	}{
		{"all", res(1, 2, 3), ids(3, 2, 1), 3, 1},
		{"none", res(4, 5, 6), ids(1, 2, 3), 3, 0},
		{"two of three", res(1, 9, 3), ids(1, 2, 3), 3, 2.0 / 3},
		{"only first k returned count", res(9, 8, 1), ids(1, 2, 3, 4), 2, 0},
		{"only first k true count", res(4, 5), ids(1, 2, 3, 4, 5), 2, 0},
		{"short result list", res(1), ids(1, 2), 2, 0.5},
		{"truth shorter than k", res(1, 2, 7), ids(1, 2), 10, 1},
		{"empty truth", res(1), nil, 10, 1},
		{"empty result", nil, ids(1, 2), 2, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Recall(tc.got, tc.truth, tc.k); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("Recall = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMeanRecallAndHits(t *testing.T) {
	r, err := MeanRecall([][]engine.Result{res(1, 2), res(3, 9)}, [][]engine.ID{ids(1, 2), ids(3, 4)}, 2)
	if err != nil || r != 0.75 {
		t.Fatalf("MeanRecall = %v, %v; want 0.75", r, err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"lengths", second(MeanRecall([][]engine.Result{nil}, nil, 1)), engine.ErrInvalidArgument},
		{"k", second(MeanRecall(nil, nil, 0)), engine.ErrInvalidArgument},
		{"empty", second(MeanRecall(nil, nil, 1)), engine.ErrEmpty},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if h := MeanHits([][]engine.Result{res(1, 2), res(), res(1, 2, 3, 4)}); h != 2 {
		t.Fatalf("MeanHits = %v, want 2", h)
	}
	if MeanHits(nil) != 0 {
		t.Fatal("MeanHits(nil) != 0")
	}
}

func second[T any](_ T, err error) error { return err }

func ms(xs ...int) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestQuantiles(t *testing.T) {
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[99-i] = time.Duration(i+1) * time.Millisecond // 100…1, unsorted
	}
	tests := []struct {
		name string
		in   []time.Duration
		q    float64
		want time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"median odd", ms(3, 1, 2), 0.5, 2 * time.Millisecond},
		{"median even is lower middle", ms(4, 1, 3, 2), 0.5, 2 * time.Millisecond},
		{"p95 of 1..100", hundred, 0.95, 95 * time.Millisecond},
		{"p99 of 1..100", hundred, 0.99, 99 * time.Millisecond},
		{"p100", hundred, 1, 100 * time.Millisecond},
		{"q=0 is the minimum", hundred, 0, time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quantile(tc.in, tc.q); got != tc.want {
				t.Fatalf("Quantile = %v, want %v", got, tc.want)
			}
		})
	}
	if hundred[0] != 100*time.Millisecond {
		t.Fatal("Quantile modified its input")
	}
	s := Summarize(hundred)
	if s.N != 100 || s.P50 != 50*time.Millisecond || s.P95 != 95*time.Millisecond || s.P99 != 99*time.Millisecond ||
		s.Min != time.Millisecond || s.Max != 100*time.Millisecond || s.Mean != 50500*time.Microsecond {
		t.Fatalf("Summarize = %+v", s)
	}
	if s.String() != "p50 50ms p95 95ms p99 99ms (n=100)" {
		t.Fatalf("String = %q", s.String())
	}
}

func TestQPSAndBytes(t *testing.T) {
	if q := QPS(500, 250*time.Millisecond); q != 2000 {
		t.Fatalf("QPS = %v", q)
	}
	if QPS(5, 0) != 0 || BytesPerVector(100, 0) != 0 {
		t.Fatal("degenerate inputs must give 0")
	}
	if b := BytesPerVector(46_080_000, 30_000); b != 1536 {
		t.Fatalf("BytesPerVector = %v", b)
	}
}

func TestQPSAtRecall(t *testing.T) {
	sweep := []Point{
		{Param: 10, Recall: 0.60, QPS: 10000},
		{Param: 100, Recall: 0.99, QPS: 2000},
		{Param: 40, Recall: 0.93, QPS: 5000},
		{Param: 64, Recall: 0.97, QPS: 3000},
	}
	tests := []struct {
		target float64
		want   float64
		ok     bool
	}{
		{0.50, 10000, true}, // first point already above
		{0.95, 4000, true},  // halfway 0.93→0.97: 5000→3000
		{0.97, 3000, true},  // exactly a point
		{0.99, 2000, true},  // last point
		{0.995, 0, false},   // never reached
		{0.98, 2500, true},  // 0.97→0.99
		{0.765, 7500, true}, // 0.60→0.93 halfway
	}
	for _, tc := range tests {
		got, ok := QPSAtRecall(sweep, tc.target)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("QPSAtRecall(%v) = %v, %v; want %v, %v", tc.target, got, ok, tc.want, tc.ok)
		}
	}
	p, ok := FirstReaching(sweep, 0.95)
	if !ok || p.Param != 64 {
		t.Fatalf("FirstReaching(0.95) = %+v, %v", p, ok)
	}
	if _, ok := FirstReaching(sweep, 1); ok {
		t.Fatal("FirstReaching(1) found a point")
	}
	if p, ok := BestAt(sweep, 0.95); !ok || p.Param != 64 || p.QPS != 3000 {
		t.Fatalf("BestAt(0.95) = %+v, %v", p, ok)
	}
	if p, ok := BestAt(sweep, 0.5); !ok || p.Param != 10 {
		t.Fatalf("BestAt(0.5) = %+v, %v", p, ok)
	}
	if _, ok := BestAt(sweep, 0.995); ok {
		t.Fatal("BestAt(0.995) found a point")
	}
}

func TestPairByRecall(t *testing.T) {
	ivf := []Point{{Label: "v1", Recall: 0.90, QPS: 700}, {Label: "v3", Recall: 0.96, QPS: 400}}
	hnsw := []Point{{Label: "ef50", Recall: 0.91, QPS: 100}, {Label: "ef100", Recall: 0.95, QPS: 80}, {Label: "ef200", Recall: 0.97, QPS: 50}}
	got := PairByRecall(ivf, hnsw)
	if len(got) != 2 {
		t.Fatalf("pairs: %v", got)
	}
	if got[0].B.Label != "ef50" || got[0].Speedup != 7 || math.Abs(got[0].RecallGap+0.01) > 1e-12 {
		t.Fatalf("pair 0: %+v", got[0])
	}
	// 0.96 is 0.01 from both ef100 and ef200: the faster one wins the tie.
	if got[1].B.Label != "ef100" || got[1].Speedup != 5 {
		t.Fatalf("pair 1: %+v", got[1])
	}
	if PairByRecall(ivf, nil) != nil {
		t.Fatal("pairing with an empty sweep")
	}
}

func TestPairWithin(t *testing.T) {
	a := []Point{{Label: "a1", Recall: 0.60, QPS: 100}, {Label: "a2", Recall: 0.90, QPS: 50}}
	b := []Point{{Label: "b1", Recall: 0.73, QPS: 90}, {Label: "b2", Recall: 0.91, QPS: 25}}
	ps := PairWithin(a, b, 0.02)
	if len(ps) != 1 || ps[0].A.Label != "a2" || ps[0].B.Label != "b2" || ps[0].Speedup != 2 {
		t.Fatalf("PairWithin = %+v, want only a2–b2 at 2×", ps)
	}
	if len(PairWithin(a, b, 0.2)) != 2 {
		t.Error("a wider tolerance keeps both pairs")
	}
}
