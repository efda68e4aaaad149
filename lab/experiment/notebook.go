package experiment

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/table"
)

// scaleVariable is the environment variable that overrides a notebook's
// scale: CI and the notebook tests set it to "small", so a notebook whose
// set-up cell names "article" runs in seconds there.
const scaleVariable = "VECLAB_SCALE"

// Notebook is a notebook's set-up step in one call: the scale named by
// $VECLAB_SCALE when it is set, else def ("article" in every notebook of
// the repository), and an environment for it with the seed (1 in the
// notebooks). It exists so every set-up cell reads the same way and shows
// the two choices a reader may change, not the parsing around them.
//
// With $VECLAB_DATA_SET set, the environment runs on that data instead of
// the generated set ([Env.UseData]): a set's name (`veclab data list`), a
// data set directory, or a Parquet or ann-benchmarks HDF5 file (imported
// once under the data directory by the native veclab). In a cell the same
// switch is one line: check(env.UseData("fortunes", "")).
func Notebook(def string, seed uint64) (*Env, error) {
	scale, err := NotebookScale(def)
	if err != nil {
		return nil, err
	}
	env, err := NewEnv(scale, seed)
	if err != nil {
		return nil, err
	}
	if d := strings.TrimSpace(os.Getenv(dataVariable)); d != "" {
		if err := env.UseData(d, ""); err != nil {
			env.Close()
			return nil, fmt.Errorf("experiment: data from $%s: %w", dataVariable, err)
		}
	}
	return env, nil
}

// dataVariable is the environment variable that switches every notebook's
// data (see [Notebook]).
const dataVariable = "VECLAB_DATA_SET"

// NotebookScale is the scale alone, for a notebook that opens more than
// one environment (notebook 14, one per data set): $VECLAB_SCALE when it
// is set, else def.
func NotebookScale(def string) (Scale, error) {
	name, from := def, "the notebook"
	if s := strings.TrimSpace(os.Getenv(scaleVariable)); s != "" {
		name, from = s, "$"+scaleVariable
	}
	scale, err := ParseScale(name)
	if err != nil {
		return Scale{}, fmt.Errorf("experiment: scale %q from %s: %w", name, from, err)
	}
	return scale, nil
}

// About is what a set-up cell prints: the scale, the conventions
// (the seed and what recall@k means, for the k the notebook reports) and
// the machine. A notebook that reports another k than the scale's (E26's
// recall@100) sees that k in the scale line too, with the scale's own
// beside it, so the line does not contradict the recall it prints.
func (e *Env) About(k int) string {
	s, note := e.Scale, ""
	if k != s.K {
		note = fmt.Sprintf(" (top %d in this notebook; the scale's own k is %d)", k, s.K)
		s.K = k
	}
	return fmt.Sprintf("scale: %s %s%s\n%s\nmachine: %s", e.Scale.Name, s, note, conventions(e, k), e.Machine)
}

// SimulatedQueries is how many queries a notebook runs on a simulated
// device, where every read waits (≥ 1 ms a read, and the IOPS ceiling
// caps 100 reads a query near 30 QPS): 20 at the article's scale, as
// `veclab reproduce` runs E26 there, 3 at the small scale, never more
// than the scale's queries.
func SimulatedQueries(s Scale) int {
	if s.Name == "small" {
		return min(3, s.Queries)
	}
	return SimulatedCap(s.Queries)
}

// simulatedCap is how many of nq queries the experiments run on a
// simulated device (E15, E26, E27 in `veclab reproduce`): at most 20,
// since each simulated read really waits.
func SimulatedCap(nq int) int { return min(nq, 20) }

// RealSets is what a notebook comparing data sets opens: the generated
// set and the real ones, one environment each, in a fixed order.
type RealSets struct {
	Names   []string        // the sets in use, in order
	Envs    map[string]*Env // by name
	Skipped []string        // sets that could not be opened, each with its reason
}

