package picture

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/table"
)

// Codes are the four codes the quantization notebook draws, by the lab's
// quantizer names (experiment.TrainQuantizer): Lucene's int8 (7-bit) and
// int4 scalar codes, OSQ 2-bit and 1-bit documents (both with 4-bit
// queries; 1-bit is Elasticsearch's bbq).
var Codes = []string{"int8", "int4", "osq2", "bbq"}

// CodeLabel names a quantizer for a picture: "int8 (7 bits)" and so on.
func CodeLabel(name string) string {
	switch name {
	case "int8":
		return "int8 (7 bits)"
	case "int4":
		return "int4"
	case "osq2":
		return "2-bit OSQ"
	case "bbq":
		return "1-bit OSQ (bbq)"
	case "osq1x1":
		return "1-bit × 1-bit"
	case "osq4":
		return "4-bit OSQ"
	}
	return name
}

// decoder is what Scalar and OSQ offer to turn a code back into a vector.
type decoder interface {
	Decode(dst []float32, code []byte) error
}

// Reconstruct encodes v and decodes it back with q.
func Reconstruct(q quant.Quantizer, v []float32) ([]float32, error) {
	d, ok := q.(decoder)
	if !ok {
		return nil, fmt.Errorf("picture: %v cannot decode its codes: %w", q, ErrBadArgument)
	}
	code := make([]byte, q.CodeSize())
	if err := q.Encode(code, v); err != nil {
		return nil, fmt.Errorf("picture: %w", err)
	}
	out := make([]float32, q.Dim())
	if err := d.Decode(out, code); err != nil {
		return nil, fmt.Errorf("picture: %w", err)
	}
	return out, nil
}

// Components draws the first n components of v and of its reconstruction
// by each quantizer, as lines over the component index.
func Components(v []float32, n int, names []string, qs []quant.Quantizer) (*chart.Line, error) {
	if len(names) != len(qs) {
		return nil, fmt.Errorf("picture: %d names for %d quantizers: %w", len(names), len(qs), ErrBadArgument)
	}
	n = min(n, len(v))
	idx := make([]float64, n)
	orig := make([]float64, n)
	for i := 0; i < n; i++ {
		idx[i], orig[i] = float64(i), float64(v[i])
	}
	c := chart.NewLine(fmt.Sprintf("the first %d components of one vector and of its codes", n), "component", "value")
	c.Width, c.Height = 640, 320
	c.Add("float32 (original)", idx, orig)
	for i, q := range qs {
		r, err := Reconstruct(q, v)
		if err != nil {
			return nil, err
		}
		y := make([]float64, n)
		for j := range y {
			y[j] = float64(r[j])
		}
		c.Add(CodeLabel(names[i]), idx, y)
	}
	return c, nil
}

// ReconstructionError is the mean relative squared error ‖x − x̂‖²/‖x‖²
// of q over the first n rows of m.
func ReconstructionError(q quant.Quantizer, m *vec.Matrix, n int) (float64, error) {
	if m == nil || m.N == 0 || n < 1 {
		return 0, fmt.Errorf("picture: ReconstructionError: no vectors: %w", ErrBadArgument)
	}
	n = min(n, m.N)
	var sum float64
	for i := 0; i < n; i++ {
		v := m.Row(i)
		r, err := Reconstruct(q, v)
		if err != nil {
			return 0, err
		}
		var e, s float64
		for j := range v {
			d := float64(v[j] - r[j])
			e += d * d
			s += float64(v[j]) * float64(v[j])
		}
		if s > 0 {
			sum += e / s
		}
	}
	return sum / float64(n), nil
}

// Distortion holds true and estimated distances of query–document pairs.
type Distortion struct {
	Name            string
	True, Estimated []float64
	// Corr is the Pearson correlation of True and Estimated; Spearman the
	// rank correlation, what a nearest-neighbour ranking depends on.
	Corr, Spearman float64
}

