package exercise

import (
	"fmt"
	"math"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/picture"
)

// ScalarCode asks for scalar quantization of one component as a func,
// checked against engine/quant's scalar quantizer (int8's 7 bits and
// int4's 4) trained on points of the plane: the learner's code, decoded as
// the engine decodes, must be the engine's grid point for every component.
func ScalarCode() *Exercise {
	return &Exercise{
		Name: "ScalarCode",
		Question: "write code := func(v, lo, hi float32, bits int) int: the scalar code of one component v for a " +
			"quantizer with bounds [lo, hi] and 2^bits grid points from lo to hi (int8 keeps 7 bits, int4 4).",
		hint: "the grid has 2^bits points spaced evenly from lo to hi, and a code names the grid point nearest to v; " +
			"a component outside the bounds still gets a code: look at the components beyond lo or hi, and at the ones " +
			"between two grid points.",
		solution: `code := func(v, lo, hi float32, bits int) int {
	steps := float32(int(1)<<bits - 1)
	alpha := (hi - lo) / steps
	if v < lo { // clamp to the bounds
		v = lo
	}
	if v > hi {
		v = hi
	}
	return int(math.Round(float64((v - lo) / alpha)))
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func(float32, float32, float32, int) int)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(v, lo, hi float32, bits int) int, got %T", answer)
			}
			points, err := dataset.Plane(400, 6, 3)
			if err != nil {
				return false, "", err
			}
			checked := 0
			for _, bits := range []int{7, 4} {
				q, err := quant.TrainScalar(points, engine.L2, quant.ScalarConfig{Bits: bits, Seed: 3})
				if err != nil {
					return false, "", err
				}
				lo, hi := q.Bounds()
				top := 1<<bits - 1
				alpha := (hi - lo) / float32(top)
				code := make([]byte, q.CodeSize())
				dec := make([]float32, q.Dim())
				for i := 0; i < points.N; i++ {
					v := points.Row(i)
					if err := q.Encode(code, v); err != nil {
						return false, "", err
					}
					if err := q.Decode(dec, code); err != nil {
						return false, "", err
					}
					for j, x := range v {
						want := int(math.Round(float64((dec[j] - lo) / alpha))) // the engine's grid point
						if near := float64((x-lo)/alpha) - math.Floor(float64((x-lo)/alpha)); math.Abs(near-0.5) < 1e-3 && x > lo && x < hi {
							continue // a tie between two grid points: float32 rounding decides, not the idea
						}
						got := f(x, lo, hi, bits)
						if got != want {
							return false, fmt.Sprintf("v = %.4f with bounds [%.4f, %.4f] at %d bits: your code is %d, the engine's %d (%d grid points)",
								x, lo, hi, bits, got, want, top+1), nil
						}
						checked++
					}
				}
			}
			return true, fmt.Sprintf("your codes are the engine's for all %d components (int8's 7 bits and int4's 4)", checked), nil
		},
		right: func() (any, error) {
			return func(v, lo, hi float32, bits int) int {
				steps := float32(int(1)<<bits - 1)
				alpha := (hi - lo) / steps
				v = min(max(v, lo), hi)
				return int(math.Round(float64((v - lo) / alpha)))
			}, nil
		},
		// Truncation: the grid point below v, not the nearest.
		wrong: func(v, lo, hi float32, bits int) int {
			steps := float32(int(1)<<bits - 1)
			alpha := (hi - lo) / steps
			v = min(max(v, lo), hi)
			return int((v - lo) / alpha)
		},
	}
}

// RelativeError asks for the relative squared error of one reconstruction
// as a func, checked against lab/picture.ReconstructionError (the figure
// notebook 00b prints) for engine/quant's int8, int4 and 1-bit codes of
// points of the plane.
func RelativeError() *Exercise {
	return &Exercise{
		Name: "RelativeError",
		Question: "write relErr := func(x, xhat []float32) float64: the relative error of one vector's reconstruction " +
			"xhat (decoded from its code), the figure whose mean over 1,000 vectors the error chart shows.",
		hint: "the relative error compares two squared lengths: of what the code lost (x − xhat) and of the vector itself.",
		solution: `relErr := func(x, xhat []float32) float64 {
	var lost, size float64
	for i := range x {
		d := float64(x[i] - xhat[i])
		lost += d * d
		size += float64(x[i]) * float64(x[i])
	}
	return lost / size
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func([]float32, []float32) float64)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(x, xhat []float32) float64, got %T", answer)
			}
			points, err := dataset.Plane(300, 6, 5)
			if err != nil {
				return false, "", err
			}
			qs, names, err := planeQuantizers(points)
			if err != nil {
				return false, "", err
			}
			for i, q := range qs {
				want, err := picture.ReconstructionError(q, points, points.N)
				if err != nil {
					return false, "", err
				}
				var sum float64
				for r := 0; r < points.N; r++ {
					xhat, err := picture.Reconstruct(q, points.Row(r))
					if err != nil {
						return false, "", err
					}
					sum += f(points.Row(r), xhat)
				}
				got := sum / float64(points.N)
				if math.IsNaN(got) || math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					return false, fmt.Sprintf("%s over 300 points of the plane: your mean relative error is %.4g, the lab's %.4g", names[i], got, want), nil
				}
			}
			return true, fmt.Sprintf("your relative error agrees with lab/picture.ReconstructionError for %d codes", len(qs)), nil
		},
		right: func() (any, error) {
			return func(x, xhat []float32) float64 {
				var lost, size float64
				for i := range x {
					d := float64(x[i] - xhat[i])
					lost += d * d
					size += float64(x[i]) * float64(x[i])
				}
				return lost / size
			}, nil
		},
		// Lengths, not squared lengths.
		wrong: func(x, xhat []float32) float64 {
			var lost, size float64
			for i := range x {
				d := float64(x[i] - xhat[i])
				lost += d * d
				size += float64(x[i]) * float64(x[i])
			}
			return math.Sqrt(lost) / math.Sqrt(size)
		},
	}
}

