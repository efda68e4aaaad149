package engine

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// ID is a dense internal document id: the row of the document in its slab.
// Caller keys map to IDs once, at the edge of an index.
type ID uint32

// Metric names how two vectors are compared. It is fixed when an index is
// created and resolved to a function then, never compared per call.
type Metric uint8

// The metrics. The zero value is Cosine, the articles' metric.
const (
	Cosine Metric = iota // 1 − cos(a, b); vectors are unit-normalised on insert
	Dot                  // −⟨a, b⟩ (maximum inner product)
	L2                   // squared Euclidean distance
)

var metricNames = [...]string{Cosine: "cosine", Dot: "dot", L2: "l2"}

// String returns the metric's name as ParseMetric reads it.
func (m Metric) String() string {
	if int(m) < len(metricNames) {
		return metricNames[m]
	}
	return fmt.Sprintf("Metric(%d)", m)
}

// Valid reports whether m is one of the defined metrics.
func (m Metric) Valid() bool { return int(m) < len(metricNames) }

// ParseMetric reads a metric name ("cosine", "dot", "l2"; case-insensitive;
// "ip" and "euclidean" are accepted as aliases).
func ParseMetric(s string) (Metric, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "cosine", "cos":
		return Cosine, nil
	case "dot", "ip", "inner_product", "dot_product":
		return Dot, nil
	case "l2", "euclidean", "l2_norm":
		return L2, nil
	}
	return 0, fmt.Errorf("engine: unknown metric %q (want cosine, dot or l2): %w", s, ErrInvalidArgument)
}

// Result is one hit of a search: a document and its distance to the query
// (smaller is closer, see the package doc).
type Result struct {
	ID   ID
	Dist float32
}

// Sentinel errors. They are wrapped with %w and a message naming what was wrong.
var (
	ErrDimension       = errors.New("engine: dimension mismatch")
	ErrInvalidVector   = errors.New("engine: invalid vector (NaN or Inf component)")
	ErrZeroVector      = errors.New("engine: zero vector cannot be normalised for cosine")
	ErrInvalidArgument = errors.New("engine: invalid argument")
	ErrEmpty           = errors.New("engine: index is empty")
	ErrDuplicateID     = errors.New("engine: duplicate id")
	ErrNotFound        = errors.New("engine: not found")
	ErrCorrupt         = errors.New("engine: corrupt data")
	ErrVersion         = errors.New("engine: unsupported format version")
	ErrClosed          = errors.New("engine: closed")
)

// CheckVector validates a vector for an index of dimension dim under metric
// m: the length must be dim, every component finite, and under Cosine the
// vector must not be zero. The error names the offending component.
func CheckVector(v []float32, dim int, m Metric) error {
	if len(v) != dim {
		return fmt.Errorf("engine: vector has %d components, index has %d: %w", len(v), dim, ErrDimension)
	}
	var norm float64
	for i, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("engine: component %d is %v: %w", i, x, ErrInvalidVector)
		}
		norm += f * f
	}
	if m == Cosine && norm == 0 {
		return ErrZeroVector
	}
	return nil
}

// CheckK validates a requested number of results.
func CheckK(k int) error {
	if k <= 0 {
		return fmt.Errorf("engine: %w", &ArgError{Field: "k", Value: k, Want: "positive"})
	}
	return nil
}

// ArgError is one argument out of its range: the field as the API that
// checked it spells it, the value given and the values allowed. It wraps
// ErrInvalidArgument. A layer above the engine (a store profile, a
// notebook verb) finds it with errors.As and restates it in its own
// user's terms — the knob the user set, rather than the engine field it
// became — instead of parsing the message.
type ArgError struct {
	Field string // as the checking API spells it: "k", "breadth", "rescore", "oversample"
	Value any    // the value given
	Want  string // the values allowed: "positive", "≥ 0", "in (0, 1]"
}

// Error reads "<field> must be <want>, got <value>: engine: invalid
// argument"; the checking package prefixes its own name.
func (e *ArgError) Error() string {
	return fmt.Sprintf("%s must be %s, got %v: %v", e.Field, e.Want, e.Value, ErrInvalidArgument)
}

// Unwrap returns ErrInvalidArgument.
func (e *ArgError) Unwrap() error { return ErrInvalidArgument }

// Filter is an allow-list: a search returns only documents it allows.
// A nil Filter allows everything.
type Filter interface {
	Allowed(id ID) bool
}

// FilterFunc adapts a function to a Filter.
type FilterFunc func(ID) bool

// Allowed calls f(id).
func (f FilterFunc) Allowed(id ID) bool { return f(id) }

// Bitset is a dense allow-list over ids 0…Len()-1; it is the form every
// compiled filter takes before it reaches an index.
type Bitset struct {
	words []uint64
	n     int
}

// NewBitset returns an empty bitset for ids 0…n-1.
func NewBitset(n int) *Bitset {
	return &Bitset{words: make([]uint64, (n+63)/64), n: n}
}

// Len returns the number of ids the bitset covers.
func (b *Bitset) Len() int { return b.n }

// Set allows id.
func (b *Bitset) Set(id ID) { b.words[id>>6] |= 1 << (id & 63) }

// Clear disallows id.
func (b *Bitset) Clear(id ID) { b.words[id>>6] &^= 1 << (id & 63) }

// Allowed reports whether id is in the set; ids beyond Len are not.
func (b *Bitset) Allowed(id ID) bool {
	if int(id) >= b.n {
		return false
	}
	return b.words[id>>6]&(1<<(id&63)) != 0
}

// Count returns the number of allowed ids.
func (b *Bitset) Count() int {
	c := 0
	for _, w := range b.words {
		c += bits.OnesCount64(w)
	}
	return c
}

// ForEach calls fn for every allowed id in increasing order.
func (b *Bitset) ForEach(fn func(ID)) {
	for wi, w := range b.words {
		for w != 0 {
			t := bits.TrailingZeros64(w)
			fn(ID(wi*64 + t))
			w &= w - 1
		}
	}
}

// VectorSource gives access to full-precision vectors by id: a slab in RAM
// or a vector file on disk (which counts its reads).
type VectorSource interface {
	Dim() int
	Len() int
	// Vector copies vector id into dst (len(dst) must be Dim()) and returns it.
	Vector(dst []float32, id ID) ([]float32, error)
}

// SearchStats are the per-query counters experiments print.
type SearchStats struct {
	DistComps int // distance computations
	Hops      int // nodes expanded (popped from the candidate queue)
	Visited   int // nodes marked visited
}

// Add accumulates o into s.
func (s *SearchStats) Add(o SearchStats) {
	s.DistComps += o.DistComps
	s.Hops += o.Hops
	s.Visited += o.Visited
}
