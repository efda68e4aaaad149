package quant

import (
	"fmt"
	"math"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/internal/kmeans"
	"github.com/veclab/veclab/engine/vec"
)

// PQ is product quantization (Jégou, Douze & Schmid, "Product quantization
// for nearest neighbor search", IEEE TPAMI 33(1), 2011, §II–III): a vector
// of dim components is cut into M sub-vectors of dim/M consecutive
// components, each sub-space has its own codebook of 2^Bits centroids
// learnt by k-means on the training sub-vectors, and a vector's code is the
// index of the nearest centroid in each sub-space, one byte per sub-space.
//
// A query is not quantized (the paper's asymmetric distance computation,
// ADC, §III-A): [PQ.EncodeQuery] writes its distance table — for each
// sub-space j and centroid c, the distance between the query's j-th
// sub-vector and c — and a code's distance is the sum of M table entries.
// Under L2 the entries are squared distances, so the sum is ‖q − x̂‖² for
// the reconstruction x̂; under Dot they are −⟨q_j, c⟩, the sum −⟨q, x̂⟩
// (FAISS's METRIC_INNER_PRODUCT tables, faiss/impl/ProductQuantizer.cpp
// compute_inner_prod_table); under Cosine 1 − ⟨q, x̂⟩ of unit q. Two codes
// compare symmetrically (SDC, §III-A) by the distance between their
// reconstructions, which is [PQ.CodeDistance].
//
// Training follows faiss/impl/ProductQuantizer.cpp (train, the default
// Train_default): plain L2 k-means in every sub-space whatever the metric,
// 25 iterations, the sample capped at 256 points per centroid, seeded by
// k-means++ (the k-means package's default; PQConfig.RandomInit selects
// FAISS's random sample, which bench pq uses on both sides). Sub-space
// j's k-means is
// seeded with Seed + j, so a quantizer is a function of its data, config
// and seed.
type PQ struct {
	dim    int
	metric engine.Metric
	cfg    PQConfig // defaults filled
	dsub   int      // dim / M
	ksub   int      // 2^Bits
	// cents holds the codebooks: centroid c of sub-space j is
	// cents[(j·ksub + c)·dsub :][:dsub].
	cents []float32
	// cols and norms serve narrow sub-spaces (dsub ≤ narrowSub), and any
	// sub-space of 256 centroids when f32.Cols256 is a SIMD kernel: cols
	// is each codebook transposed, component d of sub-space j's centroids
	// at cols[(j·dsub + d)·ksub :][:ksub]; norms[j·ksub + c] is
	// ‖centroid‖². Derived from cents, not saved.
	cols, norms []float32
	// tables recycles the distance tables of Store's scans (M KB each):
	// a search then allocates no table, and the collector has less to do.
	tables sync.Pool
}

// PQConfig configures [TrainPQ]. Zero fields take the defaults documented
// on each.
type PQConfig struct {
	// M is the number of sub-spaces (bytes of a code); it must divide the
	// dimension, as FAISS requires. 0 → 8.
	M int
	// Bits is log2 of the centroids per sub-space, 1 to 8; 0 → 8, the
	// paper's and FAISS's choice. A code keeps one byte per sub-space
	// whatever Bits (fewer bits buy cheaper training and smaller tables,
	// not smaller codes: the codes are not bit-packed).
	Bits int
	// Iters is the number of k-means iterations per sub-space; 0 → 25
	// (FAISS's ClusteringParameters.niter). Every iteration runs (no
	// early stop), as in FAISS.
	Iters int
	// Seed seeds each sub-space's k-means (sub-space j gets Seed + j).
	Seed uint64
	// RandomInit seeds each sub-space's k-means with a random sample of
	// its vectors, as FAISS's Clustering does, instead of k-means++. A
	// training choice: not saved with the codebooks.
	RandomInit bool
	// Workers bounds the goroutines of each sub-space's k-means; 0 →
	// engine.Cores(). The codebooks do not depend on it, so it is neither
	// printed nor saved.
	Workers int
}

