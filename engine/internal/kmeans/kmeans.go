package kmeans

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
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
	Workers   int // goroutines for the assignment step; 0 → engine.Cores()
	// NoBounds runs plain Lloyd iterations, scanning every centroid for
	// every point, instead of Hamerly's bounded iteration (same result,
	// more work); for comparison.
	NoBounds bool
}

// String prints the configuration as experiments record it.
func (c Config) String() string {
	return fmt.Sprintf("kmeans{K:%d MaxIter:%d Tol:%g Seed:%d MaxPointsPerCentroid:%d Init:%s Spherical:%t Workers:%d NoBounds:%t}",
		c.K, c.MaxIter, c.Tol, c.Seed, c.MaxPointsPerCentroid, c.Init, c.Spherical, c.Workers, c.NoBounds)
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
		c.Workers = engine.Cores()
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
	return fmt.Errorf("kmeans: config: %v: %w", errs, engine.ErrInvalidArgument)
}

// Model is a trained clustering.
type Model struct {
	Centroids *vec.Matrix // K × Dim
	Iters     int         // Lloyd iterations run
	// Objective is the mean squared distance of training points to their
	// centroid at the last assignment step.
	Objective float64
	Sizes     []int // training points per centroid after the last iteration
	Trained   int   // training points used (after the sample cap)
	Repairs   int   // empty clusters repaired by splitting
	// Computed counts point–centroid distances computed by the
	// assignment steps (N·K per iteration without bounds).
	Computed int64
}

// K returns the number of centroids.
func (m *Model) K() int { return m.Centroids.N }

// Nearest returns the index of the centroid closest to x (squared L2, or
// largest inner product for spherical models, whose centroids are unit) and
// its squared L2 distance.
func (m *Model) Nearest(x []float32) (int, float32, error) {
	if len(x) != m.Centroids.Dim {
		return 0, 0, fmt.Errorf("kmeans: vector has %d components, centroids have %d: %w", len(x), m.Centroids.Dim, engine.ErrDimension)
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
		return fmt.Errorf("kmeans: no vectors to cluster: %w", engine.ErrEmpty)
	}
	if data.Dim <= 0 || data.Stride < data.Dim || len(data.Data) < (data.N-1)*data.Stride+data.Dim {
		return fmt.Errorf("kmeans: matrix shape N=%d Dim=%d Stride=%d does not fit %d floats: %w", data.N, data.Dim, data.Stride, len(data.Data), engine.ErrDimension)
	}
	for i := 0; i < data.N; i++ {
		// NaN and ±Inf are exactly the floats whose exponent bits are all set.
		var bad uint32
		for _, x := range data.Row(i) {
			if math.Float32bits(x)&0x7f800000 == 0x7f800000 {
				bad = 1
			}
		}
		if bad == 0 {
			continue
		}
		for j, x := range data.Row(i) {
			if math.Float32bits(x)&0x7f800000 == 0x7f800000 {
				return fmt.Errorf("kmeans: row %d component %d is %v: %w", i, j, x, engine.ErrInvalidVector)
			}
		}
	}
	return nil
}

// Train runs k-means on data and returns K centroids. It consults
// engine.Context(), as TrainContext does its ctx.
func Train(data *vec.Matrix, cfg Config) (*Model, error) {
	return TrainContext(engine.Context(), data, cfg)
}