// MeasureDistortion scores nq queries against nd documents (the first
// rows of queries and base) with q's estimate (EncodeQuery + Distance, the
// asymmetric path a search takes) and with the exact float32 distance.
func MeasureDistortion(q quant.Quantizer, name string, base, queries *vec.Matrix, nq, nd int) (Distortion, error) {
	if base == nil || queries == nil || nq < 1 || nd < 1 {
		return Distortion{}, fmt.Errorf("picture: MeasureDistortion: no vectors: %w", ErrBadArgument)
	}
	nq, nd = min(nq, queries.N), min(nd, base.N)
	exact := vec.Distance(q.Metric())
	codes := make([][]byte, nd)
	for i := range codes {
		codes[i] = make([]byte, q.CodeSize())
		if err := q.Encode(codes[i], base.Row(i)); err != nil {
			return Distortion{}, fmt.Errorf("picture: %w", err)
		}
	}
	d := Distortion{Name: name}
	qc := make([]byte, q.QueryCodeSize())
	for j := 0; j < nq; j++ {
		qv := queries.Row(j)
		if err := q.EncodeQuery(qc, qv); err != nil {
			return Distortion{}, fmt.Errorf("picture: %w", err)
		}
		for i := range codes {
			d.True = append(d.True, float64(exact(qv, base.Row(i))))
			d.Estimated = append(d.Estimated, float64(q.Distance(qc, codes[i])))
		}
	}
	d.Corr = pearson(d.True, d.Estimated)
	d.Spearman = pearson(ranks(d.True), ranks(d.Estimated))
	return d, nil
}

// Scatter draws estimated against true distance with the line y = x.
func (d Distortion) Scatter() *chart.Scatter {
	c := chart.NewScatter(fmt.Sprintf("%s: rank correlation %.3f", CodeLabel(d.Name), d.Spearman), "true distance", "estimated distance")
	c.Width, c.Height = 300, 300
	c.NoLegend = true
	c.Add("pairs", chart.Dots, d.True, d.Estimated)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range d.True {
		lo = math.Min(lo, math.Min(d.True[i], d.Estimated[i]))
		hi = math.Max(hi, math.Max(d.True[i], d.Estimated[i]))
	}
	if len(d.True) > 0 {
		c.Add("y = x", chart.Reference, []float64{lo, hi}, []float64{lo, hi})
	}
	return c
}

func pearson(a, b []float64) float64 {
	n := float64(len(a))
	if n < 2 {
		return math.NaN()
	}
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma, mb = ma/n, mb/n
	var sab, saa, sbb float64
	for i := range a {
		x, y := a[i]-ma, b[i]-mb
		sab += x * y
		saa += x * x
		sbb += y * y
	}
	return sab / math.Sqrt(saa*sbb)
}

// ranks returns the rank of each value (ties share the mean rank).
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j) / 2
		}
		i = j + 1
	}
	return r
}

// Centring trains OSQ quantizers with the given bits on base around
// different centroids and returns them with a label each: the origin (no
// centring), then, under Cosine, Lucene's centroid (the mean normalised to
// unit length, what TrainOSQ does by default), then the plain mean of the
// data (OSQConfig.MeanCentroid). Under L2 and Dot Lucene's centroid is the
// plain mean, so two are returned.
func Centring(base *vec.Matrix, metric engine.Metric, bits int, seed uint64) ([]string, []*quant.OSQ, error) {
	if base == nil || base.N == 0 {
		return nil, nil, fmt.Errorf("picture: Centring: no vectors: %w", ErrBadArgument)
	}
	cfg := quant.OSQConfig{Bits: bits, Seed: seed}
	plain, err := quant.NewOSQ(make([]float32, base.Dim), metric, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("picture: %w", err)
	}
	labels, qs := []string{"no centring"}, []*quant.OSQ{plain}
	if metric == engine.Cosine {
		lucene, err := quant.TrainOSQ(base, metric, cfg)
		if err != nil {
			return nil, nil, fmt.Errorf("picture: %w", err)
		}
		labels, qs = append(labels, "unit-length mean (Lucene)"), append(qs, lucene)
	}
	cfg.MeanCentroid = true
	mean, err := quant.TrainOSQ(base, metric, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("picture: %w", err)
	}
	return append(labels, "plain mean"), append(qs, mean), nil
}

// Norm returns the Euclidean length of v.
func Norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// RescoreCurves draws recall after rescoring against the oversample
// factor, one line per quantizer (experiment.QuantFlat's results).
func RescoreCurves(rs []experiment.QuantResult, k int) *chart.Line {
	c := chart.NewLine(fmt.Sprintf("rescoring ⌈o·%d⌉ code candidates with float32 vectors", k), "oversample o (log scale)", fmt.Sprintf("recall@%d", k))
	c.LogX = true
	for _, r := range rs {
		c.Add(CodeLabel(r.Name), r.Oversample, r.RecallOver)
	}
	return c
}

