package hnsw

import (
	"math"
	"testing"
)

// TestMinstdLevels holds the hnswlib level generator to libstdc++: the
// golden values were printed by a C++ program seeding
// std::default_random_engine with 100 and drawing
// std::uniform_real_distribution<double>(0, 1) as hnswlib's getRandomLevel
// does, with mL = 1/ln 16, for 30,000 draws.
func TestMinstdLevels(t *testing.T) {
	ix, err := New(Config{Dim: 1, Seed: 100, Levels: MinstdLevels})
	if err != nil {
		t.Fatal(err)
	}
	first := []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}
	hist := make([]int, 6)
	for i := 0; i < 30000; i++ {
		l := ix.randomLevel()
		if i < len(first) && l != first[i] {
			t.Fatalf("draw %d: level %d, libstdc++ gives %d", i, l, first[i])
		}
		hist[min(l, 5)]++
	}
	if want := []int{28144, 1766, 86, 4, 0, 0}; !equalInts(hist, want) {
		t.Fatalf("level histogram %v, libstdc++ gives %v", hist, want)
	}
	if u := ix.minstd.canonical(); math.Abs(u-0.65580837565561267) > 1e-16 {
		t.Fatalf("next uniform %v, libstdc++ gives 0.65580837565561267", u)
	}
	// Seed 0 behaves like libstdc++'s (state 1).
	var g minstd
	g.seed(0)
	if g.x != 1 {
		t.Fatalf("seed 0 gives state %d", g.x)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
