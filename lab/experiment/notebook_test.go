package experiment

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

func TestNotebook(t *testing.T) {
	for _, tc := range []struct {
		def, env string
		want     Scale
		err      string // a substring of the error; "" for none
	}{
		{def: "article", want: Article},
		{def: "article", env: "small", want: Small},
		{def: "small", env: "  article ", want: Article},
		{def: "n=3000,queries=10", want: func() Scale { s := Article; s.Name, s.N, s.Queries = "custom", 3000, 10; return s }()},
		{def: "article", env: "tiny", err: `scale "tiny" from $VECLAB_SCALE`},
		{def: "n=0", err: `scale "n=0" from the notebook`},
	} {
		t.Run(tc.def+"/"+tc.env, func(t *testing.T) {
			t.Setenv(scaleVariable, tc.env)
			env, err := Notebook(tc.def, 7)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, engine.ErrInvalidArgument) {
					t.Fatalf("Notebook(%q) with %s=%q: err %v, want one naming %q and wrapping engine.ErrInvalidArgument", tc.def, scaleVariable, tc.env, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if env.Scale != tc.want || env.Seed != 7 || env.Workers != 1 {
				t.Fatalf("Notebook(%q) with %s=%q = scale %+v seed %d workers %d, want %+v seed 7 workers 1", tc.def, scaleVariable, tc.env, env.Scale, env.Seed, env.Workers, tc.want)
			}
			about := env.About(100)
			shown := tc.want
			shown.K = 100
			for _, part := range []string{"scale: " + tc.want.Name + " " + shown.String(), "the scale's own k is 10", "seed 7", "recall@100", "machine: "} {
				if !strings.Contains(about, part) {
					t.Errorf("About(100) = %q, missing %q", about, part)
				}
			}
			if own := env.About(tc.want.K); strings.Contains(own, "own k") || !strings.Contains(own, tc.want.String()) {
				t.Errorf("About(%d) = %q: the scale's own k needs no note", tc.want.K, own)
			}
		})
	}
}

func TestSimulatedQueries(t *testing.T) {
	few := Article
	few.Queries = 5
	for _, tc := range []struct {
		scale Scale
		want  int
	}{{Article, 20}, {Small, 3}, {few, 5}} {
		if got := SimulatedQueries(tc.scale); got != tc.want {
			t.Errorf("SimulatedQueries(%s with %d queries) = %d, want %d", tc.scale.Name, tc.scale.Queries, got, tc.want)
		}
	}
}

func TestFiguresTable(t *testing.T) {
	for _, id := range []string{"E02", "E11", "E26"} {
		e, ok := Lookup(id)
		if !ok {
			t.Fatalf("Lookup(%s) failed", id)
		}
		tab := e.FiguresTable()
		if len(tab.Rows) != len(e.Figures) || len(e.Figures) == 0 {
			t.Fatalf("%s: %d rows for %d figures", id, len(tab.Rows), len(e.Figures))
		}
		md := tab.Markdown()
		for _, f := range e.Figures {
			if !strings.Contains(md, f.Row) || !strings.Contains(md, f.Measure) {
				t.Errorf("%s: figure %v missing from\n%s", id, f, md)
			}
		}
	}
	if tab := (Experiment{ID: "E99"}).FiguresTable(); len(tab.Rows) != 0 || len(tab.Notes) != 1 {
		t.Errorf("an experiment without figures gives %d rows and notes %v", len(tab.Rows), tab.Notes)
	}
}

func TestOpenRealSets(t *testing.T) {
	t.Setenv("VECLAB_DATA", t.TempDir()) // nothing fetched: GloVe is the compiled-in set
	rs, err := OpenRealSets(Small, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Fashion-MNIST is used when Debian's dataset-fashion-mnist is
	// installed, skipped with its reason when not.
	want := "generated,glove-3k"
	if _, ok := rs.Envs["fashion-mnist"]; ok {
		want += ",fashion-mnist"
	} else if len(rs.Skipped) != 1 || !strings.HasPrefix(rs.Skipped[0], "fashion-mnist: not used (") {
		t.Fatalf("Skipped = %q, want fashion-mnist with its reason", rs.Skipped)
	}
	if got := strings.Join(rs.Names, ","); got != want {
		t.Fatalf("Names = %s, want %s (skipped: %v)", got, want, rs.Skipped)
	}
	for _, name := range rs.Names {
		env := rs.Envs[name]
		if env.Seed != 3 || env.Scale.Queries != 20 || env.Scale.Warmup != 0 {
			t.Errorf("%s: seed %d, %d queries after %d warm-up; want seed 3, 20 after 0", name, env.Seed, env.Scale.Queries, env.Scale.Warmup)
		}
	}
	if g := rs.Envs["glove-3k"]; g.Scale.N > Small.N || g.DataName() != "glove-3k" {
		t.Errorf("glove-3k: n %d (want ≤ %d), name %q", g.Scale.N, Small.N, g.DataName())
	}
	if s := rs.String(); !strings.Contains(s, "data sets: generated, glove-3k") || len(rs.Skipped) == 1 && !strings.Contains(s, "fashion-mnist: not used") {
		t.Errorf("String() = %q", s)
	}
}

// TestOpenRealSetsSentences: the two sentence sets join, fortunes then
// fortunes-use, when they are in the data directory (tiny stand-ins
// written here with their real names and dimensions), each in its own
// environment with its own dimension.
func TestOpenRealSetsSentences(t *testing.T) {
	root := t.TempDir()
	t.Setenv("VECLAB_DATA", root)
	r := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"fortunes-use", "fortunes"} {
		src, _ := dataset.LookupSource(name)
		// Query j is base row 3j, so its nearest sentence is known.
		b, q := vec.NewMatrix(50, src.Dim), vec.NewMatrix(10, src.Dim)
		for i := range b.Data {
			b.Data[i] = float32(r.NormFloat64())
		}
		var words []string
		for i := 0; i < b.N; i++ {
			words = append(words, fmt.Sprintf("base %d of %s", i, name))
		}
		for j := 0; j < q.N; j++ {
			copy(q.Row(j), b.Row(3*j))
			words = append(words, fmt.Sprintf("query %d", j))
		}
		if err := dataset.WriteLayout(filepath.Join(root, name), dataset.Layout{Base: b, Queries: q, Words: words,
			Manifest: dataset.Manifest{Name: name, Metric: src.Metric.String()}}); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := OpenRealSets(Small, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "generated,glove-3k,fortunes,fortunes-use"
	if _, ok := rs.Envs["fashion-mnist"]; ok {
		want += ",fashion-mnist"
	}
	if got := strings.Join(rs.Names, ","); got != want {
		t.Fatalf("Names = %s, want %s (skipped: %v)", got, want, rs.Skipped)
	}
	for name, dim := range map[string]int{"fortunes": 100, "fortunes-use": 512} {
		env := rs.Envs[name]
		ds, err := env.Dataset()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if env.DataName() != name || ds.Base.Dim != dim || env.Metric() != engine.Cosine {
			t.Errorf("%s: data %q, %d dimensions, %s; want %d, cosine", name, env.DataName(), ds.Base.Dim, env.Metric(), dim)
		}
	}
	nt, err := rs.NeighbourTexts([]string{"fortunes", "fortunes-use"}, []int{1, 4}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(nt.Rows) != 4 || len(nt.Columns) != 4 {
		t.Fatalf("%d rows × %d columns:\n%s", len(nt.Rows), len(nt.Columns), nt)
	}
	for i, want := range [][3]string{{"query 1", "fortunes", "base 3 of fortunes"}, {"query 1", "fortunes-use", "base 3 of fortunes-use"},
		{"query 4", "fortunes", "base 12 of fortunes"}, {"query 4", "fortunes-use", "base 12 of fortunes-use"}} {
		row := nt.Rows[i]
		if row[0].Text != want[0] || row[1].Text != want[1] || row[2].Text != want[2] {
			t.Errorf("row %d: %q %q %q, want %q", i, row[0].Text, row[1].Text, row[2].Text, want)
		}
	}
	for _, tc := range []struct {
		names   []string
		queries []int
		k       int
		err     error
	}{
		{[]string{"fortunes"}, []int{0}, 0, engine.ErrInvalidArgument},
		{[]string{"fortunes"}, []int{10}, 1, engine.ErrInvalidArgument},
		{[]string{"glove"}, []int{0}, 1, engine.ErrNotFound},
		{[]string{"generated"}, []int{0}, 1, engine.ErrNotFound},
	} {
		if _, err := rs.NeighbourTexts(tc.names, tc.queries, tc.k); !errors.Is(err, tc.err) {
			t.Errorf("NeighbourTexts(%q, %v, %d): %v, want %v", tc.names, tc.queries, tc.k, err, tc.err)
		}
	}
}

// TestNotebookDataVariable switches a notebook's data with
// $VECLAB_DATA_SET: the compiled-in glove-3k, then a name that is no set,
// which fails naming the variable.
func TestNotebookDataVariable(t *testing.T) {
	t.Setenv(scaleVariable, "small")
	t.Setenv(dataVariable, "glove-3k")
	env, err := Notebook("article", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if env.DataName() != "glove-3k" || env.Metric() != engine.Cosine {
		t.Errorf("data %q, metric %v", env.DataName(), env.Metric())
	}
	t.Setenv(dataVariable, "no-such-set")
	if _, err := Notebook("article", 1); err == nil || !strings.Contains(err.Error(), "$"+dataVariable) {
		t.Errorf("unknown set: %v", err)
	}
}