// WithDefaults returns c with zero fields filled.
func (c PQConfig) WithDefaults() PQConfig {
	if c.M == 0 {
		c.M = 8
	}
	if c.Bits == 0 {
		c.Bits = 8
	}
	if c.Iters == 0 {
		c.Iters = kmeans.DefaultMaxIter
	}
	return c
}

// Validate reports every invalid field at once; dim is the vectors'
// dimension (0: not known yet, not checked).
func (c PQConfig) Validate(dim int) error {
	var errs []string
	if c.M < 1 {
		errs = append(errs, fmt.Sprintf("M (sub-spaces) must be ≥ 1, got %d", c.M))
	} else if dim > 0 && dim%c.M != 0 {
		errs = append(errs, fmt.Sprintf("M = %d sub-spaces must divide the dimension %d (divisors near it: %s)", c.M, dim, divisorsNear(dim, c.M)))
	}
	if c.Bits < 1 || c.Bits > 8 {
		errs = append(errs, fmt.Sprintf("Bits must be 1 to 8, got %d", c.Bits))
	}
	if c.Iters < 1 {
		errs = append(errs, fmt.Sprintf("Iters must be ≥ 1, got %d", c.Iters))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("quant: product quantizer config: %v: %w", errs, engine.ErrInvalidArgument)
}

// divisorsNear lists the divisors of dim closest to m, for an error message.
func divisorsNear(dim, m int) string {
	lo, hi := 0, 0
	for d := m; d >= 1; d-- {
		if dim%d == 0 {
			lo = d
			break
		}
	}
	for d := m; d <= dim; d++ {
		if dim%d == 0 {
			hi = d
			break
		}
	}
	return fmt.Sprintf("%d, %d", lo, hi)
}

// String prints the configuration as experiments record it.
func (c PQConfig) String() string {
	return fmt.Sprintf("M=%d Bits=%d Iters=%d Seed=%d", c.M, c.Bits, c.Iters, c.Seed)
}

// TrainPQ learns the M codebooks from sample (under Cosine from its
// unit-normalised rows, as the engine stores them). Each sub-space's
// k-means sees every sample row up to 256 per centroid (FAISS's
// max_points_per_centroid), so 2^Bits ≤ sample rows is required.
func TrainPQ(sample *vec.Matrix, metric engine.Metric, cfg PQConfig) (*PQ, error) {
	cfg = cfg.WithDefaults()
	if sample != nil && sample.Dim > 0 {
		if err := cfg.Validate(sample.Dim); err != nil {
			return nil, err
		}
	} else if err := cfg.Validate(0); err != nil {
		return nil, err
	}
	rows, err := trainingRows(sample, metric, 0, 0)
	if err != nil {
		return nil, err
	}
	ksub := 1 << cfg.Bits
	if len(rows) < ksub {
		return nil, fmt.Errorf("quant: product quantizer with %d centroids per sub-space (Bits %d) needs at least %d training vectors, got %d: %w",
			ksub, cfg.Bits, ksub, len(rows), engine.ErrInvalidArgument)
	}
	dim := sample.Dim
	dsub := dim / cfg.M
	cents := make([]float32, cfg.M*ksub*dsub)
	sub := vec.NewMatrix(len(rows), dsub)
	for j := 0; j < cfg.M; j++ {
		for i, r := range rows {
			copy(sub.Row(i), r[j*dsub:(j+1)*dsub])
		}
		model, err := kmeans.Train(sub, kmeans.Config{K: ksub, MaxIter: cfg.Iters, Tol: -1, Seed: cfg.Seed + uint64(j), Workers: cfg.Workers, Init: initOf(cfg.RandomInit)})
		if err != nil {
			return nil, fmt.Errorf("quant: product quantizer sub-space %d: %w", j, err)
		}
		copy(cents[j*ksub*dsub:(j+1)*ksub*dsub], model.Centroids.Data[:ksub*dsub])
	}
	return newPQ(dim, metric, cfg, cents)
}

func initOf(random bool) kmeans.Init {
	if random {
		return kmeans.Random
	}
	return kmeans.PlusPlus
}

// newPQ builds a quantizer from its codebooks (cfg with defaults filled).
func newPQ(dim int, metric engine.Metric, cfg PQConfig, cents []float32) (*PQ, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("quant: product quantizer dimension %d: %w", dim, engine.ErrDimension)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("quant: unknown metric %v: %w", metric, engine.ErrInvalidArgument)
	}
	if err := cfg.Validate(dim); err != nil {
		return nil, err
	}
	ksub := 1 << cfg.Bits
	if len(cents) != ksub*dim {
		return nil, fmt.Errorf("quant: product quantizer needs %d codebook floats (%d centroids × %d dims), got %d: %w",
			ksub*dim, ksub, dim, len(cents), engine.ErrInvalidArgument)
	}
	for i, v := range cents {
		if !finite32(v) {
			return nil, fmt.Errorf("quant: product quantizer codebook float %d is %v: %w", i, v, engine.ErrInvalidArgument)
		}
	}
	p := &PQ{dim: dim, metric: metric, cfg: cfg, dsub: dim / cfg.M, ksub: ksub, cents: cents}
	if p.dsub <= narrowSub || ksub == 256 {
		p.transpose()
	}
	return p, nil
}

