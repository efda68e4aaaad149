package metrics_test

import (
	"context"
	"fmt"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/metrics"
)

func ExampleRecall() {
	got := []engine.Result{{ID: 4}, {ID: 9}, {ID: 1}}
	truth := []engine.ID{1, 2, 4}
	fmt.Printf("recall@3 = %.3f\n", metrics.Recall(got, truth, 3))
	lat := metrics.Summarize([]time.Duration{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond})
	fmt.Println(lat)
	// Output:
	// recall@3 = 0.667
	// p50 2ms p95 3ms p99 3ms (n=3)
}

// ExampleLoop measures an exact search: 5 warm-up queries, then the best
// of 3 timed passes; recall@k is scored on the first pass.
func ExampleLoop() {
	base := vec.NewMatrix(100, 2)
	for i := 0; i < base.N; i++ {
		copy(base.Row(i), []float32{float32(i), float32(i % 7)})
	}
	x, err := flat.New(base, flat.Config{Metric: engine.L2, Workers: 1})
	if err != nil {
		panic(err)
	}
	const k = 3
	queries := [][]float32{{3, 3}, {50, 1}, {97, 6}}
	truth := [][]engine.ID{{3, 4, 2}, {50, 49, 51}, {97, 96, 95}}
	loop := metrics.Loop{Queries: len(queries), K: k, Truth: truth, Warmup: 5, Passes: 3, Pick: metrics.BestPass}
	m, err := loop.Run(context.Background(), func(pass, i int) ([]engine.Result, error) {
		rs, _, err := x.Search(queries[i], k, nil)
		return rs, err
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s %.3f over %d queries, QPS from the %s of %d\n", metrics.RecallHeader(k), m.Recall, m.Queries, m.Pick, m.Passes)
	// Output:
	// recall@3 1.000 over 3 queries, QPS from the best pass of 3
}
