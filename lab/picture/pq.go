package picture

import (
	"fmt"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
)

// PQInPlane draws what product quantization (engine/quant.TrainPQ, squared
// L2) with m sub-spaces of 2^bits centroids each does to points of the
// plane (notebook 00e): every code the quantizer can write, decoded (dots),
// and each point (grey) joined to its own code's reconstruction. With m = 1
// the one codebook is plain k-means: 2^bits points anywhere in the plane.
// With m = 2 each axis has its own codebook of 2^bits values and a code
// picks one of each, so the reconstructions form a 2^bits × 2^bits grid
// from 2·2^bits learnt numbers. It returns the quantizer and its mean
// relative squared error over the points (ReconstructionError's measure).
func PQInPlane(points *vec.Matrix, m, bits int, seed uint64) (*chart.Scatter, *quant.PQ, float64, error) {
	if points == nil || points.N == 0 || points.Dim != 2 {
		return nil, nil, 0, fmt.Errorf("picture: PQInPlane needs points of the plane: %w", ErrBadArgument)
	}
	if m != 1 && m != 2 || bits < 1 || bits > 6 {
		return nil, nil, 0, fmt.Errorf("picture: PQInPlane draws m = 1 or 2 sub-spaces of 2 to 64 centroids, not m = %d, %d bits: %w", m, bits, ErrBadArgument)
	}
	q, err := quant.TrainPQ(points, engine.L2, quant.PQConfig{M: m, Bits: bits, Seed: seed, Workers: 1})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("picture: %w", err)
	}
	codes, err := AllCodes(q)
	if err != nil {
		return nil, nil, 0, err
	}
	gx, gy := make([]float64, len(codes)), make([]float64, len(codes))
	for i, d := range codes {
		gx[i], gy[i] = float64(d[0]), float64(d[1])
	}
	x, y := make([]float64, points.N), make([]float64, points.N)
	dx, dy := make([]float64, points.N), make([]float64, points.N)
	for i := 0; i < points.N; i++ {
		v := points.Row(i)
		d, err := Reconstruct(q, v)
		if err != nil {
			return nil, nil, 0, err
		}
		x[i], y[i], dx[i], dy[i] = float64(v[0]), float64(v[1]), float64(d[0]), float64(d[1])
	}
	e, err := ReconstructionError(q, points, points.N)
	if err != nil {
		return nil, nil, 0, err
	}
	title := fmt.Sprintf("k-means, %d centroids: error %.3f", len(codes), e)
	if m == 2 {
		title = fmt.Sprintf("PQ, 2 × %d values: %d codes, error %.3f", 1<<bits, len(codes), e)
	}
	s := square(title)
	s.Add("points", chart.Background, x, y)
	s.AddSegments("point → its reconstruction", x, y, dx, dy)
	s.Add("every code, decoded", chart.Dots, gx, gy)
	return s, q, e, nil
}

// AllCodes decodes every code a product quantizer can write, 2^(M·Bits)
// of them, in code order; it refuses more than 65,536 (a picture's worth).
func AllCodes(q *quant.PQ) ([][]float32, error) {
	if q == nil {
		return nil, fmt.Errorf("picture: AllCodes: nil quantizer: %w", ErrBadArgument)
	}
	bits := q.Config().WithDefaults().Bits
	if q.M()*bits > 16 {
		return nil, fmt.Errorf("picture: AllCodes: 2^%d codes are too many to list: %w", q.M()*bits, ErrBadArgument)
	}
	k := q.Centroids()
	total := 1
	for range q.M() {
		total *= k
	}
	out := make([][]float32, 0, total)
	code := make([]byte, q.CodeSize())
	for n := 0; n < total; n++ {
		r := n
		for j := q.M() - 1; j >= 0; j-- {
			code[j] = byte(r % k)
			r /= k
		}
		d := make([]float32, q.Dim())
		if err := q.Decode(d, code); err != nil {
			return nil, fmt.Errorf("picture: %w", err)
		}
		out = append(out, d)
	}
	return out, nil
}