// CodeTable lists each quantizer's bytes per vector, reconstruction error
// and recall without and with rescoring.
func CodeTable(rs []experiment.QuantResult, errs []float64, k int) *table.Table {
	t := table.New("what each code keeps",
		table.Col("code", ""), table.Col("bytes/vector", ""), table.Col("compression", "×"),
		table.Col("relative error ‖x−x̂‖²/‖x‖²", ""), table.Col(fmt.Sprintf("recall@%d, codes only", k), ""),
		table.Col(fmt.Sprintf("recall@%d, rescored at the largest o", k), ""))
	for i, r := range rs {
		var e any
		if i < len(errs) {
			e = errs[i]
		}
		last := math.NaN()
		if len(r.RecallOver) > 0 {
			last = r.RecallOver[len(r.RecallOver)-1]
		}
		if f, ok := e.(float64); ok {
			e = fmt.Sprintf("%.1e", f)
		}
		_ = t.AddValues(CodeLabel(r.Name), r.BytesPerVector, r.Compression, e, r.RecallNone, last)
	}
	return t
}

// Sample returns n rows of m chosen with seed (without replacement), as a
// new matrix: a few hundred points for a scatter.
func Sample(m *vec.Matrix, n int, seed uint64) (*vec.Matrix, error) {
	if m == nil || m.N == 0 || n < 1 {
		return nil, fmt.Errorf("picture: Sample: no vectors: %w", ErrBadArgument)
	}
	n = min(n, m.N)
	perm := rand.New(rand.NewPCG(seed, 0x5a)).Perm(m.N)[:n]
	out := vec.NewMatrix(n, m.Dim)
	for i, j := range perm {
		copy(out.Row(i), m.Row(j))
	}
	return out, nil
}

// CodeBits returns the bits per document component of a lab quantizer name
// (0 for an unknown one).
func CodeBits(name string) int {
	switch name {
	case "int8", "int8-minmax":
		return 7
	case "int4", "int4-nocorr", "osq4":
		return 4
	case "osq2":
		return 2
	case "bbq", "osq1x1":
		return 1
	case "raw":
		return 32
	}
	return 0
}

// ErrorChart draws each quantizer's reconstruction error against its bits
// per component, on a log scale, labelled with the quantizer's name.
func ErrorChart(names []string, errs []float64) (*chart.Line, error) {
	if len(names) != len(errs) || len(names) == 0 {
		return nil, fmt.Errorf("picture: ErrorChart: %d names for %d errors: %w", len(names), len(errs), ErrBadArgument)
	}
	x := make([]float64, len(names))
	labels := make([]string, len(names))
	for i, n := range names {
		if x[i] = float64(CodeBits(n)); x[i] == 0 {
			return nil, fmt.Errorf("picture: ErrorChart: unknown quantizer %q: %w", n, ErrBadArgument)
		}
		labels[i] = CodeLabel(n)
	}
	c := chart.NewLine("reconstruction error per bit width", "bits per component", "mean ‖x − x̂‖² / ‖x‖²")
	c.LogY = true
	c.AddLabeled("", x, errs, labels)
	return c, c.Err()
}

// Offset returns a copy of the first n rows of m with by added to every
// component: the same points moved away from the origin, which changes no
// L2 distance between them.
func Offset(m *vec.Matrix, n int, by float32) (*vec.Matrix, error) {
	if m == nil || m.N == 0 || n < 1 {
		return nil, fmt.Errorf("picture: Offset: no vectors: %w", ErrBadArgument)
	}
	n = min(n, m.N)
	out := vec.NewMatrix(n, m.Dim)
	for i := 0; i < n; i++ {
		row, src := out.Row(i), m.Row(i)
		for j := range row {
			row[j] = src[j] + by
		}
	}
	return out, nil
}