// planeQuantizers are int8, int4 and a 1-bit OSQ trained on points.
func planeQuantizers(points *vec.Matrix) ([]quant.Quantizer, []string, error) {
	i8, err := quant.TrainScalar(points, engine.L2, quant.ScalarConfig{Bits: 7, Seed: 5})
	if err != nil {
		return nil, nil, err
	}
	i4, err := quant.TrainScalar(points, engine.L2, quant.ScalarConfig{Bits: 4, Seed: 5})
	if err != nil {
		return nil, nil, err
	}
	b1, err := quant.TrainOSQ(points, engine.L2, quant.OSQConfig{Bits: 1, Seed: 5})
	if err != nil {
		return nil, nil, err
	}
	return []quant.Quantizer{i8, i4, b1}, []string{"int8 (7 bits)", "int4", "1-bit OSQ"}, nil
}

// rescoreTarget is the recall RescoreOversample asks the 1-bit code to
// reach after rescoring.
const rescoreTarget = 0.9

// RescoreOversample asks for the smallest whole oversample at which the
// 1-bit code (the lab's bbq) reaches recall@k 0.9 after rescoring, on the
// environment's data. The check trains the code and ranks the data set by
// it (experiment.TrainQuantizer, experiment.RankCodes) once, then re-ranks
// the answer's candidates and one oversample fewer.
func RescoreOversample(env *experiment.Env) *Exercise {
	var (
		once    sync.Once
		ranking *experiment.CodeRanking
		rankErr error
	)
	rank := func() (*experiment.CodeRanking, error) {
		once.Do(func() {
			if env == nil {
				rankErr = fmt.Errorf("RescoreOversample needs the notebook's environment (env): %w", ErrBadArgument)
				return
			}
			q, err := experiment.TrainQuantizer(env, "bbq")
			if err != nil {
				rankErr = err
				return
			}
			ranking, rankErr = experiment.RankCodes(env, q, 100)
		})
		return ranking, rankErr
	}
	recallAt := func(o int) (float64, error) {
		cr, err := rank()
		if err != nil {
			return 0, err
		}
		return cr.Recall(float64(o))
	}
	return &Exercise{
		Name: "RescoreOversample",
		Question: fmt.Sprintf("for the 1-bit code (bbq), what is the smallest whole oversample o (1, 2, 3, …) at which recall@k "+
			"after rescoring ⌈o·k⌉ candidates reaches %.2f on this notebook's data? Assign it to smallestO.", rescoreTarget),
		hint: "the true-ranks cell keeps each code's ranking (rankings[3] is the 1-bit code's), and its Recall(o) re-ranks " +
			"⌈o·k⌉ candidates: recall only grows with o, so walk o up from 1.",
		solution: fmt.Sprintf(`smallestO := 0
for o := 1; o <= 100; o++ {
	r, err := rankings[3].Recall(float64(o)) // rankings[3]: the 1-bit code (picture.Codes[3] is "bbq")
	check(err)
	if r >= %.2f {
		smallestO = o
		break
	}
}`, rescoreTarget),
		check: func(answer any) (bool, string, error) {
			o, err := asInt(answer)
			if err != nil {
				return false, "", err
			}
			if o < 1 || o > 100 {
				return false, fmt.Sprintf("o = %d: an oversample here runs from 1 (the code's own top k) to 100", o), nil
			}
			at, err := recallAt(o)
			if err != nil {
				return false, "", err
			}
			if at < rescoreTarget {
				return false, fmt.Sprintf("at o = %d rescoring gives recall %.3f, below %.2f", o, at, rescoreTarget), nil
			}
			if o == 1 {
				return true, fmt.Sprintf("at o = 1 recall is already %.3f", at), nil
			}
			below, err := recallAt(o - 1)
			if err != nil {
				return false, "", err
			}
			if below >= rescoreTarget {
				return false, fmt.Sprintf("o = %d gives %.3f, but o = %d already gives %.3f: fewer candidates are enough", o, at, o-1, below), nil
			}
			return true, fmt.Sprintf("o = %d gives recall %.3f, o = %d only %.3f", o, at, o-1, below), nil
		},
		right: func() (any, error) {
			for o := 1; o <= 100; o++ {
				r, err := recallAt(o)
				if err != nil {
					return nil, err
				}
				if r >= rescoreTarget {
					return o, nil
				}
			}
			return nil, fmt.Errorf("no oversample up to 100 reaches %.2f", rescoreTarget)
		},
		wrong: 100, // reaches the target, with far more candidates than needed
	}
}
