package filter

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
)

func TestParseRoundTrip(t *testing.T) {
	cases := []struct{ in, want string }{
		{`category == 'c3' && year >= 2022`, `category == "c3" && year >= 2022`},
		{`category == "c3" AND year >= 2022`, `category == "c3" && year >= 2022`},
		{`a == 1 || b == 2 && c == 3`, `a == 1 || b == 2 && c == 3`},
		{`(a == 1 || b == 2) && c == 3`, `(a == 1 || b == 2) && c == 3`},
		{`NOT a == 1`, `!(a == 1)`},
		{`!(a in [1, 2, 3])`, `!(a in [1, 2, 3])`},
		{`region nin ['eu', "us"]`, `region nin ["eu", "us"]`},
		{`region NOT IN ['eu']`, `region nin ["eu"]`},
		{`x > -1.5e3 and y <= .5 or z != true`, `x > -1500.0 && y <= 0.5 || z != true`},
		{`s == 'it\'s'`, `s == "it's"`},
		{`a.b_c == FALSE`, `a.b_c == false`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			e, err := Parse(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.String(); got != c.want {
				t.Fatalf("String() = %s, want %s", got, c.want)
			}
			again, err := Parse(e.String())
			if err != nil {
				t.Fatalf("reparse %q: %v", e.String(), err)
			}
			if !again.Equal(e) {
				t.Fatalf("reparse of %q differs", e.String())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in   string
		col  int
		want string
	}{
		{``, 1, "empty filter"},
		{`category = 'c3'`, 10, "expected '=='"},
		{`category == `, 13, "expected a literal"},
		{`category == 'c3`, 13, "unterminated string"},
		{`(a == 1`, 8, "expected ')'"},
		{`a == 1 b == 2`, 8, "expected && / AND"},
		{`a in 1`, 6, "expected '['"},
		{`a in [1 2]`, 9, "expected ',' or ']'"},
		{`== 1`, 1, "expected a field name"},
		{`a ~ 1`, 3, "unexpected character"},
		{`a == 99999999999999999999`, 6, "64-bit integer"},
		{`a == 'x\q'`, 8, "unknown escape"},
		{`a & b`, 3, "expected '&&'"},
		{`a NOT 1`, 7, "expected IN"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			_, err := Parse(c.in)
			var pe *PosError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *PosError", err)
			}
			if !errors.Is(err, ErrSyntax) || !errors.Is(err, engine.ErrInvalidArgument) {
				t.Fatalf("err = %v, want ErrSyntax wrapping ErrInvalidArgument", err)
			}
			if pe.Col != c.col || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v (col %d), want col %d containing %q", err, pe.Col, c.col, c.want)
			}
		})
	}
}

func TestBuilderMatchesParser(t *testing.T) {
	b := And(Eq("category", "c3"), Ge("year", 2022))
	p := MustParse(`category == 'c3' && year >= 2022`)
	if !b.Equal(p) {
		t.Fatalf("builder %s != parser %s", b, p)
	}
	o := Or(Not(In("region", "eu", "us")), Lt("score", 0.5))
	if got, want := o.String(), `!(region in ["eu", "us"]) || score < 0.5`; got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	if _, err := NewTestStore(t, Schemaless, true).Compile(Eq("year", []int{1})); !errors.Is(err, ErrType) {
		t.Fatalf("unsupported builder value: err = %v, want ErrType", err)
	}
}

// NewTestStore builds a store of 1,000 documents: category c0…c7 (id%8),
// year 2015…2025 (id%11), region, score (float) and flag (bool); every
// tenth document lacks region.
func NewTestStore(t testing.TB, mode Mode, indexed bool) *Store {
	t.Helper()
	s := Schema{Mode: mode}
	if mode == Declared || indexed {
		s.Fields = []Field{
			{Name: "category", Kind: KindKeyword, Indexed: indexed},
			{Name: "year", Kind: KindInteger, Indexed: indexed},
			{Name: "region", Kind: KindKeyword, Indexed: indexed},
			{Name: "score", Kind: KindFloat, Indexed: indexed},
			{Name: "flag", Kind: KindBool, Indexed: indexed},
		}
	}
	st, err := NewStore(s)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]Doc, 1000)
	regions := []string{"eu", "us", "apac"}
	for i := range docs {
		m := map[string]any{
			"category": fmt.Sprintf("c%d", i%8),
			"year":     2015 + i%11,
			"score":    float64(i%100) / 100,
			"flag":     i%3 == 0,
		}
		if i%10 != 0 {
			m["region"] = regions[i%3]
		}
		docs[i] = Doc{Key: fmt.Sprintf("doc-%d", i), Meta: m}
	}
	if _, err := st.Add(docs...); err != nil {
		t.Fatal(err)
	}
	return st
}