// GridInPlane draws what a b-bit scalar quantizer (int8/int4's kind: one
// grid for every vector and component, its bounds the data's confidence
// interval) does to points of the plane: each point (grey) is joined to
// the grid point its code decodes to (dots), so the 2^b × 2^b lattice
// shows. It returns the decoded points' squared error relative to their
// squared length (ReconstructionError's measure).
func GridInPlane(points *vec.Matrix, bits int) (*chart.Scatter, float64, error) {
	if points == nil || points.N == 0 || points.Dim != 2 {
		return nil, 0, fmt.Errorf("picture: GridInPlane needs points of the plane: %w", ErrBadArgument)
	}
	q, err := quant.TrainScalar(points, engine.L2, quant.ScalarConfig{Bits: bits})
	if err != nil {
		return nil, 0, fmt.Errorf("picture: %w", err)
	}
	x, y := make([]float64, points.N), make([]float64, points.N)
	dx, dy := make([]float64, points.N), make([]float64, points.N)
	var num, den float64
	for i := 0; i < points.N; i++ {
		v := points.Row(i)
		d, err := Reconstruct(q, v)
		if err != nil {
			return nil, 0, err
		}
		x[i], y[i], dx[i], dy[i] = float64(v[0]), float64(v[1]), float64(d[0]), float64(d[1])
		num += (x[i]-dx[i])*(x[i]-dx[i]) + (y[i]-dy[i])*(y[i]-dy[i])
		den += x[i]*x[i] + y[i]*y[i]
	}
	s := square(fmt.Sprintf("%d bits per component: %d values on each axis", bits, 1<<bits))
	s.Add("points", chart.Background, x, y)
	s.AddSegments("point → grid point", x, y, dx, dy)
	s.Add("decoded (grid points)", chart.Dots, dx, dy)
	return s, num / den, nil
}

// OneBitInPlane draws what one bit per component keeps of points of the
// plane, centred on their plain mean as Elasticsearch centres a segment's
// BBQ codes: each bit says on which side of the centroid (the star) the
// point lies, so the plane splits into four quadrants, one group of points
// per code, and each code stands for one corner c ± (m_x, m_y), m the
// mean distance from the centroid along each axis (the step every vector
// shares). Each point is joined to its code's corner. It returns the
// corners' squared error relative to the points' squared distance from the
// centroid — what the bits alone lose — and the centroid. (OSQ also keeps
// two corrective numbers per vector, its own interval; in the plane two
// numbers for two components restore every point exactly, which is why
// the picture draws the bits alone: in 384 dimensions the same two numbers
// correct only the vector's scale, as ReconstructionError measures.)
func OneBitInPlane(points *vec.Matrix) (*chart.Scatter, float64, []float32, error) {
	if points == nil || points.N == 0 || points.Dim != 2 {
		return nil, 0, nil, fmt.Errorf("picture: OneBitInPlane needs points of the plane: %w", ErrBadArgument)
	}
	var c [2]float64
	for i := 0; i < points.N; i++ {
		for j := 0; j < 2; j++ {
			c[j] += float64(points.Row(i)[j]) / float64(points.N)
		}
	}
	var m [2]float64
	for i := 0; i < points.N; i++ {
		for j := 0; j < 2; j++ {
			m[j] += math.Abs(float64(points.Row(i)[j])-c[j]) / float64(points.N)
		}
	}
	var quad [4][2][]float64
	x, y := make([]float64, points.N), make([]float64, points.N)
	dx, dy := make([]float64, points.N), make([]float64, points.N)
	var num, den float64
	for i := 0; i < points.N; i++ {
		v := points.Row(i)
		x[i], y[i] = float64(v[0]), float64(v[1])
		k := 0
		dx[i], dy[i] = c[0]-m[0], c[1]-m[1]
		if x[i] > c[0] {
			k |= 1
			dx[i] = c[0] + m[0]
		}
		if y[i] > c[1] {
			k |= 2
			dy[i] = c[1] + m[1]
		}
		quad[k][0], quad[k][1] = append(quad[k][0], x[i]), append(quad[k][1], y[i])
		num += (x[i]-dx[i])*(x[i]-dx[i]) + (y[i]-dy[i])*(y[i]-dy[i])
		den += (x[i]-c[0])*(x[i]-c[0]) + (y[i]-c[1])*(y[i]-c[1])
	}
	s := square("1 bit per component around the centroid: 4 codes, 4 corners")
	s.AddSegments("point → its code's corner", x, y, dx, dy)
	for k, name := range []string{"code 00 (left, below)", "code 10 (right, below)", "code 01 (left, above)", "code 11 (right, above)"} {
		s.Add(name, chart.Dots, quad[k][0], quad[k][1])
	}
	s.Add("the codes' corners", chart.Marks, []float64{c[0] - m[0], c[0] + m[0], c[0] - m[0], c[0] + m[0]}, []float64{c[1] - m[1], c[1] - m[1], c[1] + m[1], c[1] + m[1]})
	s.Add("centroid (plain mean)", chart.Star, []float64{c[0]}, []float64{c[1]})
	return s, num / den, []float32{float32(c[0]), float32(c[1])}, nil
}