// Dim returns the dimension of the vectors it encodes.
func (p *PQ) Dim() int { return p.dim }

// Metric returns the metric its distances are on.
func (p *PQ) Metric() engine.Metric { return p.metric }

// Config returns the configuration, defaults filled.
func (p *PQ) Config() PQConfig { return p.cfg }

// M returns the number of sub-spaces, the bytes of a code.
func (p *PQ) M() int { return p.cfg.M }

// Centroids returns the number of centroids per sub-space (2^Bits).
func (p *PQ) Centroids() int { return p.ksub }

// Codebook returns centroid c of sub-space j (a view; do not modify).
func (p *PQ) Codebook(j, c int) []float32 {
	o := (j*p.ksub + c) * p.dsub
	return p.cents[o : o+p.dsub : o+p.dsub]
}

// CodeSize returns M: one byte per sub-space.
func (p *PQ) CodeSize() int { return p.cfg.M }

// QueryCodeSize returns the bytes of a query's distance table: M·2^Bits
// little-endian float32.
func (p *PQ) QueryCodeSize() int { return 4 * p.cfg.M * p.ksub }

// Symmetric reports false: a query is a distance table, not a code.
func (p *PQ) Symmetric() bool { return false }

// BytesPerVector returns M.
func (p *PQ) BytesPerVector() float64 { return float64(p.cfg.M) }

// String describes the quantizer.
func (p *PQ) String() string {
	return fmt.Sprintf("pq dim=%d metric=%v %s", p.dim, p.metric, p.cfg)
}

// Encode writes the index of the nearest centroid (squared L2) of each
// sub-vector of v into dst[:M].
func (p *PQ) Encode(dst []byte, v []float32) error {
	if err := checkInput(v, p.dim, "document vector"); err != nil {
		return err
	}
	if err := checkDst(dst, p.cfg.M, "code"); err != nil {
		return err
	}
	p.encode(dst, v)
	return nil
}

// encode is Encode without checks.
func (p *PQ) encode(dst []byte, v []float32) {
	ds := p.dsub
	for j := 0; j < p.cfg.M; j++ {
		x := v[j*ds : (j+1)*ds]
		book := p.cents[j*p.ksub*ds : (j+1)*p.ksub*ds]
		best, bd := 0, float32(math.Inf(1))
		for c := 0; c < p.ksub; c++ {
			if d := vec.L2Sq(x, book[c*ds:(c+1)*ds]); d < bd {
				best, bd = c, d
			}
		}
		dst[j] = byte(best)
	}
}

