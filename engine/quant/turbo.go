package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// Turbo is TurboQuant in one of three forms (see [TurboKind] and the
// package doc's TurboQuant section): the paper's MSE quantizer
// (Zandieh, Daliri, Hadian, Mirrokni, arXiv 2504.19874, Algorithm 1), its
// inner-product quantizer (Algorithm 2: the MSE quantizer at b−1 bits and
// a 1-bit QJL of the residual), and TurboQuant as Qdrant 1.18 ships it
// (lib/quantization/src/turboquant, TQ+ mode).
//
// Codes are scored against a query kept in float32 (TurboQuant is
// asymmetric: the query is rotated, not quantized), so Distance is an
// estimate of the metric's distance on the usual smaller-is-closer scale.
type Turbo struct {
	dim    int
	metric engine.Metric
	cfg    TurboConfig
	pdim   int // coordinates coded: dim, or Qdrant's padded dimension
	bits   int // bits per coordinate of the scalar (Lloyd-Max) stage

	codebook []float32 // 2^bits centroids, ascending
	bounds   []float32 // midpoints between consecutive centroids

	rot []float32 // paper: Π, dim×dim row-major, orthogonal
	qjl []float32 // TurboProd: S, dim×dim row-major, i.i.d. N(0, 1)

	shift, scale []float32 // TurboQdrant: TQ+ per-coordinate correction
	dprime2      []float32 // TurboQdrant: D'² = 1/scale², for CodeDistance
	mm           float32   // TurboQdrant: Σ shift²
	had          hadamard  // TurboQdrant: the rotation

	idxBytes int // bytes of the packed indices
	qjlBytes int // bytes of the QJL signs (TurboProd)
}

// Dimension limits: Qdrant's rotation is O(d log d), but the paper's Π
// and S are dense d×d matrices (Π from an O(d³) QR), so its forms stop at
// 2,048 dimensions, which keeps a restored file's cost bounded.
const (
	maxTurboDim      = 1 << 16
	maxTurboPaperDim = 2048
)

// TurboKind selects the form of TurboQuant.
type TurboKind uint8

// The forms.
const (
	// TurboMSE is the paper's TurboQuant_mse (Algorithm 1): a random
	// rotation Π (QR of a Gaussian matrix), then each coordinate to the
	// nearest of 2^b Lloyd-Max centroids for the coordinate's Beta
	// distribution on the sphere (Lemma 1, Eq. 4). The vector's length is
	// kept as a float32 beside the code.
	TurboMSE TurboKind = iota
	// TurboProd is the paper's TurboQuant_prod (Algorithm 2): TurboMSE at
	// b−1 bits, then the residual r as sign(S·r) with S i.i.d. N(0, 1)
	// and γ = ‖r‖, an unbiased inner-product estimator.
	TurboProd
	// TurboQdrant is Qdrant 1.18's TurboQuant, TQ+ mode (the mode its
	// collections use): a fixed Hadamard rotation, Lloyd-Max centroids for
	// N(0, 1), coordinates rescaled to that grid, a per-coordinate shift
	// and scale fitted on a sample, and a renormalising scale factor.
	TurboQdrant
)

var turboKindNames = [...]string{"mse", "prod", "qdrant"}

func (k TurboKind) String() string {
	if int(k) < len(turboKindNames) {
		return turboKindNames[k]
	}
	return fmt.Sprintf("TurboKind(%d)", uint8(k))
}

// TurboConfig configures [TrainTurbo].
type TurboConfig struct {
	Kind TurboKind
	// Bits per coordinate in all (0 → 4, Qdrant's default): TurboMSE 1–4,
	// TurboProd 2–5 (b−1 for the scalar stage, 1 for QJL), TurboQdrant 1,
	// 2 or 4 (Qdrant's bits1, bits2, bits4; bits1_5 is not modelled).
	Bits int
	// Seed draws the paper's rotation and QJL matrix, and TurboQdrant's
	// TQ+ sample; Qdrant's rotation itself is fixed by its constants.
	Seed uint64
	// SampleSize is TurboQdrant's TQ+ sample (0 → Qdrant's: 2,048 vectors
	// at 1 bit, 4,096 at 2, 8,192 at 4; TQBits::sample_size).
	SampleSize int
}

// WithDefaults fills zero fields.
func (c TurboConfig) WithDefaults() TurboConfig {
	if c.Bits == 0 {
		c.Bits = 4
	}
	if c.SampleSize == 0 {
		switch c.Bits {
		case 1:
			c.SampleSize = 2048
		case 2:
			c.SampleSize = 4096
		default:
			c.SampleSize = 8192
		}
	}
	return c
}

// Validate reports an unknown kind or unsupported bits.
func (c TurboConfig) Validate() error {
	ok := false
	switch c.Kind {
	case TurboMSE:
		ok = c.Bits >= 1 && c.Bits <= 4
	case TurboProd:
		ok = c.Bits >= 2 && c.Bits <= 5
	case TurboQdrant:
		ok = c.Bits == 1 || c.Bits == 2 || c.Bits == 4
	default:
		return fmt.Errorf("quant: turbo kind %d unknown (mse, prod, qdrant): %w", c.Kind, engine.ErrInvalidArgument)
	}
	if !ok {
		return fmt.Errorf("quant: turbo %s does not take %d bits (mse 1–4, prod 2–5, qdrant 1, 2 or 4): %w", c.Kind, c.Bits, engine.ErrInvalidArgument)
	}
	if c.SampleSize < 0 {
		return fmt.Errorf("quant: turbo sample size %d is negative: %w", c.SampleSize, engine.ErrInvalidArgument)
	}
	return nil
}