// TrainContext is Train that stops when ctx is done: it is checked before
// each Lloyd iteration and each k-means++ seed, and the error wraps
// ctx.Err().
func TrainContext(ctx context.Context, data *vec.Matrix, cfg Config) (*Model, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := CheckData(data); err != nil {
		return nil, err
	}
	if cfg.K > data.N {
		return nil, fmt.Errorf("kmeans: more clusters (%d) than vectors (%d): %w", cfg.K, data.N, engine.ErrInvalidArgument)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	train := rowsOf(data)
	if cfg.MaxPointsPerCentroid > 0 && data.N > cfg.K*cfg.MaxPointsPerCentroid {
		train = sample(train, cfg.K*cfg.MaxPointsPerCentroid, rng)
	}
	return lloyd(ctx, train, data.Dim, cfg, rng)
}

// rowsOf returns views of m's rows (no copy).
func rowsOf(m *vec.Matrix) [][]float32 {
	rows := make([][]float32, m.N)
	for i := range rows {
		rows[i] = m.Row(i)
	}
	return rows
}

// sample draws n distinct rows (partial Fisher–Yates), in the order drawn;
// the rows are views, not copies.
func sample(rows [][]float32, n int, rng *rand.Rand) [][]float32 {
	perm := make([]int32, len(rows))
	for i := range perm {
		perm[i] = int32(i)
	}
	out := make([][]float32, n)
	for i := 0; i < n; i++ {
		j := i + rng.IntN(len(rows)-i)
		perm[i], perm[j] = perm[j], perm[i]
		out[i] = rows[perm[i]]
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
	return assignRows(rowsOf(data), centroids, workers)
}

func assignRows(rows [][]float32, centroids *vec.Matrix, workers int) ([]int32, []float32) {
	if workers <= 0 {
		workers = engine.Cores()
	}
	cn := norms(centroids)
	assign := make([]int32, len(rows))
	dist := make([]float32, len(rows))
	parallel(len(rows), workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := rows[i]
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

func lloyd(ctx context.Context, train [][]float32, dim int, cfg Config, rng *rand.Rand) (*Model, error) {
	n, k := len(train), cfg.K
	cents := vec.NewMatrix(k, dim)
	switch cfg.Init {
	case Random:
		for j, r := range sample(train, k, rng) {
			copy(cents.Row(j), r)
		}
	default:
		if err := plusPlus(ctx, train, cents, cfg.Workers, rng); err != nil {
			return nil, err
		}
	}
	if cfg.Spherical {
		normalizeRows(cents)
	}
	m := &Model{Centroids: cents, Trained: n, Sizes: make([]int, k)}
	// sums and counts track cluster membership incrementally: a point that
	// changes cluster moves its coordinates from one sum to the other, so
	// the update step costs O(changes·dim) instead of O(n·dim).
	sums := make([]float64, k*dim)
	counts := make([]int, k)
	prevAssign := make([]int32, n)
	for i := range prevAssign {
		prevAssign[i] = -1
	}
	scratch := make([]int, k)
	prev := math.Inf(1)
	h := newHamerly(train, k, cfg.Workers)
	old := make([]float32, k*dim)
	for it := 0; it < cfg.MaxIter; it++ {
		if engine.Done(ctx) {
			return nil, fmt.Errorf("kmeans: %w", engine.Stopped(ctx, "Lloyd iterations", it, cfg.MaxIter))
		}
		var changed int
		if cfg.NoBounds {
			assign, dist := assignRows(train, cents, cfg.Workers)
			copy(h.assign, assign)
			for i, d := range dist {
				h.upper[i] = float32(math.Sqrt(float64(d)))
			}
			h.computed = int64(n) * int64(k)
		} else {
			h.step(cents, it == 0)
		}
		var obj float64
		for _, u := range h.upper {
			obj += float64(u) * float64(u)
		}
		obj /= float64(n)
		m.Objective = obj
		m.Iters = it + 1
		m.Computed += h.computed
		h.computed = 0
		// Update step, in row order so the sums are deterministic.
		copy(old, cents.Data)
		for i, a := range h.assign {
			p := prevAssign[i]
			if p == a {
				continue
			}
			changed++
			x := train[i]
			if p >= 0 {
				counts[p]--
				s := sums[int(p)*dim : int(p)*dim+dim]
				for d, v := range x {
					s[d] -= float64(v)
				}
			}
			counts[a]++
			s := sums[int(a)*dim : int(a)*dim+dim]
			for d, v := range x {
				s[d] += float64(v)
			}
			prevAssign[i] = a
		}
		copy(m.Sizes, counts)
		for c := 0; c < k; c++ {
			if counts[c] == 0 {
				continue
			}
			inv := 1 / float64(counts[c])
			row := cents.Row(c)
			for d := range row {
				row[d] = float32(sums[c*dim+d] * inv)
			}
		}
		copy(scratch, counts) // repair splits sizes heuristically: not the true counts
		m.Repairs += repairEmpty(cents, scratch)
		if cfg.Spherical {
			normalizeRows(cents)
		}
		h.moved(old, cents)
		if cfg.Tol > 0 && (changed == 0 || (prev < math.Inf(1) && (prev-obj) <= cfg.Tol*prev)) {
			break
		}
		prev = obj
	}
	return m, nil
}

// hamerly holds the bounds of the accelerated Lloyd iteration (G. Hamerly,
// "Making k-means even faster", SDM 2010; with Elkan's per-centroid lower
// bounds when they fit in memory): per point an upper bound on the
// distance to its centroid and lower bounds on the distances to the other
// centroids. A point whose upper bound is below its lower bound and half
// the distance from its centroid to the nearest other centroid cannot
// change cluster and is skipped; a centroid whose lower bound (or half
// distance to the point's centroid) exceeds the upper bound is not scored.
// The result is Lloyd's, with most distance computations of later
// iterations avoided.
type hamerly struct {
	x      [][]float32
	xx     []float32 // ‖x‖²
	assign []int32
	upper  []float32 // ≥ ‖x − c_assign‖
	lower  []float32 // ≤ min over c ≠ assign of ‖x − c‖
	half   []float32 // half the distance to the nearest other centroid
	// Elkan's per-centroid lower bounds (N·K, when they fit elkanLimit):
	// lowers[i*K+j] ≤ ‖x_i − c_j‖; halfCC[j*K+t] = ‖c_j − c_t‖/2.
	lowers   []float32
	halfCC   []float32
	drift    []float32
	cn       []float32
	workers  int
	computed int64 // point–centroid distances computed in the last step
}

func newHamerly(x [][]float32, k, workers int) *hamerly {
	n := len(x)
	h := &hamerly{x: x, xx: make([]float32, n), assign: make([]int32, n), upper: make([]float32, n),
		lower: make([]float32, n), half: make([]float32, k), drift: make([]float32, k), cn: make([]float32, k), workers: workers}
	for i, r := range x {
		h.xx[i] = f32.Dot(r, r)
	}
	if n*k <= elkanLimit {
		h.lowers = make([]float32, n*k)
		h.halfCC = make([]float32, k*k)
	}
	return h
}

// elkanLimit caps the N·K per-centroid lower bounds of Elkan's iteration
// (C. Elkan, "Using the triangle inequality to accelerate k-means", ICML
// 2003) at 128 MB; beyond it Hamerly's single lower bound is used.
const elkanLimit = 32 << 20

// boundSlack keeps the bounds conservative against the rounding of
// distances computed as ‖x‖² + ‖c‖² − 2⟨x, c⟩.
const boundSlack = 1e-5

func sqrt32(v float32) float32 {
	if v <= 0 {
		return 0
	}
	return float32(math.Sqrt(float64(v)))
}

// step assigns every point, scanning all centroids only where the bounds
// allow a change; it returns the number of points whose cluster changed.
func (h *hamerly) step(c *vec.Matrix, first bool) int {
	k := c.N
	for j := 0; j < k; j++ {
		r := c.Row(j)
		h.cn[j] = f32.Dot(r, r)
	}
	if !first {
		for j := 0; j < k; j++ {
			best := float32(math.Inf(1))
			for t := 0; t < k; t++ {
				if t == j {
					continue
				}
				d := sqrt32(h.cn[j]+h.cn[t]-2*f32.Dot(c.Row(j), c.Row(t))) / 2
				if h.halfCC != nil {
					h.halfCC[j*k+t] = d
				}
				best = min(best, d)
			}
			h.half[j] = best
		}
	}
	nc := (len(h.x) + chunk - 1) / chunk
	changed := make([]int32, nc)
	computed := make([]int64, nc)
	parallel(len(h.x), h.workers, func(lo, hi int) {
		ci := lo / chunk
		for i := lo; i < hi; i++ {
			x := h.x[i]
			if !first {
				// The distance to the own centroid is always recomputed
				// (1/K of a full scan): it keeps the upper bound tight and
				// the reported objective exact.
				a := h.assign[i]
				bound := max(h.half[a], h.lower[i])
				h.upper[i] = sqrt32(h.xx[i] + h.cn[a] - 2*f32.Dot(x, c.Row(int(a))))
				computed[ci]++
				if h.upper[i]*(1+boundSlack)+boundSlack <= bound {
					continue
				}
				if h.lowers != nil {
					moved, nd := h.elkanPoint(i, x, c)
					computed[ci] += int64(nd)
					if moved {
						changed[ci]++
					}
					continue
				}
			}
			computed[ci] += int64(k)
			var b int
			var u, l2 float32
			if h.lowers != nil {
				// Exact distances to every centroid become the bounds.
				h.fillLowers(i, x, c)
				l := h.lowers[i*k : i*k+k]
				u, l2 = float32(math.Inf(1)), float32(math.Inf(1))
				for j, d := range l {
					if d < u {
						b, u, l2 = j, d, u
					} else if d < l2 {
						l2 = d
					}
				}
			} else {
				var d1, d2 float32
				b, d1, d2 = nearest2(x, c, h.cn)
				u, l2 = sqrt32(h.xx[i]+d1), sqrt32(h.xx[i]+d2)
			}
			if first || int32(b) != h.assign[i] {
				changed[ci]++
			}
			h.assign[i] = int32(b)
			h.upper[i] = u
			h.lower[i] = l2
		}
	})
	total := 0
	for ci := range changed {
		total += int(changed[ci])
		h.computed += computed[ci]
	}
	return total
}

// fillLowers sets point i's per-centroid bounds to its exact distances
// (after a full scan; the distances are recomputed four at a time).
func (h *hamerly) fillLowers(i int, x []float32, c *vec.Matrix) {
	k := c.N
	l := h.lowers[i*k : i*k+k]
	row := func(j int) []float32 { return c.Data[j*c.Stride : j*c.Stride+c.Dim] }
	j := 0
	for ; j+4 <= k; j += 4 {
		e0, e1, e2, e3 := f32.Dot4(x, row(j), row(j+1), row(j+2), row(j+3))
		l[j] = sqrt32(h.xx[i] + h.cn[j] - 2*e0)
		l[j+1] = sqrt32(h.xx[i] + h.cn[j+1] - 2*e1)
		l[j+2] = sqrt32(h.xx[i] + h.cn[j+2] - 2*e2)
		l[j+3] = sqrt32(h.xx[i] + h.cn[j+3] - 2*e3)
	}
	for ; j < k; j++ {
		l[j] = sqrt32(h.xx[i] + h.cn[j] - 2*f32.Dot(x, row(j)))
	}
}

// elkanPoint reassigns point i with Elkan's per-centroid bounds: centroid
// j is skipped when the current distance u to the assigned centroid a
// satisfies u ≤ l(x, j) or u ≤ ‖c_a − c_j‖/2. upper[i] is exact on entry.
// It reports whether the point changed cluster and how many distances it
// computed.
func (h *hamerly) elkanPoint(i int, x []float32, c *vec.Matrix) (bool, int) {
	k := c.N
	l := h.lowers[i*k : i*k+k]
	a := int(h.assign[i])
	u := h.upper[i]
	l[a] = u
	start := a
	n := 0
	second := float32(math.Inf(1))
	for j := 0; j < k; j++ {
		if j == a {
			continue
		}
		slack := u*(1+boundSlack) + boundSlack
		if slack <= l[j] || slack <= h.halfCC[a*k+j] {
			second = min(second, l[j])
			continue
		}
		d := sqrt32(h.xx[i] + h.cn[j] - 2*f32.Dot(x, c.Row(j)))
		n++
		l[j] = d
		// Lloyd's tie rule: the lowest index wins among equal distances.
		if d < u || (d == u && j < a) {
			second = min(second, u)
			a, u = j, d
		} else {
			second = min(second, d)
		}
	}
	h.assign[i] = int32(a)
	h.upper[i] = u
	h.lower[i] = second
	return a != start, n
}

// moved updates the bounds after the centroids moved from old to c.
func (h *hamerly) moved(old []float32, c *vec.Matrix) {
	var p1, p2 float32
	r := -1
	for j := 0; j < c.N; j++ {
		h.drift[j] = sqrt32(f32.L2Sq(old[j*c.Dim:(j+1)*c.Dim], c.Row(j)))
		switch d := h.drift[j]; {
		case d > p1:
			p2, p1, r = p1, d, j
		case d > p2:
			p2 = d
		}
	}
	if h.lowers != nil {
		k := c.N
		for i := range h.assign {
			l := h.lowers[i*k : i*k+k]
			for j, d := range h.drift {
				l[j] -= d
			}
		}
	}
	for i := range h.assign {
		a := int(h.assign[i])
		h.upper[i] += h.drift[a]
		if a == r {
			h.lower[i] -= p2
		} else {
			h.lower[i] -= p1
		}
	}
}

// nearest2 is nearest that also returns the second-smallest value.
func nearest2(x []float32, c *vec.Matrix, cn []float32) (int, float32, float32) {
	best := 0
	d1, d2 := float32(math.Inf(1)), float32(math.Inf(1))
	row := func(j int) []float32 { return c.Data[j*c.Stride : j*c.Stride+c.Dim] }
	try := func(j int, d float32) {
		if d < d1 {
			d2, d1, best = d1, d, j
		} else if d < d2 {
			d2 = d
		}
	}
	j := 0
	for ; j+4 <= c.N; j += 4 {
		e0, e1, e2, e3 := f32.Dot4(x, row(j), row(j+1), row(j+2), row(j+3))
		try(j, cn[j]-2*e0)
		try(j+1, cn[j+1]-2*e1)
		try(j+2, cn[j+2]-2*e2)
		try(j+3, cn[j+3]-2*e3)
	}
	for ; j < c.N; j++ {
		try(j, cn[j]-2*f32.Dot(x, row(j)))
	}
	return best, d1, d2
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
func plusPlus(ctx context.Context, train [][]float32, cents *vec.Matrix, workers int, rng *rand.Rand) error {
	n := len(train)
	minD := make([]float64, n)
	first := rng.IntN(n)
	copy(cents.Row(0), train[first])
	xx := make([]float32, n)
	for i, r := range train {
		xx[i] = f32.Dot(r, r)
	}
	// ‖x − c‖² = ‖x‖² + ‖c‖² − 2⟨x, c⟩, four points per kernel call with
	// the new centroid as the shared operand (f32.Dot4).
	update := func(c []float32) {
		cc := f32.Dot(c, c)
		try := func(i int, dot float32) {
			d := float64(max(xx[i]+cc-2*dot, 0))
			if d < minD[i] {
				minD[i] = d
			}
		}
		parallel(n, workers, func(lo, hi int) {
			i := lo
			for ; i+4 <= hi; i += 4 {
				d0, d1, d2, d3 := f32.Dot4(c, train[i], train[i+1], train[i+2], train[i+3])
				try(i, d0)
				try(i+1, d1)
				try(i+2, d2)
				try(i+3, d3)
			}
			for ; i < hi; i++ {
				try(i, f32.Dot(c, train[i]))
			}
		})
	}
	for i := range minD {
		minD[i] = math.Inf(1)
	}
	update(cents.Row(0))
	for j := 1; j < cents.N; j++ {
		if engine.Done(ctx) {
			return fmt.Errorf("kmeans: %w", engine.Stopped(ctx, "k-means++ seeding", j, cents.N))
		}
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
		copy(cents.Row(j), train[pick])
		update(cents.Row(j))
	}
	return nil
}