// Decode writes the reconstruction of code — its centroids, concatenated —
// into dst[:Dim()].
func (p *PQ) Decode(dst []float32, code []byte) error {
	if len(dst) < p.dim {
		return fmt.Errorf("quant: decode buffer has %d floats, need %d: %w", len(dst), p.dim, engine.ErrDimension)
	}
	if len(code) < p.cfg.M {
		return fmt.Errorf("quant: product code has %d bytes, need %d: %w", len(code), p.cfg.M, engine.ErrInvalidArgument)
	}
	for j := 0; j < p.cfg.M; j++ {
		if int(code[j]) >= p.ksub {
			return fmt.Errorf("quant: product code byte %d is %d, beyond the %d centroids: %w", j, code[j], p.ksub, engine.ErrCorrupt)
		}
		copy(dst[j*p.dsub:(j+1)*p.dsub], p.Codebook(j, int(code[j])))
	}
	return nil
}

// EncodeQuery writes q's distance table into dst[:QueryCodeSize()]: entry
// j·2^Bits + c, little-endian float32, is the distance between q's j-th
// sub-vector and centroid c of sub-space j (see [PQ]).
func (p *PQ) EncodeQuery(dst []byte, q []float32) error {
	if err := checkInput(q, p.dim, "query vector"); err != nil {
		return err
	}
	if err := checkDst(dst, p.QueryCodeSize(), "query table"); err != nil {
		return err
	}
	t := make([]float32, p.cfg.M*p.ksub)
	p.table(t, q, p.ksub)
	for i, v := range t {
		putF32(dst[4*i:], v)
	}
	return nil
}

// table fills t (M rows of stride floats, stride ≥ ksub) with q's
// distance table; entries between ksub and stride are left alone.
func (p *PQ) table(t, q []float32, stride int) {
	ds := p.dsub
	l2 := p.metric == engine.L2
	for j := 0; j < p.cfg.M; j++ {
		x := q[j*ds : (j+1)*ds]
		book := p.cents[j*p.ksub*ds : (j+1)*p.ksub*ds]
		row := t[j*stride : j*stride+p.ksub]
		if p.cols != nil && (p.dsub <= narrowSub || f32.Cols256Fast()) {
			p.narrowRow(row, x, j, l2)
			continue
		}
		if p.ksub >= 4 {
			// Four centroids per kernel call (the slab kernels of
			// engine/internal/f32): a sub-vector is short, so per-centroid
			// calls cost more than their arithmetic.
			if l2 {
				f32.L2SqRows(x, book, ds, row)
			} else {
				f32.DotRows(x, book, ds, row)
				for c := range row {
					row[c] = -row[c]
				}
			}
			continue
		}
		for c := range row {
			if l2 {
				row[c] = vec.L2Sq(x, book[c*ds:(c+1)*ds])
			} else {
				row[c] = -vec.Dot(x, book[c*ds:(c+1)*ds])
			}
		}
	}
}

// narrowSub is the widest sub-space whose table row is built from the
// transposed codebook on every machine: at a few components per
// sub-vector a dot product per centroid is mostly call overhead, while a
// pass per component over the 2^Bits centroids is a plain multiply-add
// loop. Wider sub-spaces of 256 centroids are built that way too where
// f32.Cols256 is a SIMD kernel (AVX-512), which keeps the row's 256 sums
// in registers: the table of a 384-d query at M = 8 (48 components a
// sub-space) then costs a fraction of the 2,048 short dot products
// (BenchmarkPQTable). The two ways round differently (the last bits of an
// entry), so a table depends on the machine's kernel set, as every float32
// distance of the engine does.
const narrowSub = 8

// negatedSub bounds the sub-vector narrowRow negates on its stack.
const negatedSub = 512

// transpose fills cols and norms from cents.
func (p *PQ) transpose() {
	ds, k := p.dsub, p.ksub
	p.cols = make([]float32, len(p.cents))
	p.norms = make([]float32, p.cfg.M*k)
	for j := 0; j < p.cfg.M; j++ {
		for c := 0; c < k; c++ {
			v := p.Codebook(j, c)
			var n float32
			for d, x := range v {
				p.cols[(j*ds+d)*k+c] = x
				n += x * x
			}
			p.norms[j*k+c] = n
		}
	}
}

