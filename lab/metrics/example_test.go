package metrics_test

import (
	"fmt"
	"time"

	"github.com/veclab/veclab/engine"
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
