package filter

import (
	"fmt"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/vmihailenco/msgpack/v5"
)

// TestFieldIndexBytes checks the per-field split of IndexBytes against
// bitmaps and a column built independently from the same documents, and
// StoredBytes against msgpack encodings of the metadata.
func TestFieldIndexBytes(t *testing.T) {
	st, err := NewStore(Schema{Mode: Schemaless, Fields: []Field{
		{Name: "category", Kind: KindKeyword, Indexed: true},
		{Name: "year", Kind: KindInteger, Indexed: true},
		{Name: "note", Kind: KindKeyword}, // stored, not indexed
	}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 5000
	present := roaring.New()
	terms := map[string]*roaring.Bitmap{}
	years := 0
	stored := 0
	docs := make([]Doc, n)
	for i := range docs {
		cat := fmt.Sprintf("c%d", i%8)
		meta := map[string]any{"category": cat, "note": "x"}
		if i%3 != 0 {
			meta["year"] = 2015 + i%11
			years++
		}
		docs[i] = Doc{Meta: meta}
		present.Add(uint32(i))
		if terms[cat] == nil {
			terms[cat] = roaring.New()
		}
		terms[cat].Add(uint32(i))
		// The store keeps integers as int64 (Value.Int).
		enc := map[string]any{}
		for k, v := range meta {
			if x, ok := v.(int); ok {
				v = int64(x)
			}
			enc[k] = v
		}
		b, err := msgpack.Marshal(enc)
		if err != nil {
			t.Fatal(err)
		}
		stored += len(b)
	}
	if _, err := st.Add(docs...); err != nil {
		t.Fatal(err)
	}
	wantCat := int(present.GetSizeInBytes())
	for term, b := range terms {
		wantCat += len(term) + int(b.GetSizeInBytes()) + 16
	}
	yearPresent := roaring.New()
	for i := 0; i < n; i++ {
		if i%3 != 0 {
			yearPresent.Add(uint32(i))
		}
	}
	for _, c := range []struct {
		field           string
		bitmaps, column int
	}{
		{"category", wantCat, 0},
		{"year", int(yearPresent.GetSizeInBytes()), 12 * years},
		{"note", 0, 0},
		{"missing", 0, 0},
	} {
		t.Run(c.field, func(t *testing.T) {
			b, col := st.FieldIndexBytes(c.field)
			if b != c.bitmaps || col != c.column {
				t.Errorf("FieldIndexBytes(%q) = %d, %d; want %d, %d", c.field, b, col, c.bitmaps, c.column)
			}
		})
	}
	sum := 0
	for _, f := range []string{"category", "year", "note"} {
		b, col := st.FieldIndexBytes(f)
		sum += b + col
	}
	if sum != st.IndexBytes() {
		t.Errorf("sum of FieldIndexBytes = %d, IndexBytes = %d", sum, st.IndexBytes())
	}
	if st.StoredBytes() != stored {
		t.Errorf("StoredBytes = %d, msgpack of the metadata = %d", st.StoredBytes(), stored)
	}
}
