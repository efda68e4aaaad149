package ivfpq

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/indextest"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/testenv"
)

// TestContract runs the conformance suite with 12-byte codes of the
// suite's 24 dimensions (2 per sub-space, 256 centroids each) and 16
// cells, 8 of them probed.
func TestContract(t *testing.T) {
	indextest.RunWith(t, indextest.Options{MinRecall: 0.7, ApproxDistances: true}, func(t *testing.T, dim int, m engine.Metric, vs *vec.Matrix) indextest.Searchable {
		cfg := Config{Nlist: 16, PQ: quant.PQConfig{M: dim / 2}, Metric: m, Seed: 1}
		sample := vs
		if vs.N == 0 {
			sample = indextest.Clustered(1000, dim, 4, 1)
		}
		ix, err := Train(sample, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Add(vs); err != nil {
			t.Fatal(err)
		}
		return indextest.Contract(ix, 8)
	})
}

// TestADCIsReconstruction checks the distances against their definition:
// with every cell probed, each result's distance is the metric between
// the query and its reconstruction c + r̂ (cell centroid plus decoded
// residual), every vector is in exactly one list, and the results are the
// true top k of those reconstructions.
func TestADCIsReconstruction(t *testing.T) {
	data := indextest.Clustered(1200, 32, 6, 2)
	metrics := []engine.Metric{engine.Cosine, engine.Dot, engine.L2}
	if testenv.ShrinkUnderRace(t, "one metric: the build's workers are the same under each") {
		metrics = metrics[1:2]
	}
	for _, metric := range metrics {
		t.Run(metric.String(), func(t *testing.T) {
			ix, err := Build(data, Config{Nlist: 8, PQ: quant.PQConfig{M: 8}, Metric: metric, Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			ids := ix.allIDs()
			if len(ids) != data.N || ids[0] != 0 || ids[len(ids)-1] != engine.ID(data.N-1) || slices.Compact(ids) == nil || len(slices.Compact(ids)) != data.N {
				t.Fatalf("lists hold %d ids, want each of 0…%d once", len(ids), data.N-1)
			}
			// Reconstructions of every vector.
			rec := vec.NewMatrix(data.N, 32)
			r := make([]float32, 32)
			for c, l := range ix.lists {
				for i, id := range l.ids {
					if err := ix.pq.Decode(r, l.codes[i*8:(i+1)*8]); err != nil {
						t.Fatal(err)
					}
					row := rec.Row(int(id))
					for j := range row {
						row[j] = ix.cents.Row(c)[j] + r[j]
					}
				}
			}
			dist := vec.Distance(metric)
			for qi := 0; qi < 5; qi++ {
				q := slices.Clone(data.Row(1100 + qi))
				got, err := ix.Search(q, 10, ix.cents.N)
				if err != nil {
					t.Fatal(err)
				}
				if metric == engine.Cosine {
					_ = vec.Normalize(q)
				}
				all := make([]engine.Result, data.N)
				for i := range all {
					all[i] = engine.Result{ID: engine.ID(i), Dist: dist(q, rec.Row(i))}
				}
				slices.SortFunc(all, func(a, b engine.Result) int { return cmpf(a.Dist, b.Dist) })
				for i, g := range got {
					want := dist(q, rec.Row(int(g.ID)))
					if math.Abs(float64(g.Dist-want)) > 1e-3*math.Max(1, math.Abs(float64(want))) {
						t.Fatalf("query %d result %d: ADC %v, metric to the reconstruction %v", qi, i, g.Dist, want)
					}
					if math.Abs(float64(g.Dist-all[i].Dist)) > 1e-3*math.Max(1, math.Abs(float64(want))) {
						t.Fatalf("query %d rank %d: %v, the reconstructions' %v", qi, i, g.Dist, all[i].Dist)
					}
				}
			}
		})
	}
}

func cmpf(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestRecallGrowsWithNprobe checks the IVF trade: recall@10 against the
// exact neighbours does not fall as more cells are probed, and with every
// cell it reaches the flat PQ scan's level of that code size (the floors
// are below what the codes keep: 0.55–0.7 at 8 bytes, 0.8–0.9 at 16).
func TestRecallGrowsWithNprobe(t *testing.T) {
	data := indextest.Clustered(3000, 64, 20, 3)
	queries := indextest.Clustered(40, 64, 20, 3)
	ex, err := flat.New(data, flat.Config{Metric: engine.L2})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		m     int
		floor float64
	}{{8, 0.45}, {16, 0.7}}
	if testenv.ShrinkUnderRace(t, "one code size: the build's workers and the search are the same at both") {
		cases = cases[:1]
	}
	for _, tc := range cases {
		ix, err := Build(data, Config{Nlist: 32, PQ: quant.PQConfig{M: tc.m}, Metric: engine.L2, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		prev := 0.0
		for _, np := range []int{1, 4, 16, 32} {
			var rec float64
			for j := 0; j < queries.N; j++ {
				want, _, _ := ex.Search(queries.Row(j), 10, nil)
				got, err := ix.Search(queries.Row(j), 10, np)
				if err != nil {
					t.Fatal(err)
				}
				rec += overlap(got, want)
			}
			rec /= float64(queries.N * 10)
			t.Logf("M=%d nprobe=%d: recall@10 %.3f", tc.m, np, rec)
			if rec+0.02 < prev {
				t.Errorf("M=%d nprobe=%d: recall %.3f fell from %.3f", tc.m, np, rec, prev)
			}
			prev = rec
		}
		if prev < tc.floor {
			t.Errorf("M=%d all cells: recall %.3f below %.2f", tc.m, prev, tc.floor)
		}
	}
}

func overlap(got, want []engine.Result) float64 {
	n := 0
	for _, g := range got {
		for _, w := range want {
			if g.ID == w.ID {
				n++
				break
			}
		}
	}
	return float64(n)
}

// TestDeterministic checks that the same seed gives the same index
// whatever the workers.
func TestDeterministic(t *testing.T) {
	data := indextest.Clustered(800, 16, 4, 7)
	a, err := Build(data, Config{Nlist: 4, PQ: quant.PQConfig{M: 4}, Metric: engine.Dot, Seed: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Build(data, Config{Nlist: 4, PQ: quant.PQConfig{M: 4}, Metric: engine.Dot, Seed: 3, Workers: 2})
	pa, _ := a.PQ().MarshalBinary()
	pb, _ := b.PQ().MarshalBinary()
	if !slices.Equal(a.cents.Data, b.cents.Data) || string(pa) != string(pb) {
		t.Fatal("centroids or codebooks differ between 1 and 2 workers")
	}
	for c := range a.lists {
		if !slices.Equal(a.lists[c].ids, b.lists[c].ids) || string(a.lists[c].codes) != string(b.lists[c].codes) {
			t.Fatalf("list %d differs", c)
		}
	}
}

// TestErrors is the table of bad configurations and inputs.
func TestErrors(t *testing.T) {
	data := indextest.Clustered(300, 12, 3, 1)
	for _, tc := range []struct {
		name string
		data *vec.Matrix
		cfg  Config
		want []string
	}{
		{"no cells", data, Config{PQ: quant.PQConfig{M: 4}}, []string{"Nlist must be ≥ 1, got 0"}},
		{"M not dividing", data, Config{Nlist: 2, PQ: quant.PQConfig{M: 5}}, []string{"M = 5", "dimension 12"}},
		{"more cells than vectors", data, Config{Nlist: 400, PQ: quant.PQConfig{M: 4}}, []string{"400 cells", "got 300"}},
		{"too few for 256 centroids", indextest.Clustered(100, 12, 3, 1), Config{Nlist: 2, PQ: quant.PQConfig{M: 4}}, []string{"residual quantizer", "at least 256 training vectors, got 100"}},
		{"nil data", nil, Config{Nlist: 2}, []string{"nil"}},
		{"bad metric", data, Config{Nlist: 2, PQ: quant.PQConfig{M: 4}, Metric: 9}, []string{"unknown metric"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Train(tc.data, tc.cfg)
			if !errors.Is(err, engine.ErrInvalidArgument) {
				t.Fatalf("error %v, want invalid argument", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	ix, err := Build(data, Config{Nlist: 2, PQ: quant.PQConfig{M: 4, Bits: 4}, Metric: engine.L2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Search(make([]float32, 11), 5, 1); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("short query: %v", err)
	}
	if _, err := ix.Search(make([]float32, 12), 0, 1); !errors.Is(err, engine.ErrInvalidArgument) {
		t.Errorf("k = 0: %v", err)
	}
	if _, err := ix.Search(make([]float32, 12), 5, 0); !errors.Is(err, engine.ErrInvalidArgument) || !strings.Contains(err.Error(), "nprobe") {
		t.Errorf("nprobe 0: %v", err)
	}
	if err := ix.Add(vec.NewMatrix(3, 10)); !errors.Is(err, engine.ErrDimension) {
		t.Errorf("add of another dimension: %v", err)
	}
}

// BenchmarkSearch reports QPS-relevant ns per query and recall@10 at
// nprobe 1…16 for 16-byte codes. Hypothesis: time grows about linearly
// with nprobe (the lists' scan dominates the per-cell table) while recall
// saturates.
func BenchmarkSearch(b *testing.B) {
	data := indextest.Clustered(20000, 64, 40, 1)
	queries := indextest.Clustered(100, 64, 40, 2)
	ix, err := Build(data, Config{Nlist: 64, PQ: quant.PQConfig{M: 16}, Metric: engine.L2, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	ex, err := flat.New(data, flat.Config{Metric: engine.L2})
	if err != nil {
		b.Fatal(err)
	}
	for _, np := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("nprobe=%d", np), func(b *testing.B) {
			var hits float64
			i := 0
			for b.Loop() {
				q := queries.Row(i % queries.N)
				got, _ := ix.Search(q, 10, np)
				if i < queries.N {
					want, _, _ := ex.Search(q, 10, nil)
					hits += overlap(got, want)
				}
				i++
			}
			b.ReportMetric(hits/float64(min(i, queries.N)*10), "recall@10")
			b.ReportMetric(ix.BytesPerVector(), "bytes/vec")
		})
	}
}

// allIDs returns the ids of every list, sorted.
func (ix *Index) allIDs() []engine.ID {
	var out []engine.ID
	for _, l := range ix.lists {
		out = append(out, l.ids...)
	}
	slices.Sort(out)
	return out
}
