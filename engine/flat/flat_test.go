package flat

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

func randMatrix(r *rand.Rand, n, dim, stride int) *vec.Matrix {
	m := &vec.Matrix{N: n, Dim: dim, Stride: stride, Data: make([]float32, n*stride)}
	for i := range m.Data {
		m.Data[i] = float32(r.NormFloat64())
	}
	return m
}

// naive is the reference: score every allowed row in float64, sort by
// (distance, id), take k.
func naive(m *vec.Matrix, metric engine.Metric, q []float32, k int, allow func(int) bool) []engine.ID {
	type sc struct {
		id int
		d  float64
	}
	var qn float64
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	var all []sc
	for i := 0; i < m.N; i++ {
		if allow != nil && !allow(i) {
			continue
		}
		row := m.Row(i)
		var dot, l2, rn float64
		for j := range row {
			dot += float64(q[j]) * float64(row[j])
			d := float64(q[j]) - float64(row[j])
			l2 += d * d
			rn += float64(row[j]) * float64(row[j])
		}
		var d float64
		switch metric {
		case engine.Dot:
			d = -dot
		case engine.L2:
			d = l2
		default:
			d = 1 - dot/math.Sqrt(qn*rn)
		}
		all = append(all, sc{i, d})
	}
	sort.Slice(all, func(a, b int) bool {
		if all[a].d != all[b].d {
			return all[a].d < all[b].d
		}
		return all[a].id < all[b].id
	})
	var ids []engine.ID
	for i := 0; i < len(all) && i < k; i++ {
		ids = append(ids, engine.ID(all[i].id))
	}
	return ids
}

func ids(rs []engine.Result) []engine.ID {
	out := make([]engine.ID, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestSearchMatchesNaiveSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := randMatrix(r, 9000, 37, 40) // Stride > Dim on purpose
	even := engine.FilterFunc(func(id engine.ID) bool { return id%3 == 0 })
	tests := []struct {
		name    string
		metric  engine.Metric
		workers int
		k       int
		allow   engine.Filter
	}{
		{"cosine/serial", engine.Cosine, 1, 10, nil},
		{"cosine/parallel", engine.Cosine, 3, 10, nil},
		{"dot/serial", engine.Dot, 1, 25, nil},
		{"dot/parallel", engine.Dot, 2, 25, nil},
		{"l2/serial", engine.L2, 1, 1, nil},
		{"l2/parallel-filter", engine.L2, 2, 100, even},
		{"cosine/filter", engine.Cosine, 1, 10, even},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := New(m, Config{Metric: tc.metric, Workers: tc.workers})
			if err != nil {
				t.Fatal(err)
			}
			for qi := 0; qi < 5; qi++ {
				q := randMatrix(r, 1, 37, 37).Row(0)
				got, st, err := x.Search(q, tc.k, tc.allow)
				if err != nil {
					t.Fatal(err)
				}
				var allow func(int) bool
				wantComps := m.N
				if tc.allow != nil {
					allow = func(i int) bool { return tc.allow.Allowed(engine.ID(i)) }
					wantComps = (m.N + 2) / 3
				}
				want := naive(m, tc.metric, q, tc.k, allow)
				if !slices.Equal(ids(got), want) {
					t.Fatalf("query %d: got %v, want %v", qi, ids(got), want)
				}
				if st.DistComps != wantComps {
					t.Fatalf("DistComps = %d, want %d", st.DistComps, wantComps)
				}
				for i := 1; i < len(got); i++ {
					if got[i].Dist < got[i-1].Dist {
						t.Fatalf("results not sorted at %d: %v", i, got)
					}
				}
			}
		})
	}
}

// TestTiesBrokenByID holds the order of equal distances to increasing id,
// for the serial, the split and the id-list scans alike.
func TestTiesBrokenByID(t *testing.T) {
	m := vec.NewMatrix(10000, 4)
	for i := 0; i < m.N; i++ {
		row := m.Row(i)
		row[0] = float32(i % 7) // 7 distinct points, each repeated
	}
	q := []float32{3, 0, 0, 0}
	var want []engine.ID
	for i := 3; len(want) < 50; i += 7 {
		want = append(want, engine.ID(i))
	}
	for _, w := range []int{1, 2} {
		x, err := New(m, Config{Metric: engine.L2, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := x.Search(q, 50, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), want) {
			t.Fatalf("workers=%d: got %v, want %v", w, ids(got), want)
		}
		all := make([]engine.ID, m.N)
		for i := range all {
			all[i] = engine.ID(m.N - 1 - i) // reverse order
		}
		got, _, err = x.SearchIDs(q, 50, all)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), want) {
			t.Fatalf("SearchIDs workers=%d: got %v, want %v", w, ids(got), want)
		}
	}
}

func TestSearchIDsEqualsFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := randMatrix(r, 2000, 16, 16)
	x, err := New(m, Config{})
	if err != nil {
		t.Fatal(err)
	}
	bs := engine.NewBitset(m.N)
	var list []engine.ID
	for i := 0; i < m.N; i += 17 {
		bs.Set(engine.ID(i))
		list = append(list, engine.ID(i))
	}
	shuffled := slices.Clone(list)
	r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	shuffled = append(shuffled, shuffled[:5]...) // duplicates count once
	q := m.Row(5)
	a, sa, err := x.Search(q, 30, bs)
	if err != nil {
		t.Fatal(err)
	}
	b, sb, err := x.SearchIDs(q, 30, shuffled)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Fatalf("filter %v\nids    %v", a, b)
	}
	if sa.DistComps != len(list) || sb.DistComps != len(list) {
		t.Fatalf("DistComps %d / %d, want %d", sa.DistComps, sb.DistComps, len(list))
	}
}

