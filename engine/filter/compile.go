package filter

import (
	"bytes"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/veclab/veclab/engine"
)

// Cardinality is an estimate of how many documents a filter matches, with
// bounds (Qdrant's CardinalityEstimation: min ≤ exp ≤ max).
type Cardinality struct {
	Min, Exp, Max int
}

// String prints "min/exp/max".
func (c Cardinality) String() string { return fmt.Sprintf("%d/%d/%d", c.Min, c.Exp, c.Max) }

// Exact reports whether the bounds coincide.
func (c Cardinality) Exact() bool { return c.Min == c.Max }

// Compiled is a type-checked filter bound to a store. It is an
// engine.Filter: Allowed answers from payload indexes where the filter's
// fields have one and decodes the stored payload otherwise (counted in
// PayloadChecks). Use it from one goroutine at a time (see Clone).
type Compiled struct {
	store  *Store
	expr   *Expr
	leaves map[*Expr]*roaring.Bitmap // compare nodes with an index
	bits   *roaring.Bitmap           // the whole filter, when every leaf is indexed
	est    Cardinality
	n      int            // store size at compile time
	dense  *engine.Bitset // bits as a dense bitset: Allowed's fast path

	// Payload reading (fields without an index).
	wanted  map[string]bool // the fields the expression reads
	rd      *bytes.Reader
	dec     *msgpack.Decoder
	scratch map[string]Value

	checks int // payload decodes
}

// Expr returns the filter's expression.
func (c *Compiled) Expr() *Expr { return c.expr }

// String prints the expression.
func (c *Compiled) String() string { return c.expr.String() }

// Indexed reports whether every field of the filter has a payload index, so
// that the matching set is known without reading any payload.
func (c *Compiled) Indexed() bool { return c.bits != nil }

// Estimate returns the cardinality estimate (see the package doc).
func (c *Compiled) Estimate() Cardinality { return c.est }

// Len returns the number of documents the filter was compiled against.
func (c *Compiled) Len() int { return c.n }

// PayloadChecks returns the number of stored payloads decoded so far.
func (c *Compiled) PayloadChecks() int { return c.checks }

// ResetCounters zeroes PayloadChecks.
func (c *Compiled) ResetCounters() { c.checks = 0 }

// Clone returns a copy with its own counters for another goroutine.
func (c *Compiled) Clone() *Compiled {
	d := *c
	d.checks = 0
	d.initReader()
	return &d
}

func (c *Compiled) initReader() {
	c.rd = bytes.NewReader(nil)
	c.dec = msgpack.NewDecoder(c.rd)
	c.scratch = make(map[string]Value, len(c.wanted))
}

// loadPayload decodes the wanted fields of id's stored payload into
// c.scratch, skipping the others without building them.
func (c *Compiled) loadPayload(id engine.ID) map[string]Value {
	clear(c.scratch)
	c.checks++
	c.rd.Reset(c.store.payloads[id])
	c.dec.Reset(c.rd)
	n, err := c.dec.DecodeMapLen()
	if err != nil {
		return c.scratch
	}
	for i := 0; i < n; i++ {
		key, err := c.dec.DecodeString()
		if err != nil {
			return c.scratch
		}
		if !c.wanted[key] {
			if c.dec.Skip() != nil {
				return c.scratch
			}
			continue
		}
		raw, err := c.dec.DecodeInterfaceLoose()
		if err != nil {
			return c.scratch
		}
		v, err := ValueOf(raw)
		if err != nil {
			continue
		}
		if c.store.kinds[key] == KindFloat && v.Kind == KindInteger {
			v = Float(float64(v.Int))
		}
		c.scratch[key] = v
	}
	return c.scratch
}

// Allowed reports whether document id matches.
func (c *Compiled) Allowed(id engine.ID) bool {
	if int(id) >= c.n {
		return false
	}
	if c.dense != nil {
		return c.dense.Allowed(id)
	}
	var payload map[string]Value
	loaded := false
	return c.eval(c.expr, id, &payload, &loaded)
}