// OpenRealSets opens the generated set, a GloVe set, the fortunes
// sentence sets (fortunes, then fortunes-use) when they are cached, and Fashion-MNIST at the scale, each in its own environment with the seed. Every set gets
// 200 queries (20 at the small scale) and no warm-up. At the small scale
// the real sets are cut to the scale's N and GloVe is the compiled-in
// glove-3k; otherwise they are used whole, and GloVe is glove-100k when
// `veclab data get glove-100k` has fetched it, else glove-3k (no
// download). A real set that cannot be opened (not fetched) is skipped
// with its reason, not an error: the notebook runs on what it has.
func OpenRealSets(scale Scale, seed uint64) (*RealSets, error) {
	scale.Queries, scale.Warmup = 200, 0
	if scale.Name == "small" {
		scale.Queries = 20
	}
	glove := "glove-3k" // compiled in
	if scale.Name != "small" {
		if root, err := dataset.DataRoot(); err == nil {
			if g, ok := dataset.LookupSource("glove-100k"); ok && g.Cached(root) {
				glove = "glove-100k"
			}
		}
	}
	names := []string{"generated", glove}
	// The sentence sets join when `veclab data get fortunes` (GloVe
	// mean) or `veclab data get fortunes-use` (a Transformer encoder) has
	// made them (they need Debian's fortunes and the npm embedders, so no
	// skip line otherwise).
	if root, err := dataset.DataRoot(); err == nil {
		for _, name := range []string{"fortunes", "fortunes-use"} {
			if f, ok := dataset.LookupSource(name); ok && f.Cached(root) {
				names = append(names, name)
			}
		}
	}
	names = append(names, "fashion-mnist")
	rs := &RealSets{Envs: map[string]*Env{}}
	for _, name := range names {
		env, err := NewEnv(scale, seed)
		if err != nil {
			return nil, err
		}
		if name != "generated" {
			if scale.Name != "small" {
				env.Scale.N = 0 // the whole set
			}
			if err := env.UseData(name, ""); err != nil {
				rs.Skipped = append(rs.Skipped, fmt.Sprintf("%s: not used (%v)", name, err))
				continue
			}
		}
		rs.Envs[name] = env
		rs.Names = append(rs.Names, name)
	}
	return rs, nil
}

// String lists the sets in use, then each skipped one with its reason.
func (rs *RealSets) String() string {
	var b strings.Builder
	for _, s := range rs.Skipped {
		b.WriteString(s + "\n")
	}
	b.WriteString("data sets: " + strings.Join(rs.Names, ", "))
	return b.String()
}

// maxTextRunes bounds a text in a NeighbourTexts cell.
const maxTextRunes = 90

// NeighbourTexts is a table of what a few queries' nearest sentences say
// on sets that keep their texts (words.txt): for each query row of
// queries, one row per set of names with the query's text and its k
// nearest base rows' texts by exact search, nearest first (texts cut to
// 90 characters). Sets made from the same texts in the same rows
// (fortunes and fortunes-use) then show the same query under two
// encoders, row above row. A name not in use, a set without words.txt,
// a query row or k out of range is an error.
func (rs *RealSets) NeighbourTexts(names []string, queries []int, k int) (*table.Table, error) {
	if k < 1 || k > 10 {
		return nil, fmt.Errorf("experiment: NeighbourTexts: k %d outside 1…10: %w", k, engine.ErrInvalidArgument)
	}
	cols := []table.Column{table.Col("query", ""), table.Col("data set", "")}
	for i := 1; i <= k; i++ {
		cols = append(cols, table.Col(fmt.Sprintf("nearest %d", i), ""))
	}
	t := table.New(fmt.Sprintf("The %d nearest sentences of %d queries", k, len(queries)), cols...)
	cut := func(s string) string {
		if r := []rune(s); len(r) > maxTextRunes {
			return string(r[:maxTextRunes-1]) + "…"
		}
		return s
	}
	type set struct {
		words []string
		truth *dataset.GroundTruth
		base  int
	}
	sets := make([]set, len(names))
	for i, name := range names {
		env, ok := rs.Envs[name]
		if !ok {
			return nil, fmt.Errorf("experiment: NeighbourTexts: %q is not in use (%s): %w", name, strings.Join(rs.Names, ", "), engine.ErrNotFound)
		}
		env.mu.Lock()
		rd := env.real
		env.mu.Unlock()
		if rd == nil || rd.dir == "" {
			return nil, fmt.Errorf("experiment: NeighbourTexts: %s keeps no texts: %w", name, engine.ErrNotFound)
		}
		b, err := os.ReadFile(filepath.Join(rd.dir, "words.txt"))
		if err != nil {
			return nil, fmt.Errorf("experiment: NeighbourTexts: %s: %w", name, err)
		}
		words := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		truth, err := env.Truth(k)
		if err != nil {
			return nil, fmt.Errorf("experiment: NeighbourTexts: %s: %w", name, err)
		}
		if len(words) < rd.base+len(truth.IDs) {
			return nil, fmt.Errorf("experiment: NeighbourTexts: %s: words.txt has %d lines for %d base rows and %d queries: %w", name, len(words), rd.base, len(truth.IDs), engine.ErrCorrupt)
		}
		sets[i] = set{words: words, truth: truth, base: rd.base}
	}
	for _, q := range queries {
		for i, name := range names {
			s := sets[i]
			if q < 0 || q >= len(s.truth.IDs) {
				return nil, fmt.Errorf("experiment: NeighbourTexts: query %d outside 0…%d on %s: %w", q, len(s.truth.IDs)-1, name, engine.ErrInvalidArgument)
			}
			cells := []any{cut(s.words[s.base+q]), name}
			for _, id := range s.truth.At(q, k) {
				cells = append(cells, cut(s.words[id]))
			}
			for len(cells) < k+2 {
				cells = append(cells, "")
			}
			if err := t.AddValues(cells...); err != nil {
				return nil, err
			}
		}
	}
	t.Note("exact search (the set's own metric) over the set's base rows as the environment uses them")
	return t, nil
}