func naive(i int, f func(cat string, year int, region string, hasRegion bool, score float64, flag bool) bool) bool {
	regions := []string{"eu", "us", "apac"}
	return f(fmt.Sprintf("c%d", i%8), 2015+i%11, regions[i%3], i%10 != 0, float64(i%100)/100, i%3 == 0)
}

func TestIndexedAndPayloadAgree(t *testing.T) {
	type fn = func(cat string, year int, region string, hasRegion bool, score float64, flag bool) bool
	cases := []struct {
		text string
		want fn
	}{
		{`category == 'c3' && year >= 2022`, func(c string, y int, _ string, _ bool, _ float64, _ bool) bool { return c == "c3" && y >= 2022 }},
		{`category in ['c1', 'c2'] || year < 2016`, func(c string, y int, _ string, _ bool, _ float64, _ bool) bool {
			return c == "c1" || c == "c2" || y < 2016
		}},
		{`region != 'eu'`, func(_ string, _ int, r string, h bool, _ float64, _ bool) bool { return h && r != "eu" }},
		{`!(region == 'eu')`, func(_ string, _ int, r string, h bool, _ float64, _ bool) bool { return !(h && r == "eu") }},
		{`region nin ['eu', 'us']`, func(_ string, _ int, r string, h bool, _ float64, _ bool) bool { return h && r != "eu" && r != "us" }},
		{`score > 0.25 && score <= 0.5`, func(_ string, _ int, _ string, _ bool, s float64, _ bool) bool { return s > 0.25 && s <= 0.5 }},
		{`year == 2020.0`, func(_ string, y int, _ string, _ bool, _ float64, _ bool) bool { return y == 2020 }},
		{`flag == true && year > 2030`, func(string, int, string, bool, float64, bool) bool { return false }},
		{`NOT (flag == false OR category == 'c0')`, func(c string, _ int, _ string, _ bool, _ float64, f bool) bool { return !(!f || c == "c0") }},
	}
	stores := map[string]*Store{
		"indexed":    NewTestStore(t, Schemaless, true),
		"payload":    NewTestStore(t, Schemaless, false),
		"declared":   NewTestStore(t, Declared, false),
		"no-indexes": NewTestStore(t, Schemaless, false),
	}
	for _, c := range cases {
		for name, st := range stores {
			t.Run(name+"/"+c.text, func(t *testing.T) {
				cf, err := st.CompileString(c.text)
				if err != nil {
					t.Fatal(err)
				}
				wantIndexed := name != "payload" && name != "no-indexes"
				if cf.Indexed() != wantIndexed {
					t.Fatalf("Indexed() = %v, want %v", cf.Indexed(), wantIndexed)
				}
				count := 0
				for i := 0; i < st.Len(); i++ {
					got := cf.Allowed(engine.ID(i))
					want := naive(i, c.want)
					if got != want {
						t.Fatalf("id %d: Allowed = %v, want %v", i, got, want)
					}
					if want {
						count++
					}
				}
				if bs := cf.Bitset(); bs.Count() != count {
					t.Fatalf("Bitset().Count() = %d, want %d", bs.Count(), count)
				}
				if cf.Indexed() {
					if e := cf.Estimate(); e != (Cardinality{count, count, count}) {
						t.Fatalf("Estimate = %v, want exact %d", e, count)
					}
					if cf.PayloadChecks() != 0 {
						t.Fatalf("indexed filter decoded %d payloads", cf.PayloadChecks())
					}
				} else if cf.PayloadChecks() < st.Len() {
					t.Fatalf("payload filter counted %d checks over %d documents", cf.PayloadChecks(), st.Len())
				}
				if cf.Allowed(engine.ID(st.Len())) {
					t.Fatal("id beyond the store allowed")
				}
			})
		}
	}
}

