package exercise

import (
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/picture"
)

// fourPlanes is n points of 8 dimensions: four independent sets of points
// of the plane side by side, so a product quantizer of up to 8 sub-spaces
// has clustered data in each.
func fourPlanes(n int) (*vec.Matrix, error) {
	m := vec.NewMatrix(n, 8)
	for p := 0; p < 4; p++ {
		pl, err := dataset.Plane(n, 6, uint64(11+p))
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			copy(m.Row(i)[2*p:2*p+2], pl.Row(i))
		}
	}
	return m, nil
}

// ADCSum asks for the asymmetric distance of a product code as a func: the
// distance between a query and a code's reconstruction, from the query's
// distance table. The check builds each table from engine/quant's codebooks
// (PQ.Codebook) and compares the learner's figure with the engine's own
// (PQ.EncodeQuery, then PQ.Distance) for codes of 8-dimensional points.
func ADCSum() *Exercise {
	return &Exercise{
		Name: "ADCSum",
		Question: "write adc := func(table [][]float32, code []byte) float32: the squared distance between a query and the " +
			"reconstruction of code, where table[j][c] is the squared distance between the query's j-th sub-vector and " +
			"centroid c of sub-space j, and code[j] is the centroid the code picks in sub-space j.",
		hint: "a squared distance is a sum over components, and the sub-spaces split the components between them: each " +
			"sub-space adds its own part, read from its row of the table.",
		solution: `adc := func(table [][]float32, code []byte) float32 {
	var d float32
	for j, c := range code {
		d += table[j][c]
	}
	return d
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func([][]float32, []byte) float32)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(table [][]float32, code []byte) float32, got %T", answer)
			}
			data, err := fourPlanes(600)
			if err != nil {
				return false, "", err
			}
			queries, err := fourPlanes(7)
			if err != nil {
				return false, "", err
			}
			checked := 0
			for _, m := range []int{2, 4, 8} {
				q, err := quant.TrainPQ(data, engine.L2, quant.PQConfig{M: m, Bits: 4, Seed: 5, Workers: 1})
				if err != nil {
					return false, "", err
				}
				sub := q.Dim() / q.M()
				qcode := make([]byte, q.QueryCodeSize())
				code := make([]byte, q.CodeSize())
				for qi := 0; qi < queries.N; qi++ {
					x := queries.Row(qi)
					if err := q.EncodeQuery(qcode, x); err != nil {
						return false, "", err
					}
					table := make([][]float32, q.M())
					for j := range table {
						table[j] = make([]float32, q.Centroids())
						for c := range table[j] {
							cb := q.Codebook(j, c)
							for d := 0; d < sub; d++ {
								diff := x[j*sub+d] - cb[d]
								table[j][c] += diff * diff
							}
						}
					}
					for i := 0; i < data.N; i += 37 {
						if err := q.Encode(code, data.Row(i)); err != nil {
							return false, "", err
						}
						want := q.Distance(qcode, code)
						got := f(table, append([]byte(nil), code...))
						if math.IsNaN(float64(got)) || math.Abs(float64(got-want)) > 1e-4*math.Max(1, math.Abs(float64(want))) {
							return false, fmt.Sprintf("M = %d sub-spaces, code %v: your distance is %.4g, the engine's %.4g", m, code, got, want), nil
						}
						checked++
					}
				}
			}
			return true, fmt.Sprintf("your distances are the engine's for all %d query–code pairs (M = 2, 4 and 8)", checked), nil
		},
		right: func() (any, error) {
			return func(table [][]float32, code []byte) float32 {
				var d float32
				for j, c := range code {
					d += table[j][c]
				}
				return d
			}, nil
		},
		// The mean over the sub-spaces: right at M = 1 only.
		wrong: func(table [][]float32, code []byte) float32 {
			var d float32
			for j, c := range code {
				d += table[j][c]
			}
			return d / float32(len(code))
		},
	}
}

// PQCodes asks how many different vectors a product code can stand for, as
// a func of the sub-spaces and the bits; the check decodes every code of
// engine/quant's quantizers on 8-dimensional points (picture.AllCodes) and
// counts the distinct reconstructions.
func PQCodes() *Exercise {
	return &Exercise{
		Name: "PQCodes",
		Question: "write reconstructions := func(m, bits int) int: how many different vectors the codes of a product " +
			"quantizer with m sub-spaces of 2^bits centroids each can decode to.",
		hint: "a code picks a centroid in every sub-space, each pick independent of the others: count the ways to choose, " +
			"not the centroids learnt.",
		solution: `reconstructions := func(m, bits int) int {
	centroids := 1
	for b := 0; b < bits; b++ {
		centroids *= 2 // 2^bits centroids in each sub-space
	}
	n := 1
	for j := 0; j < m; j++ {
		n *= centroids // one independent choice per sub-space
	}
	return n
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func(int, int) int)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(m, bits int) int, got %T", answer)
			}
			data, err := fourPlanes(1000)
			if err != nil {
				return false, "", err
			}
			for _, c := range []struct{ m, bits int }{{1, 3}, {2, 2}, {2, 4}, {4, 2}, {8, 1}} {
				q, err := quant.TrainPQ(data, engine.L2, quant.PQConfig{M: c.m, Bits: c.bits, Seed: 5, Workers: 1})
				if err != nil {
					return false, "", err
				}
				codes, err := picture.AllCodes(q)
				if err != nil {
					return false, "", err
				}
				distinct := map[string]bool{}
				for _, d := range codes {
					distinct[fmt.Sprint(d)] = true
				}
				if got := f(c.m, c.bits); got != len(distinct) {
					return false, fmt.Sprintf("m = %d, %d bits: you count %d, the engine's codes decode to %d different vectors", c.m, c.bits, got, len(distinct)), nil
				}
			}
			return true, "your count matches the engine's decoded codes for all 5 quantizers (m from 1 to 8)", nil
		},
		right: func() (any, error) {
			return func(m, bits int) int {
				centroids := 1
				for b := 0; b < bits; b++ {
					centroids *= 2
				}
				n := 1
				for j := 0; j < m; j++ {
					n *= centroids
				}
				return n
			}, nil
		},
		// The centroids learnt, not the codes they make.
		wrong: func(m, bits int) int { return m << bits },
	}
}
