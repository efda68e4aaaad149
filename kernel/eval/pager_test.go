package eval

import "testing"

func TestPagerQuery(t *testing.T) {
	for _, tc := range []struct {
		code, expr string
		ok         bool
	}{
		{"hnsw.New?", "hnsw.New", true},
		{"hnsw.New??", "hnsw.New", true},
		{"  ?x \n", "x", true},
		{"??idx.Search", "idx.Search", true},
		{"x ?", "x", true},
		{"x???", "", false},
		{"x := 1", "", false},
		{"a ? b", "", false},
		{"f(x)?", "", false},
		{"?", "", false},
		{"", "", false},
	} {
		expr, ok := PagerQuery(tc.code)
		if expr != tc.expr || ok != tc.ok {
			t.Errorf("PagerQuery(%q) = %q, %v; want %q, %v", tc.code, expr, ok, tc.expr, tc.ok)
		}
	}
}
