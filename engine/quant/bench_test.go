package quant

import (
	"fmt"
	"testing"

	"github.com/veclab/veclab/engine"
)

var sinkF float32

// BenchmarkDistance reports ns per query-to-code comparison (kernel plus
// corrective arithmetic) by quantizer and dimension, with the code size.
// Hypothesis: BBQ's 1×4-bit popcount comparison is several times cheaper
// than int7's byte dot product at every dimension, and the gap grows with
// dimension.
func BenchmarkDistance(b *testing.B) {
	for _, dim := range []int{96, 384, 768, 1536} {
		data := clustered(64, dim, 4, 1)
		for _, mk := range makers {
			q, err := mk.train(data, engine.Cosine)
			if err != nil {
				b.Fatal(err)
			}
			codes := make([][]byte, data.N)
			for i := range codes {
				codes[i] = make([]byte, q.CodeSize())
				_ = q.Encode(codes[i], data.Row(i))
			}
			qc := make([]byte, q.QueryCodeSize())
			_ = q.EncodeQuery(qc, data.Row(0))
			b.Run(fmt.Sprintf("%s/d=%d", mk.name, dim), func(b *testing.B) {
				i := 0
				for b.Loop() {
					sinkF += q.Distance(qc, codes[i&63])
					i++
				}
				b.ReportMetric(q.BytesPerVector(), "bytes/vec")
			})
		}
	}
}

// BenchmarkEncode reports the cost of coding one document (OSQ's interval
// search runs here).
func BenchmarkEncode(b *testing.B) {
	data := clustered(64, 384, 4, 1)
	for _, mk := range makers {
		q, err := mk.train(data, engine.Cosine)
		if err != nil {
			b.Fatal(err)
		}
		code := make([]byte, q.CodeSize())
		b.Run(mk.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				_ = q.Encode(code, data.Row(i&63))
				i++
			}
		})
	}
}

// BenchmarkRecall reports flat-scan recall@10 over codes, with and without
// rescoring 3×k candidates (ES's bbq default oversample), and bytes/vec,
// on 5,000 clustered 384-d vectors. Hypothesis: int7 ≈ raw; BBQ far below
// without rescoring and close to 1 with it.
func BenchmarkRecall(b *testing.B) {
	data := clustered(5000, 384, 40, 1)
	queries := clustered(20, 384, 40, 1)
	for _, mk := range makers {
		b.Run(mk.name, func(b *testing.B) {
			q, err := mk.train(data, engine.Cosine)
			if err != nil {
				b.Fatal(err)
			}
			s := fill(b, q, data)
			var r1, r3 float64
			for b.Loop() {
				r1, r3 = 0, 0
				for j := 0; j < queries.N; j++ {
					qv := queries.Row(j)
					want := exactTopK(data, qv, 10, engine.Cosine)
					got, _ := s.Search(qv, 30, nil)
					r1 += recall(got[:10], want)
					r3 += recall(rerank(data, qv, got, 10, engine.Cosine), want)
				}
			}
			b.ReportMetric(r1/float64(queries.N), "recall@10")
			b.ReportMetric(r3/float64(queries.N), "recall@10-rescored3x")
			b.ReportMetric(q.BytesPerVector(), "bytes/vec")
		})
	}
}

// BenchmarkEncodeQuery reports the cost of coding one 384-d query for an
// OSQ quantizer around a list centroid, as an IVF search does once per
// visited list: EncodeQuery (five refinement steps, Lucene's) against
// QueryEncoder with 0 (the grid interval) and 1 (DiskBBQ's) steps, side
// by side. Hypothesis: the grid encoding costs a few passes over the
// query, over ten times less than EncodeQuery.
func BenchmarkEncodeQuery(b *testing.B) {
	data := clustered(64, 384, 4, 1)
	for _, bits := range []int{1, 2, 4, 8} {
		o, err := NewOSQ(data.Row(0), engine.Cosine, OSQConfig{Bits: bits})
		if err != nil {
			b.Fatal(err)
		}
		qc := make([]byte, o.QueryCodeSize())
		b.Run(fmt.Sprintf("osq%d/EncodeQuery", bits), func(b *testing.B) {
			i := 0
			for b.Loop() {
				_ = o.EncodeQuery(qc, data.Row(1+i%63))
				i++
			}
		})
		for _, iters := range []int{0, 1} {
			e, err := NewQueryEncoder(384, iters)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("osq%d/QueryEncoder-iters%d", bits, iters), func(b *testing.B) {
				i := 0
				for b.Loop() {
					_ = e.Reset(data.Row(1 + i%63))
					_ = e.Encode(qc, o)
					i++
				}
			})
		}
	}
}
