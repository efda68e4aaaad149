package quant

import (
	"errors"
	"math"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestOSQDecode checks that Decode returns the vector the code stands
// for: the symmetric L2 estimate of two codes is exactly
// ‖x−c‖² + ‖y−c‖² − 2⟨x̂−c, ŷ−c⟩ of the decoded vectors, each decoded
// component sits on the vector's 2^B-point grid, and the reconstruction
// error falls as the bits grow.
func TestOSQDecode(t *testing.T) {
	data := clustered(200, 70, 4, 3) // 70 dims: two 64-bit words, a partial one
	prev := math.Inf(1)
	for _, bits := range []int{1, 2, 4, 8} {
		o, err := TrainOSQ(data, engine.L2, OSQConfig{Bits: bits, QueryBits: bits, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		c := o.Centroid()
		codes := make([][]byte, 20)
		dec := make([][]float32, 20)
		var mse float64
		for i := range codes {
			codes[i] = make([]byte, o.CodeSize())
			dec[i] = make([]float32, o.Dim())
			if err := o.Encode(codes[i], data.Row(i)); err != nil {
				t.Fatal(err)
			}
			if err := o.Decode(dec[i], codes[i]); err != nil {
				t.Fatal(err)
			}
			levels := map[float32]bool{}
			for j, v := range dec[i] {
				levels[v-c[j]] = true
				e := float64(v - data.Row(i)[j])
				mse += e * e
			}
			// Distinct grid values, allowing for float rounding of c + a + Δq − c.
			if n := len(rounded(levels)); n > 1<<bits {
				t.Fatalf("%d bits: vector %d decodes to %d distinct levels", bits, i, n)
			}
		}
		mse /= float64(len(codes) * o.Dim())
		if mse >= prev {
			t.Fatalf("%d bits: reconstruction MSE %g is not below the fewer bits' %g", bits, mse, prev)
		}
		prev = mse
		for i := 1; i < len(codes); i++ {
			var nx, ny, ip float64
			for j := range c {
				x := float64(data.Row(0)[j] - c[j])
				y := float64(data.Row(i)[j] - c[j])
				nx += x * x
				ny += y * y
				ip += float64(dec[0][j]-c[j]) * float64(dec[i][j]-c[j])
			}
			want := nx + ny - 2*ip
			if got := float64(o.CodeDistance(codes[0], codes[i])); math.Abs(got-want) > 1e-3*math.Max(1, math.Abs(want)) {
				t.Fatalf("%d bits: code distance %g, from the decoded vectors %g", bits, got, want)
			}
		}
	}
	o, _ := TrainOSQ(data, engine.L2, OSQConfig{Bits: 2})
	if err := o.Decode(make([]float32, 3), make([]byte, o.CodeSize())); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("short buffer: %v", err)
	}
	if err := o.Decode(make([]float32, o.Dim()), make([]byte, 3)); err == nil {
		t.Fatal("short code accepted")
	}
}

func rounded(m map[float32]bool) map[float32]bool {
	out := map[float32]bool{}
	for v := range m {
		out[float32(math.Round(float64(v)*1e4)/1e4)] = true
	}
	return out
}
