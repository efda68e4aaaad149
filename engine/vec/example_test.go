package vec_test

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

func ExampleMatrix() {
	m := vec.NewMatrix(0, 3)
	for _, v := range [][]float32{{1, 0, 0}, {0, 2, 0}} {
		if _, err := m.Append(v); err != nil {
			fmt.Println(err)
		}
	}
	_, err := m.Append([]float32{1, 2})
	fmt.Println(m.N, m.Row(1), err)
	// Output: 2 [0 2 0] vec: vector has 2 components, matrix has 3: engine: dimension mismatch
}

func ExampleNormalize() {
	v := []float32{3, 4}
	fmt.Println(vec.Normalize(v), v)
	fmt.Println(vec.Normalize([]float32{0, 0}))
	// Output:
	// <nil> [0.6 0.8]
	// vec: all 2 components are zero: engine: zero vector cannot be normalised for cosine
}

func ExampleDistance() {
	a, b := []float32{1, 0}, []float32{0.6, 0.8}
	for _, m := range []engine.Metric{engine.Cosine, engine.Dot, engine.L2} {
		fmt.Printf("%s %.2f\n", m, vec.Distance(m)(a, b))
	}
	// Output:
	// cosine 0.40
	// dot -0.60
	// l2 0.80
}

func ExampleDot4() {
	q := []float32{1, 2, 3}
	fmt.Println(vec.Dot4(q, []float32{1, 0, 0}, []float32{0, 1, 0}, []float32{0, 0, 1}, []float32{1, 1, 1}))
	// Output: 1 2 3 6
}

// A 768-dim float32 vector takes 3,072 bytes; stored as bfloat16 it takes
// 1,536, each component rounded to 8 significant bits.
func ExampleEncodeBFloat16() {
	v := make([]float32, 768)
	v[0], v[1] = 1.00390625, 3.14159265 // 1 + 2⁻⁸ is a tie: rounds to even (1)
	b := vec.EncodeBFloat16(nil, v)
	back, err := vec.DecodeBFloat16(make([]float32, len(v)), b)
	fmt.Println(4*len(v), len(b), back[0], back[1], err)
	// Output: 3072 1536 1 3.140625 <nil>
}
