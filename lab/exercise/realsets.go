package exercise

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/veclab/veclab/lab/experiment"
)

// The exercises of notebook 14 (real embeddings): how far the 1-bit code
// must rescore on GloVe, on which data set Lucene's int4 correction term
// matters most, and on how many sets 1-bit codes hold up at Elasticsearch's
// default oversample. Each check trains the quantizers on the notebook's
// own sets (experiment.TrainQuantizer) and ranks them by their codes
// (experiment.RankCodes), so an answer is right for the sets, scale and
// seed the notebook opened.

// setRankings trains quantizer on each of sets' data sets and ranks it by
// its codes (up to maxOversample), once per set, on first use.
func setRankings(sets *experiment.RealSets, quantizer string, maxOversample float64) func(name string) (*experiment.CodeRanking, error) {
	var mu sync.Mutex
	done := map[string]*experiment.CodeRanking{}
	return func(name string) (*experiment.CodeRanking, error) {
		if sets == nil || len(sets.Names) == 0 {
			return nil, fmt.Errorf("the exercise needs the notebook's data sets (sets): %w", ErrBadArgument)
		}
		env, ok := sets.Envs[name]
		if !ok {
			return nil, fmt.Errorf("%q is not one of this notebook's data sets (%s): %w", name, strings.Join(sets.Names, ", "), ErrBadArgument)
		}
		mu.Lock()
		defer mu.Unlock()
		if cr, ok := done[name]; ok {
			return cr, nil
		}
		q, err := experiment.TrainQuantizer(env, quantizer)
		if err != nil {
			return nil, err
		}
		cr, err := experiment.RankCodes(env, q, maxOversample)
		if err != nil {
			return nil, err
		}
		done[name] = cr
		return cr, nil
	}
}

// gloveSet is the name of the GloVe set among sets (glove-100k, or the
// compiled-in glove-3k), or "".
func gloveSet(sets *experiment.RealSets) string {
	if sets == nil {
		return ""
	}
	for _, n := range sets.Names {
		if strings.HasPrefix(n, "glove") {
			return n
		}
	}
	return ""
}

// asSetName reads an answer naming one of the notebook's data sets.
func asSetName(answer any, sets *experiment.RealSets) (string, error) {
	if sets == nil || len(sets.Names) == 0 {
		return "", fmt.Errorf("the exercise needs the notebook's data sets (sets): %w", ErrBadArgument)
	}
	s, ok := answer.(string)
	if !ok {
		return "", fmt.Errorf("the answer should be a data set's name, a string such as %q, got %v (%T)", sets.Names[0], answer, answer)
	}
	if !slices.Contains(sets.Names, s) {
		return "", fmt.Errorf("%q is not one of this notebook's data sets: %s", s, strings.Join(sets.Names, ", "))
	}
	return s, nil
}

// gloveTarget is the recall@k GloveBBQOversample asks the 1-bit code for.
const gloveTarget = 0.90

// GloveBBQOversample asks for the smallest whole oversample at which bbq
// (1-bit documents × 4-bit query), rescored, reaches recall@k 0.90 on the
// notebook's GloVe set. The check trains bbq on that set, ranks it by its
// codes and re-ranks the answer's candidates and one oversample fewer's.
func GloveBBQOversample(sets *experiment.RealSets) *Exercise {
	rank := setRankings(sets, "bbq", 100)
	return smallest(smallestSpec{
		name: "GloveBBQOversample",
		question: fmt.Sprintf("on this notebook's GloVe set (the name in sets.Names that starts with \"glove\"), what is the smallest "+
			"whole oversample o (1, 2, 3, …) at which bbq, rescoring ⌈o·k⌉ candidates, reaches recall@k %.2f? Assign it to gloveO.", gloveTarget),
		hint: "the E24 table stops at ×10 and Elasticsearch's default is ×3; rank the GloVe set by bbq's codes once " +
			"(experiment.TrainQuantizer, experiment.RankCodes on envs[name]) and re-rank whole oversamples from 1 up: recall only grows with o.",
		solution: fmt.Sprintf(`glove := used[1] // the GloVe set: OpenRealSets opens it second, after the generated one
qb, err := experiment.TrainQuantizer(envs[glove], "bbq")
check(err)
rankedBBQ, err := experiment.RankCodes(envs[glove], qb, 100) // every query's 100·k nearest by bbq code
check(err)
gloveO := 0
for o := 1; gloveO == 0; o++ {
	r, err := rankedBBQ.Recall(float64(o)) // re-rank ⌈o·k⌉ of them with the float32 vectors
	check(err)
	if r >= %.2f {
		gloveO = o
	}
}`, gloveTarget),
		what: "oversample", lo: 1, hi: 100,
		reaches: func(o int) (bool, string, error) {
			g := gloveSet(sets)
			if g == "" {
				return false, "", fmt.Errorf("the exercise needs the notebook's data sets with a GloVe set (sets): %w", ErrBadArgument)
			}
			cr, err := rank(g)
			if err != nil {
				return false, "", err
			}
			r, err := cr.Recall(float64(o))
			return r >= gloveTarget, fmt.Sprintf("bbq rescored reaches recall %.4f on %s", r, g), err
		},
		wrong: 3, // Elasticsearch's default oversample for bbq
	})
}