func TestEstimateRules(t *testing.T) {
	// category indexed (exact), year not (unknown {0, N/2, N}); N = 1000.
	st := NewTestStore(t, Schemaless, false)
	if err := st.CreateIndex("category", KindKeyword); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		text string
		want Cardinality
	}{
		{`category == 'c3'`, Cardinality{125, 125, 125}},
		{`year >= 2022`, Cardinality{0, 500, 1000}},
		// AND: min max(0, 125+0-1000)=0, exp 1000·0.125·0.5, max min(125,1000)
		{`category == 'c3' && year >= 2022`, Cardinality{0, 63, 125}},
		// OR: min max(125,0), exp 1000·(1-0.875·0.5)=562.5, max min(1125,1000)
		{`category == 'c3' || year >= 2022`, Cardinality{125, 563, 1000}},
		{`!(category == 'c3')`, Cardinality{875, 875, 875}},
		{`!(year >= 2022)`, Cardinality{0, 500, 1000}},
	}
	for _, c := range cases {
		cf, err := st.CompileString(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := cf.Estimate(); got != c.want {
			t.Errorf("%s: Estimate = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestTypeAndFieldErrors(t *testing.T) {
	cases := []struct {
		mode Mode
		text string
		err  error
		col  int
		want string
	}{
		{Schemaless, `year >= 'abc'`, ErrType, 9, "expected a number"},
		{Schemaless, `category == 3`, ErrType, 13, "expected a quoted string"},
		{Schemaless, `flag == 'yes'`, ErrType, 9, "expected true or false"},
		{Schemaless, `category > 'c3'`, ErrType, 1, "ordering applies to integer and float"},
		{Schemaless, `year in [2020, 'x']`, ErrType, 1, "value 2 of the list"},
		{Declared, `tenant == 'a'`, ErrUnknownField, 1, "not allowed filter identifier name: tenant"},
		{Declared, `category == 'c3' && tenant == 'a'`, ErrUnknownField, 21, "tenant"},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			st := NewTestStore(t, c.mode, true)
			_, err := st.CompileString(c.text)
			var pe *PosError
			if !errors.Is(err, c.err) || !errors.As(err, &pe) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if pe.Col != c.col || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %q col %d, want col %d containing %q", err, pe.Col, c.col, c.want)
			}
		})
	}
	// Schemaless and never seen: no error, matches nothing (Qdrant).
	st := NewTestStore(t, Schemaless, true)
	cf, err := st.CompileString(`tenant == 'a'`)
	if err != nil {
		t.Fatal(err)
	}
	if n := cf.Bitset().Count(); n != 0 {
		t.Fatalf("unknown schemaless field matched %d", n)
	}
}

func TestRedisUndeclaredFieldMessage(t *testing.T) {
	// E09: a store declared without metadata fields refuses the filter.
	st, err := NewStore(Schema{Mode: Declared})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(Doc{Meta: map[string]any{"category": "c3"}}); err != nil {
		t.Fatal(err)
	}
	_, err = st.CompileString(`category == 'c3'`)
	if !IsUnknownField(err) || !strings.Contains(err.Error(), "not allowed filter identifier name: category") {
		t.Fatalf("err = %v", err)
	}
}