func (c *Compiled) eval(e *Expr, id engine.ID, payload *map[string]Value, loaded *bool) bool {
	switch e.Node {
	case NodeCompare:
		if b := c.leaves[e]; b != nil {
			return b.Contains(uint32(id))
		}
		if !*loaded {
			*payload = c.loadPayload(id)
			*loaded = true
		}
		v, ok := (*payload)[e.Field]
		return ok && matchValue(e, v)
	case NodeAnd:
		for _, a := range e.Args {
			if !c.eval(a, id, payload, loaded) {
				return false
			}
		}
		return true
	case NodeOr:
		for _, a := range e.Args {
			if c.eval(a, id, payload, loaded) {
				return true
			}
		}
		return false
	case NodeNot:
		return !c.eval(e.Args[0], id, payload, loaded)
	}
	return false
}

func matchValue(e *Expr, v Value) bool {
	switch e.Op {
	case OpIn:
		for _, w := range e.Values {
			if compatible(v.Kind, w.Kind) && compare(v, w) == 0 {
				return true
			}
		}
		return false
	case OpNin:
		for _, w := range e.Values {
			if compatible(v.Kind, w.Kind) && compare(v, w) == 0 {
				return false
			}
		}
		return true
	}
	w := e.Values[0]
	if !compatible(v.Kind, w.Kind) {
		return false
	}
	c := compare(v, w)
	switch e.Op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	}
	return false
}

// Bitset returns the matching set as a dense bitset over 0…Len()-1. With
// every field indexed it comes from the indexes; otherwise every stored
// payload is decoded (counted in PayloadChecks).
func (c *Compiled) Bitset() *engine.Bitset {
	bs := engine.NewBitset(c.n)
	if c.bits != nil {
		it := c.bits.Iterator()
		for it.HasNext() {
			bs.Set(engine.ID(it.Next()))
		}
		return bs
	}
	for id := 0; id < c.n; id++ {
		if c.Allowed(engine.ID(id)) {
			bs.Set(engine.ID(id))
		}
	}
	return bs
}

// IDs returns the matching ids in increasing order (see Bitset for cost).
func (c *Compiled) IDs() []engine.ID {
	var out []engine.ID
	if c.bits != nil {
		out = make([]engine.ID, 0, c.bits.GetCardinality())
		it := c.bits.Iterator()
		for it.HasNext() {
			out = append(out, engine.ID(it.Next()))
		}
		return out
	}
	for id := 0; id < c.n; id++ {
		if c.Allowed(engine.ID(id)) {
			out = append(out, engine.ID(id))
		}
	}
	return out
}

// CompileString parses and compiles text.
func (s *Store) CompileString(text string) (*Compiled, error) {
	e, err := Parse(text)
	if err != nil {
		return nil, err
	}
	return s.Compile(e)
}

