package exercise

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/nested"
	"github.com/veclab/veclab/engine/rescore"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/scratch"
)

var (
	smallOnce sync.Once
	smallFix  Fixtures
	smallErr  error
)

// small is one small-scale environment per test binary, and each
// notebook's index over its data, built as the notebooks build them.
func small(t *testing.T) Fixtures {
	t.Helper()
	smallOnce.Do(func() { smallFix, smallErr = buildFixtures() })
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallFix
}

func buildFixtures() (Fixtures, error) {
	var f Fixtures
	env, err := experiment.NewEnv(experiment.Small, 1)
	if err != nil {
		return f, err
	}
	f.Env = env
	ds, err := env.Dataset()
	if err != nil {
		return f, err
	}
	f.Base = ds.Base
	if f.Big, err = ivf.Build(ds.Base, ivf.Config{Metric: env.Metric(), Seed: 1}); err != nil {
		return f, err
	}
	// Notebook 09: passages of the documents, a graph over them, the exact parents.
	docs, err := dataset.ChunkPassages(ds.Base, ds.Base.N, dataset.PassageConfig{MinPassages: 2, MaxPassages: 8, Spread: 0.5, Seed: 1})
	if err != nil {
		return f, err
	}
	g, err := hnsw.New(hnsw.Config{Dim: ds.Base.Dim, Metric: engine.Cosine, M: 16, EfConstruction: 100, Seed: 1, Workers: 1})
	if err != nil {
		return f, err
	}
	keys := make([]uint64, docs.Len())
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := g.AddBatch(keys, docs.Vectors); err != nil {
		return f, err
	}
	if f.Nested, err = nested.New(g.Vectors(), docs.ParentOf, engine.Cosine, g); err != nil {
		return f, err
	}
	if f.Parents, err = measure.ExactParents(f.Nested, ds.Queries, env.Scale.K); err != nil {
		return f, err
	}
	// Notebook 12: 2-bit IVF lists, the vector file and its rescorer, the exact top 100.
	// (at 10,000 vectors: the small scale's 2,000 fill five lists, too few for a visit percentage to mean anything).
	ds12, err := dataset.Generate(dataset.Config{N: 10000, Queries: 20, Dim: 96, Clusters: 40, Seed: 1})
	if err != nil {
		return f, err
	}
	if f.IVF, err = ivf.Build(ds12.Base, ivf.Config{Metric: env.Metric(), Bits: 2, Seed: 1, Workers: 1}); err != nil {
		return f, err
	}
	if f.Q100, err = measure.Exact(ds12, 100, env.Metric()); err != nil {
		return f, err
	}
	sd, err := scratch.New("veclab-exercise-test")
	if err != nil {
		return f, err
	}
	p := sd.Join("vectors.vec")
	if err := store.WriteMatrixFS(sd.FS, p, ds12.Base, env.Metric()); err != nil {
		return f, err
	}
	file, err := store.OpenFS(sd.FS, p, store.Options{})
	if err != nil {
		return f, err
	}
	if f.Rescorer, err = rescore.New(file, env.Metric(), rescore.Options{}); err != nil {
		return f, err
	}
	// Notebook 14: the small scale's sets, kept to the two every machine has (the generated set and the
	// compiled-in glove-3k), so the answers do not depend on which sets `veclab data get` has cached.
	if f.Real, err = experiment.OpenRealSets(experiment.Small, 1); err != nil {
		return f, err
	}
	f.Real.Names = slices.DeleteFunc(f.Real.Names, func(n string) bool { return n != "generated" && n != "glove-3k" })
	if len(f.Real.Names) != 2 {
		return f, fmt.Errorf("notebook 14's sets at the small scale: %v, want generated and glove-3k", f.Real.Names)
	}
	return f, nil
}

// TestSolutionsAndWrongAnswers feeds every exercise its solution, which
// must pass, and its wrong answer, which must fail with the exercise's hint
// and a detail saying what the lab found.
func TestSolutionsAndWrongAnswers(t *testing.T) {
	for _, e := range All(small(t)) {
		t.Run(e.Name, func(t *testing.T) {
			right, err := e.right()
			if err != nil {
				t.Fatalf("the solution: %v", err)
			}
			if r := e.Check(right); !r.Correct || r.Hint != "" {
				t.Errorf("the solution %v fails: %v", right, r)
			}
			r := e.Check(e.wrong)
			if r.Correct {
				t.Fatalf("the wrong answer passes: %v", r)
			}
			if r.Hint != e.hint || r.Detail == "" {
				t.Errorf("the wrong answer's verdict lacks the hint or a detail: %+v", r)
			}
			if e.hint == "" || e.solution == "" || e.Question == "" {
				t.Errorf("no hint, solution or question")
			}
		})
	}
}

