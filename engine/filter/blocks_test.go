package filter

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

// TestPayloadBlocks: keyword values above the threshold are blocks, the
// others are counted; a numeric column is cut into steps of ⌊threshold/2⌋
// values at value boundaries and every block spans two steps; each block's
// condition compiles to exactly its ids.
func TestPayloadBlocks(t *testing.T) {
	st, err := NewStore(Schema{Fields: []Field{
		{Name: "kw", Kind: KindKeyword, Indexed: true},
		{Name: "n", Kind: KindInteger, Indexed: true},
		{Name: "b", Kind: KindBool, Indexed: true},
		{Name: "plain", Kind: KindKeyword}}})
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]Doc, 100)
	for i := range docs {
		kw := "rare"
		if i%10 != 0 {
			kw = fmt.Sprintf("k%d", i%3) // k0 30, k1 30, k2 30 points
		}
		docs[i] = Doc{Meta: map[string]any{"kw": kw, "n": i / 5, "b": i < 70, "plain": "x"}} // n: 20 values × 5
	}
	if _, err := st.Add(docs...); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		field     string
		threshold int
		conds     []string
		sizes     []int
		below     int
	}{
		{"kw", 20, []string{`kw == "k0"`, `kw == "k1"`, `kw == "k2"`}, []int{30, 30, 30}, 1},
		{"kw", 30, nil, nil, 4},
		{"b", 50, []string{`b == true`}, []int{70}, 1},
		// steps of 20 values (4 n-values): 0–19, 20–39, …, 80–99.
		{"n", 40, []string{`n < 8`, `n >= 4 && n < 12`, `n >= 8 && n < 16`, `n >= 12`}, []int{40, 40, 40, 40}, 0},
		// step 11 → cut at the next value boundary: 15 values (3 n-values).
		{"n", 22, []string{`n < 6`, `n >= 3 && n < 9`, `n >= 6 && n < 12`, `n >= 9 && n < 15`, `n >= 12 && n < 18`, `n >= 15`}, []int{30, 30, 30, 30, 30, 25}, 0},
		{"n", 1000, []string{`n >= 0`}, []int{100}, 0},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.field, tc.threshold), func(t *testing.T) {
			blocks, below, err := st.PayloadBlocks(tc.field, tc.threshold)
			if err != nil {
				t.Fatal(err)
			}
			var conds []string
			var sizes []int
			for _, b := range blocks {
				conds = append(conds, b.Cond.String())
				sizes = append(sizes, len(b.IDs))
				c, err := st.Compile(b.Cond)
				if err != nil {
					t.Fatal(err)
				}
				if ids := c.IDs(); !reflect.DeepEqual(ids, b.IDs) {
					t.Errorf("block %s: ids %v, its condition selects %v", b.Cond, b.IDs, ids)
				}
			}
			if !reflect.DeepEqual(conds, tc.conds) || !reflect.DeepEqual(sizes, tc.sizes) || below != tc.below {
				t.Errorf("blocks %q sizes %v below %d; want %q %v %d", conds, sizes, below, tc.conds, tc.sizes, tc.below)
			}
		})
	}
	for _, tc := range []struct {
		field     string
		threshold int
		is        error
		want      string
	}{
		{"colour", 10, ErrUnknownField, `"colour"`},
		{"plain", 10, engine.ErrInvalidArgument, `"plain": the field has no payload index`},
		{"kw", -1, engine.ErrInvalidArgument, "threshold -1 < 0"},
	} {
		if _, _, err := st.PayloadBlocks(tc.field, tc.threshold); !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PayloadBlocks(%q, %d) = %v, want %v naming %q", tc.field, tc.threshold, err, tc.is, tc.want)
		}
	}
}
