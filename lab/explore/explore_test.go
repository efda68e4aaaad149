package explore

import (
	"errors"
	"testing"
)

func small(bits int) BuildParams {
	return BuildParams{N: 800, Dim: 16, Clusters: 8, Queries: 20, M: 8, EfConstruction: 40, Bits: bits, Seed: 3, PictureN: 120}
}

func TestSearchRecallAndTopK(t *testing.T) {
	phases := map[string]bool{}
	l, err := Build(small(32), func(ph string, done, total int) { phases[ph] = true })
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range []string{"data", "graph", "picture"} {
		if !phases[ph] {
			t.Errorf("no progress for phase %s", ph)
		}
	}
	res, err := l.Search(SearchParams{K: 10, Ef: 20, Efs: []int{10, 400}, Query: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Curve) != 3 || res.Curve[1].Ef != 20 || res.Current.Ef != 20 {
		t.Fatalf("curve %+v, current %+v: want efs 10, 20, 400 with 20 current", res.Curve, res.Current)
	}
	if r := res.Curve[2].Recall; r < 0.99 {
		t.Errorf("recall@10 at ef 400 over 800 points = %v, want ≥ 0.99", r)
	}
	if res.Curve[0].Recall > res.Curve[2].Recall {
		t.Errorf("recall at ef 10 (%v) above recall at ef 400 (%v)", res.Curve[0].Recall, res.Curve[2].Recall)
	}
	if len(res.Exact) != 10 || len(res.Approx) != 10 {
		t.Fatalf("top-k lengths %d and %d, want 10", len(res.Exact), len(res.Approx))
	}
	hits := 0
	for i, h := range res.Exact {
		if i > 0 && h.Dist < res.Exact[i-1].Dist {
			t.Errorf("exact top-k not sorted at %d", i)
		}
		if h.Hit {
			hits++
		}
	}
	for i, h := range res.Approx {
		if h.Hit {
			hits--
		}
		if h.Hit != func() bool {
			for _, e := range res.Exact {
				if e.ID == h.ID {
					return true
				}
			}
			return false
		}() {
			t.Errorf("approx row %d (id %d) hit flag %v is wrong", i, h.ID, h.Hit)
		}
	}
	if hits != 0 {
		t.Errorf("hit flags disagree between the lists (difference %d)", hits)
	}

	// Same seed, same numbers.
	l2, err := Build(small(32), nil)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := l2.Search(SearchParams{K: 10, Ef: 20, Efs: []int{10, 400}, Query: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Curve {
		if res.Curve[i].Recall != res2.Curve[i].Recall || res.Curve[i].DistComps != res2.Curve[i].DistComps {
			t.Errorf("same seed, ef %d: recall %v/%v, comps %v/%v", res.Curve[i].Ef, res.Curve[i].Recall, res2.Curve[i].Recall, res.Curve[i].DistComps, res2.Curve[i].DistComps)
		}
	}
}

func TestQuantizedAndFiltered(t *testing.T) {
	for _, bits := range []int{8, 4, 1} {
		l, err := Build(small(bits), nil)
		if err != nil {
			t.Fatal(err)
		}
		if l.Codes == nil {
			t.Fatalf("bits %d: no code store", bits)
		}
		plain, err := l.Search(SearchParams{K: 10, Ef: 200, Efs: []int{200}})
		if err != nil {
			t.Fatal(err)
		}
		resc, err := l.Search(SearchParams{K: 10, Ef: 200, Efs: []int{200}, Oversample: 5})
		if err != nil {
			t.Fatal(err)
		}
		if resc.Rescore != 50 || plain.Rescore != 0 {
			t.Errorf("bits %d: rescore %d / %d, want 50 / 0", bits, resc.Rescore, plain.Rescore)
		}
		if bits == 1 && resc.Current.Recall <= plain.Current.Recall {
			t.Errorf("1-bit codes: rescoring 5×k gives recall %v, not above the unrescored %v", resc.Current.Recall, plain.Current.Recall)
		}
		if _, err := l.BuildACORN(4); err != nil {
			t.Fatalf("bits %d: %v", bits, err)
		}
		for _, s := range Strategies() {
			r, err := l.Search(SearchParams{K: 10, Ef: 64, Efs: []int{64}, Selectivity: 0.2, Strategy: s, Oversample: 3})
			if err != nil {
				t.Fatalf("bits %d strategy %s: %v", bits, s, err)
			}
			if r.Filter != "bucket < 20" || r.Matching < 100 || r.Matching > 220 {
				t.Errorf("strategy %s: filter %q matches %d of 800, want ≈ 160", s, r.Filter, r.Matching)
			}
			if s == "exact" && r.Current.Recall != 1 {
				t.Errorf("exact strategy recall %v, want 1", r.Current.Recall)
			}
		}
	}
}

func TestDrawAndBadParams(t *testing.T) {
	l, err := Build(small(32), nil)
	if err != nil {
		t.Fatal(err)
	}
	pd, err := l.Draw(20, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(pd.Points) != 240 || len(pd.Layers) != l.Picture.MaxLevel()+1 || pd.Layers[len(pd.Layers)-1].Level != 0 {
		t.Fatalf("picture: %d coordinates, %d layers (max level %d)", len(pd.Points), len(pd.Layers), l.Picture.MaxLevel())
	}
	if len(pd.Layers[len(pd.Layers)-1].Nodes) != 120 || len(pd.Results) != 5 || len(pd.Layers[0].Path) == 0 {
		t.Errorf("layer 0 has %d nodes, %d results, top path %v", len(pd.Layers[len(pd.Layers)-1].Nodes), len(pd.Results), pd.Layers[0].Path)
	}
	for _, ly := range pd.Layers {
		for _, e := range ly.Edges {
			if e[0] >= e[1] {
				t.Fatalf("layer %d: edge %v not normalised", ly.Level, e)
			}
		}
	}
	if _, err := Build(BuildParams{N: 3, Bits: 5}, nil); !errors.Is(err, ErrBadParams) {
		t.Errorf("bad build params: %v", err)
	}
	for _, p := range []SearchParams{{K: -1}, {Ef: 1 << 20}, {Selectivity: 2}, {Strategy: "nope"}, {Query: 99}, {Oversample: 0.5}} {
		if _, err := l.Search(p); !errors.Is(err, ErrBadParams) {
			t.Errorf("Search(%+v): %v, want ErrBadParams", p, err)
		}
	}
}

// TestScan checks the exhaustive scans Scan times: the exact scan finds
// the exact top-k (recall 1), the 4-bit codes nearly so and the 1-bit ones
// less, each with a positive rate; a bad bits or k is an error.
func TestScan(t *testing.T) {
	l, err := Build(BuildParams{N: 600, Dim: 32, Queries: 20, Seed: 3, Uniform: true, PictureN: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		bits      int
		minRecall float64
	}{{32, 1}, {4, 0.8}, {1, 0.3}} {
		r, err := l.Scan(ScanParams{Bits: c.bits})
		if err != nil {
			t.Fatalf("bits %d: %v", c.bits, err)
		}
		if r.Recall < c.minRecall || r.Recall > 1 || !(r.QPS > 0) {
			t.Errorf("bits %d: recall %.3f (want ≥ %.2f), QPS %.0f", c.bits, r.Recall, c.minRecall, r.QPS)
		}
	}
	for _, p := range []ScanParams{{Bits: 8}, {Bits: 32, K: -1}, {Bits: 32, K: 101}} {
		if _, err := l.Scan(p); err == nil {
			t.Errorf("Scan(%+v) accepted", p)
		}
	}
}