// TestBadAnswers: an answer of the wrong type, a nil answer and a func that
// panics are wrong answers with a reason, never a panic.
func TestBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		e      *Exercise
		answer any
		detail string
	}{
		{"string for an int", SmallestEf(), "15", "whole number"},
		{"nil", SmallestEf(), nil, "whole number"},
		{"below k", SmallestEf(), 3, "below k"},
		{"fraction", SmallestEf(), 15.5, "whole number"},
		{"int for a func", RecallFunc(), 1, "func([]engine.Result, []engine.ID) float64"},
		{"panicking func", LayerSizes(), func(n, m, level int) float64 { panic("boom") }, "panicked: boom"},
		{"nil env", RescoreOversample(nil), 3, "needs the notebook's environment"},
		{"nil index", NprobeForRecall(nil, nil), 3, "needs the notebook's environment and IVF index"},
		{"nprobe 0", SmallestNprobe(), 0, "from 1 to all 8 lists"},
		{"nil vectors", DiskHeadroom(nil), 10, "needs the notebook's vectors"},
		{"nil nested", PassagesForK(nil, nil, 10), 10, "needs the notebook's nested index"},
		{"nil disk", VisitForRecall(nil, nil, nil), 3, "needs the notebook's IVF index"},
		{"visit 0", VisitForRecall(nil, nil, nil), 0, "lies from 1 to 100"},
		{"negative headroom", DiskHeadroom(nil), -1, "from 0 to"},
		{"wrong func type", CodeBytes(), func(dim int) int { return dim }, "func(dim, bits int) int"},
		{"wrong func type", ProbeFunc(), func(q []float32) []int { return nil }, "func(centroids *vec.Matrix"},
		{"oversample 0", RescoreOversample(nil), 0, "from 1"},
		{"nil sets", CorrectionMatters(nil), "generated", "needs the notebook's data sets"},
		{"not a set", CorrectionMatters(&experiment.RealSets{Names: []string{"generated"}}), "glove", "not one of this notebook's data sets: generated"},
		{"set as a number", CorrectionMatters(&experiment.RealSets{Names: []string{"generated"}}), 1, "a data set's name"},
		{"no glove", GloveBBQOversample(&experiment.RealSets{Names: []string{"generated"}}), 3, "with a GloVe set"},
		{"count beyond the sets", BBQAtDefault(nil), 3, "needs the notebook's data sets"},
		{"zero exercise", &Exercise{}, 1, "constructor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.e.Check(tc.answer)
			if r.Correct || !strings.Contains(r.Detail, tc.detail) {
				t.Errorf("got %+v, want a wrong answer saying %q", r, tc.detail)
			}
		})
	}
}

// TestRendering: the verdict renders in the three forms the kernel shows,
// each saying right or wrong and carrying the hint only when wrong.
func TestRendering(t *testing.T) {
	ok := Result{Exercise: "Q", Correct: true, Detail: "a <b> detail"}
	bad := Result{Exercise: "Q", Detail: "d", Hint: "look again"}
	for _, tc := range []struct {
		name, got, want, not string
	}{
		{"text ok", ok.String(), "✓ correct", "hint"},
		{"text wrong", bad.String(), "hint: look again", "✓"},
		{"markdown wrong", bad.Markdown(), "*Hint:* look again", "✓"},
		{"html escapes", ok.HTML(), "a &lt;b&gt; detail", "Hint"},
		{"html wrong", bad.HTML(), "#b71c1c", "✓"},
		{"solution markdown", SmallestEf().Solution().Markdown(), "```go\n", "hint"},
		{"hint", SmallestEf().Hint().String(), "SmallestEf: hint: ", "```"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(tc.got, tc.want) || strings.Contains(tc.got, tc.not) {
				t.Errorf("%q: want %q and not %q", tc.got, tc.want, tc.not)
			}
		})
	}
}
