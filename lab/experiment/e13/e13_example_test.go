package e13_test

import (
	"fmt"

	"github.com/veclab/veclab/lab/experiment/e13"
)

// The article's I/O budget of rescoring: 100 reads of 8 KB per query over
// 3 nodes, and the QPS a gp3 baseline volume (3,000 IOPS) caps.
func ExampleIOBudget() {
	b := e13.ArticleBudget
	for _, qps := range []float64{10, 100} {
		fmt.Printf("%g QPS: %.0f IOPS, %.1f MB/s per node\n", qps, b.IOPS(qps), b.MBps(qps))
	}
	fmt.Printf("gp3 cap: %.0f QPS\n", b.QPSCap())
	// Output:
	// 10 QPS: 333 IOPS, 2.7 MB/s per node
	// 100 QPS: 3333 IOPS, 27.3 MB/s per node
	// gp3 cap: 90 QPS
}
