package filter_test

import (
	"fmt"

	"github.com/veclab/veclab/engine/filter"
)

// The payload index of each field, split into roaring bitmaps and the
// numeric column, beside the stored fields' msgpack bytes.
func ExampleStore_FieldIndexBytes() {
	st, _ := filter.NewStore(filter.Schema{Mode: filter.Declared, Fields: []filter.Field{
		{Name: "category", Kind: filter.KindKeyword},
		{Name: "year", Kind: filter.KindInteger},
	}})
	for i := 0; i < 1000; i++ {
		st.Add(filter.Doc{Meta: map[string]any{"category": fmt.Sprintf("c%d", i%8), "year": 2015 + i%11}})
	}
	for _, f := range []string{"category", "year"} {
		b, col := st.FieldIndexBytes(f)
		fmt.Printf("%s: bitmaps %d B, column %d B\n", f, b, col)
	}
	fmt.Println("stored fields:", st.StoredBytes(), "B; all indexes:", st.IndexBytes(), "B")
	// Output:
	// category: bitmaps 4234 B, column 0 B
	// year: bitmaps 2010 B, column 12000 B
	// stored fields: 27000 B; all indexes: 18244 B
}
