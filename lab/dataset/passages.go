package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// PassageConfig says how to chunk documents into passages (E25, nested
// vectors): how many passages each document gets and how far they sit from
// it. The zero value of a field takes its default.
type PassageConfig struct {
	// MinPassages and MaxPassages bound the passages of one document; the
	// count is drawn uniformly in [MinPassages, MaxPassages] (equal bounds:
	// every document has that many). Defaults 2 and 8.
	MinPassages, MaxPassages int
	// Spread is the expected norm of a passage's Gaussian offset from its
	// document's unit vector, before the passage is normalised. The
	// generator's clusters use 1.0 (DefaultSpread), so passages of one
	// document sit closer to each other than documents of one cluster, as
	// chunks of one text tend to. Default 0.5.
	Spread float64
	// Seed draws the counts and the offsets.
	Seed uint64
}

// The defaults of [PassageConfig].
const (
	DefaultMinPassages   = 2
	DefaultMaxPassages   = 8
	DefaultPassageSpread = 0.5
)

// WithDefaults returns c with its zero fields set to their defaults.
func (c PassageConfig) WithDefaults() PassageConfig {
	if c.MinPassages == 0 {
		c.MinPassages = DefaultMinPassages
	}
	if c.MaxPassages == 0 {
		c.MaxPassages = max(DefaultMaxPassages, c.MinPassages)
	}
	if c.Spread == 0 {
		c.Spread = DefaultPassageSpread
	}
	return c
}

// Validate reports every invalid field at once (call it on WithDefaults).
func (c PassageConfig) Validate() error {
	var errs []string
	if c.MinPassages < 1 {
		errs = append(errs, fmt.Sprintf("min passages must be ≥ 1, got %d", c.MinPassages))
	}
	if c.MaxPassages < c.MinPassages {
		errs = append(errs, fmt.Sprintf("max passages %d below min %d", c.MaxPassages, c.MinPassages))
	}
	if c.MaxPassages > 1000 {
		errs = append(errs, fmt.Sprintf("max passages must be ≤ 1000, got %d", c.MaxPassages))
	}
	if !(c.Spread > 0) || math.IsInf(c.Spread, 0) {
		errs = append(errs, fmt.Sprintf("spread must be finite and > 0, got %v", c.Spread))
	}
	if len(errs) > 0 {
		return fmt.Errorf("dataset: passages: %s: %w", strings.Join(errs, "; "), engine.ErrInvalidArgument)
	}
	return nil
}

// MeanPassages is the expected number of passages per document.
func (c PassageConfig) MeanPassages() float64 {
	return float64(c.MinPassages+c.MaxPassages) / 2
}

// Passages are documents chunked into passages, each with its own vector:
// the collection a search for the k nearest documents (not passages) runs
// over (E25).
type Passages struct {
	Config   PassageConfig // with its defaults
	Vectors  *vec.Matrix   // passage i is row i, unit length
	ParentOf []uint32      // the document of each passage; a document's passages are contiguous, as in a Lucene block
	Counts   []int         // the passages of each document
}

// Documents is the number of documents (parents).
func (p *Passages) Documents() int { return len(p.Counts) }

// Len is the number of passages.
func (p *Passages) Len() int { return p.Vectors.N }

// MeanPassages is the measured mean number of passages per document.
func (p *Passages) MeanPassages() float64 { return float64(p.Len()) / float64(p.Documents()) }

// String summarises the collection on one line.
func (p *Passages) String() string {
	c := p.Config
	counts := fmt.Sprint(c.MinPassages)
	if c.MaxPassages != c.MinPassages {
		counts += "–" + fmt.Sprint(c.MaxPassages)
	}
	return fmt.Sprintf("%d documents, %d passages (%.2f per document; %s each, spread %g, seed %d)",
		p.Documents(), p.Len(), p.MeanPassages(), counts, c.Spread, c.Seed)
}

// streamPassages is the PCG stream of the passages (E25's: the
// generator's own streams are 0x9e37…); part of E25's determinism, never
// change it.
const streamPassages = 0xE25

// ChunkPassages chunks the first documents of docs (unit vectors, e.g. a
// data set's Base) into passages: about n passages in all, so the
// documents are the first round(n / mean passages) rows of docs (all of
// them at most). Document p gets a number of passages drawn by cfg, each
// docs' row p plus a Gaussian offset of expected norm cfg.Spread,
// normalised. The same docs, n and cfg give the same passages.
func ChunkPassages(docs *vec.Matrix, n int, cfg PassageConfig) (*Passages, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if docs == nil || docs.N == 0 {
		return nil, fmt.Errorf("dataset: ChunkPassages: no documents: %w", engine.ErrInvalidArgument)
	}
	if n < 1 {
		return nil, fmt.Errorf("dataset: ChunkPassages: about n passages, n must be ≥ 1, got %d: %w", n, engine.ErrInvalidArgument)
	}
	nDocs := max(1, min(int(math.Round(float64(n)/cfg.MeanPassages())), docs.N))
	dim := docs.Dim
	r := rand.New(rand.NewPCG(cfg.Seed, streamPassages))
	counts := make([]int, nDocs)
	total := 0
	for p := range counts {
		counts[p] = cfg.MinPassages + r.IntN(cfg.MaxPassages-cfg.MinPassages+1)
		total += counts[p]
	}
	m := vec.NewMatrix(total, dim)
	parentOf := make([]uint32, total)
	sigma := cfg.Spread / math.Sqrt(float64(dim))
	i := 0
	for p, c := range counts {
		doc := docs.Row(p)
		for range c {
			row := m.Row(i)
			for {
				for d := range row {
					row[d] = doc[d] + float32(sigma*r.NormFloat64())
				}
				if vec.Normalize(row) == nil {
					break
				}
			}
			parentOf[i] = uint32(p)
			i++
		}
	}
	return &Passages{Config: cfg, Vectors: m, ParentOf: parentOf, Counts: counts}, nil
}
