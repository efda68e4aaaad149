package hnsw

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
)

// Selection names the neighbour-selection rule used when a node's links are
// chosen or shrunk.
type Selection uint8

// The selection rules.
const (
	// Heuristic is Malkov & Yashunin's Algorithm 4 (hnswlib's
	// getNeighborsByHeuristic2): candidates are taken nearest-first and one
	// is kept only if it is not closer to an already kept neighbour than to
	// the base element. The default in every system the lab emulates.
	Heuristic Selection = iota
	// Simple keeps the M nearest candidates (Algorithm 3).
	Simple
)

// String returns "heuristic" or "simple".
func (s Selection) String() string {
	switch s {
	case Heuristic:
		return "heuristic"
	case Simple:
		return "simple"
	}
	return fmt.Sprintf("Selection(%d)", s)
}

// ParseSelection reads "heuristic" or "simple".
func ParseSelection(s string) (Selection, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "heuristic":
		return Heuristic, nil
	case "simple":
		return Simple, nil
	}
	return 0, fmt.Errorf("hnsw: unknown neighbour selection %q (want heuristic or simple): %w", s, engine.ErrInvalidArgument)
}

// Config describes an index. The zero value of every field but Dim means
// "the default"; [Config.WithDefaults] fills them and [New] validates.
type Config struct {
	// Dim is the vector dimension. Required.
	Dim int
	// Metric is the distance (default Cosine).
	Metric engine.Metric
	// M is the number of links a node gets on layers ≥ 1, and the cap of
	// those lists (paper's M = Mmax). Default 16.
	M int
	// M0 is the cap of a node's link list on layer 0 (paper's Mmax0).
	// Default 2·M.
	M0 int
	// EfConstruction is the beam of the insertion search. Default 200
	// (hnswlib's Python default; pgvector uses 64, Qdrant/Lucene 100). As in
	// hnswlib the effective value is max(EfConstruction, M).
	EfConstruction int
	// EfSearch is the beam used when a search passes ef ≤ 0. Default 40
	// (pgvector's hnsw.ef_search; hnswlib's default of 10 gives recall ≈ 0.6
	// on the article's data).
	EfSearch int
	// LevelMult is the level multiplier mL: a node's level is
	// ⌊−ln(U)·mL⌋, capped at MaxLevels-1. Default 1/ln(M).
	LevelMult float64
	// Seed seeds the level generator (0 is a valid seed).
	Seed uint64
	// Levels names the level generator: PCGLevels (default, math/rand/v2)
	// or MinstdLevels, hnswlib's std::default_random_engine, which with
	// hnswlib's seed (100) and insertion order draws the very same levels.
	Levels LevelGen
	// Selection is the neighbour-selection rule (default Heuristic).
	Selection Selection
	// KeepPruned fills the slots the heuristic left empty with the nearest
	// pruned candidates (the paper's keepPrunedConnections; pgvector does
	// this, hnswlib and Lucene do not). Default false.
	KeepPruned bool
	// NewNodeDegreeL0 is how many links a new node gets on layer 0. The
	// paper and hnswlib give M (the list can later grow to M0 through
	// reverse links); pgvector and Lucene give M0. Default M.
	NewNodeDegreeL0 int
	// Workers is the number of goroutines AddBatch builds with. 1 is the
	// deterministic mode: the same seed and insertion order give the same
	// graph, byte for byte. Default engine.Cores() (all cores).
	Workers int

	// Codes, when set, makes the graph build and search score with
	// compressed codes (Pair, NewQueryScorer) instead of float32 distances;
	// the float32 vectors are still kept for rescoring by the caller. Not
	// part of String/ParseConfig and not saved: after Load, call
	// [Index.AttachCodes].
	Codes engine.CodeStore
}

// LevelGen names a level generator.
type LevelGen uint8

// The level generators.
const (
	PCGLevels LevelGen = iota
	// MinstdLevels is libstdc++'s std::default_random_engine (minstd_rand0,
	// x ← 16807·x mod 2³¹−1) behind std::uniform_real_distribution<double>
	// (generate_canonical draws twice), as hnswlib's getRandomLevel uses.
	MinstdLevels
)

// String returns "pcg" or "hnswlib".
func (g LevelGen) String() string {
	switch g {
	case PCGLevels:
		return "pcg"
	case MinstdLevels:
		return "hnswlib"
	}
	return fmt.Sprintf("LevelGen(%d)", g)
}

// ParseLevelGen reads "pcg" or "hnswlib".
func ParseLevelGen(s string) (LevelGen, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pcg":
		return PCGLevels, nil
	case "hnswlib", "minstd":
		return MinstdLevels, nil
	}
	return 0, fmt.Errorf("hnsw: unknown level generator %q (want pcg or hnswlib): %w", s, engine.ErrInvalidArgument)
}

// MaxLevels bounds the number of layers (levels 0…MaxLevels-1); the chance
// of a draw reaching it with M = 2 is below 2⁻⁶³.
const MaxLevels = 64

// HnswlibConfig returns the configuration that reproduces hnswlib's
// insertion policy (hnswalg.h, 0.6–0.8): heuristic selection without
// keepPruned, M links for a new node on every layer, lists capped at 2·M on
// layer 0, mL = 1/ln M, ef_construction raised to M, and hnswlib's level
// generator with its default seed 100, so that a single-threaded build
// draws the same levels as hnswlib's for the same insertion order.
func HnswlibConfig(dim int, metric engine.Metric, m, efConstruction int) Config {
	return Config{Dim: dim, Metric: metric, M: m, M0: 2 * m, EfConstruction: efConstruction,
		NewNodeDegreeL0: m, Selection: Heuristic, Seed: 100, Levels: MinstdLevels}
}

