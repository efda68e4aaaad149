package exercise

import (
	"strings"
	"sync"
	"testing"

	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/lab/experiment"
)

var (
	smallOnce sync.Once
	smallEnv  *experiment.Env
	smallIVF  *ivf.Index
	smallErr  error
)

// small is one small-scale environment per test binary, and an IVF index
// over its data as notebook 00d builds it.
func small(t *testing.T) (*experiment.Env, *ivf.Index) {
	t.Helper()
	smallOnce.Do(func() {
		if smallEnv, smallErr = experiment.NewEnv(experiment.Small, 1); smallErr != nil {
			return
		}
		ds, err := smallEnv.Dataset()
		if err != nil {
			smallErr = err
			return
		}
		smallIVF, smallErr = ivf.Build(ds.Base, ivf.Config{Metric: smallEnv.Metric(), Seed: 1})
	})
	if smallErr != nil {
		t.Fatal(smallErr)
	}
	return smallEnv, smallIVF
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
		{"wrong func type", ProbeFunc(), func(q []float32) []int { return nil }, "func(centroids *vec.Matrix"},
		{"oversample 0", RescoreOversample(nil), 0, "from 1"},
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
