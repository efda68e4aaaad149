package filter

import (
	"sort"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/veclab/veclab/engine"
)

// index is a payload index on one field: keyword and bool values map to
// roaring bitmaps of ids; integer and float values live in a column sorted
// by value that answers ranges with two binary searches (Qdrant keeps a
// histogram for estimates; this column gives exact counts).
type index struct {
	kind    Kind
	present *roaring.Bitmap            // ids that have the field
	terms   map[string]*roaring.Bitmap // keyword / bool ("true", "false")
	vals    []float64                  // numeric: values sorted ascending
	ids     []uint32                   // numeric: ids in the order of vals
	dirty   bool                       // numeric: appended since the last sort
}

func newIndex(k Kind) *index {
	ix := &index{kind: k, present: roaring.New()}
	if !k.numeric() {
		ix.terms = map[string]*roaring.Bitmap{}
	}
	return ix
}

func termOf(v Value) string {
	if v.Kind == KindBool {
		if v.Bool {
			return "true"
		}
		return "false"
	}
	return v.Str
}

func (ix *index) add(id engine.ID, v Value) {
	ix.present.Add(uint32(id))
	if ix.kind.numeric() {
		ix.vals = append(ix.vals, v.num())
		ix.ids = append(ix.ids, uint32(id))
		ix.dirty = true
		return
	}
	t := termOf(v)
	b := ix.terms[t]
	if b == nil {
		b = roaring.New()
		ix.terms[t] = b
	}
	b.Add(uint32(id))
}

type byVal struct{ ix *index }

func (s byVal) Len() int { return len(s.ix.vals) }
func (s byVal) Less(i, j int) bool {
	if s.ix.vals[i] != s.ix.vals[j] {
		return s.ix.vals[i] < s.ix.vals[j]
	}
	return s.ix.ids[i] < s.ix.ids[j]
}
func (s byVal) Swap(i, j int) {
	s.ix.vals[i], s.ix.vals[j] = s.ix.vals[j], s.ix.vals[i]
	s.ix.ids[i], s.ix.ids[j] = s.ix.ids[j], s.ix.ids[i]
}

// prepare sorts the numeric column after inserts. It runs under the
// store's single-writer rule: Compile calls it, and Compile is a read that
// must not run concurrently with Add.
func (ix *index) prepare() {
	if ix.dirty {
		sort.Sort(byVal{ix})
		ix.dirty = false
	}
}

// span returns [lo, hi) positions in the sorted column for op against x.
func (ix *index) span(op Op, x float64) (int, int) {
	n := len(ix.vals)
	first := func(pred func(float64) bool) int { return sort.Search(n, func(i int) bool { return pred(ix.vals[i]) }) }
	switch op {
	case OpEq:
		return first(func(v float64) bool { return v >= x }), first(func(v float64) bool { return v > x })
	case OpLt:
		return 0, first(func(v float64) bool { return v >= x })
	case OpLe:
		return 0, first(func(v float64) bool { return v > x })
	case OpGt:
		return first(func(v float64) bool { return v > x }), n
	case OpGe:
		return first(func(v float64) bool { return v >= x }), n
	}
	return 0, 0
}

// bitmap returns the ids matching one comparison (a fresh bitmap).
func (ix *index) bitmap(e *Expr) *roaring.Bitmap {
	ix.prepare()
	out := roaring.New()
	switch e.Op {
	case OpIn, OpEq:
		for _, v := range e.Values {
			if ix.kind.numeric() {
				lo, hi := ix.span(OpEq, v.num())
				out.AddMany(ix.ids[lo:hi])
			} else if b := ix.terms[termOf(v)]; b != nil {
				out.Or(b)
			}
		}
	case OpNe, OpNin:
		in := ix.bitmap(&Expr{Op: OpIn, Values: e.Values})
		out = roaring.AndNot(ix.present, in)
	default:
		lo, hi := ix.span(e.Op, e.Values[0].num())
		out.AddMany(ix.ids[lo:hi])
	}
	return out
}

// count returns the exact number of ids matching one comparison.
func (ix *index) count(e *Expr) int {
	if ix.kind.numeric() && e.Op != OpIn && e.Op != OpNin && e.Op != OpNe {
		ix.prepare()
		lo, hi := ix.span(e.Op, e.Values[0].num())
		return hi - lo
	}
	return int(ix.bitmap(e).GetCardinality())
}

func (ix *index) bytes() int { return ix.bitmapBytes() + ix.columnBytes() }

// bitmapBytes is the roaring part of bytes: the present set and every
// term's bitmap with its term string and a 16-byte map entry.
func (ix *index) bitmapBytes() int {
	n := int(ix.present.GetSizeInBytes())
	for t, b := range ix.terms {
		n += len(t) + int(b.GetSizeInBytes()) + 16
	}
	return n
}

// columnBytes is the numeric column's part of bytes: 8-byte value plus
// 4-byte id per entry.
func (ix *index) columnBytes() int { return 12 * len(ix.vals) }
