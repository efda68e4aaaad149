package exercise

import (
	"fmt"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/quantizers"
)

// The exercises of notebook 11 (Lucene's quantization): how many bytes an
// optimized-scalar code takes, how many candidates int4 must rescore, and
// what the int4 correction term saves in reads.

// osqByBits names the catalogue's OSQ quantizer of each bit count
// CodeBytes checks.
var osqByBits = map[int]string{1: "bbq", 2: "osq2", 4: "osq4"}

// CodeBytes asks for the bytes of one vector's OSQ code (the lab's bbq,
// osq2, osq4) as a func of the dimension and the bits per dimension. The
// check trains each quantizer of the catalogue (lab/quantizers) at several
// dimensions and reads its CodeSize.
func CodeBytes() *Exercise {
	return &Exercise{
		Name: "CodeBytes",
		Question: "write codeBytes := func(dim, bits int) int: the bytes of one vector's optimized-scalar code at bits = 1 " +
			"(bbq), 2 (osq2) or 4 (osq4) per dimension, as the engine stores it (q.CodeSize() of quantizers.Train's quantizer).",
		hint: "dim·bits/8 is the bits alone. Train a quantizer at a dimension that is a multiple of 64 and at one that is " +
			"not, and compare: how are the bits stored, and what does every code carry whatever its dimension?",
		solution: `codeBytes := func(dim, bits int) int {
	words := (dim + 63) / 64 // each bit plane is whole 64-bit words
	return bits*words*8 + 14 // plus the per-vector corrections (3 float32 and a uint16)
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func(int, int) int)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(dim, bits int) int, got %T", answer)
			}
			checked := 0
			for _, dim := range []int{16, 100, 384, 768, 1000} {
				ds, err := dataset.Generate(dataset.Config{N: 300, Queries: 1, Dim: dim, Clusters: 4, Seed: 2})
				if err != nil {
					return false, "", err
				}
				for _, bits := range []int{1, 2, 4} {
					q, err := quantizers.Train(osqByBits[bits], ds.Base, engine.Cosine, 2)
					if err != nil {
						return false, "", err
					}
					if got := f(dim, bits); got != q.CodeSize() {
						return false, fmt.Sprintf("dim = %d, bits = %d (%s): you say %d B, the engine's code is %d B",
							dim, bits, osqByBits[bits], got, q.CodeSize()), nil
					}
					checked++
				}
			}
			return true, fmt.Sprintf("your sizes are the engine's codes in all %d cases (dim 16 to 1,000; 1, 2, 4 bits)", checked), nil
		},
		right: func() (any, error) {
			return func(dim, bits int) int { return bits*((dim+63)/64)*8 + 14 }, nil
		},
		wrong: func(dim, bits int) int { return (dim*bits+7)/8 + 14 }, // packed in bytes, not words
	}
}

// lucene99 is the recall@k notebook 11's frontier asks for.
const lucene99 = 0.99

// rankings trains the named quantizers on env's data and ranks the data
// set by their codes (experiment.RankCodes) once, for any oversample up to
// 100.
func rankings(env *experiment.Env, names ...string) func(name string) (*experiment.CodeRanking, error) {
	var (
		once sync.Once
		rs   map[string]*experiment.CodeRanking
		err  error
	)
	return func(name string) (*experiment.CodeRanking, error) {
		once.Do(func() {
			if env == nil {
				err = fmt.Errorf("the exercise needs the notebook's environment (env): %w", ErrBadArgument)
				return
			}
			rs = map[string]*experiment.CodeRanking{}
			for _, n := range names {
				q, e := experiment.TrainQuantizer(env, n)
				if e != nil {
					err = e
					return
				}
				if rs[n], e = experiment.RankCodes(env, q, 100); e != nil {
					err = e
					return
				}
			}
		})
		if err != nil {
			return nil, err
		}
		return rs[name], nil
	}
}

// smallestO is the smallest whole oversample at which cr reaches target.
func smallestO(cr *experiment.CodeRanking, target float64) (int, error) {
	for o := 1; o <= 100; o++ {
		r, err := cr.Recall(float64(o))
		if err != nil {
			return 0, err
		}
		if r >= target {
			return o, nil
		}
	}
	return 0, fmt.Errorf("no oversample up to 100 reaches %.2f", target)
}

// Int4Oversample asks for the smallest whole oversample at which int4
// codes, rescored, reach recall@k 0.99 on the notebook's data. The check
// trains int4 (experiment.TrainQuantizer), ranks the data set by its codes
// and re-ranks the answer's candidates and one oversample fewer.
func Int4Oversample(env *experiment.Env) *Exercise {
	rank := rankings(env, "int4")
	return smallest(smallestSpec{
		name: "Int4Oversample",
		question: fmt.Sprintf("for int4 (Lucene's 4-bit codes with their correction term), what is the smallest whole oversample o "+
			"(1, 2, 3, …) at which recall@k after rescoring ⌈o·k⌉ candidates reaches %.2f on this notebook's data? Assign it to int4O.", lucene99),
		hint: "the E23 table measured only a few oversamples; rank the data set by int4's codes once (experiment.RankCodes) " +
			"and re-rank any whole oversample from it, recall only grows with o.",
		solution: fmt.Sprintf(`q4, err := experiment.TrainQuantizer(env, "int4")
check(err)
ranked4, err := experiment.RankCodes(env, q4, 100) // every query's 100·k nearest by int4 code
check(err)
int4O := 0
for o := 1; int4O == 0; o++ {
	r, err := ranked4.Recall(float64(o)) // re-rank ⌈o·k⌉ of them with the float32 vectors
	check(err)
	if r >= %.2f {
		int4O = o
	}
}`, lucene99),
		what: "oversample", lo: 1, hi: 100,
		reaches: func(o int) (bool, string, error) {
			cr, err := rank("int4")
			if err != nil {
				return false, "", err
			}
			r, err := cr.Recall(float64(o))
			return r >= lucene99, fmt.Sprintf("rescoring gives recall %.4f", r), err
		},
		wrong: 5, // the table's ×5: enough, not the least
	})
}

// CorrectionReads asks how many more float32 vectors per query int4
// without its correction term must rescore than int4 with it, each at its
// smallest whole oversample reaching recall@k 0.99. The check finds both
// oversamples on the notebook's data (experiment.RankCodes) and compares
// the difference of their ⌈o·k⌉.
func CorrectionReads(env *experiment.Env) *Exercise {
	rank := rankings(env, "int4", "int4-nocorr")
	reads := func() (with, without, ow, on int, err error) {
		var cw, cn *experiment.CodeRanking
		if cw, err = rank("int4"); err != nil {
			return
		}
		if cn, err = rank("int4-nocorr"); err != nil {
			return
		}
		if ow, err = smallestO(cw, lucene99); err != nil {
			return
		}
		if on, err = smallestO(cn, lucene99); err != nil {
			return
		}
		return engine.RescoreDepth(cw.K, float64(ow)), engine.RescoreDepth(cn.K, float64(on)), ow, on, nil
	}
	return &Exercise{
		Name: "CorrectionReads",
		Question: fmt.Sprintf("how many more float32 vectors per query must int4-nocorr rescore than int4 to reach recall@k %.2f, "+
			"each at its smallest whole oversample? Assign the difference to extraReads.", lucene99),
		hint: "the correction term costs no bytes here (both codes are the same size); what it buys shows as candidates: " +
			"find each code's smallest whole oversample, then turn each into the vectors it reads (engine.RescoreDepth).",
		solution: fmt.Sprintf(`smallestOf := func(name string) int {
	q, err := experiment.TrainQuantizer(env, name)
	check(err)
	ranked, err := experiment.RankCodes(env, q, 100)
	check(err)
	for o := 1; ; o++ {
		r, err := ranked.Recall(float64(o))
		check(err)
		if r >= %.2f {
			return o
		}
	}
}
extraReads := engine.RescoreDepth(scale.K, float64(smallestOf("int4-nocorr"))) - engine.RescoreDepth(scale.K, float64(smallestOf("int4")))`, lucene99),
		check: func(answer any) (bool, string, error) {
			n, err := asInt(answer)
			if err != nil {
				return false, "", err
			}
			with, without, ow, on, err := reads()
			if err != nil {
				return false, "", err
			}
			if n != without-with {
				return false, fmt.Sprintf("you say %d more; the lab measured something else for int4 and int4-nocorr (the check recomputes both oversamples)", n), nil
			}
			return true, fmt.Sprintf("int4 reaches %.2f at ×%d (%d reads), int4-nocorr at ×%d (%d reads): %d more", lucene99, ow, with, on, without, n), nil
		},
		right: func() (any, error) {
			with, without, _, _, err := reads()
			return without - with, err
		},
		wrong: 0, // "the same size, so the same reads"
	}
}
