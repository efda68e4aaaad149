package dataset

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// Config describes a generated data set. The zero value is the Spring AI VectorStore
// article's data set: see the field defaults.
type Config struct {
	N        int     // base vectors; default 30,000
	Queries  int     // query vectors, drawn like the base but not from it; default 100
	Dim      int     // dimensions; default 384
	Clusters int     // Gaussian clusters; default 40
	Spread   float64 // noise norm relative to the unit cluster centre; default DefaultSpread
	Seed     uint64  // the generator seed; default 0 (the zero seed is a seed like any other)
}

// The Spring AI VectorStore article's data set.
const (
	DefaultN        = 30000
	DefaultQueries  = 100
	DefaultDim      = 384
	DefaultClusters = 40
	// DefaultSpread is the expected norm of a point's Gaussian offset from its
	// unit cluster centre, before the point is normalised. See the package
	// doc for how it was chosen.
	DefaultSpread = 1.0
	// Categories is the number of category values (c0…c7); category =
	// cluster mod Categories, so 40 clusters give 5 clusters per category.
	Categories = 8
)

// generatorVersion changes whenever Generate would produce different
// numbers for the same Config, so cached truth from an older generator is
// never reused. Part of the truth cache key; never reuse a value.
const generatorVersion = 1

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	if c.N == 0 {
		c.N = DefaultN
	}
	if c.Queries == 0 {
		c.Queries = DefaultQueries
	}
	if c.Dim == 0 {
		c.Dim = DefaultDim
	}
	if c.Clusters == 0 {
		c.Clusters = DefaultClusters
	}
	if c.Spread == 0 {
		c.Spread = DefaultSpread
	}
	return c
}

