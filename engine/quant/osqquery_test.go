package quant

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestQueryEncoder checks QueryEncoder's codes against their definition —
// the grid interval around the quantizer's centroid (refined when iters >
// 0), codes of each component in range, their stored sum, the exact
// additional correction — by decoding them; that its estimates track the
// dequantized inner product as EncodeQuery's do; that refining never
// raises the anisotropic loss; and that the same query gives the same
// bytes.
func TestQueryEncoder(t *testing.T) {
	data := clustered(200, 100, 4, 5) // 100 dims: a partial last word
	for _, metric := range metrics {
		for _, cfg := range []OSQConfig{{Bits: 1}, {Bits: 2}, {Bits: 4}, {Bits: 1, QueryBits: 1}, {Bits: 2, QueryBits: 2}, {Bits: 7}, {Bits: 8, QueryBits: 8}} {
			o, err := NewOSQ(data.Row(7), metric, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg = o.Config()
			for _, iters := range []int{0, 1, 5} {
				e, err := NewQueryEncoder(o.Dim(), iters)
				if err != nil {
					t.Fatal(err)
				}
				qc, again, dc := make([]byte, o.QueryCodeSize()), make([]byte, o.QueryCodeSize()), make([]byte, o.CodeSize())
				for i := 0; i < 20; i++ {
					x, y := data.Row(i), data.Row(199-i)
					if err := e.Reset(y); err != nil {
						t.Fatal(err)
					}
					if err := e.Encode(qc, o); err != nil {
						t.Fatal(err)
					}
					_ = e.Encode(again, o)
					if !bytes.Equal(qc, again) {
						t.Fatal("two encodings of one query differ")
					}
					// Decode (dequant checks the codes' range and Σq).
					dy := o.dequant(qc, o.qCode, 4, cfg.QueryBits)
					lower, upper, addY, _ := factors(qc, o.qCode, 4)
					yc := make([]float32, len(y))
					var mean, sq, lo, hi, cdot float64
					lo, hi = math.Inf(1), math.Inf(-1)
					for j := range y {
						yc[j] = y[j] - o.centroid[j]
						v := float64(yc[j])
						mean += v
						sq += v * v
						lo, hi = min(lo, v), max(hi, v)
						cdot += float64(y[j]) * float64(o.centroid[j])
					}
					mean /= float64(len(y))
					std := math.Sqrt(sq/float64(len(y)) - mean*mean)
					g := minimumMSEGrid[cfg.QueryBits-1]
					a0 := min(max(g[0]*std+mean, lo), hi)
					b0 := min(max(g[1]*std+mean, lo), hi)
					levels := float64(int(1)<<cfg.QueryBits - 1)
					if iters == 0 {
						if math.Abs(float64(lower)-a0) > 1e-6 || math.Abs(float64(upper)-b0) > 1e-6 {
							t.Fatalf("%v %v: interval [%v, %v], grid [%v, %v]", metric, cfg, lower, upper, a0, b0)
						}
					} else if l, l0 := anisotropicLoss(yc, float64(lower), float64(upper), sq, levels, cfg.Lambda),
						anisotropicLoss(yc, a0, b0, sq, levels, cfg.Lambda); l > l0*(1+1e-6) {
						t.Fatalf("%v %v iters %d: refined loss %v above the grid's %v", metric, cfg, iters, l, l0)
					}
					// Every component is the nearest grid point of its clamped value.
					step := (float64(upper) - float64(lower)) / levels
					for j, v := range dy {
						c := min(max(float64(yc[j]), float64(lower)), float64(upper))
						if math.Abs(v-c) > step/2+1e-5 {
							t.Fatalf("component %d: decoded %v, clamped value %v, step %v", j, v, c, step)
						}
					}
					wantAdd := cdot
					if metric == engine.L2 {
						wantAdd = sq
					}
					if math.Abs(float64(addY)-wantAdd) > 1e-4 {
						t.Fatalf("additional correction %v, want %v", addY, wantAdd)
					}
					// The estimate is the dequantized arithmetic.
					_ = o.Encode(dc, x)
					dx := o.dequant(dc, o.docCode, o.docSum, cfg.Bits)
					_, _, addX, _ := factors(dc, o.docCode, o.docSum)
					var ip float64
					for j := range dx {
						ip += dx[j] * dy[j]
					}
					var want float64
					switch metric {
					case engine.L2:
						want = float64(addX) + float64(addY) - 2*ip
					case engine.Dot:
						want = -(ip + float64(addX) + float64(addY) - float64(o.cc))
					default:
						want = 1 - (ip + float64(addX) + float64(addY) - float64(o.cc))
					}
					if got := float64(o.Distance(qc, dc)); math.Abs(got-want) > 1e-3*(1+math.Abs(want)) {
						t.Fatalf("%v %v: estimate %v, from dequantized codes %v", metric, cfg, got, want)
					}
				}
			}
		}
	}
}

// TestQueryEncoderErrors checks every misuse is an error naming it.
func TestQueryEncoderErrors(t *testing.T) {
	if _, err := NewQueryEncoder(0, 0); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("dim 0: %v", err)
	}
	for _, it := range []int{-1, 101} {
		if _, err := NewQueryEncoder(8, it); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Fatalf("iters %d: %v", it, err)
		}
	}
	o, _ := NewOSQ(make([]float32, 8), engine.L2, OSQConfig{Bits: 2})
	e, _ := NewQueryEncoder(8, 0)
	qc := make([]byte, o.QueryCodeSize())
	if err := e.Encode(qc, o); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("Encode before Reset: %v", err)
	}
	if err := e.Reset(make([]float32, 7)); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("short query: %v", err)
	}
	bad := make([]float32, 8)
	bad[3] = float32(math.NaN())
	if err := e.Reset(bad); !errors.Is(err, engine.ErrInvalidVector) {
		t.Fatalf("NaN query: %v", err)
	}
	if err := e.Encode(qc, o); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("Encode after a refused Reset: %v", err)
	}
	_ = e.Reset(make([]float32, 8))
	if err := e.Encode(qc[:len(qc)-1], o); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Fatalf("short code buffer: %v", err)
	}
	o9, _ := NewOSQ(make([]float32, 9), engine.L2, OSQConfig{Bits: 2})
	if err := e.Encode(make([]byte, o9.QueryCodeSize()), o9); !errors.Is(err, engine.ErrDimension) {
		t.Fatalf("quantizer of another dimension: %v", err)
	}
	if !raceEnabled {
		if n := testing.AllocsPerRun(20, func() { _ = e.Encode(qc, o) }); n != 0 {
			t.Fatalf("Encode allocates %v times", n)
		}
	}
}

