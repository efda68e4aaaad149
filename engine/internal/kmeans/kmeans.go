package kmeans

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/vec"
)

// Init names how the first centroids are chosen.
type Init uint8

const (
	// PlusPlus is k-means++ seeding: each next centroid is drawn with
	// probability proportional to its squared distance to the nearest
	// centroid chosen so far (Arthur & Vassilvitskii 2007).
	PlusPlus Init = iota
	// Random draws K distinct training points, as FAISS does.
	Random
)

func (i Init) String() string {
	switch i {
	case PlusPlus:
		return "kmeans++"
	case Random:
		return "random"
	}
	return fmt.Sprintf("Init(%d)", i)
}

// Defaults, after faiss/Clustering.h (ClusteringParameters).
const (
	DefaultMaxIter              = 25
	DefaultTol                  = 1e-4
	DefaultMaxPointsPerCentroid = 256
	// splitEps is FAISS's EPS for the symmetric perturbation of a split
	// centroid (Clustering.cpp: "#define EPS (1 / 1024.)").
	splitEps = 1.0 / 1024
)

// Config parameterises Train. Zero fields take the defaults documented on
// each field.
type Config struct {
	K       int     // number of centroids; required, 1 ≤ K ≤ number of vectors
	MaxIter int     // Lloyd iterations at most; 0 → 25 (FAISS niter)
	Tol     float64 // stop when the objective improves by less than this fraction; 0 → 1e-4, < 0 → always run MaxIter
	Seed    uint64  // seeds sampling, initialisation and repair
	// MaxPointsPerCentroid caps the training sample at K·MaxPointsPerCentroid
	// vectors, drawn without replacement; 0 → 256 (FAISS), < 0 → no cap.
	MaxPointsPerCentroid int
	Init                 Init // PlusPlus (default) or Random
	// Spherical renormalises centroids to unit length after every update
	// (FAISS's spherical option), for cosine and dot-product data.
	Spherical bool
	Workers   int // goroutines for the assignment step; 0 → GOMAXPROCS
}

// String prints the configuration as experiments record it.
func (c Config) String() string {
	return fmt.Sprintf("kmeans{K:%d MaxIter:%d Tol:%g Seed:%d MaxPointsPerCentroid:%d Init:%s Spherical:%t Workers:%d}",
		c.K, c.MaxIter, c.Tol, c.Seed, c.MaxPointsPerCentroid, c.Init, c.Spherical, c.Workers)
}