// narrowRow writes sub-space j's table row for the sub-vector x from the
// transposed codebook: −⟨x, c⟩, or under L2 ‖x‖² + ‖c‖² − 2⟨x, c⟩.
func (p *PQ) narrowRow(row, x []float32, j int, l2 bool) {
	k := p.ksub
	cols := p.cols[j*p.dsub*k : (j+1)*p.dsub*k]
	if k == 256 && f32.Cols256Fast() {
		if !l2 && len(x) <= negatedSub {
			// −⟨x, c⟩ as ⟨−x, c⟩: a product and a sum of negated terms
			// are the negated product and sum, bit for bit (rounding to
			// nearest is symmetric; only a zero's sign can differ), and
			// negating the sub-vector is dsub negations, not 256.
			var nx [negatedSub]float32
			for d, v := range x {
				nx[d] = -v
			}
			f32.Cols256(nx[:len(x)], cols, row)
			return
		}
		f32.Cols256(x, cols, row) // the loops below, the 256 sums in registers
		p.finishRow(row, x, j, l2)
		return
	}
	c0 := cols[:k]
	row = row[:len(c0)]
	x0 := x[0]
	for c := range row {
		row[c] = x0 * c0[c]
	}
	for d := 1; d < len(x); d++ {
		cd := cols[d*k : (d+1)*k]
		cd = cd[:len(row)]
		xd := x[d]
		for c := range row {
			row[c] += xd * cd[c]
		}
	}
	p.finishRow(row, x, j, l2)
}

// finishRow turns row's inner products ⟨x, c⟩ into sub-space j's table
// entries: −⟨x, c⟩, or under L2 ‖x‖² + ‖c‖² − 2⟨x, c⟩.
func (p *PQ) finishRow(row, x []float32, j int, l2 bool) {
	k := p.ksub
	if !l2 {
		for c := range row {
			row[c] = -row[c]
		}
		return
	}
	var xx float32
	for _, v := range x {
		xx += v * v
	}
	norms := p.norms[j*k : (j+1)*k]
	norms = norms[:len(row)]
	for c := range row {
		row[c] = xx + norms[c] - 2*row[c]
	}
}

// bias is the constant added to a table sum: 1 under Cosine (1 − ⟨q, x̂⟩).
func (p *PQ) bias() float32 {
	if p.metric == engine.Cosine {
		return 1
	}
	return 0
}

// Distance sums query's table entries at code's centroids (ADC), grouped
// as [PQTable]'s kernel groups them, so the two agree bit for bit.
func (p *PQ) Distance(query, code []byte) float32 {
	var d [4]float32
	for j := 0; j < p.cfg.M; j++ {
		lane := j & 3
		if j >= p.cfg.M&^3 {
			lane = 0 // the tail goes to the first sum, as in adc
		}
		d[lane] += getF32(query[4*(j*p.ksub+int(code[j])):])
	}
	return (d[0] + d[1]) + (d[2] + d[3]) + p.bias()
}

// CodeDistance is the symmetric distance (SDC) between two codes: the
// metric between their reconstructions, summed over sub-spaces.
func (p *PQ) CodeDistance(a, b []byte) float32 {
	var d float32
	for j := 0; j < p.cfg.M; j++ {
		x, y := p.Codebook(j, int(a[j])), p.Codebook(j, int(b[j]))
		if p.metric == engine.L2 {
			d += vec.L2Sq(x, y)
		} else {
			d -= vec.Dot(x, y)
		}
	}
	return d + p.bias()
}

// tableStride is the width of a row of a [PQTable]: 256 whatever Bits, so
// a code byte indexes a row without a bounds check.
const tableStride = 256

// PQTable is one query's distance table bound to its quantizer, for
// scanning many codes (ADC). It is not safe for concurrent use; reuse one
// per goroutine with [PQTable.Reset].
type PQTable struct {
	p    *PQ
	t    []float32 // M rows of tableStride
	bias float32
}