// CorrectionMatters asks on which of the notebook's data sets dropping
// int4's correction term costs the most recall@k, codes alone (no
// rescoring). The check trains int4 and int4-nocorr on every set, ranks
// each by its codes and compares the losses; any set tied for the largest
// is right.
func CorrectionMatters(sets *experiment.RealSets) *Exercise {
	with, without := setRankings(sets, "int4", 1), setRankings(sets, "int4-nocorr", 1)
	loss := func(name string) (float64, error) {
		a, err := with(name)
		if err != nil {
			return 0, err
		}
		b, err := without(name)
		if err != nil {
			return 0, err
		}
		return a.RecallNone() - b.RecallNone(), nil
	}
	largest := func() (string, float64, error) {
		best, bl := "", 0.0
		for _, n := range sets.Names {
			l, err := loss(n)
			if err != nil {
				return "", 0, err
			}
			if best == "" || l > bl {
				best, bl = n, l
			}
		}
		return best, bl, nil
	}
	return &Exercise{
		Name: "CorrectionMatters",
		Question: "on which of this notebook's data sets does dropping int4's correction term (int4 against int4-nocorr) cost " +
			"the most recall@k, codes alone, no rescoring? Assign the set's name (as in sets.Names) to mostHurt.",
		hint: "the two codes are the same size and differ by the correction alone, so the loss is recall(int4) − " +
			"recall(int4-nocorr) at oversample 1; read it for every set, not only the synthetic one: the correction repairs " +
			"rounding error, and how much there is depends on how the data's components spread.",
		solution: `mostHurt, most := "", -1.0
for _, name := range used {
	recallOf := func(quantizer string) float64 {
		q, err := experiment.TrainQuantizer(envs[name], quantizer)
		check(err)
		ranked, err := experiment.RankCodes(envs[name], q, 1) // each query's k nearest by code
		check(err)
		return ranked.RecallNone()
	}
	if loss := recallOf("int4") - recallOf("int4-nocorr"); loss > most {
		mostHurt, most = name, loss
	}
}`,
		check: func(answer any) (bool, string, error) {
			name, err := asSetName(answer, sets)
			if err != nil {
				return false, "", err
			}
			l, err := loss(name)
			if err != nil {
				return false, "", err
			}
			_, bl, err := largest()
			if err != nil {
				return false, "", err
			}
			if l < bl {
				return false, fmt.Sprintf("on %s dropping the correction costs %.4f recall@k; the lab measured a larger loss on another set", name, l), nil
			}
			return true, fmt.Sprintf("on %s dropping the correction costs %.4f recall@k, the most of the %d sets", name, l, len(sets.Names)), nil
		},
		right: func() (any, error) {
			if sets == nil || len(sets.Names) == 0 {
				return nil, fmt.Errorf("no data sets: %w", ErrBadArgument)
			}
			best, _, err := largest()
			return best, err
		},
		wrong: "generated", // the articles' synthetic clusters, where the correction is worth little
	}
}

// esDefaultOversample is Elasticsearch's default oversample for bbq, and
// bbqHolds the recall@k BBQAtDefault counts the sets reaching.
const (
	esDefaultOversample = 3
	bbqHolds            = 0.90
)

// BBQAtDefault asks on how many of the notebook's data sets bbq, rescored
// at Elasticsearch's default oversample ×3, reaches recall@k 0.90. The
// check ranks every set by bbq's codes and re-ranks ⌈3·k⌉ candidates.
func BBQAtDefault(sets *experiment.RealSets) *Exercise {
	rank := setRankings(sets, "bbq", esDefaultOversample)
	count := func() (int, []string, error) {
		if sets == nil || len(sets.Names) == 0 {
			return 0, nil, fmt.Errorf("the exercise needs the notebook's data sets (sets): %w", ErrBadArgument)
		}
		n := 0
		var at []string
		for _, name := range sets.Names {
			cr, err := rank(name)
			if err != nil {
				return 0, nil, err
			}
			r, err := cr.Recall(esDefaultOversample)
			if err != nil {
				return 0, nil, err
			}
			if r >= bbqHolds {
				n++
			}
			at = append(at, fmt.Sprintf("%s %.3f", name, r))
		}
		return n, at, nil
	}
	return &Exercise{
		Name: "BBQAtDefault",
		Question: fmt.Sprintf("on how many of this notebook's data sets does bbq, rescoring ⌈%d·k⌉ candidates (Elasticsearch's "+
			"default oversample), reach recall@k %.2f? Assign the count to holdSets.", esDefaultOversample, bbqHolds),
		hint: "the E24 table reads bbq at each oversample per set, but a count should come from a measurement you run: " +
			"rank each set in used by bbq's codes (experiment.RankCodes on envs[name]) and re-rank ×3 — and count every set, " +
			"the synthetic one too.",
		solution: fmt.Sprintf(`holdSets := 0
for _, name := range used {
	qb, err := experiment.TrainQuantizer(envs[name], "bbq")
	check(err)
	ranked, err := experiment.RankCodes(envs[name], qb, %d)
	check(err)
	r, err := ranked.Recall(%d) // ⌈%d·k⌉ candidates rescored with the float32 vectors
	check(err)
	if r >= %.2f {
		holdSets++
	}
}`, esDefaultOversample, esDefaultOversample, esDefaultOversample, bbqHolds),
		check: func(answer any) (bool, string, error) {
			n, err := asInt(answer)
			if err != nil {
				return false, "", err
			}
			want, at, err := count()
			if err != nil {
				return false, "", err
			}
			if n < 0 || n > len(sets.Names) {
				return false, fmt.Sprintf("%d: the notebook has %d data sets", n, len(sets.Names)), nil
			}
			if n != want {
				return false, fmt.Sprintf("you say %d of %d sets; the lab's count at ×%d is another", n, len(sets.Names), esDefaultOversample), nil
			}
			return true, fmt.Sprintf("%d of %d sets reach %.2f at ×%d (%s)", n, len(sets.Names), bbqHolds, esDefaultOversample, strings.Join(at, ", ")), nil
		},
		right: func() (any, error) {
			n, _, err := count()
			return n, err
		},
		wrong: 0, // "1-bit codes never hold up on real data": not what the lab measures
	}
}
