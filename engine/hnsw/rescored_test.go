package hnsw

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
)

// TestSearchRescored builds a graph scored with 1-bit codes and checks that
// rescoring an oversampled candidate set from RAM and from the on-disk file
// gives the same answer, recovers recall the codes alone lose, and that the
// file path really reads one vector per candidate.
func TestSearchRescored(t *testing.T) {
	const n, dim, k = 2000, 64, 10
	base := clustered(n, dim, 20, 0.3, 7)
	queries := clustered(50, dim, 20, 0.3, 8)
	bbq, err := quant.TrainOSQ(base, engine.Cosine, quant.OSQConfig{Bits: 1, QueryBits: 4})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Dim: dim, Metric: engine.Cosine, M: 16, EfConstruction: 100, Seed: 1, Workers: 1, Codes: quant.NewStore(bbq)}
	ix, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.AddBatch(seqKeys(n), base); err != nil {
		t.Fatal(err)
	}
	ram, err := rescore.New(rescore.NewSlab(ix.Vectors()), engine.Cosine, rescore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "vectors.vec")
	if err := store.WriteMatrix(path, ix.Vectors(), engine.Cosine); err != nil {
		t.Fatal(err)
	}
	f, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	disk, err := rescore.New(f, engine.Cosine, rescore.Options{Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}

	s := ix.NewSearcher()
	var plain, over float64
	for i := 0; i < queries.N; i++ {
		q := queries.Row(i)
		truth := bruteForce(base, q, k, engine.Cosine, nil)
		codesOnly, err := s.Search(q, engine.Request{K: k, Breadth: 40})
		if err != nil {
			t.Fatal(err)
		}
		plain += recallOf(codesOnly, truth)
		fromRAM, err := s.Search(q, engine.Request{K: k, Breadth: 40, Params: &Rescore{Rescorer: ram, Oversample: 5}})
		if err != nil {
			t.Fatal(err)
		}
		p := &Rescore{Rescorer: disk, Oversample: 5}
		fromDisk, err := s.Search(q, engine.Request{K: k, Breadth: 40, Params: p})
		if err != nil {
			t.Fatal(err)
		}
		st := p.Stats
		if st.IO.Reads != int64(st.Candidates) || st.Candidates != 5*k {
			t.Fatalf("query %d: %d reads for %d candidates, want %d each", i, st.IO.Reads, st.Candidates, 5*k)
		}
		for j := range fromRAM {
			// The rescorer scores four rows per kernel call, whose sums
			// may round in the last bit differently from QueryDistance's
			// one-row kernel: equal to within float32 rounding.
			if want := ix.QueryDistance(q, fromRAM[j].ID); math.Abs(float64(fromRAM[j].Dist-want)) > 1e-5*math.Max(1, math.Abs(float64(want))) {
				t.Fatalf("query %d rank %d: rescored distance %v, exact %v", i, j, fromRAM[j].Dist, want)
			}
			if fromRAM[j] != fromDisk[j] {
				t.Fatalf("query %d rank %d: RAM %v, disk %v", i, j, fromRAM[j], fromDisk[j])
			}
		}
		over += recallOf(fromRAM, truth)
	}
	plain /= float64(queries.N)
	over /= float64(queries.N)
	t.Logf("recall@%d: 1-bit codes %.3f, oversample 5 + rescoring %.3f", k, plain, over)
	// On 64 dims 1-bit codes lose most of the ranking (about 0.1 here);
	// five times the candidates re-ranked exactly must recover a good part.
	if over < plain+0.15 {
		t.Errorf("rescoring did not recover recall: codes %.3f, rescored %.3f", plain, over)
	}
}

func TestSearchRescoredBadInput(t *testing.T) {
	base := clustered(100, 16, 4, 0.3, 1)
	ix, err := New(Config{Dim: 16, Metric: engine.L2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.AddBatch(seqKeys(100), base); err != nil {
		t.Fatal(err)
	}
	good, _ := rescore.New(rescore.NewSlab(base), engine.L2, rescore.Options{})
	other := clustered(10, 8, 2, 0.3, 1)
	wrongDim, _ := rescore.New(rescore.NewSlab(other), engine.L2, rescore.Options{})
	q := base.Row(0)
	for _, tc := range []struct {
		name string
		k    int
		over float64
		r    *rescore.Rescorer
		want error
	}{
		{"nil rescorer", 10, 2, nil, engine.ErrInvalidArgument},
		{"oversample below 1", 10, 0.5, good, engine.ErrInvalidArgument},
		{"k zero", 0, 2, good, engine.ErrInvalidArgument},
		{"wrong dimension source", 10, 2, wrongDim, engine.ErrDimension},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ix.NewSearcher().Search(q, engine.Request{K: tc.k, Breadth: 10, Params: &Rescore{Rescorer: tc.r, Oversample: tc.over}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}
