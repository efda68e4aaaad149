package hnsw

import "math"

// patience is Elasticsearch's adaptive early exit of an HNSW walk
// (elastic/elasticsearch
// server/src/main/java/org/elasticsearch/search/vectors/AdaptiveHnswQueueSaturationCollector.java,
// the collector PatienceCollectorManager wraps around every kNN
// collector when index.dense_vector.hnsw_enable_early_termination is
// on — the default for indices created on 9.3+, DenseVectorFieldMapper
// HNSW_EARLY_TERMINATION; Lucene's HnswGraphSearcher calls its
// nextCandidate once per expanded candidate, through
// KnnSearchStrategy.Patience.nextVectorsBlock, apache/lucene 10.4
// lucene/core/src/java/org/apache/lucene/search/knn/KnnSearchStrategy.java).
//
// After each expanded candidate it takes the share of that candidate's
// collect calls that entered the queue, divided by k, smooths it
// exponentially (0.9 new, 0.1 old), keeps Welford's running mean and
// variance of the smoothed rate, and counts the consecutive candidates
// whose smoothed rate is below mean + 0.01·stddev; the walk stops once
// that count exceeds 10 / (1 + stddev). Java's arithmetic is kept: the
// rate, the smoothed rate, the mean and m2 are float32, the variance,
// deviation, threshold and patience float64.
//
// The zero value is off; [patience.reset] arms it for a collector of
// size k.
type patience struct {
	on        bool
	k         int
	prev, cur int // queue insertions at the last candidate, and now
	steps     int // collect calls since the last candidate
	smoothed  float32
	mean, m2  float32
	samples   int
	saturated int
	done      bool
}

// The collector's constants (AdaptiveHnswQueueSaturationCollector
// DEFAULT_DISCOVERY_RATE_SMOOTHING, DEFAULT_THRESHOLD_LOOSENESS,
// DEFAULT_PATIENCE_SCALING).
const (
	patienceSmoothing float32 = 0.9
	patienceLooseness float32 = 0.01
	patienceScaling   float32 = 10
)

// reset arms p for a collector of size k (on) or disarms it.
func (p *patience) reset(on bool, k int) { *p = patience{on: on, k: k} }

// collect records one collect call and whether it entered the queue.
func (p *patience) collect(inserted bool) {
	if inserted {
		p.cur++
	}
	p.steps++
}

// next is nextCandidate: it closes one expanded candidate and reports
// whether the walk must stop.
func (p *patience) next() bool {
	if !p.on || p.done {
		return p.done
	}
	rate := float32(float64(p.cur-p.prev) / (1e-9 + float64(p.steps*p.k)))
	rate = max(0, rate)
	// A float32 variable, so that 1 − 0.9 is rounded as Java's float
	// arithmetic rounds it (0.100000024), not folded exactly.
	var sm float32 = patienceSmoothing
	p.smoothed = sm*rate + (1-sm)*p.smoothed
	p.samples++
	delta := p.smoothed - p.mean
	p.mean += delta / float32(p.samples)
	p.m2 += delta * (p.smoothed - p.mean)
	variance := 0.0
	if p.samples > 1 {
		variance = float64(p.m2 / float32(p.samples-1))
	}
	std := math.Sqrt(variance)
	threshold := float64(p.mean) + float64(patienceLooseness)*std
	limit := float64(patienceScaling) / (1 + std)
	if float64(p.smoothed) < threshold {
		p.saturated++
	} else {
		p.saturated = 0
	}
	if float64(p.saturated) > limit {
		p.done = true
	}
	p.prev = p.cur
	p.steps = 0
	return p.done
}