func TestAddIsAtomic(t *testing.T) {
	for _, mode := range []Mode{Declared, Schemaless} {
		t.Run(mode.String(), func(t *testing.T) {
			st := NewTestStore(t, mode, true)
			n, bytes := st.Len(), st.StoredBytes()
			before, _ := st.CompileString(`year >= 2015`)
			cases := []struct {
				docs []Doc
				want string
			}{
				{[]Doc{{Key: "ok", Meta: map[string]any{"year": 2020}}, {Key: "bad", Meta: map[string]any{"year": "2020"}}}, `"bad" (batch position 1) field "year"`},
				{[]Doc{{Key: "f", Meta: map[string]any{"score": "high"}}}, `field "score"`},
				{[]Doc{{Key: "g", Meta: map[string]any{"flag": 1}}}, `field "flag"`},
				{[]Doc{{Key: "h", Meta: map[string]any{"year": 2020.5}}}, `field "year"`},
				{[]Doc{{Key: "i", Meta: map[string]any{"year": []int{1}}}}, `unsupported value type`},
				{[]Doc{{Key: "doc-3"}}, `key already stored`},
				{[]Doc{{Key: "x"}, {Key: "x"}}, `repeats document 0`},
			}
			for _, c := range cases {
				_, err := st.Add(c.docs...)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("err = %v, want containing %q", err, c.want)
				}
				if st.Len() != n || st.StoredBytes() != bytes {
					t.Fatalf("failed batch changed the store: %d docs (want %d)", st.Len(), n)
				}
				if _, ok := st.Lookup("ok"); ok {
					t.Fatal("failed batch left a key behind")
				}
			}
			after, _ := st.CompileString(`year >= 2015`)
			if after.Bitset().Count() != before.Bitset().Count() {
				t.Fatal("failed batch changed an index")
			}
			// integers widen into float fields
			if _, err := st.Add(Doc{Meta: map[string]any{"score": 1}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPayloadRoundTrip(t *testing.T) {
	st := NewTestStore(t, Schemaless, false)
	id, ok := st.Lookup("doc-13")
	if !ok {
		t.Fatal("key not found")
	}
	m, err := st.Payload(id)
	if err != nil {
		t.Fatal(err)
	}
	if m["category"] != "c5" || fmt.Sprint(m["year"]) != "2017" || st.Key(id) != "doc-13" {
		t.Fatalf("payload = %v", m)
	}
	if _, err := st.Payload(engine.ID(5000)); !errors.Is(err, engine.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if err := st.CreateIndex("year", KindKeyword); err == nil {
		t.Fatal("index of the wrong kind accepted")
	}
	if err := st.CreateIndex("year", KindInteger); err != nil {
		t.Fatal(err)
	}
	cf, _ := st.CompileString(`year >= 2022`)
	if !cf.Indexed() || cf.Bitset().Count() != 363 {
		t.Fatalf("after CreateIndex: indexed %v count %d", cf.Indexed(), cf.Bitset().Count())
	}
}

func TestSchemaValidate(t *testing.T) {
	bad := []Schema{
		{Mode: 7},
		{Fields: []Field{{Name: "", Kind: KindKeyword}}},
		{Fields: []Field{{Name: "a", Kind: KindNone}}},
		{Fields: []Field{{Name: "a", Kind: KindBool}, {Name: "a", Kind: KindBool}}},
	}
	for i, s := range bad {
		if err := s.Validate(); !errors.Is(err, engine.ErrInvalidArgument) {
			t.Errorf("schema %d: err = %v", i, err)
		}
	}
	s := Schema{Mode: Declared, Fields: []Field{{Name: "category", Kind: KindKeyword}, {Name: "year", Kind: KindInteger}}}
	if got := s.String(); got != "declared category:keyword* year:integer*" {
		t.Fatalf("String = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`category == 'c3' && year >= 2022`, `!(a in [1, 2.5, "x"]) || b nin [true]`, `(a<1)AND(b>=-2e9)`, `x == "\\\""`, `NOT NOT a != false`} {
		f.Add(s)
	}
	st := NewTestStore(f, Schemaless, true)
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err != nil {
			var pe *PosError
			if !errors.As(err, &pe) || pe.Col < 1 || pe.Col > len(s)+1 {
				t.Fatalf("Parse(%q): bad error %v", s, err)
			}
			return
		}
		again, err := Parse(e.String())
		if err != nil || !again.Equal(e) {
			t.Fatalf("Parse(%q).String() = %q does not reparse to the same tree: %v", s, e.String(), err)
		}
		if cf, err := st.Compile(e); err == nil {
			cf.Allowed(engine.ID(rand.IntN(st.Len())))
		}
	})
}

func ExampleParse() {
	e, err := Parse(`category == 'c3' AND year >= 2022`)
	if err != nil {
		panic(err)
	}
	fmt.Println(e)
	_, err = Parse(`year >= `)
	fmt.Println(err)
	// Output:
	// category == "c3" && year >= 2022
	// filter: syntax error at column 9: unexpected end of input, expected a literal (quoted string, number, true or false)
}

func ExampleStore_Compile() {
	st, _ := NewStore(Schema{Mode: Declared, Fields: []Field{
		{Name: "category", Kind: KindKeyword},
		{Name: "year", Kind: KindInteger},
	}})
	st.Add(
		Doc{Key: "a", Meta: map[string]any{"category": "c3", "year": 2023}},
		Doc{Key: "b", Meta: map[string]any{"category": "c3", "year": 2019}},
		Doc{Key: "c", Meta: map[string]any{"category": "c1", "year": 2024}},
	)
	f, _ := st.Compile(And(Eq("category", "c3"), Ge("year", 2022)))
	fmt.Println(f.IDs(), f.Estimate())
	_, err := st.CompileString(`region == 'eu'`)
	fmt.Println(err)
	_, err = st.CompileString(`year >= 'abc'`)
	fmt.Println(err)
	// Output:
	// [0] 1/1/1
	// filter: not allowed filter identifier name: region (the field is not declared in the schema; declare it to filter on it) (column 1)
	// filter: type error at column 9: field year is integer, found keyword literal "abc", expected a number
}

func ExampleAnd() {
	e := And(Eq("category", "c3"), Ge("year", 2022), Not(In("region", "eu", "us")))
	fmt.Println(e)
	// Output: category == "c3" && year >= 2022 && !(region in ["eu", "us"])
}

func ExampleStore_Estimate() {
	st, _ := NewStore(Schema{Fields: []Field{{Name: "category", Kind: KindKeyword, Indexed: true}}})
	for i := 0; i < 100; i++ {
		st.Add(Doc{Meta: map[string]any{"category": fmt.Sprintf("c%d", i%4), "year": 2015 + i%10}})
	}
	// category is indexed (exact count), year is not ("unknown": 0, N/2, N).
	est, _ := st.Estimate(MustParse(`category == 'c1' && year >= 2022`))
	fmt.Println(est)
	// Output: 0/13/25
}
