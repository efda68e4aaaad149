package explore

import (
	"context"
	"fmt"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/quant"
)

// ScanParams asks for an exhaustive scan of every query over the whole
// base: the exact float32 search of engine/flat (Bits 32), or every OSQ
// code scored against a 4-bit query as an IVF posting list is
// (quant.BoundQuery.Distances; Bits 4 or 1, the latter BBQ), then the
// top K. It is what the browser benchmark times, in the module with the
// WebAssembly SIMD128 kernels and without them, and natively.
type ScanParams struct {
	Bits int `json:"bits"` // 32, 4 or 1
	K    int `json:"k"`    // default 10
}

// ScanResult is one scan's figures.
type ScanResult struct {
	Bits   int     `json:"bits"`
	What   string  `json:"what"`   // e.g. "exact float32 (engine/flat)"
	Recall float64 `json:"recall"` // mean recall@K against the exact top-K
	QPS    float64 `json:"qps"`    // queries per second, one thread
	// EncodeSeconds is the training and encoding of the codes (0 for
	// float32, and when an earlier scan of the same Bits encoded them).
	EncodeSeconds float64 `json:"encodeSeconds"`
}

// scanCodes is the base encoded once per Bits for Scan.
type scanCodes struct {
	o     *quant.OSQ
	codes []byte // N codes of CodeSize bytes, end to end (a posting list's slab)
}

// Scan runs every query exhaustively (see ScanParams), timed as the
// sweep's points are ([timing]); recall@K is scored on the first pass.
func (l *Lab) Scan(p ScanParams) (res *ScanResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("explore: scan: internal error: %v", r)
		}
	}()
	if p.K == 0 {
		p.K = 10
	}
	if p.K < 1 || p.K > 100 {
		return nil, fmt.Errorf("explore: scan: k %d is outside 1…100: %w", p.K, engine.ErrInvalidArgument)
	}
	truth, err := l.truthFor(Buckets, nil, p.K)
	if err != nil {
		return nil, err
	}
	res = &ScanResult{Bits: p.Bits}
	var one func(q []float32) ([]engine.Result, error)
	switch p.Bits {
	case 32:
		res.What = "exact float32 (engine/flat)"
		ix, err := flat.New(l.Base, flat.Config{Metric: l.Metric, Workers: 1})
		if err != nil {
			return nil, fmt.Errorf("explore: scan: %w", err)
		}
		one = func(q []float32) ([]engine.Result, error) {
			rs, _, err := ix.Search(q, p.K, nil)
			return rs, err
		}
	case 4, 1:
		res.What = fmt.Sprintf("OSQ %d-bit codes, 4-bit query, every code scored (quant.BoundQuery.Distances)", p.Bits)
		if l.scans == nil {
			l.scans = map[int]*scanCodes{}
		}
		sc := l.scans[p.Bits]
		if sc == nil {
			t0 := time.Now()
			o, err := quant.TrainOSQ(l.Base, l.Metric, quant.OSQConfig{Bits: p.Bits, QueryBits: 4, Seed: l.P.Seed})
			if err != nil {
				return nil, fmt.Errorf("explore: scan: %w", err)
			}
			cs := o.CodeSize()
			sc = &scanCodes{o: o, codes: make([]byte, l.Base.N*cs)}
			for i := range l.Base.N {
				if err := o.Encode(sc.codes[i*cs:(i+1)*cs], l.Base.Row(i)); err != nil {
					return nil, fmt.Errorf("explore: scan: encoding row %d: %w", i, err)
				}
			}
			l.scans[p.Bits] = sc
			res.EncodeSeconds = time.Since(t0).Seconds()
		}
		qc := make([]byte, sc.o.QueryCodeSize())
		dists := make([]float32, l.Base.N)
		best := make([]engine.Result, 0, p.K+1)
		one = func(q []float32) ([]engine.Result, error) {
			if err := sc.o.EncodeQuery(qc, q); err != nil {
				return nil, err
			}
			b, err := sc.o.Bind(qc)
			if err != nil {
				return nil, err
			}
			if err := b.Distances(dists, sc.codes); err != nil {
				return nil, err
			}
			return topK(best[:0], dists, p.K), nil
		}
	default:
		return nil, fmt.Errorf("explore: scan: bits %d: want 32, 4 or 1: %w", p.Bits, engine.ErrInvalidArgument)
	}
	loop := timing
	loop.Queries, loop.K, loop.Truth = l.Queries.N, p.K, truth
	m, err := loop.Run(context.Background(), func(_, i int) ([]engine.Result, error) { return one(l.Queries.Row(i)) })
	if err != nil {
		return nil, fmt.Errorf("explore: scan: %w", err)
	}
	res.Recall, res.QPS = m.Recall, m.QPS
	return res, nil
}

// topK returns the k smallest distances, nearest first (ties by id),
// kept in best, a sorted list of at most k+1 entries:
// insertion into a short sorted list is cheaper than a heap at k ≤ 100
// against the scan itself.
func topK(best []engine.Result, dists []float32, k int) []engine.Result {
	for i, d := range dists {
		if len(best) == k && d >= best[k-1].Dist {
			continue
		}
		j := len(best)
		best = append(best, engine.Result{})
		for j > 0 && best[j-1].Dist > d {
			best[j] = best[j-1]
			j--
		}
		best[j] = engine.Result{ID: engine.ID(i), Dist: d}
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}