// RankSpread is where one code's flat scan puts each query's exact top K:
// ranks are 1-based positions in the code's ranking, over every query's
// true neighbours; a neighbour beyond the Ranked kept counts as Ranked+1.
type RankSpread struct {
	Name                   string    // the code, as CodeLabel names it
	Queries, K, Ranked     int       // queries, true neighbours each, candidates kept per query
	Median, P90, P99, Last int       // rank quantiles of the true neighbours; Last the worst
	Beyond                 int       // true neighbours beyond the Ranked kept
	Oversample             []float64 // the cut-offs drawn
	Within                 []float64 // share of true neighbours ranked within ⌈o·K⌉: recall@K after rescoring them
}

func rankText(r, ranked int) string {
	if r > ranked {
		return fmt.Sprintf("beyond %d", ranked)
	}
	return fmt.Sprint(r)
}

// String gives the spread in a line: the rank quantiles, how many lie
// beyond the ranked (when any), and the share left of each cut-off.
func (s RankSpread) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s median rank %s, 90th percentile %s, 99th %s, last %s", s.Name,
		rankText(s.Median, s.Ranked), rankText(s.P90, s.Ranked), rankText(s.P99, s.Ranked), rankText(s.Last, s.Ranked))
	if s.Beyond > 0 {
		fmt.Fprintf(&b, " (%d of %d beyond)", s.Beyond, s.Queries*s.K)
	}
	cuts := make([]string, len(s.Oversample))
	shares := make([]string, len(s.Oversample))
	for i, o := range s.Oversample {
		cuts[i], shares[i] = fmt.Sprint(o), fmt.Sprintf("%.3f", s.Within[i])
	}
	fmt.Fprintf(&b, "; within ⌈o·%d⌉ for o = %s: %s", s.K, strings.Join(cuts, ", "), strings.Join(shares, ", "))
	return b.String()
}