// TestDistances checks the slab scorer gives exactly Distance for every
// code, for every code layout and metric, across a block boundary, and
// refuses a slab shorter than its codes.
func TestDistances(t *testing.T) {
	data := clustered(150, 100, 4, 6)
	for _, metric := range metrics {
		for _, cfg := range []OSQConfig{{Bits: 1}, {Bits: 2}, {Bits: 4}, {Bits: 1, QueryBits: 1}, {Bits: 2, QueryBits: 2}, {Bits: 3, QueryBits: 4}, {Bits: 8, QueryBits: 8}} {
			o, err := TrainOSQ(data, metric, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cs := o.CodeSize()
			codes := make([]byte, data.N*cs)
			for i := 0; i < data.N; i++ {
				_ = o.Encode(codes[i*cs:], data.Row(i))
			}
			qc := make([]byte, o.QueryCodeSize())
			_ = o.EncodeQuery(qc, data.Row(3))
			bq, _ := o.Bind(qc)
			got := make([]float32, data.N)
			if err := bq.Distances(got, codes); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if want := o.Distance(qc, codes[i*cs:(i+1)*cs]); got[i] != want {
					t.Fatalf("%v %v code %d: Distances %v, Distance %v", metric, o.Config(), i, got[i], want)
				}
			}
			if err := bq.Distances(got, codes[:len(codes)-1]); !errors.Is(err, engine.ErrInvalidArgument) {
				t.Fatalf("short slab: %v", err)
			}
		}
	}
}