// WithDefaults returns c with zero fields filled.
func (c Config) WithDefaults() Config {
	if c.MaxIter == 0 {
		c.MaxIter = DefaultMaxIter
	}
	if c.Tol == 0 {
		c.Tol = DefaultTol
	}
	if c.MaxPointsPerCentroid == 0 {
		c.MaxPointsPerCentroid = DefaultMaxPointsPerCentroid
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// Validate reports every invalid field at once.
func (c Config) Validate() error {
	var errs []string
	if c.K < 1 {
		errs = append(errs, fmt.Sprintf("K must be ≥ 1, got %d", c.K))
	}
	if c.MaxIter < 0 {
		errs = append(errs, fmt.Sprintf("MaxIter must be ≥ 0, got %d", c.MaxIter))
	}
	if math.IsNaN(c.Tol) {
		errs = append(errs, "Tol is NaN")
	}
	if c.Init > Random {
		errs = append(errs, fmt.Sprintf("unknown Init %d", c.Init))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: kmeans config: %v", engine.ErrInvalidArgument, errs)
}

// Model is a trained clustering.
type Model struct {
	Centroids *vec.Matrix // K × Dim
	Iters     int         // Lloyd iterations run
	Objective float64     // mean squared distance of training points to their centroid
	Sizes     []int       // training points per centroid after the last iteration
	Trained   int         // training points used (after the sample cap)
	Repairs   int         // empty clusters repaired by splitting
}

// K returns the number of centroids.
func (m *Model) K() int { return m.Centroids.N }

// Nearest returns the index of the centroid closest to x (squared L2, or
// largest inner product for spherical models, whose centroids are unit) and
// its squared L2 distance.
func (m *Model) Nearest(x []float32) (int, float32, error) {
	if len(x) != m.Centroids.Dim {
		return 0, 0, fmt.Errorf("%w: vector has %d components, centroids have %d", engine.ErrDimension, len(x), m.Centroids.Dim)
	}
	if err := engine.CheckVector(x, len(x), engine.L2); err != nil {
		return 0, 0, err
	}
	cn := norms(m.Centroids)
	j, d := nearest(x, m.Centroids, cn)
	return j, d + f32.Dot(x, x), nil
}

// CheckData validates a training matrix: non-empty, consistent shape and
// finite components. The error names the first bad row and component.
func CheckData(data *vec.Matrix) error {
	if data == nil || data.N == 0 {
		return fmt.Errorf("%w: no vectors to cluster", engine.ErrEmpty)
	}
	if data.Dim <= 0 || data.Stride < data.Dim || len(data.Data) < (data.N-1)*data.Stride+data.Dim {
		return fmt.Errorf("%w: matrix shape N=%d Dim=%d Stride=%d does not fit %d floats", engine.ErrDimension, data.N, data.Dim, data.Stride, len(data.Data))
	}
	for i := 0; i < data.N; i++ {
		for j, x := range data.Row(i) {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("%w: row %d component %d is %v", engine.ErrInvalidVector, i, j, x)
			}
		}
	}
	return nil
}

// Train runs k-means on data and returns K centroids.
func Train(data *vec.Matrix, cfg Config) (*Model, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := CheckData(data); err != nil {
		return nil, err
	}
	if cfg.K > data.N {
		return nil, fmt.Errorf("%w: more clusters (%d) than vectors (%d)", engine.ErrInvalidArgument, cfg.K, data.N)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	train := data
	if cfg.MaxPointsPerCentroid > 0 && data.N > cfg.K*cfg.MaxPointsPerCentroid {
		train = sample(data, cfg.K*cfg.MaxPointsPerCentroid, rng)
	}
	return lloyd(train, cfg, rng), nil
}

// sample draws n distinct rows of data (partial Fisher–Yates), in the order drawn.
func sample(data *vec.Matrix, n int, rng *rand.Rand) *vec.Matrix {
	perm := make([]int32, data.N)
	for i := range perm {
		perm[i] = int32(i)
	}
	out := vec.NewMatrix(n, data.Dim)
	for i := 0; i < n; i++ {
		j := i + rng.IntN(data.N-i)
		perm[i], perm[j] = perm[j], perm[i]
		copy(out.Row(i), data.Row(int(perm[i])))
	}
	return out
}

func norms(c *vec.Matrix) []float32 {
	cn := make([]float32, c.N)
	for j := range cn {
		r := c.Row(j)
		cn[j] = f32.Dot(r, r)
	}
	return cn
}

// nearest returns argmin_j ‖c_j‖² − 2⟨x, c_j⟩ and that value (the squared
// distance minus ‖x‖²). Ties go to the lowest index.
func nearest(x []float32, c *vec.Matrix, cn []float32) (int, float32) {
	best, bd := 0, float32(math.Inf(1))
	row := func(j int) []float32 { return c.Data[j*c.Stride : j*c.Stride+c.Dim] }
	j := 0
	// Four centroids per kernel call: the point is loaded once for four
	// dot products (f32.Dot4).
	for ; j+4 <= c.N; j += 4 {
		d0, d1, d2, d3 := f32.Dot4(x, row(j), row(j+1), row(j+2), row(j+3))
		for t, d := range [4]float32{cn[j] - 2*d0, cn[j+1] - 2*d1, cn[j+2] - 2*d2, cn[j+3] - 2*d3} {
			if d < bd {
				best, bd = j+t, d
			}
		}
	}
	for ; j < c.N; j++ {
		d := cn[j] - 2*f32.Dot(x, row(j))
		if d < bd {
			best, bd = j, d
		}
	}
	return best, bd
}

// chunk is the fixed unit of parallel work, so results do not depend on
// the number of workers.
const chunk = 256

// parallel runs fn over [0, n) in fixed chunks on up to workers goroutines.
func parallel(n, workers int, fn func(lo, hi int)) {
	nc := (n + chunk - 1) / chunk
	if workers > nc {
		workers = nc
	}
	if workers <= 1 {
		for lo := 0; lo < n; lo += chunk {
			fn(lo, min(lo+chunk, n))
		}
		return
	}
	var next sync.Mutex
	ci := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				c := ci
				ci++
				next.Unlock()
				if c >= nc {
					return
				}
				lo := c * chunk
				fn(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

// AssignAll returns the nearest centroid of every row of data and the
// squared L2 distance to it, computed on workers goroutines.
func AssignAll(data, centroids *vec.Matrix, workers int) ([]int32, []float32) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	cn := norms(centroids)
	assign := make([]int32, data.N)
	dist := make([]float32, data.N)
	parallel(data.N, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := data.Row(i)
			j, d := nearest(x, centroids, cn)
			assign[i] = int32(j)
			d += f32.Dot(x, x)
			if d < 0 {
				d = 0
			}
			dist[i] = d
		}
	})
	return assign, dist
}

func lloyd(train *vec.Matrix, cfg Config, rng *rand.Rand) *Model {
	n, dim, k := train.N, train.Dim, cfg.K
	cents := vec.NewMatrix(k, dim)
	switch cfg.Init {
	case Random:
		s := sample(train, k, rng)
		copy(cents.Data, s.Data)
	default:
		plusPlus(train, cents, cfg.Workers, rng)
	}
	if cfg.Spherical {
		normalizeRows(cents)
	}
	m := &Model{Centroids: cents, Trained: n, Sizes: make([]int, k)}
	sums := make([]float64, k*dim)
	prev := math.Inf(1)
	for it := 0; it < cfg.MaxIter; it++ {
		assign, dist := AssignAll(train, cents, cfg.Workers)
		var obj float64
		for _, d := range dist {
			obj += float64(d)
		}
		obj /= float64(n)
		m.Objective = obj
		m.Iters = it + 1
		// Update step, sequential in row order so the sums are deterministic.
		clear(sums)
		clear(m.Sizes)
		for i := 0; i < n; i++ {
			c := int(assign[i])
			m.Sizes[c]++
			s := sums[c*dim : c*dim+dim]
			for d, x := range train.Row(i) {
				s[d] += float64(x)
			}
		}
		for c := 0; c < k; c++ {
			if m.Sizes[c] == 0 {
				continue
			}
			inv := 1 / float64(m.Sizes[c])
			row := cents.Row(c)
			for d := range row {
				row[d] = float32(sums[c*dim+d] * inv)
			}
		}
		m.Repairs += repairEmpty(cents, m.Sizes)
		if cfg.Spherical {
			normalizeRows(cents)
		}
		if cfg.Tol > 0 && prev < math.Inf(1) && (prev-obj) <= cfg.Tol*prev {
			break
		}
		prev = obj
	}
	return m
}

// repairEmpty gives every empty cluster half of the largest one: the
// largest centroid is copied and both copies are pushed apart by a relative
// ±1/1024 per component (faiss/Clustering.cpp split_clusters, which picks
// the donor at random; we take the largest so the repair is deterministic).
func repairEmpty(cents *vec.Matrix, sizes []int) int {
	repairs := 0
	for ci := range sizes {
		if sizes[ci] != 0 {
			continue
		}
		cj := 0
		for j := range sizes {
			if sizes[j] > sizes[cj] {
				cj = j
			}
		}
		if sizes[cj] < 2 {
			return repairs
		}
		a, b := cents.Row(ci), cents.Row(cj)
		copy(a, b)
		for d := range a {
			if d%2 == 0 {
				a[d] *= 1 + splitEps
				b[d] *= 1 - splitEps
			} else {
				a[d] *= 1 - splitEps
				b[d] *= 1 + splitEps
			}
		}
		sizes[ci] = sizes[cj] / 2
		sizes[cj] -= sizes[ci]
		repairs++
	}
	return repairs
}

func normalizeRows(m *vec.Matrix) {
	for i := 0; i < m.N; i++ {
		_ = vec.Normalize(m.Row(i)) // a zero centroid stays zero
	}
}

// plusPlus fills cents with k-means++ seeds drawn from train.
func plusPlus(train, cents *vec.Matrix, workers int, rng *rand.Rand) {
	n := train.N
	minD := make([]float64, n)
	first := rng.IntN(n)
	copy(cents.Row(0), train.Row(first))
	update := func(c []float32) {
		parallel(n, workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				d := float64(f32.L2Sq(train.Row(i), c))
				if d < minD[i] {
					minD[i] = d
				}
			}
		})
	}
	for i := range minD {
		minD[i] = math.Inf(1)
	}
	update(cents.Row(0))
	for j := 1; j < cents.N; j++ {
		var total float64
		for _, d := range minD {
			total += d
		}
		pick := -1
		if total > 0 {
			r := rng.Float64() * total
			for i, d := range minD {
				r -= d
				if r < 0 {
					pick = i
					break
				}
			}
			if pick < 0 { // rounding: take the last point with weight
				for i := n - 1; i >= 0; i-- {
					if minD[i] > 0 {
						pick = i
						break
					}
				}
			}
		} else {
			pick = rng.IntN(n) // all points coincide with a centroid
		}
		copy(cents.Row(j), train.Row(pick))
		update(cents.Row(j))
	}
}
