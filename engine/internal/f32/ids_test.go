package f32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIDsMatchQuad requires every IDs kernel to give, bit for bit, Dot4's
// (L2Sq4's) distance for each whole block of four ids and Dot's (L2Sq's)
// for the rest, as its contract says; ids repeat and come in any order, and out past
// len(ids) stays untouched.
func TestIDsMatchQuad(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	for _, k := range Available() {
		for _, dim := range []int{1, 3, 4, 15, 16, 17, 31, 33, 64, 100, 128, 384} {
			stride := dim + dim%3
			const rows = 40
			data := make([]float32, (rows-1)*stride+dim)
			for i := range data {
				data[i] = r.Float32()*2 - 1
			}
			q := make([]float32, dim)
			for i := range q {
				q[i] = r.Float32()*2 - 1
			}
			for _, count := range []int{0, 1, 3, 4, 5, 8, 17, 32} {
				ids := make([]uint32, count)
				for i := range ids {
					ids[i] = uint32(r.IntN(rows))
				}
				row := func(id uint32) []float32 { return data[int(id)*stride : int(id)*stride+dim] }
				for _, c := range []struct {
					name string
					ids  func(q, data []float32, stride int, ids []uint32, out []float32)
					quad func(q, a, b, c, d []float32) (float32, float32, float32, float32)
					one  func(a, b []float32) float32
				}{{"DotIDs", k.DotIDs, k.Dot4, k.Dot}, {"L2SqIDs", k.L2SqIDs, k.L2Sq4, k.L2Sq}} {
					out := make([]float32, count+3)
					for i := range out {
						out[i] = -7
					}
					c.ids(q, data, stride, ids, out)
					for j := range count {
						var want float32
						if b := j &^ 3; b+4 <= count {
							var w [4]float32
							w[0], w[1], w[2], w[3] = c.quad(q, row(ids[b]), row(ids[b+1]), row(ids[b+2]), row(ids[b+3]))
							want = w[j-b]
						} else {
							want = c.one(q, row(ids[j]))
						}
						if math.Float32bits(out[j]) != math.Float32bits(want) {
							t.Fatalf("%s/%s dim=%d count=%d: out[%d] = %v, want %v", c.name, k.Name, dim, count, j, out[j], want)
						}
					}
					for j := count; j < len(out); j++ {
						if out[j] != -7 {
							t.Fatalf("%s/%s dim=%d count=%d: out[%d] written", c.name, k.Name, dim, count, j)
						}
					}
				}
			}
		}
	}
}

// TestEdgeInputs holds every kernel set to its pure-Go twins on the inputs
// a random test rarely draws: zero vectors (exactly 0), a vector against
// itself (L2Sq exactly 0), large magnitudes whose squares stay finite,
// tiny and subnormal magnitudes, and lengths around every step of the
// kernels (1…4, 15…17, 63…65, 127…129, 1000).
func TestEdgeInputs(t *testing.T) {
	lengths := []int{1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000}
	fills := []struct {
		name string
		fill func(i, side int) float32
	}{
		{"zero", func(i, side int) float32 { return 0 }},
		{"zero-vs-ones", func(i, side int) float32 { return float32(side) }},
		{"large", func(i, side int) float32 { return float32(1-2*((i+side)%2)) * 1e16 * float32(1+i%7) }},
		{"tiny", func(i, side int) float32 { return 1e-20 * float32(1+(i*(side+3))%11) }},
		{"subnormal", func(i, side int) float32 { return math.Float32frombits(uint32(1 + i*(side+1))) }},
		{"mixed", func(i, side int) float32 { return float32(math.Pow(10, float64((i*7+side*3)%30-15))) }},
	}
	for _, k := range Available() {
		for _, f := range fills {
			for _, n := range lengths {
				a, b := make([]float32, n), make([]float32, n)
				for i := range a {
					a[i], b[i] = f.fill(i, 0), f.fill(i, 1)
				}
				for _, c := range []struct {
					name      string
					got, twin float32
					ref       func(a, b []float32) (float64, float64)
				}{
					{"Dot", k.Dot(a, b), DotGeneric(a, b), refDot},
					{"L2Sq", k.L2Sq(a, b), L2SqGeneric(a, b), refL2Sq},
					{"L2Sq-self", k.L2Sq(a, a), 0, nil},
				} {
					g := float64(c.got)
					if math.IsNaN(g) || math.IsInf(g, 0) {
						t.Fatalf("%s/%s/%s n=%d: %v", k.Name, c.name, f.name, n, g)
					}
					if c.ref == nil {
						if c.got != 0 {
							t.Fatalf("%s/%s/%s n=%d: %v, want exactly 0", k.Name, c.name, f.name, n, c.got)
						}
						continue
					}
					want, scale := c.ref(a, b)
					if d := math.Abs(g - want); d > tolerance(n, scale) {
						t.Fatalf("%s/%s/%s n=%d: got %v, twin %v, exact %v (|Δ|=%g > %g)", k.Name, c.name, f.name, n, c.got, c.twin, want, d, tolerance(n, scale))
					}
				}
				var out [4]float32
				k.DotRows(a, a, 0, out[:])
				if out[0] != out[3] || math.IsNaN(float64(out[0])) {
					t.Fatalf("%s/DotRows/%s n=%d: stride-0 rows differ: %v", k.Name, f.name, n, out)
				}
			}
		}
	}
}