// String prints the configuration.
func (c TurboConfig) String() string {
	return fmt.Sprintf("kind=%s bits=%d seed=%d sample=%d", c.Kind, c.Bits, c.Seed, c.SampleSize)
}

// Qdrant's Lloyd-Max centroids for N(0, 1) (qdrant/qdrant v1.18.0
// lib/quantization/src/turboquant/lloyd_max.rs CENTROIDS_1BIT, _2BIT,
// _4BIT).
var (
	qdrantCentroids1 = []float32{-0.7978846, 0.7978846}
	qdrantCentroids2 = []float32{-1.510, -0.4528, 0.4528, 1.510}
	qdrantCentroids4 = []float32{-2.733, -2.069, -1.618, -1.256, -0.9424, -0.6568, -0.3881, -0.1284,
		0.1284, 0.3881, 0.6568, 0.9424, 1.256, 1.618, 2.069, 2.733}
)

// TrainTurbo builds a TurboQuant quantizer for the vectors of sample's
// dimension. The paper's forms are data-oblivious and read only the
// dimension; TurboQdrant fits TQ+'s shift and scale on up to
// cfg.SampleSize rows drawn with cfg.Seed (under Cosine, unit-normalised).
func TrainTurbo(sample *vec.Matrix, metric engine.Metric, cfg TurboConfig) (*Turbo, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	rows, err := trainingRows(sample, metric, cfg.SampleSize, cfg.Seed)
	if err != nil {
		return nil, err
	}
	dim := sample.Dim
	switch cfg.Kind {
	case TurboMSE:
		return newTurbo(dim, metric, cfg, lloydMaxBeta(dim, cfg.Bits), nil, nil)
	case TurboProd:
		return newTurbo(dim, metric, cfg, lloydMaxBeta(dim, cfg.Bits-1), nil, nil)
	}
	shift, scale := tqPlus(dim, metric, cfg.Bits, rows)
	return newTurbo(dim, metric, cfg, qdrantCodebook(cfg.Bits), shift, scale)
}

func qdrantCodebook(bits int) []float32 {
	switch bits {
	case 1:
		return slices.Clone(qdrantCentroids1)
	case 2:
		return slices.Clone(qdrantCentroids2)
	}
	return slices.Clone(qdrantCentroids4)
}

// qdrantPadded is Qdrant's padded dimension (encoding.rs padded_dim): the
// next multiple of 8, 4 or 2 coordinates for 1, 2 or 4 bits, so a code
// fills whole bytes.
func qdrantPadded(dim, bits int) int {
	per := 8 / bits
	return (dim + per - 1) / per * per
}

