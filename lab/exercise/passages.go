package exercise

import (
	"fmt"
	"slices"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/nested"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/measure"
)

// The exercises of notebook 09 (documents chunked into passages, E25): the
// k nearest documents from a ranking of passages, the passages the naive
// plan must ask for, and the beam the parent walk needs.

// DocsFromPassages asks for the k nearest documents, given every passage
// ranked nearest first, as a func. The check ranks the passages of a small
// chunked collection exactly (engine/flat) and compares the learner's
// documents with the engine's exact nearest parents
// (nested.Index.ExactParents) for ten queries and several k.
func DocsFromPassages() *Exercise {
	return &Exercise{
		Name: "DocsFromPassages",
		Question: "write nearestDocs := func(passages []engine.Result, parentOf []uint32, k int) []uint32: given every passage " +
			"ranked nearest first (passages[i].ID is a passage, parentOf[p] its document), the k nearest documents, nearest first.",
		hint: "a document is as near as its nearest passage, so a document's place in the answer is set by the first of " +
			"its passages in the ranking; the ones after it add nothing. How many passages must you read to have k documents?",
		solution: `nearestDocs := func(passages []engine.Result, parentOf []uint32, k int) []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	for _, p := range passages {
		d := parentOf[p.ID]
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
			if len(out) == k {
				break
			}
		}
	}
	return out
}`,
		check: func(answer any) (bool, string, error) {
			f, ok := answer.(func([]engine.Result, []uint32, int) []uint32)
			if !ok {
				return false, "", fmt.Errorf("the answer should be a func(passages []engine.Result, parentOf []uint32, k int) []uint32, got %T", answer)
			}
			ds, docs, x, err := smallPassages()
			if err != nil {
				return false, "", err
			}
			exact, err := flat.New(docs.Vectors, flat.Config{Metric: engine.Cosine})
			if err != nil {
				return false, "", err
			}
			checked := 0
			for qi := 0; qi < ds.Queries.N; qi++ {
				q := ds.Queries.Row(qi)
				ranked, _, err := exact.Query(q, engine.Request{K: docs.Len()})
				if err != nil {
					return false, "", err
				}
				for _, k := range []int{1, 5, 10, 20} {
					hits, err := x.ExactParents(q, k)
					if err != nil {
						return false, "", err
					}
					want := make([]uint32, len(hits))
					for i, h := range hits {
						want[i] = h.Parent
					}
					got := f(slices.Clone(ranked), docs.ParentOf, k)
					if !slices.Equal(got, want) {
						return false, fmt.Sprintf("query %d, k = %d: you give %v, the engine's exact nearest documents are %v", qi, k, got, want), nil
					}
					checked++
				}
			}
			return true, fmt.Sprintf("your documents are the engine's exact nearest documents in all %d cases (k = 1, 5, 10, 20)", checked), nil
		},
		right: func() (any, error) {
			return func(passages []engine.Result, parentOf []uint32, k int) []uint32 {
				seen := map[uint32]bool{}
				var out []uint32
				for _, p := range passages {
					if d := parentOf[p.ID]; !seen[d] {
						seen[d] = true
						if out = append(out, d); len(out) == k {
							break
						}
					}
				}
				return out
			}, nil
		},
		// The naive plan: the documents of the k nearest passages.
		wrong: func(passages []engine.Result, parentOf []uint32, k int) []uint32 {
			seen := map[uint32]bool{}
			var out []uint32
			for _, p := range passages[:k] {
				if d := parentOf[p.ID]; !seen[d] {
					seen[d] = true
					out = append(out, d)
				}
			}
			return out
		},
	}
}

// smallPassages is DocsFromPassages's collection: 400 documents of 16
// dimensions chunked into about 2,000 passages (2–8 each), with a graph.
func smallPassages() (*dataset.Dataset, *dataset.Passages, *nested.Index, error) {
	ds, err := dataset.Generate(dataset.Config{N: 400, Queries: 10, Dim: 16, Clusters: 8, Seed: 9})
	if err != nil {
		return nil, nil, nil, err
	}
	docs, err := dataset.ChunkPassages(ds.Base, 2000, dataset.PassageConfig{MinPassages: 2, MaxPassages: 8, Spread: 0.5, Seed: 9})
	if err != nil {
		return nil, nil, nil, err
	}
	g, err := hnsw.New(hnsw.Config{Dim: 16, Metric: engine.Cosine, M: 8, EfConstruction: 40, Seed: 9, Workers: 1})
	if err != nil {
		return nil, nil, nil, err
	}
	keys := make([]uint64, docs.Len())
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := g.AddBatch(keys, docs.Vectors); err != nil {
		return nil, nil, nil, err
	}
	x, err := nested.New(g.Vectors(), docs.ParentOf, engine.Cosine, g)
	return ds, docs, x, err
}