// NewTable returns q's distance table. Under Cosine q must be unit-length
// (as for EncodeQuery; the engine normalises queries).
func (p *PQ) NewTable(q []float32) (*PQTable, error) {
	t := &PQTable{p: p, t: make([]float32, p.cfg.M*tableStride), bias: p.bias()}
	if err := t.Reset(q); err != nil {
		return nil, err
	}
	return t, nil
}

// Reset refills the table for another query.
func (t *PQTable) Reset(q []float32) error {
	if err := checkInput(q, t.p.dim, "query vector"); err != nil {
		return err
	}
	t.p.table(t.t, q, tableStride)
	return nil
}

// Distance is the ADC distance of one code (M bytes, not checked).
func (t *PQTable) Distance(code []byte) float32 {
	return adc(t.t, code[:len(t.t)/tableStride]) + t.bias
}

// Distances writes into dst[i] the ADC distance of code i of codes, a slab
// of len(dst) codes of M bytes each. It panics if codes is shorter.
func (t *PQTable) Distances(dst []float32, codes []byte) {
	m := len(t.t) / tableStride
	if len(codes) < len(dst)*m {
		panic(errShortCodes)
	}
	if m&3 != 0 {
		for i := range dst {
			dst[i] = adc(t.t, codes[i*m:(i+1)*m]) + t.bias
		}
		return
	}
	adcBlock4(dst, t.t, codes[:len(dst)*m], m, t.bias)
}

// adcBlock4 is adc over a slab of codes whose M is a multiple of 4, the
// loops over codes and sub-spaces in one function (adc is not inlined,
// and a call per code costs as much as a code of M = 8). For M = 8 and
// multiples of 16 the table is taken as a fixed-size array
// (*[8·256]float32, *[16·256]float32 per block of 16 sub-spaces), so
// entry j·256 + code[j] at a constant j needs no bounds check: one table
// load per sub-space, as FAISS's pointer walk
// (faiss/impl/ProductQuantizer.cpp, pq_estimators_from_tables_Mmul4).
// The four sums and their order are adc's, so the results agree with it
// bit for bit.
func adcBlock4(dst, tab []float32, codes []byte, m int, bias float32) {
	const s = tableStride
	switch {
	case m == 8:
		t := (*[8 * s]float32)(tab[:8*s])
		for i := range dst {
			c := (*[8]byte)(codes[i*8 : i*8+8])
			d0 := t[int(c[0])] + t[4*s+int(c[4])]
			d1 := t[s+int(c[1])] + t[5*s+int(c[5])]
			d2 := t[2*s+int(c[2])] + t[6*s+int(c[6])]
			d3 := t[3*s+int(c[3])] + t[7*s+int(c[7])]
			dst[i] = (d0 + d1) + (d2 + d3) + bias
		}
		return
	case m%16 == 0:
		for i := range dst {
			code := codes[i*m : (i+1)*m : (i+1)*m]
			var d0, d1, d2, d3 float32
			for b := 0; b+16 <= len(code); b += 16 {
				t := (*[16 * s]float32)(tab[b*s : (b+16)*s])
				c := (*[16]byte)(code[b : b+16])
				// d = d + a + b + …: Go adds left to right, adc's order.
				d0 = d0 + t[int(c[0])] + t[4*s+int(c[4])] + t[8*s+int(c[8])] + t[12*s+int(c[12])]
				d1 = d1 + t[s+int(c[1])] + t[5*s+int(c[5])] + t[9*s+int(c[9])] + t[13*s+int(c[13])]
				d2 = d2 + t[2*s+int(c[2])] + t[6*s+int(c[6])] + t[10*s+int(c[10])] + t[14*s+int(c[14])]
				d3 = d3 + t[3*s+int(c[3])] + t[7*s+int(c[7])] + t[11*s+int(c[11])] + t[15*s+int(c[15])]
			}
			dst[i] = (d0 + d1) + (d2 + d3) + bias
		}
		return
	}
	for i := range dst {
		dst[i] = adc(tab, codes[i*m:(i+1)*m]) + bias
	}
}