func newTurbo(dim int, metric engine.Metric, cfg TurboConfig, codebook, shift, scale []float32) (*Turbo, error) {
	if dim <= 0 || dim > maxTurboDim || cfg.Kind != TurboQdrant && dim > maxTurboPaperDim {
		return nil, fmt.Errorf("quant: turbo %s dimension %d out of range (1–%d; the paper's dense d×d rotation: 1–%d): %w", cfg.Kind, dim, maxTurboDim, maxTurboPaperDim, engine.ErrDimension)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("quant: unknown metric %v: %w", metric, engine.ErrInvalidArgument)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &Turbo{dim: dim, metric: metric, cfg: cfg, pdim: dim, bits: cfg.Bits}
	if cfg.Kind == TurboProd {
		t.bits = cfg.Bits - 1
	}
	if len(codebook) != 1<<t.bits {
		return nil, fmt.Errorf("quant: turbo %d-bit codebook has %d centroids, want %d: %w", t.bits, len(codebook), 1<<t.bits, engine.ErrInvalidArgument)
	}
	for i := 1; i < len(codebook); i++ {
		if !(codebook[i] > codebook[i-1]) {
			return nil, fmt.Errorf("quant: turbo codebook is not increasing at centroid %d (%v after %v): %w", i, codebook[i], codebook[i-1], engine.ErrInvalidArgument)
		}
	}
	t.codebook = codebook
	t.bounds = make([]float32, len(codebook)-1)
	for i := range t.bounds {
		t.bounds[i] = (codebook[i] + codebook[i+1]) / 2
	}
	switch cfg.Kind {
	case TurboMSE, TurboProd:
		if shift != nil || scale != nil {
			return nil, fmt.Errorf("quant: turbo %s takes no shift and scale: %w", cfg.Kind, engine.ErrInvalidArgument)
		}
		r := rand.New(rand.NewPCG(cfg.Seed, 0x7475726230))
		t.rot = randomRotation(dim, r)
		if cfg.Kind == TurboProd {
			r := rand.New(rand.NewPCG(cfg.Seed, 0x716a6c))
			t.qjl = make([]float32, dim*dim)
			for i := range t.qjl {
				t.qjl[i] = float32(r.NormFloat64())
			}
			t.qjlBytes = (dim + 7) / 8
		}
	case TurboQdrant:
		t.pdim = qdrantPadded(dim, cfg.Bits)
		if len(shift) != t.pdim || len(scale) != t.pdim {
			return nil, fmt.Errorf("quant: turbo qdrant needs %d shifts and scales, got %d and %d: %w", t.pdim, len(shift), len(scale), engine.ErrInvalidArgument)
		}
		t.shift, t.scale = shift, scale
		t.dprime2 = make([]float32, t.pdim)
		var mm float64
		for i := range scale {
			if !(scale[i] > 0) || !finite32(scale[i]) || !finite32(shift[i]) {
				return nil, fmt.Errorf("quant: turbo qdrant coordinate %d has shift %v and scale %v (scale must be positive and finite): %w", i, shift[i], scale[i], engine.ErrInvalidArgument)
			}
			t.dprime2[i] = 1 / (scale[i] * scale[i])
			mm += float64(shift[i]) * float64(shift[i])
		}
		t.mm = float32(mm)
		t.had = newHadamard(t.pdim)
	}
	t.idxBytes = (t.pdim*t.bits + 7) / 8
	return t, nil
}

// Dim returns the dimension of the vectors it encodes.
func (t *Turbo) Dim() int { return t.dim }

// Metric returns the metric its distances are on.
func (t *Turbo) Metric() engine.Metric { return t.metric }

// Config returns the configuration, defaults filled.
func (t *Turbo) Config() TurboConfig { return t.cfg }

// Codebook returns a copy of the scalar stage's centroids.
func (t *Turbo) Codebook() []float32 { return slices.Clone(t.codebook) }

// CodeSize returns the bytes of one document code: the packed indices,
// then TurboMSE's length; TurboProd's QJL signs, length and γ; or
// TurboQdrant's scale factor, length (L2 only) and ⟨X, M⟩.
func (t *Turbo) CodeSize() int {
	switch t.cfg.Kind {
	case TurboMSE:
		return t.idxBytes + 4
	case TurboProd:
		return t.idxBytes + t.qjlBytes + 8
	}
	if t.metric == engine.L2 {
		return t.idxBytes + 12
	}
	return t.idxBytes + 8
}

// QueryCodeSize returns the bytes of an encoded query: its rotated
// coordinates as float32 (TurboProd: and S·q), then its length
// (TurboQdrant: ⟨Q, M⟩ and the length).
func (t *Turbo) QueryCodeSize() int {
	switch t.cfg.Kind {
	case TurboMSE:
		return 4*t.dim + 4
	case TurboProd:
		return 8*t.dim + 4
	}
	return 4*t.pdim + 8
}

// Symmetric reports false: a query is kept in float32.
func (t *Turbo) Symmetric() bool { return false }

// BytesPerVector returns the bytes of one document code.
func (t *Turbo) BytesPerVector() float64 { return float64(t.CodeSize()) }

// String describes the quantizer.
func (t *Turbo) String() string {
	return fmt.Sprintf("turbo(%s, %d bits, dim %d, %v)", t.cfg.Kind, t.cfg.Bits, t.dim, t.metric)
}

func (t *Turbo) nearest(y float32) int {
	// bounds has at most 15 entries: a linear scan is as fast as a search.
	k := 0
	for k < len(t.bounds) && y > t.bounds[k] {
		k++
	}
	return k
}

func putIdx(dst []byte, j, bits, k int) {
	bit := j * bits
	v := uint16(k) << (bit & 7)
	dst[bit>>3] |= byte(v)
	if (bit&7)+bits > 8 {
		dst[bit>>3+1] |= byte(v >> 8)
	}
}

func getIdx(code []byte, j, bits int) int {
	bit := j * bits
	v := uint16(code[bit>>3])
	if (bit&7)+bits > 8 {
		v |= uint16(code[bit>>3+1]) << 8
	}
	return int(v>>(bit&7)) & (1<<bits - 1)
}

// rotate writes Π·x into y.
func (t *Turbo) rotate(y, x []float32) {
	for i := range y {
		y[i] = vec.Dot(t.rot[i*t.dim:(i+1)*t.dim], x)
	}
}

// Encode writes the code of v into dst[:CodeSize()].
func (t *Turbo) Encode(dst []byte, v []float32) error {
	if err := checkInput(v, t.dim, "vector"); err != nil {
		return err
	}
	if err := checkDst(dst, t.CodeSize(), "code"); err != nil {
		return err
	}
	dst = dst[:t.CodeSize()]
	clear(dst)
	if t.cfg.Kind == TurboQdrant {
		t.encodeQdrant(dst, v)
		return nil
	}
	// The paper quantizes points of the unit sphere; the length is kept
	// apart ("store the norm in floating point", Section 1.3).
	n := vec.Norm(v)
	u := slices.Clone(v)
	if n > 0 {
		for i := range u {
			u[i] /= n
		}
	}
	y := make([]float32, t.dim)
	t.rotate(y, u)
	for j, yj := range y {
		putIdx(dst, j, t.bits, t.nearest(yj))
	}
	if t.cfg.Kind == TurboMSE {
		putF32(dst[t.idxBytes:], n)
		return nil
	}
	// Algorithm 2: r = x − DeQuant_mse(idx); qjl = sign(S·r); γ = ‖r‖.
	// Π is orthogonal, so r = Πᵀ(y − c_idx).
	for j := range y {
		y[j] -= t.codebook[getIdx(dst, j, t.bits)]
	}
	r := make([]float32, t.dim)
	for j, yj := range y {
		if yj == 0 {
			continue
		}
		row := t.rot[j*t.dim : (j+1)*t.dim]
		for i := range r {
			r[i] += yj * row[i]
		}
	}
	signs := dst[t.idxBytes : t.idxBytes+t.qjlBytes]
	for i := 0; i < t.dim; i++ {
		if vec.Dot(t.qjl[i*t.dim:(i+1)*t.dim], r) >= 0 { // sign(0) = +1
			signs[i>>3] |= 1 << (i & 7)
		}
	}
	putF32(dst[t.idxBytes+t.qjlBytes:], n)
	putF32(dst[t.idxBytes+t.qjlBytes+4:], vec.Norm(r))
	return nil
}

// EncodeQuery writes the query code of q into dst[:QueryCodeSize()].
func (t *Turbo) EncodeQuery(dst []byte, q []float32) error {
	if err := checkInput(q, t.dim, "query"); err != nil {
		return err
	}
	if err := checkDst(dst, t.QueryCodeSize(), "query code"); err != nil {
		return err
	}
	switch t.cfg.Kind {
	case TurboMSE, TurboProd:
		y := make([]float32, t.dim)
		t.rotate(y, q)
		for i, v := range y {
			putF32(dst[4*i:], v)
		}
		off := 4 * t.dim
		if t.cfg.Kind == TurboProd {
			for i := 0; i < t.dim; i++ {
				putF32(dst[off+4*i:], vec.Dot(t.qjl[i*t.dim:(i+1)*t.dim], q))
			}
			off += 4 * t.dim
		}
		putF32(dst[off:], vec.Norm(q))
		return nil
	}
	// quantization.rs precompute_query: rotate (no length rescale), then
	// divide by TQ+'s scale and keep qm = ⟨Q, M⟩ = −Σ q_i·shift_i.
	buf := make([]float64, t.pdim)
	for i, x := range q {
		buf[i] = float64(x)
	}
	t.had.apply(buf)
	var qm, nn float64
	for i, x := range buf {
		nn += x * x
		qm -= x * float64(t.shift[i])
		putF32(dst[4*i:], float32(x/float64(t.scale[i])))
	}
	putF32(dst[4*t.pdim:], float32(qm))
	putF32(dst[4*t.pdim+4:], float32(math.Sqrt(nn)))
	return nil
}

// turboQuery is a query code decoded once for a scan.
type turboQuery struct {
	y, s  []float32 // rotated query (TurboQdrant: divided by scale); S·q
	extra float32   // TurboQdrant: ⟨Q, M⟩
	norm  float32
}

func (t *Turbo) bindQuery(qc []byte) turboQuery {
	n := t.dim
	if t.cfg.Kind == TurboQdrant {
		n = t.pdim
	}
	tq := turboQuery{y: make([]float32, n)}
	for i := range tq.y {
		tq.y[i] = getF32(qc[4*i:])
	}
	off := 4 * n
	switch t.cfg.Kind {
	case TurboProd:
		tq.s = make([]float32, n)
		for i := range tq.s {
			tq.s[i] = getF32(qc[off+4*i:])
		}
		off += 4 * n
	case TurboQdrant:
		tq.extra = getF32(qc[off:])
		off += 4
	}
	tq.norm = getF32(qc[off:])
	return tq
}

// centroidDot is Σ y_j·c_idx_j over the code's packed indices.
func (t *Turbo) centroidDot(y []float32, code []byte) float32 {
	var acc float32
	if t.bits == 4 {
		for j := 0; j+1 < len(y); j += 2 {
			b := code[j>>1]
			acc += y[j]*t.codebook[b&15] + y[j+1]*t.codebook[b>>4]
		}
		if len(y)&1 == 1 {
			acc += y[len(y)-1] * t.codebook[code[len(y)>>1]&15]
		}
		return acc
	}
	if 8%t.bits == 0 { // 1 or 2 bits: whole indices per byte
		per, mask := 8/t.bits, byte(1<<t.bits-1)
		for j := 0; j < len(y); j += per {
			b := code[j/per]
			for k := 0; k < per && j+k < len(y); k++ {
				acc += y[j+k] * t.codebook[b>>(k*t.bits)&mask]
			}
		}
		return acc
	}
	for j, v := range y {
		acc += v * t.codebook[getIdx(code, j, t.bits)]
	}
	return acc
}

// Distance estimates the distance between an encoded query and a code.
func (t *Turbo) Distance(query, code []byte) float32 {
	return t.distance(t.bindQuery(query), code)
}

func (t *Turbo) distance(q turboQuery, code []byte) float32 {
	var ip, xn float32 // estimate of ⟨q, x⟩; ‖x‖ (L2)
	switch t.cfg.Kind {
	case TurboMSE:
		xn = getF32(code[t.idxBytes:])
		ip = xn * t.centroidDot(q.y, code)
	case TurboProd:
		signs := code[t.idxBytes : t.idxBytes+t.qjlBytes]
		xn = getF32(code[t.idxBytes+t.qjlBytes:])
		gamma := getF32(code[t.idxBytes+t.qjlBytes+4:])
		var sq float32
		for i, v := range q.s {
			if signs[i>>3]>>(i&7)&1 != 0 {
				sq += v
			} else {
				sq -= v
			}
		}
		// ⟨y, x̃_mse⟩ + √(π/2)/d · γ · ⟨S·y, qjl⟩ (Algorithm 2, DeQuant_prod).
		ip = xn * (t.centroidDot(q.y, code) + float32(math.Sqrt(math.Pi/2))/float32(t.dim)*gamma*sq)
	case TurboQdrant:
		// quantization.rs score_precomputed.
		sf := getF32(code[t.idxBytes:])
		ip = (t.centroidDot(q.y, code) + q.extra) * sf
		if t.metric == engine.L2 {
			xn = getF32(code[t.idxBytes+4:])
		}
	}
	switch t.metric {
	case engine.Cosine:
		return 1 - ip
	case engine.Dot:
		return -ip
	}
	return q.norm*q.norm + xn*xn - 2*ip
}

// CodeDistance estimates the distance between two document codes:
// TurboMSE from the centroids (Π is orthogonal, so ⟨x̃_a, x̃_b⟩ is the
// centroids' dot), TurboProd from the two decoded vectors (d² work: the
// QJL parts live in S's space), TurboQdrant as Qdrant's score_symmetric.
func (t *Turbo) CodeDistance(a, b []byte) float32 {
	var ip, na, nb float32
	switch t.cfg.Kind {
	case TurboMSE:
		na, nb = getF32(a[t.idxBytes:]), getF32(b[t.idxBytes:])
		var s float32
		for j := 0; j < t.dim; j++ {
			s += t.codebook[getIdx(a, j, t.bits)] * t.codebook[getIdx(b, j, t.bits)]
		}
		ip = na * nb * s
	case TurboProd:
		xa, xb := make([]float32, t.dim), make([]float32, t.dim)
		t.decode(xa, a)
		t.decode(xb, b)
		ip, na, nb = vec.Dot(xa, xb), vec.Norm(xa), vec.Norm(xb)
	case TurboQdrant:
		var s float64
		for j := 0; j < t.pdim; j++ {
			ca := float64(t.codebook[getIdx(a, j, t.bits)])
			cb := float64(t.codebook[getIdx(b, j, t.bits)])
			if t.bits == 1 {
				s += ca * cb // score_symmetric_ec: no D'² at 1 bit
			} else {
				s += ca * cb * float64(t.dprime2[j])
			}
		}
		if t.bits > 1 {
			s += float64(getF32(a[t.idxBytes+t.xmOff():])) + float64(getF32(b[t.idxBytes+t.xmOff():])) - float64(t.mm)
		}
		ip = float32(s) * getF32(a[t.idxBytes:]) * getF32(b[t.idxBytes:])
		if t.metric == engine.L2 {
			na, nb = getF32(a[t.idxBytes+4:]), getF32(b[t.idxBytes+4:])
		}
	}
	switch t.metric {
	case engine.Cosine:
		return 1 - ip
	case engine.Dot:
		return -ip
	}
	return na*na + nb*nb - 2*ip
}

// xmOff is the offset of ⟨X, M⟩ after the indices in a TurboQdrant code.
func (t *Turbo) xmOff() int {
	if t.metric == engine.L2 {
		return 8
	}
	return 4
}

// Decode writes the vector a paper code stands for (Algorithm 1's and
// 2's DeQuant, times the kept length) into dst[:Dim()]. TurboQdrant's
// codes are scored in the rotated space and not decoded (Qdrant inverts
// its rotation only for L1).
func (t *Turbo) Decode(dst []float32, code []byte) error {
	if t.cfg.Kind == TurboQdrant {
		return fmt.Errorf("quant: turbo qdrant codes are not decoded: %w", engine.ErrInvalidArgument)
	}
	if len(dst) < t.dim {
		return fmt.Errorf("quant: decode buffer has %d components, quantizer has %d: %w", len(dst), t.dim, engine.ErrDimension)
	}
	if len(code) < t.CodeSize() {
		return fmt.Errorf("quant: code has %d bytes, need %d: %w", len(code), t.CodeSize(), engine.ErrInvalidArgument)
	}
	t.decode(dst[:t.dim], code)
	return nil
}

func (t *Turbo) decode(x []float32, code []byte) {
	clear(x)
	for j := 0; j < t.dim; j++ {
		c := t.codebook[getIdx(code, j, t.bits)]
		row := t.rot[j*t.dim : (j+1)*t.dim]
		for i := range x {
			x[i] += c * row[i]
		}
	}
	n := getF32(code[t.idxBytes:])
	if t.cfg.Kind == TurboProd {
		signs := code[t.idxBytes : t.idxBytes+t.qjlBytes]
		n = getF32(code[t.idxBytes+t.qjlBytes:])
		coef := float32(math.Sqrt(math.Pi/2)) / float32(t.dim) * getF32(code[t.idxBytes+t.qjlBytes+4:])
		for j := 0; j < t.dim; j++ {
			s := coef
			if signs[j>>3]>>(j&7)&1 == 0 {
				s = -coef
			}
			row := t.qjl[j*t.dim : (j+1)*t.dim]
			for i := range x {
				x[i] += s * row[i]
			}
		}
	}
	for i := range x {
		x[i] *= n
	}
}

// encodeQdrant is quantization.rs quantize: pad, rotate, rescale to
// length √pdim, keep xm = ⟨X, M⟩, apply TQ+ ((x + shift)·scale), pick
// centroids, and store the scale factor l2/cn, where cn is the length of
// the chosen centroids with TQ+ undone (c/scale − shift).
func (t *Turbo) encodeQdrant(dst []byte, v []float32) {
	buf := make([]float64, t.pdim)
	l2 := t.preprocess(buf, v)
	var sq, xm float64
	for _, x := range buf {
		sq += x * x
	}
	if sq >= 1e-12 { // a zero vector keeps xm = 0 and no TQ+ (quantize's guard)
		for i, x := range buf {
			xm -= x * float64(t.shift[i])
			buf[i] = (x + float64(t.shift[i])) * float64(t.scale[i])
		}
	}
	var cn float64
	for j, x := range buf {
		k := t.nearest(float32(x))
		putIdx(dst, j, t.bits, k)
		c := float64(t.codebook[k])/float64(t.scale[j]) - float64(t.shift[j])
		cn += c * c
	}
	cn = math.Sqrt(cn)
	if sq < 1e-12 && t.metric == engine.Cosine {
		cn = math.Sqrt(float64(t.pdim))
	}
	length := float64(1)
	if t.metric != engine.Cosine {
		length = l2
	}
	sf := float32(0)
	if cn > 0 {
		sf = float32(length / cn)
	}
	putF32(dst[t.idxBytes:], sf)
	off := t.idxBytes + 4
	if t.metric == engine.L2 {
		putF32(dst[off:], float32(l2))
		off += 4
	}
	putF32(dst[off:], float32(xm))
}

// preprocess is quantization.rs preprocess_into: zero-pad v to pdim,
// rotate, and rescale so the vector's length is √pdim (each coordinate
// then has variance ≈ 1, the codebook's N(0, 1)); under Cosine the length
// is taken as 1 (Qdrant stores no length for Cosine). It returns the
// rotated vector's length.
func (t *Turbo) preprocess(buf []float64, v []float32) float64 {
	clear(buf)
	for i, x := range v {
		buf[i] = float64(x)
	}
	t.had.apply(buf)
	var nn float64
	for _, x := range buf {
		nn += x * x
	}
	l2 := math.Sqrt(nn)
	length := 1.0
	if t.metric != engine.Cosine {
		length = l2
	}
	if length > 0 {
		s := math.Sqrt(float64(t.pdim)) / length
		for i := range buf {
			buf[i] *= s
		}
	}
	return l2
}

// tqPlus fits TQ+'s per-coordinate shift and scale (qdrant/qdrant
// v1.18.0 lib/quantization/src/turboquant/mod.rs EncodedVectorsTQ::encode,
// TQMode::Plus): with c the outermost centroid and p = Φ(c), the
// coordinate's p and 1 − p quantiles q_lo, q_hi over the sample (rotated
// and rescaled) give shift = −(q_lo + q_hi)/2 and scale = 2c/(q_hi − q_lo),
// or scale 1 when q_hi − q_lo ≤ 10⁻³. Qdrant estimates the quantiles with
// streaming P-square estimators; here they are the sample's own
// (interpolated order statistics), which P-square approximates.
func tqPlus(dim int, metric engine.Metric, bits int, rows [][]float32) (shift, scale []float32) {
	pdim := qdrantPadded(dim, bits)
	pre := &Turbo{dim: dim, metric: metric, pdim: pdim, had: newHadamard(pdim)}
	cols := make([][]float64, pdim)
	for j := range cols {
		cols[j] = make([]float64, len(rows))
	}
	buf := make([]float64, pdim)
	for i, r := range rows {
		pre.preprocess(buf, r)
		for j, x := range buf {
			cols[j][i] = float64(float32(x)) // Qdrant narrows to f32 here
		}
	}
	cb := qdrantCodebook(bits)
	c := float64(cb[len(cb)-1])
	p := 0.5 * (1 + math.Erf(c/math.Sqrt2))
	shift, scale = make([]float32, pdim), make([]float32, pdim)
	for j, col := range cols {
		slices.Sort(col)
		lo, hi := float32(quantileSorted(col, 1-p)), float32(quantileSorted(col, p))
		shift[j] = -(lo + hi) / 2
		scale[j] = 1
		if w := hi - lo; w > 1e-3 {
			scale[j] = float32(2*c) / w
		}
	}
	return shift, scale
}

// quantileSorted is the p quantile of sorted values, linearly
// interpolated between order statistics.
func quantileSorted(s []float64, p float64) float64 {
	if len(s) == 1 {
		return s[0]
	}
	x := p * float64(len(s)-1)
	i := int(x)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	f := x - float64(i)
	return s[i]*(1-f) + s[i+1]*f
}

// randomRotation is Algorithm 1's Π: the Q factor of a d×d matrix of
// i.i.d. N(0, 1) entries, by modified Gram–Schmidt on its rows in
// float64 (R's diagonal positive, so Π is Haar-distributed).
func randomRotation(d int, r *rand.Rand) []float32 {
	g := make([]float64, d*d)
	for i := range g {
		g[i] = r.NormFloat64()
	}
	for i := 0; i < d; i++ {
		row := g[i*d : (i+1)*d]
		for k := 0; k < i; k++ {
			prev := g[k*d : (k+1)*d]
			var dot float64
			for j := range row {
				dot += row[j] * prev[j]
			}
			for j := range row {
				row[j] -= dot * prev[j]
			}
		}
		var n float64
		for _, x := range row {
			n += x * x
		}
		n = math.Sqrt(n)
		for j := range row {
			row[j] /= n
		}
	}
	out := make([]float32, d*d)
	for i, x := range g {
		out[i] = float32(x)
	}
	return out
}

// lloydMaxBeta returns the 2^bits Lloyd-Max centroids for one coordinate
// of a uniform point of the unit sphere in d dimensions, whose density is
// Γ(d/2)/(√π Γ((d−1)/2)) (1 − x²)^((d−3)/2) on [−1, 1] (the paper's
// Lemma 1): the continuous 1-D k-means of Eq. 4, solved numerically on a
// fine grid (cell means from prefix sums) until the centroids move less
// than 10⁻¹². Deterministic: it depends on d and bits only.
func lloydMaxBeta(d, bits int) []float32 {
	key := [2]int{d, bits}
	if c, ok := codebooks.Load(key); ok {
		return slices.Clone(c.([]float32))
	}
	c := solveLloydMaxBeta(d, bits)
	codebooks.Store(key, c)
	return slices.Clone(c)
}

// codebooks caches lloydMaxBeta's solutions by (d, bits): every
// quantizer of a dimension shares one, and it depends on nothing else.
var codebooks sync.Map

func solveLloydMaxBeta(d, bits int) []float32 {
	const n = 1 << 16
	// The mass lies within a few 1/√d of 0; the grid spans 12 standard
	// deviations (or all of [−1, 1]).
	span := math.Min(1, 12/math.Sqrt(float64(d)))
	xs := make([]float64, n)
	w := make([]float64, n)
	e := float64(d-3) / 2
	for i := range xs {
		x := -span + (float64(i)+0.5)*2*span/n
		xs[i] = x
		w[i] = math.Exp(e * math.Log1p(-x*x))
	}
	cw := make([]float64, n+1)  // prefix sums of w
	cwx := make([]float64, n+1) // of w·x
	for i := range xs {
		cw[i+1] = cw[i] + w[i]
		cwx[i+1] = cwx[i] + w[i]*xs[i]
	}
	k := 1 << bits
	c := make([]float64, k)
	// Start from equal-mass cells' means.
	cut := make([]int, k+1)
	cut[k] = n
	for j := 1; j < k; j++ {
		target := cw[n] * float64(j) / float64(k)
		cut[j], _ = slices.BinarySearch(cw[1:], target)
	}
	mean := func(a, b int) float64 {
		if cw[b]-cw[a] <= 0 {
			return xs[min(max((a+b)/2, 0), n-1)]
		}
		return (cwx[b] - cwx[a]) / (cw[b] - cw[a])
	}
	for j := 0; j < k; j++ {
		c[j] = mean(cut[j], cut[j+1])
	}
	for iter := 0; iter < 10000; iter++ {
		for j := 1; j < k; j++ {
			b := (c[j-1] + c[j]) / 2
			// First grid point above the boundary.
			cut[j], _ = slices.BinarySearch(xs, b)
		}
		moved := 0.0
		for j := 0; j < k; j++ {
			m := mean(cut[j], cut[j+1])
			moved = math.Max(moved, math.Abs(m-c[j]))
			c[j] = m
		}
		if moved < 1e-12 {
			break
		}
	}
	// The density is even: make the codebook exactly symmetric.
	out := make([]float32, k)
	for j := 0; j < k; j++ {
		out[j] = float32((c[j] - c[k-1-j]) / 2)
	}
	return out
}

// hadamard is Qdrant's TurboQuant rotation (qdrant/qdrant v1.18.0
// lib/quantization/src/turboquant/rotation.rs HadamardRotation::apply):
// the dimension split into power-of-two chunks (its binary digits,
// largest first), a normalised Walsh–Hadamard transform of each chunk,
// then three times a fixed pseudo-random permutation of all coordinates
// followed by the chunk transforms again. No random signs.
type hadamard struct {
	chunks []int
	perms  [3]lcgPermutation
}

// qdrantPermutationSeeds are rotation.rs PERMUTATION_SEEDS ("baked into
// the encoding of every quantized vector").
var qdrantPermutationSeeds = [3]uint64{654605292835415893, 8636605637963351413, 1775280196666917949}

func newHadamard(n int) hadamard {
	var h hadamard
	for bits := n; bits != 0; {
		hi := 1 << (63 - leadingZeros64(uint64(bits)))
		h.chunks = append(h.chunks, hi)
		bits ^= hi
	}
	for i := range h.perms {
		h.perms[i] = lcgPermutation{seed: qdrantPermutationSeeds[i], n: n}
	}
	return h
}

func leadingZeros64(x uint64) int {
	n := 0
	for x&(1<<63) == 0 {
		x <<= 1
		n++
	}
	return n
}

func (h hadamard) apply(x []float64) {
	h.chunkWHT(x)
	for _, p := range h.perms {
		p.permute(x)
		h.chunkWHT(x)
	}
}

func (h hadamard) chunkWHT(x []float64) {
	off := 0
	for _, size := range h.chunks {
		c := x[off : off+size]
		for step := 1; step < size; step *= 2 {
			for i := 0; i < size; i += 2 * step {
				for j := i; j < i+step; j++ {
					a, b := c[j], c[j+step]
					c[j], c[j+step] = a+b, a-b
				}
			}
		}
		norm := 1 / math.Sqrt(float64(size))
		for i := range c {
			c[i] *= norm
		}
		off += size
	}
}

// lcgPermutation is permutation.rs Permutation::permute: a Fisher–Yates
// shuffle from the last element down, drawing j from the upper 32 bits of
// a 64-bit LCG with Knuth's MMIX constants (state advanced before each
// draw), j = (state >> 32) mod (i + 1).
type lcgPermutation struct {
	seed uint64
	n    int
}

func (p lcgPermutation) permute(x []float64) {
	const a, c = 6364136223846793005, 1442695040888963407
	s := p.seed
	for i := p.n - 1; i >= 1; i-- {
		s = s*a + c
		j := int((s >> 32) % uint64(i+1))
		x[i], x[j] = x[j], x[i]
	}
}

// MarshalBinary returns the quantizer's parameters (see the package doc).
func (t *Turbo) MarshalBinary() ([]byte, error) { return marshal(t.frame()) }

func (t *Turbo) frame() (magic, tag string, body []byte) {
	e := newEncoder(32 + 4*len(t.codebook) + 8*len(t.shift))
	e.u32(uint32(t.dim))
	e.u8(uint8(t.metric))
	e.u8(uint8(t.cfg.Kind))
	e.u8(uint8(t.cfg.Bits))
	e.u8(0)
	e.u32(uint32(t.cfg.Seed))
	e.u32(uint32(t.cfg.Seed >> 32))
	e.u32(uint32(t.cfg.SampleSize))
	for _, c := range t.codebook {
		e.f32(c)
	}
	for i := range t.shift {
		e.f32(t.shift[i])
		e.f32(t.scale[i])
	}
	return magicTurbo, tagTurbo, e.b
}

// RestoreTurbo reads a TurboQuant quantizer written by MarshalBinary.
func RestoreTurbo(b []byte) (*Turbo, error) { return restoreTurbo("", b) }

func restoreTurbo(name string, b []byte) (*Turbo, error) {
	d, err := openFile(name, b, magicTurbo, tagTurbo, "turbo quantizer")
	if err != nil {
		return nil, err
	}
	at := d.off
	dim, metric := d.dimMetric()
	if d.err == nil && dim > maxTurboDim {
		d.fail(at, "dimension %d above %d", dim, maxTurboDim)
	}
	at = d.off
	cfg := TurboConfig{Kind: TurboKind(d.u8("kind"))}
	cfg.Bits = int(d.u8("bits"))
	if r := d.u8("reserved"); d.err == nil && r != 0 {
		d.fail(at+2, "reserved byte is %d", r)
	}
	cfg.Seed = uint64(d.u32("seed")) | uint64(d.u32("seed"))<<32
	cfg.SampleSize = int(int32(d.u32("sample size")))
	if d.err == nil {
		if err := cfg.Validate(); err != nil {
			d.fail(at, "%v", err)
		} else if cfg.Kind != TurboQdrant && dim > maxTurboPaperDim {
			d.fail(at, "turbo %s dimension %d above %d", cfg.Kind, dim, maxTurboPaperDim)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	bits := cfg.Bits
	if cfg.Kind == TurboProd {
		bits--
	}
	codebook := make([]float32, 1<<bits)
	for i := range codebook {
		at := d.off
		codebook[i] = d.f32("centroid")
		if d.err == nil && i > 0 && !(codebook[i] > codebook[i-1]) {
			d.fail(at, "centroid %d (%v) is not above centroid %d (%v)", i, codebook[i], i-1, codebook[i-1])
		}
	}
	var shift, scale []float32
	if cfg.Kind == TurboQdrant && d.err == nil {
		pdim := qdrantPadded(dim, cfg.Bits)
		if !d.need(8*pdim, "shift and scale") {
			return nil, d.err
		}
		shift, scale = make([]float32, pdim), make([]float32, pdim)
		for i := range shift {
			shift[i] = d.f32("shift")
			at := d.off
			scale[i] = d.f32("scale")
			if d.err == nil && !(scale[i] > 0) {
				d.fail(at, "scale %v of coordinate %d is not positive", scale[i], i)
			}
		}
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	return newTurbo(dim, metric, cfg, codebook, shift, scale)
}