// naiveEf is the beam PassagesForK's naive plan searches with, the
// notebook's one-query picture's.
const naiveEf = 40

// PassagesForK asks for the smallest number of passages k′ the naive plan
// (k′ nearest passages, deduplicated afterwards) must ask for so that every
// query of the notebook gets k documents, at ef = 40. The check runs
// nested.Naive on the notebook's index at the answer and one fewer.
func PassagesForK(x *nested.Index, queries *vec.Matrix, k int) *Exercise {
	return smallest(smallestSpec{
		name: "PassagesForK",
		question: fmt.Sprintf("what is the smallest number of passages k′ the naive plan must ask for (nested.Naive{X: x, Passages: k′}, "+
			"beam ef = %d) so that every one of the notebook's queries returns %d documents? Assign it to naiveKPrime.", naiveEf, k),
		hint: "the naive plan comes back short when several of the nearest passages share a document; asking for more " +
			"passages fixes that, and the worst query decides. Count each query's documents (len of the results) as k′ grows from k.",
		solution: fmt.Sprintf(`naiveKPrime := 0
for p := %d; naiveKPrime == 0; p++ {
	all := true
	for qi := 0; qi < ds.Queries.N && all; qi++ {
		res, _, err := nested.Naive{X: x, Passages: p}.Query(ds.Queries.Row(qi), engine.Request{K: %d, Breadth: %d})
		check(err)
		all = len(res) == %d
	}
	if all {
		naiveKPrime = p
	}
}`, k, k, naiveEf, k),
		what: "k′", lo: k, hi: 100 * k,
		reaches: func(p int) (bool, string, error) {
			if x == nil || queries == nil {
				return false, "", fmt.Errorf("PassagesForK needs the notebook's nested index and queries (x, ds.Queries): %w", ErrBadArgument)
			}
			short, fewest := 0, k
			for qi := 0; qi < queries.N; qi++ {
				res, _, err := nested.Naive{X: x, Passages: p}.Query(queries.Row(qi), engine.Request{K: k, Breadth: naiveEf})
				if err != nil {
					return false, "", err
				}
				if len(res) < k {
					short++
					fewest = min(fewest, len(res))
				}
			}
			if short > 0 {
				return false, fmt.Sprintf("%d of %d queries return fewer than %d documents (the worst %d)", short, queries.N, k, fewest), nil
			}
			return true, fmt.Sprintf("every query returns %d documents", k), nil
		},
		wrong: k, // the naive plan itself: k passages
	})
}

// parentTarget is the parent recall ParentEf asks for.
const parentTarget = 0.99

// ParentEf asks for the smallest beam at which the parent walk (the
// deduplicating search) reaches parent recall@k 0.99. The check measures
// the notebook's index with measure.Index at the answer and one fewer.
func ParentEf(x *nested.Index, parents *measure.Queries) *Exercise {
	k := 0
	if parents != nil {
		k = parents.K
	}
	return smallest(smallestSpec{
		name: "ParentEf",
		question: fmt.Sprintf("what is the smallest beam ef at which the parent walk (x, measured by measure.Index(x, ef, parents)) "+
			"reaches parent recall@k %.2f? Assign it to smallestEf.", parentTarget),
		hint: "the table above measured the walk at four beams only; recall grows with the beam, so measure the beams between " +
			"the last one below the target and the first one above it.",
		solution: fmt.Sprintf(`smallestEf := 0
for ef := parents.K; smallestEf == 0; ef++ {
	r, err := measure.Index(x, ef, parents)
	check(err)
	if r.Recall >= %.2f {
		smallestEf = ef
	}
}`, parentTarget),
		what: "ef", lo: max(k, 1), hi: 2000,
		reaches: func(ef int) (bool, string, error) {
			if x == nil || parents == nil {
				return false, "", fmt.Errorf("ParentEf needs the notebook's nested index and exact parents (x, parents): %w", ErrBadArgument)
			}
			r, err := measure.Index(x, ef, parents)
			if err != nil {
				return false, "", err
			}
			return r.Recall >= parentTarget, fmt.Sprintf("parent recall is %.4f", r.Recall), nil
		},
		wrong: 100, // the table's row that reaches 1.000: more than needed
	})
}