// Compile type-checks e against the store and binds it. Errors name the
// field, the column (for parsed expressions) and what was expected; in a
// Declared store a field that is not declared is refused (ErrUnknownField).
func (s *Store) Compile(e *Expr) (*Compiled, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	if err := s.check(e); err != nil {
		return nil, err
	}
	c := &Compiled{store: s, expr: e, n: s.Len(), leaves: map[*Expr]*roaring.Bitmap{}, wanted: map[string]bool{}}
	for _, f := range e.Fields() {
		c.wanted[f] = true
	}
	c.initReader()
	allIndexed := true
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x.Node == NodeCompare {
			if ix := s.indexes[x.Field]; ix != nil {
				c.leaves[x] = ix.bitmap(x)
			} else {
				allIndexed = false
			}
			return
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	if allIndexed {
		c.bits = c.combine(e)
		c.dense = engine.NewBitset(c.n)
		it := c.bits.Iterator()
		for it.HasNext() {
			c.dense.Set(engine.ID(it.Next()))
		}
		n := int(c.bits.GetCardinality())
		c.est = Cardinality{n, n, n}
	} else {
		c.est = c.estimate(e)
	}
	return c, nil
}

func (c *Compiled) universe() *roaring.Bitmap {
	u := roaring.New()
	u.AddRange(0, uint64(c.n))
	return u
}

func (c *Compiled) combine(e *Expr) *roaring.Bitmap {
	switch e.Node {
	case NodeCompare:
		return c.leaves[e]
	case NodeAnd, NodeOr:
		var acc *roaring.Bitmap
		for _, a := range e.Args {
			b := c.combine(a)
			switch {
			case acc == nil:
				acc = b.Clone()
			case e.Node == NodeAnd:
				acc.And(b)
			default:
				acc.Or(b)
			}
		}
		return acc
	case NodeNot:
		return roaring.AndNot(c.universe(), c.combine(e.Args[0]))
	}
	return roaring.New()
}

// estimate follows Qdrant's query_estimator.rs (see the package doc).
func (c *Compiled) estimate(e *Expr) Cardinality {
	n := c.n
	switch e.Node {
	case NodeCompare:
		if b := c.leaves[e]; b != nil {
			k := int(b.GetCardinality())
			return Cardinality{k, k, k}
		}
		return Cardinality{0, n / 2, n} // unknown without an index (field_index/mod.rs)
	case NodeAnd:
		sumMin, maxOf, prod := 0, n, 1.0
		for _, a := range e.Args {
			x := c.estimate(a)
			sumMin += x.Min
			maxOf = min(maxOf, x.Max)
			if n > 0 {
				prod *= float64(x.Exp) / float64(n)
			}
		}
		lo := max(0, sumMin-(len(e.Args)-1)*n)
		exp := int(math.Round(prod * float64(n)))
		return clampCard(lo, exp, maxOf)
	case NodeOr:
		minOf, sumMax, prod := 0, 0, 1.0
		for _, a := range e.Args {
			x := c.estimate(a)
			minOf = max(minOf, x.Min)
			sumMax += x.Max
			if n > 0 {
				prod *= 1 - float64(x.Exp)/float64(n)
			}
		}
		exp := int(math.Round(float64(n) * (1 - prod)))
		return clampCard(minOf, exp, min(sumMax, n))
	case NodeNot:
		x := c.estimate(e.Args[0])
		return Cardinality{n - x.Max, n - x.Exp, n - x.Min}
	}
	return Cardinality{0, n / 2, n}
}

func clampCard(lo, exp, hi int) Cardinality {
	if hi < lo {
		hi = lo
	}
	exp = min(max(exp, lo), hi)
	return Cardinality{lo, exp, hi}
}

// check type-checks every comparison.
func (s *Store) check(e *Expr) error {
	switch e.Node {
	case NodeAnd, NodeOr, NodeNot:
		for _, a := range e.Args {
			if err := s.check(a); err != nil {
				return err
			}
		}
		return nil
	}
	if s.schema.Mode == Declared && !s.declared[e.Field] {
		return &PosError{Col: e.Col, Msg: fmt.Sprintf("%s (the field is not declared in the schema; declare it to filter on it)", e.Field), Err: ErrUnknownField}
	}
	kind := s.kinds[e.Field]
	if kind == KindNone {
		// Schemaless and never seen: Qdrant matches nothing, no error.
		// The literal list must still be of one kind.
		return nil
	}
	col := e.ValueCol
	for i, v := range e.Values {
		if !compatible(kind, v.Kind) {
			want := "a quoted string"
			switch kind {
			case KindInteger, KindFloat:
				want = "a number"
			case KindBool:
				want = "true or false"
			}
			what := fmt.Sprintf("field %s is %v, found %v literal %s, expected %s", e.Field, kind, v.Kind, v, want)
			if len(e.Values) > 1 {
				what = fmt.Sprintf("value %d of the list: %s", i+1, what)
				if i > 0 {
					col = 0
				}
			}
			if col == 0 && e.Col > 0 {
				col = e.Col
			}
			return &PosError{Col: col, Msg: what, Err: ErrType}
		}
	}
	switch e.Op {
	case OpLt, OpLe, OpGt, OpGe:
		if !kind.numeric() {
			col := e.Col
			return &PosError{Col: col, Msg: fmt.Sprintf("operator %s on %v field %s, expected ==, !=, in or nin (ordering applies to integer and float fields)", e.Op, kind, e.Field), Err: ErrType}
		}
	}
	return nil
}

// Estimate returns the cardinality estimate of e against the store (see the
// package doc), type-checking it first.
func (s *Store) Estimate(e *Expr) (Cardinality, error) {
	c, err := s.Compile(e)
	if err != nil {
		return Cardinality{}, err
	}
	return c.Estimate(), nil
}
