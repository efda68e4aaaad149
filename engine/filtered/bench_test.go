package filtered

import (
	"fmt"
	"testing"
)

// BenchmarkStrategies reports recall@10, distance computations and payload
// reads per query for every strategy at three selectivities on the test
// fixture (3,000 × 32). Hypothesis: post-filter loses recall as the
// selectivity falls; the planners and exact keep recall 1; ACORN and the
// in-graph walk keep recall with fewer distances than exact at 10 %.
func BenchmarkStrategies(b *testing.B) {
	fx := getFixture(b)
	for _, text := range []string{`bucket < 500`, `bucket < 100`, `bucket < 20`} {
		cf, err := fx.store.CompileString(text)
		if err != nil {
			b.Fatal(err)
		}
		for s := Exact; s <= ACORN1; s++ {
			b.Run(fmt.Sprintf("%s/%s", text, s), func(b *testing.B) {
				var rec, dist float64
				n := 0
				for i := 0; i < b.N; i++ {
					q := fx.queries.Row(i % fx.queries.N)
					got, st, err := fx.coll.Search(Request{Query: q, K: 10, Filter: cf, Strategy: s})
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					rec += recall(got, truth(b, fx.coll, q, cf, 10))
					b.StartTimer()
					dist += float64(st.DistComps)
					n++
				}
				b.ReportMetric(rec/float64(n), "recall@10")
				b.ReportMetric(dist/float64(n), "dists/op")
			})
		}
	}
}