// PgvectorConfig returns pgvector 0.8's insertion policy (src/hnswutils.c):
// heuristic with keepPruned, 2·m links for a new node on layer 0.
func PgvectorConfig(dim int, metric engine.Metric, m, efConstruction int) Config {
	return Config{Dim: dim, Metric: metric, M: m, M0: 2 * m, EfConstruction: efConstruction,
		NewNodeDegreeL0: 2 * m, Selection: Heuristic, KeepPruned: true}
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.M == 0 {
		c.M = 16
	}
	if c.M0 == 0 {
		c.M0 = 2 * c.M
	}
	if c.EfConstruction == 0 {
		c.EfConstruction = 200
	}
	if c.EfSearch == 0 {
		c.EfSearch = 40
	}
	if c.LevelMult == 0 && c.M > 1 {
		c.LevelMult = 1 / math.Log(float64(c.M))
	}
	if c.NewNodeDegreeL0 == 0 {
		c.NewNodeDegreeL0 = c.M
	}
	if c.Workers == 0 {
		c.Workers = engine.Cores()
	}
	return c
}

// Validate reports every problem of c at once (after WithDefaults); each
// error wraps engine.ErrInvalidArgument.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("hnsw: %s: %w", fmt.Sprintf(format, args...), engine.ErrInvalidArgument))
	}
	if c.Dim <= 0 {
		bad("Dim must be positive, got %d", c.Dim)
	}
	if !c.Metric.Valid() {
		bad("unknown metric %v", c.Metric)
	}
	if c.M < 2 || c.M > 10000 {
		bad("M must be in 2…10000, got %d", c.M)
	}
	if c.M0 < c.M || c.M0 > 20000 {
		bad("M0 must be in M…20000 (M=%d), got %d", c.M, c.M0)
	}
	if c.EfConstruction < 1 {
		bad("EfConstruction must be positive, got %d", c.EfConstruction)
	}
	if c.EfSearch < 1 {
		bad("EfSearch must be positive, got %d", c.EfSearch)
	}
	if !(c.LevelMult > 0) || math.IsInf(c.LevelMult, 0) {
		bad("LevelMult must be positive and finite, got %v", c.LevelMult)
	}
	if c.Levels != PCGLevels && c.Levels != MinstdLevels {
		bad("unknown level generator %v", c.Levels)
	}
	if c.Selection != Heuristic && c.Selection != Simple {
		bad("unknown selection %v", c.Selection)
	}
	if c.NewNodeDegreeL0 < 1 || c.NewNodeDegreeL0 > c.M0 {
		bad("NewNodeDegreeL0 must be in 1…M0 (M0=%d), got %d", c.M0, c.NewNodeDegreeL0)
	}
	if c.Workers < 1 {
		bad("Workers must be positive, got %d", c.Workers)
	}
	return errors.Join(errs...)
}

// efConstruction is the effective insertion beam (hnswlib: max(efc, M)).
func (c Config) efConstruction() int { return max(c.EfConstruction, c.M) }

// String prints c as space-separated key=value pairs that ParseConfig reads
// back (Codes is not printed).
func (c Config) String() string {
	return fmt.Sprintf("dim=%d metric=%s m=%d m0=%d efc=%d ef=%d mult=%s seed=%d levels=%s selection=%s keeppruned=%t degree0=%d workers=%d",
		c.Dim, c.Metric, c.M, c.M0, c.EfConstruction, c.EfSearch,
		strconv.FormatFloat(c.LevelMult, 'g', -1, 64), c.Seed, c.Levels, c.Selection, c.KeepPruned, c.NewNodeDegreeL0, c.Workers)
}

// ParseConfig reads the form String prints. Keys may come in any order and
// missing keys keep their zero value (the default); it does not validate.
func ParseConfig(s string) (Config, error) {
	var c Config
	var errs []error
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("hnsw: config: %q is not key=value: %w", f, engine.ErrInvalidArgument))
			continue
		}
		var err error
		atoi := func(p *int) { *p, err = strconv.Atoi(v) }
		switch strings.ToLower(k) {
		case "dim":
			atoi(&c.Dim)
		case "metric":
			c.Metric, err = engine.ParseMetric(v)
		case "m":
			atoi(&c.M)
		case "m0":
			atoi(&c.M0)
		case "efc", "efconstruction", "ef_construction":
			atoi(&c.EfConstruction)
		case "ef", "efsearch", "ef_search":
			atoi(&c.EfSearch)
		case "mult", "levelmult":
			c.LevelMult, err = strconv.ParseFloat(v, 64)
		case "seed":
			c.Seed, err = strconv.ParseUint(v, 10, 64)
		case "levels":
			c.Levels, err = ParseLevelGen(v)
		case "selection":
			c.Selection, err = ParseSelection(v)
		case "keeppruned":
			c.KeepPruned, err = strconv.ParseBool(v)
		case "degree0", "newnodedegreel0":
			atoi(&c.NewNodeDegreeL0)
		case "workers":
			atoi(&c.Workers)
		default:
			err = fmt.Errorf("unknown key")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("hnsw: config %q: %v: %w", f, err, engine.ErrInvalidArgument))
		}
	}
	return c, errors.Join(errs...)
}