// TrueRanks draws where the true top K fall in each code's ranking, one
// panel per code (names[i] labels rankings[i], experiment.RankCodes's
// kept flat scans): each of the first rows queries is a row, sorted by the
// rank of its worst-ranked true neighbour, and each of its true K
// neighbours a dot at its position in the code's ranking (log x axis);
// neighbours beyond the candidates kept are rings at the right edge. The
// dashed vertical lines are the oversample cut-offs ⌈o·K⌉: rescoring
// reads the candidates left of a line and so finds every dot left of it,
// which is why recall after rescoring climbs with o, and how far right
// the dots sit says which o a code needs. It returns the picture and each
// code's spread over all its queries.
func TrueRanks(names []string, rankings []*experiment.CodeRanking, oversample []float64, rows int) (*chart.Grid, []RankSpread, error) {
	if len(names) == 0 || len(names) != len(rankings) {
		return nil, nil, fmt.Errorf("picture: TrueRanks: %d names for %d rankings (want the same number, at least one): %w", len(names), len(rankings), ErrBadArgument)
	}
	if len(oversample) == 0 || rows < 1 {
		return nil, nil, fmt.Errorf("picture: TrueRanks: %d oversample cut-offs and %d rows (want at least one of each): %w", len(oversample), rows, ErrBadArgument)
	}
	for _, o := range oversample {
		if !(o >= 1) || math.IsInf(o, 0) {
			return nil, nil, fmt.Errorf("picture: TrueRanks: oversample must be a finite number ≥ 1, got %v: %w", o, ErrBadArgument)
		}
	}
	var panels []chart.Chart
	var spreads []RankSpread
	for i, cr := range rankings {
		if cr == nil {
			return nil, nil, fmt.Errorf("picture: TrueRanks: ranking %d (%s) is nil: %w", i, names[i], ErrBadArgument)
		}
		for _, o := range oversample {
			if o > cr.MaxOversample {
				return nil, nil, fmt.Errorf("picture: TrueRanks: cut-off o = %g beyond ranking %d's (%s) %g ranked: %w", o, i, names[i], cr.MaxOversample, ErrBadArgument)
			}
		}
		ranks := cr.TrueRanks()
		ranked := cr.Ranked()
		if len(ranks) == 0 || ranked == 0 {
			return nil, nil, fmt.Errorf("picture: TrueRanks: ranking %d (%s) has no queries: %w", i, names[i], ErrBadArgument)
		}
		sp := RankSpread{Name: CodeLabel(names[i]), Queries: len(ranks), K: cr.K, Ranked: ranked,
			Oversample: append([]float64(nil), oversample...), Within: make([]float64, len(oversample))}
		var all []int
		worst := make([]int, len(ranks)) // each query's worst rank, beyond as ranked+1
		for qi, row := range ranks {
			for _, r := range row {
				if r == 0 {
					r = ranked + 1
					sp.Beyond++
				}
				all = append(all, r)
				worst[qi] = max(worst[qi], r)
			}
		}
		sort.Ints(all)
		at := func(p float64) int { return all[min(int(math.Ceil(p*float64(len(all))))-1, len(all)-1)] }
		sp.Median, sp.P90, sp.P99, sp.Last = at(0.5), at(0.9), at(0.99), all[len(all)-1]
		for oi, o := range oversample {
			cut := engine.RescoreDepth(cr.K, o)
			sp.Within[oi] = float64(sort.SearchInts(all, cut+1)) / float64(len(all))
		}
		spreads = append(spreads, sp)

		// The drawn rows: the first rows queries, the best-ranked at the
		// bottom.
		n := min(rows, len(ranks))
		order := make([]int, n)
		for j := range order {
			order[j] = j
		}
		sort.SliceStable(order, func(a, b int) bool { return worst[order[a]] < worst[order[b]] })
		var x, y, bx, by []float64
		for row, qi := range order {
			for _, r := range ranks[qi] {
				if r == 0 {
					bx, by = append(bx, float64(ranked)*1.25), append(by, float64(row))
					continue
				}
				x, y = append(x, float64(r)), append(y, float64(row))
			}
		}
		p := chart.NewScatter(fmt.Sprintf("%s: median rank %s, last %s", sp.Name, rankText(sp.Median, ranked), rankText(sp.Last, ranked)),
			"rank in the code's ranking (log scale)", fmt.Sprintf("%d queries, by their last true neighbour", n))
		p.LogX = true
		p.NoLegend = i > 0 // one legend, on the first panel
		p.Add(fmt.Sprintf("true top %d", cr.K), chart.Dots, x, y)
		p.Add(fmt.Sprintf("beyond the %d ranked", ranked), chart.Marks, bx, by)
		for oi, o := range oversample {
			cut := float64(engine.RescoreDepth(cr.K, o))
			name := ""
			if oi == 0 {
				name = "cut-offs ⌈o·k⌉"
			}
			p.Add(name, chart.Reference, []float64{cut, cut}, []float64{-0.5, float64(n) - 0.5})
		}
		panels = append(panels, p)
	}
	cuts := make([]string, len(oversample))
	for i, o := range oversample {
		cuts[i] = fmt.Sprint(o)
	}
	g := chart.NewGrid(fmt.Sprintf("where the true top %d fall in each code's ranking (cut-offs at o = %s)", rankings[0].K, strings.Join(cuts, ", ")), 2, panels...)
	return g, spreads, nil
}

// RankTable lists TrueRanks's spreads, a code a row: the rank quantiles of
// the true neighbours in the code's ranking and the share of them within
// each cut-off ⌈o·K⌉ (recall@K after rescoring that many candidates).
// A rank beyond the candidates kept reads "beyond N".
func RankTable(spreads []RankSpread) *table.Table {
	k := 0
	var over []float64
	if len(spreads) > 0 {
		k, over = spreads[0].K, spreads[0].Oversample
	}
	cols := []table.Column{table.Col("code", ""), table.Col("median rank", ""), table.Col("90th percentile", ""),
		table.Col("99th percentile", ""), table.Col("last", "")}
	for _, o := range over {
		cols = append(cols, table.Column{Header: fmt.Sprintf("within ⌈%g·%d⌉", o, k), Prec: 3})
	}
	t := table.New(fmt.Sprintf("where the true top %d fall in each code's ranking", k), cols...)
	for _, s := range spreads {
		row := []any{s.Name, rankText(s.Median, s.Ranked), rankText(s.P90, s.Ranked), rankText(s.P99, s.Ranked), rankText(s.Last, s.Ranked)}
		for i := range over {
			var v any = "–"
			if i < len(s.Within) {
				v = s.Within[i]
			}
			row = append(row, v)
		}
		_ = t.AddValues(row...)
	}
	if len(spreads) > 0 {
		t.Note("ranks over all %d queries' true top %d, counted in each code's flat scan of the %d nearest by code distance; \"within ⌈o·k⌉\" is recall@%d after rescoring that many candidates",
			spreads[0].Queries, k, spreads[0].Ranked, k)
	}
	return t
}