// Validate reports every invalid field at once (call it on WithDefaults).
func (c Config) Validate() error {
	var errs []string
	if c.N < 1 {
		errs = append(errs, fmt.Sprintf("n must be ≥ 1, got %d", c.N))
	}
	if c.Queries < 1 {
		errs = append(errs, fmt.Sprintf("queries must be ≥ 1, got %d", c.Queries))
	}
	if c.Dim < 1 || c.Dim > 1<<16 {
		errs = append(errs, fmt.Sprintf("dim must be in 1…65536, got %d", c.Dim))
	}
	if c.Clusters < 1 {
		errs = append(errs, fmt.Sprintf("clusters must be ≥ 1, got %d", c.Clusters))
	}
	if !(c.Spread > 0) || math.IsInf(c.Spread, 0) {
		errs = append(errs, fmt.Sprintf("spread must be finite and > 0, got %v", c.Spread))
	}
	if c.N > 0 && c.Dim > 0 && int64(c.N)*int64(c.Dim) > 1<<34 {
		errs = append(errs, fmt.Sprintf("n×dim = %d×%d is too large", c.N, c.Dim))
	}
	if len(errs) > 0 {
		return fmt.Errorf("dataset: config: %s: %w", strings.Join(errs, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the config in the form ParseConfig reads:
// "n=30000 queries=100 dim=384 clusters=40 spread=0.75 seed=0".
func (c Config) String() string {
	return fmt.Sprintf("n=%d queries=%d dim=%d clusters=%d spread=%s seed=%d",
		c.N, c.Queries, c.Dim, c.Clusters, strconv.FormatFloat(c.Spread, 'g', -1, 64), c.Seed)
}

// ParseConfig reads the form String prints; missing keys keep their zero
// value (so WithDefaults fills them).
func ParseConfig(s string) (Config, error) {
	var c Config
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return c, fmt.Errorf("dataset: config: %q is not key=value: %w", f, engine.ErrInvalidArgument)
		}
		var err error
		switch k {
		case "n":
			c.N, err = strconv.Atoi(v)
		case "queries":
			c.Queries, err = strconv.Atoi(v)
		case "dim":
			c.Dim, err = strconv.Atoi(v)
		case "clusters":
			c.Clusters, err = strconv.Atoi(v)
		case "spread":
			c.Spread, err = strconv.ParseFloat(v, 64)
		case "seed":
			c.Seed, err = strconv.ParseUint(v, 10, 64)
		default:
			return c, fmt.Errorf("dataset: config: unknown key %q: %w", k, engine.ErrInvalidArgument)
		}
		if err != nil {
			return c, fmt.Errorf("dataset: config: %s: %v: %w", k, err, engine.ErrInvalidArgument)
		}
	}
	return c, nil
}

// Doc is the metadata of one document.
type Doc struct {
	Cluster  int    // the cluster the vector was drawn from
	Category string // "c0"…"c7": cluster mod 8
	Year     int    // 2015…2025, skewed so that ≥ 2022 is 35.4 %
	Region   string // one of Regions, independent of the cluster
}

// Regions are the region values, drawn with weights 40/30/20/10 %.
var Regions = []string{"eu", "us", "apac", "latam"}

var regionWeights = []float64{0.40, 0.30, 0.20, 0.10}

// yearWeights give the probability of years 2015…2025. Years ≥ 2022 sum to
// 0.354, so with 1/8 of documents in c3 the article's filter
// category == 'c3' && year >= 2022 matches 4.4 % (1,328 of 30,000 in the
// article).
var yearWeights = []float64{
	0.080, 0.085, 0.090, 0.095, 0.095, 0.100, 0.101, // 2015…2021
	0.095, 0.090, 0.087, 0.082, // 2022…2025
}

// FirstYear is the earliest year; years run FirstYear…FirstYear+10.
const FirstYear = 2015

// Dataset is a generated (or loaded) data set: base vectors, queries and
// per-document metadata. Generated vectors are unit length.
type Dataset struct {
	Config  Config
	Base    *vec.Matrix // Config.N × Config.Dim
	Queries *vec.Matrix // Config.Queries × Config.Dim
	Meta    []Doc       // one per base row; nil for data read from files
	// QueryClusters is the cluster each query was drawn from.
	QueryClusters []int
	// Centers are the unit cluster centres (Clusters × Dim).
	Centers *vec.Matrix
}

// Random streams: one PCG stream per part, so that changing the number of
// queries does not change the base vectors and vice versa.
const (
	streamCenters = 0x9e3779b97f4a7c15 + iota
	streamBase
	streamQueries
	streamMeta
)

// Generate draws the data set cfg describes (zero fields take defaults):
// Clusters unit centres uniform on the sphere; each vector picks a cluster
// uniformly, adds an isotropic Gaussian offset of expected norm Spread and
// is normalised to unit length. Queries are drawn the same way from their
// own random stream. Metadata: category from the cluster, year and region
// from their weights. The same Config gives the same bytes.
//
// It consults engine.Context(), as GenerateContext does its ctx.
func Generate(cfg Config) (*Dataset, error) {
	return GenerateContext(engine.Context(), cfg)
}

// GenerateContext is Generate that stops when ctx is done (checked every
// 1024 vectors), with an error wrapping ctx.Err().
func GenerateContext(ctx context.Context, cfg Config) (*Dataset, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ds := &Dataset{Config: cfg}
	rc := rand.New(rand.NewPCG(cfg.Seed, streamCenters))
	ds.Centers = vec.NewMatrix(cfg.Clusters, cfg.Dim)
	for j := 0; j < cfg.Clusters; j++ {
		c := ds.Centers.Row(j)
		for {
			for d := range c {
				c[d] = float32(rc.NormFloat64())
			}
			if vec.Normalize(c) == nil {
				break
			}
		}
	}
	var clusters []int
	var err error
	if ds.Base, clusters, err = ds.draw(ctx, rand.New(rand.NewPCG(cfg.Seed, streamBase)), cfg.N, "base"); err != nil {
		return nil, err
	}
	if ds.Queries, ds.QueryClusters, err = ds.draw(ctx, rand.New(rand.NewPCG(cfg.Seed, streamQueries)), cfg.Queries, "queries"); err != nil {
		return nil, err
	}

	rm := rand.New(rand.NewPCG(cfg.Seed, streamMeta))
	ds.Meta = make([]Doc, cfg.N)
	for i := range ds.Meta {
		cl := clusters[i]
		ds.Meta[i] = Doc{
			Cluster:  cl,
			Category: "c" + strconv.Itoa(cl%Categories),
			Year:     FirstYear + pick(rm, yearWeights),
			Region:   Regions[pick(rm, regionWeights)],
		}
	}
	return ds, nil
}

// draw returns n unit vectors and their clusters.
func (ds *Dataset) draw(ctx context.Context, r *rand.Rand, n int, what string) (*vec.Matrix, []int, error) {
	cfg := ds.Config
	m := vec.NewMatrix(n, cfg.Dim)
	cl := make([]int, n)
	sigma := cfg.Spread / math.Sqrt(float64(cfg.Dim))
	for i := 0; i < n; i++ {
		if i%1024 == 0 && engine.Done(ctx) {
			return nil, nil, fmt.Errorf("dataset: %w", engine.Stopped(ctx, "generating the "+what+" vectors", i, n))
		}
		j := r.IntN(cfg.Clusters)
		cl[i] = j
		c := ds.Centers.Row(j)
		row := m.Row(i)
		for {
			for d := range row {
				row[d] = c[d] + float32(sigma*r.NormFloat64())
			}
			if vec.Normalize(row) == nil {
				break
			}
		}
	}
	return m, cl, nil
}

// pick draws an index with the given weights (summing to 1).
func pick(r *rand.Rand, w []float64) int {
	u := r.Float64()
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// Matching returns, in increasing order, the ids of the documents whose
// metadata satisfies pred (the matching set of a filter). It returns nil
// when the data set has no metadata.
func (ds *Dataset) Matching(pred func(Doc) bool) []engine.ID {
	var ids []engine.ID
	for i, d := range ds.Meta {
		if pred(d) {
			ids = append(ids, engine.ID(i))
		}
	}
	return ids
}

// ArticleFilter is the Spring AI VectorStore article's filter,
// category == 'c3' && year >= 2022.
func ArticleFilter(d Doc) bool { return d.Category == "c3" && d.Year >= 2022 }