// DistancesNaive is Distances as the textbook loop (one table lookup, one
// add, in sequence); kept as the reference for tests and benchmarks.
func (t *PQTable) DistancesNaive(dst []float32, codes []byte) {
	m := len(t.t) / tableStride
	if len(codes) < len(dst)*m {
		panic(errShortCodes)
	}
	for i := range dst {
		var d float32
		for j := 0; j < m; j++ {
			d += t.t[j*tableStride+int(codes[i*m+j])]
		}
		dst[i] = d + t.bias
	}
}

const errShortCodes = "quant: PQTable.Distances: codes slab shorter than len(dst)·M"

// adc sums tab[j][code[j]] over the sub-spaces, four sub-spaces per step
// into four independent sums (so the loads and adds of consecutive
// sub-spaces overlap instead of waiting on one accumulator), each row
// converted to a *[256]float32 so that a byte index needs no bounds
// check. The sum order is fixed, so results are the same on every run:
//
//	for j := range code { d += tab[j*256+int(code[j])] }
//
// is the reference loop (DistancesNaive); the two differ only by float
// rounding from the regrouped sums.
func adc(tab []float32, code []byte) float32 {
	var d0, d1, d2, d3 float32
	j := 0
	for ; j+4 <= len(code); j += 4 {
		c := code[j : j+4 : j+4]
		t := tab[j*tableStride : (j+4)*tableStride : (j+4)*tableStride]
		d0 += (*[tableStride]float32)(t[0:tableStride])[c[0]]
		d1 += (*[tableStride]float32)(t[tableStride : 2*tableStride])[c[1]]
		d2 += (*[tableStride]float32)(t[2*tableStride : 3*tableStride])[c[2]]
		d3 += (*[tableStride]float32)(t[3*tableStride : 4*tableStride])[c[3]]
	}
	for ; j < len(code); j++ {
		d0 += (*[tableStride]float32)(tab[j*tableStride : (j+1)*tableStride])[code[j]]
	}
	return (d0 + d1) + (d2 + d3)
}

// MarshalBinary returns the parameters and codebooks (see the package doc).
func (p *PQ) MarshalBinary() ([]byte, error) { return marshal(p.frame()) }

// frame writes the body: dim u32, metric u8, M u32, Bits u8, Iters u32,
// Seed u64, then the codebooks, sub-space by sub-space, centroid by
// centroid, as float32.
func (p *PQ) frame() (magic, tag string, body []byte) {
	e := newEncoder(22 + 4*len(p.cents))
	e.u32(uint32(p.dim))
	e.u8(uint8(p.metric))
	e.u32(uint32(p.cfg.M))
	e.u8(uint8(p.cfg.Bits))
	e.u32(uint32(p.cfg.Iters))
	e.u64(p.cfg.Seed)
	for _, v := range p.cents {
		e.f32(v)
	}
	return magicPQ, tagPQ, e.b
}

// RestorePQ reads a product quantizer written by MarshalBinary.
func RestorePQ(b []byte) (*PQ, error) { return restorePQ("", b) }

func restorePQ(name string, b []byte) (*PQ, error) {
	d, err := openFile(name, b, magicPQ, tagPQ, "product quantizer")
	if err != nil {
		return nil, err
	}
	dim, metric := d.dimMetric()
	at := d.off
	cfg := PQConfig{M: int(d.u32("M"))}
	cfg.Bits = int(d.u8("bits"))
	cfg.Iters = int(d.u32("iterations"))
	cfg.Seed = d.u64("seed")
	if d.err == nil {
		if err := cfg.Validate(dim); err != nil {
			d.fail(at, "%v", err)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	n := (1 << cfg.Bits) * dim
	if !d.need(4*n, "codebooks") {
		return nil, d.err
	}
	cents := make([]float32, n)
	for i := range cents {
		cents[i] = d.f32("codebook")
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	return newPQ(dim, metric, cfg, cents)
}
