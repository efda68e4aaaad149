package quant_test

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
)

func sample(n, dim int) *vec.Matrix {
	r := rand.New(rand.NewPCG(1, 2))
	m := vec.NewMatrix(n, dim)
	for i := range m.Data {
		m.Data[i] = float32(r.NormFloat64())
	}
	for i := 0; i < n; i++ {
		_ = vec.Normalize(m.Row(i))
	}
	return m
}

// BBQ: 1-bit documents scored against a 4-bit query, 14 bytes of
// corrective factors per document.
func ExampleTrainOSQ() {
	data := sample(1000, 384)
	q, err := quant.TrainOSQ(data, engine.Cosine, quant.OSQConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q.BytesPerVector(), "bytes per vector")
	code := make([]byte, q.CodeSize())
	query := make([]byte, q.QueryCodeSize())
	_ = q.Encode(code, data.Row(0))
	_ = q.EncodeQuery(query, data.Row(0))
	d := q.Distance(query, code)
	fmt.Println(d < 0.3) // a vector is near itself
	// Output:
	// 62 bytes per vector
	// true
}

// Elasticsearch's "int8" (7-bit) with bounds from Lucene's default
// confidence interval, and a flat scan over the codes.
func ExampleTrainScalar() {
	data := sample(1000, 64)
	q, err := quant.TrainScalar(data, engine.Cosine, quant.ScalarConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := quant.NewStore(q)
	s.Reserve(data.N)
	for i := 0; i < data.N; i++ {
		if err := s.Set(engine.ID(i), data.Row(i)); err != nil {
			fmt.Println(err)
			return
		}
	}
	res, _ := s.Search(data.Row(42), 1, nil)
	fmt.Println(res[0].ID, q.BytesPerVector())
	// Output: 42 68
}

func ExampleRestore() {
	q, _ := quant.TrainScalar(sample(100, 8), engine.L2, quant.ScalarConfig{Bits: 4})
	b, _ := q.MarshalBinary()
	r, err := quant.Restore(b)
	fmt.Println(err, r.CodeSize())
	_, err = quant.Restore(b[:len(b)-1])
	fmt.Println(errors.Is(err, engine.ErrCorrupt))
	// Output:
	// <nil> 8
	// true
}

// An IVF posting list: codes relative to the list's own centroid, stored
// as fixed-size records in one slab, scanned with a bound query.
func ExampleNewOSQ() {
	data := sample(200, 128)
	centroid := make([]float32, 128)
	for i := 0; i < data.N; i++ {
		for j, x := range data.Row(i) {
			centroid[j] += x / float32(data.N)
		}
	}
	q, err := quant.NewOSQ(centroid, engine.Cosine, quant.OSQConfig{Bits: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	size := q.CodeSize()
	list := make([]byte, data.N*size)
	for i := 0; i < data.N; i++ {
		if err := q.Encode(list[i*size:(i+1)*size], data.Row(i)); err != nil {
			fmt.Println(err)
			return
		}
	}
	qc := make([]byte, q.QueryCodeSize())
	_ = q.EncodeQuery(qc, data.Row(7))
	bq, _ := q.Bind(qc)
	best, bestD := -1, float32(0)
	for i := 0; i < data.N; i++ {
		if d := bq.Distance(list[i*size : (i+1)*size]); best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	fmt.Println(size, "bytes per record; nearest:", best)
	// Output: 46 bytes per record; nearest: 7
}

// Product quantization: 96 dimensions in 12 bytes (12 sub-spaces of 8
// dimensions, 256 centroids each), a query scored against codes through
// its distance table (ADC), and the code decoded to the centroids it
// names.
func ExampleTrainPQ() {
	data := sample(1000, 96)
	p, err := quant.TrainPQ(data, engine.Cosine, quant.PQConfig{M: 12, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.BytesPerVector(), "bytes per vector,", p.Centroids(), "centroids per sub-space")
	codes := make([]byte, 3*p.CodeSize())
	for i := 0; i < 3; i++ {
		_ = p.Encode(codes[i*12:(i+1)*12], data.Row(i))
	}
	t, _ := p.NewTable(data.Row(1))
	d := make([]float32, 3)
	t.Distances(d, codes)
	fmt.Println(d[1] < d[0], d[1] < d[2]) // vector 1 is nearest itself
	x := make([]float32, 96)
	_ = p.Decode(x, codes[12:24])
	fmt.Println(vec.Dot(x, data.Row(1)) > 0.3) // the reconstruction points its way

	_, err = quant.TrainPQ(data, engine.Cosine, quant.PQConfig{M: 7})
	fmt.Println(err)
	// Output:
	// 12 bytes per vector, 256 centroids per sub-space
	// true true
	// true
	// quant: product quantizer config: [M = 7 sub-spaces must divide the dimension 96 (divisors near it: 6, 8)]: engine: invalid argument
}

// TrainTurbo with Qdrant's form: 4-bit codes (384 coordinates in 192
// bytes) plus the scale factor and ⟨X, M⟩, scored against a float query.
func ExampleTrainTurbo() {
	data := sample(500, 384)
	q, err := quant.TrainTurbo(data, engine.Cosine, quant.TurboConfig{Kind: quant.TurboQdrant, Bits: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := quant.NewStore(q)
	s.Reserve(data.N)
	for i := 0; i < data.N; i++ {
		if err := s.Set(engine.ID(i), data.Row(i)); err != nil {
			fmt.Println(err)
			return
		}
	}
	res, err := s.Search(data.Row(7), 1, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q, q.CodeSize(), "bytes; nearest to row 7:", res[0].ID)
	// Output: turbo(qdrant, 4 bits, dim 384, cosine) 200 bytes; nearest to row 7: 7
}
