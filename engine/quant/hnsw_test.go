package quant

import (
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
)

// TestQuantizedHNSW builds engine/hnsw with a Store as its CodeStore (the
// int8_hnsw / bbq_hnsw arrangement: graph built and searched with code
// distances) and checks recall@10 with and without rescoring 5×k from the
// float32 vectors against floors well above chance.
func TestQuantizedHNSW(t *testing.T) {
	data := clustered(2000, 96, 20, 7)
	queries := clustered(20, 96, 20, 7)
	for _, tc := range []struct {
		name         string
		mk           maker
		plain, resc5 float64
	}{
		{"int7", scalarMaker("int7", ScalarConfig{}), 0.7, 0.9},
		{"bbq", osqMaker("bbq", OSQConfig{}), 0.15, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := tc.mk.train(data, engine.Cosine)
			if err != nil {
				t.Fatal(err)
			}
			st := NewStore(q)
			ix, err := hnsw.New(hnsw.Config{Dim: 96, Metric: engine.Cosine, EfConstruction: 100, Workers: 1, Codes: st})
			if err != nil {
				t.Fatal(err)
			}
			keys := make([]uint64, data.N)
			for i := range keys {
				keys[i] = uint64(i)
			}
			if err := ix.AddBatch(keys, data); err != nil {
				t.Fatal(err)
			}
			if st.Len() != data.N {
				t.Fatalf("hnsw filled %d codes, want %d", st.Len(), data.N)
			}
			var r1, r5 float64
			for j := 0; j < queries.N; j++ {
				qv := queries.Row(j)
				want := exactTopK(data, qv, 10, engine.Cosine)
				res, _, err := ix.Query(qv, engine.Request{K: 50, Breadth: 100})
				if err != nil {
					t.Fatal(err)
				}
				for i := range res {
					res[i].ID = engine.ID(ix.Key(res[i].ID))
				}
				r1 += recall(res[:10], want)
				r5 += recall(rerank(data, qv, res, 10, engine.Cosine), want)
			}
			r1 /= float64(queries.N)
			r5 /= float64(queries.N)
			t.Logf("recall@10 %.3f, rescored from 50: %.3f", r1, r5)
			if r1 < tc.plain || r5 < tc.resc5 {
				t.Errorf("recall@10 %.3f (floor %.2f), rescored %.3f (floor %.2f)", r1, tc.plain, r5, tc.resc5)
			}
		})
	}
}
