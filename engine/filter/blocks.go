package filter

import (
	"fmt"
	"sort"

	"github.com/veclab/veclab/engine"
)

// Block is one payload block of an indexed field: the condition that
// selects it and the ids it selects (Qdrant's PayloadBlockCondition,
// lib/segment/src/index/field_index/mod.rs). Qdrant builds an extra HNSW
// over each block and merges its links into the main graph (engine/filtered
// BuildPayloadLinks).
type Block struct {
	Cond *Expr       // e.g. category == 'c3', or year >= 2019 && year < 2022
	IDs  []engine.ID // the matching ids, increasing
}

// PayloadBlocks enumerates the payload blocks of an indexed field for a
// threshold in points, as Qdrant's for_each_payload_block does:
//
//   - keyword and bool fields: one block per value held by more than
//     threshold points (map_index payload_blocks), in value order; below
//     counts the values held by fewer (they get no block: the planner
//     scores them exactly);
//   - integer and float fields: the sorted column is cut, at value
//     boundaries, into steps of at least ⌊threshold/2⌋ values, and every
//     block spans two consecutive steps, so consecutive blocks overlap by
//     one step and a range query straddling a cut still lies inside one
//     block (numeric_index payload_blocks, histogram get_range_by_size with
//     threshold/2); a column that fits in one step is one block.
//
// A field without a payload index is refused (Qdrant has no blocks for an
// unindexed field), as is a negative threshold.
func (s *Store) PayloadBlocks(field string, threshold int) (blocks []Block, below int, err error) {
	if threshold < 0 {
		return nil, 0, fmt.Errorf("filter: payload blocks of %q: threshold %d < 0: %w", field, threshold, engine.ErrInvalidArgument)
	}
	if s.kinds[field] == KindNone && s.indexes[field] == nil {
		return nil, 0, fmt.Errorf("filter: payload blocks of %q: the store has no such field: %w", field, ErrUnknownField)
	}
	ix := s.indexes[field]
	if ix == nil {
		return nil, 0, fmt.Errorf("filter: payload blocks of %q: the field has no payload index (create it first): %w", field, engine.ErrInvalidArgument)
	}
	if !ix.kind.numeric() {
		terms := make([]string, 0, len(ix.terms))
		for t := range ix.terms {
			terms = append(terms, t)
		}
		sort.Strings(terms)
		for _, t := range terms {
			b := ix.terms[t]
			if int(b.GetCardinality()) <= threshold {
				below++
				continue
			}
			v := Str(t)
			if ix.kind == KindBool {
				v = Bool(t == "true")
			}
			ids := make([]engine.ID, 0, b.GetCardinality())
			it := b.Iterator()
			for it.HasNext() {
				ids = append(ids, engine.ID(it.Next()))
			}
			blocks = append(blocks, Block{Cond: &Expr{Node: NodeCompare, Field: field, Op: OpEq, Values: []Value{v}}, IDs: ids})
		}
		return blocks, below, nil
	}

	ix.prepare()
	n := len(ix.vals)
	if n == 0 {
		return nil, 0, nil
	}
	step := max(threshold/2, 1)
	// cuts[i] is the first position of step i; cuts ends with n.
	cuts := []int{0}
	for p := 0; p < n; {
		q := min(p+step, n)
		for q < n && ix.vals[q] == ix.vals[q-1] {
			q++
		}
		cuts = append(cuts, q)
		p = q
	}
	val := func(x float64) Value {
		if ix.kind == KindInteger {
			return Int(int64(x))
		}
		return Float(x)
	}
	cmpExpr := func(op Op, pos int) *Expr {
		return &Expr{Node: NodeCompare, Field: field, Op: op, Values: []Value{val(ix.vals[pos])}}
	}
	span := func(lo, hi int) Block {
		ids := make([]engine.ID, hi-lo)
		for i, id := range ix.ids[lo:hi] {
			ids[i] = engine.ID(id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
		var parts []*Expr
		if lo > 0 {
			parts = append(parts, cmpExpr(OpGe, lo))
		}
		if hi < n {
			parts = append(parts, cmpExpr(OpLt, hi))
		}
		var e *Expr
		switch len(parts) {
		case 0: // one block holds the whole column
			e = cmpExpr(OpGe, 0)
		case 1:
			e = parts[0]
		default:
			e = And(parts...)
		}
		return Block{Cond: e, IDs: ids}
	}
	steps := len(cuts) - 1
	if steps == 1 {
		return []Block{span(0, n)}, 0, nil
	}
	for i := 1; i < steps; i++ {
		blocks = append(blocks, span(cuts[i-1], cuts[i+1]))
	}
	return blocks, 0, nil
}