func TestKLargerThanN(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	m := randMatrix(r, 7, 3, 3)
	x, err := New(m, Config{Metric: engine.L2})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := x.Search(m.Row(0), 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 7 || got[0].ID != 0 || got[0].Dist != 0 {
		t.Fatalf("got %v, want 7 results starting with row 0 at distance 0", got)
	}
	got, _, err = x.Search(m.Row(0), 3, engine.FilterFunc(func(engine.ID) bool { return false }))
	if err != nil || len(got) != 0 {
		t.Fatalf("nothing allowed: got %v, %v; want empty, nil", got, err)
	}
}

func TestSearchBatchEqualsSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	m := randMatrix(r, 3000, 24, 24)
	qs := randMatrix(r, 13, 24, 24)
	for _, w := range []int{1, 3} {
		x, err := New(m, Config{Metric: engine.Dot, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		batch, err := x.SearchBatch(qs, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range qs.N {
			one, _, err := x.Search(qs.Row(i), 10, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(one, batch[i]) {
				t.Fatalf("workers=%d query %d: batch %v, single %v", w, i, batch[i], one)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	good := vec.NewMatrix(3, 2)
	copy(good.Data, []float32{1, 0, 0, 1, 1, 1})
	zeroRow := vec.NewMatrix(2, 2)
	zeroRow.Data[0] = 1
	nanRow := vec.NewMatrix(2, 2)
	copy(nanRow.Data, []float32{1, 1, float32(math.NaN()), 1})
	x, err := New(good, Config{})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := New(vec.NewMatrix(0, 2), Config{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"nil matrix", second(New(nil, Config{})), engine.ErrInvalidArgument},
		{"bad metric", second(New(good, Config{Metric: 9})), engine.ErrInvalidArgument},
		{"negative workers", second(New(good, Config{Workers: -1})), engine.ErrInvalidArgument},
		{"short slab", second(New(&vec.Matrix{N: 3, Dim: 2, Stride: 2, Data: make([]float32, 5)}, Config{})), engine.ErrInvalidArgument},
		{"zero row under cosine", second(New(zeroRow, Config{})), engine.ErrZeroVector},
		{"NaN row", second(New(nanRow, Config{Metric: engine.L2})), engine.ErrInvalidVector},
		{"dimension", searchErr(x, []float32{1, 2, 3}, 1), engine.ErrDimension},
		{"NaN query", searchErr(x, []float32{float32(math.NaN()), 1}, 1), engine.ErrInvalidVector},
		{"zero query", searchErr(x, []float32{0, 0}, 1), engine.ErrZeroVector},
		{"k = 0", searchErr(x, []float32{1, 0}, 0), engine.ErrInvalidArgument},
		{"k < 0", searchErr(x, []float32{1, 0}, -3), engine.ErrInvalidArgument},
		{"empty", searchErr(empty, []float32{1, 0}, 1), engine.ErrEmpty},
		{"id out of range", third(x.SearchIDs([]float32{1, 0}, 1, []engine.ID{0, 3})), engine.ErrNotFound},
		{"batch dims", second(x.SearchBatch(vec.NewMatrix(2, 3), 1, nil)), engine.ErrDimension},
		{"batch zero query", second(x.SearchBatch(vec.NewMatrix(2, 2), 1, nil)), engine.ErrZeroVector},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.want) {
				t.Fatalf("error %v, want %v", tc.err, tc.want)
			}
		})
	}
}

func second[T any](_ T, err error) error        { return err }
func third[T, U any](_ T, _ U, err error) error { return err }
func searchErr(x *Index, q []float32, k int) error {
	_, _, err := x.Search(q, k, nil)
	return err
}

func TestConfigString(t *testing.T) {
	if got := (Config{Metric: engine.L2, Workers: 2}).String(); got != "metric=l2 workers=2" {
		t.Fatalf("String() = %q", got)
	}
}

func TestStreamReadsEveryWord(t *testing.T) {
	m := vec.NewMatrix(3, 3) // 9 floats: odd count exercises the tail
	if Stream(m) != 0 {
		t.Fatal("zero slab must sum to 0")
	}
	for i := range m.Data {
		m.Data[i] = 0
	}
	m.Data[8] = 1
	if Stream(m) == 0 {
		t.Fatal("the last float was not read")
	}
	m.Data[8] = 0
	m.Data[0] = 1
	if Stream(m) == 0 {
		t.Fatal("the first float was not read")
	}
}

// TestSerialEqualsSplit holds a split scan to the serial one bit for bit,
// distances included, for every metric and a filter that breaks the
// four-row blocks at different places.
func TestSerialEqualsSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	m := randMatrix(r, 10007, 19, 19)
	odd := engine.FilterFunc(func(id engine.ID) bool { return id%7 != 3 })
	for _, metric := range []engine.Metric{engine.Cosine, engine.Dot, engine.L2} {
		for _, allow := range []engine.Filter{nil, odd} {
			one, _ := New(m, Config{Metric: metric, Workers: 1})
			three, _ := New(m, Config{Metric: metric, Workers: 3})
			q := m.Row(17)
			a, _, err := one.Search(q, 40, allow)
			if err != nil {
				t.Fatal(err)
			}
			b, _, err := three.Search(q, 40, allow)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a, b) {
				t.Fatalf("%v filter=%t: serial %v\nsplit %v", metric, allow != nil, a, b)
			}
		}
	}
}
