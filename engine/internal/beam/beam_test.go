package beam

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/f32"
	"github.com/veclab/veclab/engine/internal/topk"
)

// TestScore checks Space.Score against the kernels it stands for, bit for
// bit, on a strided slab: one-row scoring is f32.Dot / L2Sq of each row
// (what engine/vec.Distance computes), quad scoring is f32.Dot4 / L2Sq4 of
// each block of four and one-row scoring for the tail.
func TestScore(t *testing.T) {
	const n, dim, stride = 50, 19, 23
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]float32, n*stride)
	for i := range data {
		data[i] = float32(rng.NormFloat64())
	}
	q := make([]float32, dim)
	for i := range q {
		q[i] = float32(rng.NormFloat64())
	}
	row := func(id engine.ID) []float32 { return data[int(id)*stride : int(id)*stride+dim] }
	ids := []engine.ID{7, 3, 49, 0, 12, 12, 30, 5, 44, 1, 2}
	for _, m := range []engine.Metric{engine.L2, engine.Dot, engine.Cosine} {
		conv := func(x float32) float32 {
			switch m {
			case engine.Dot:
				return -x
			case engine.Cosine:
				return 1 - x
			}
			return x
		}
		one := func(id engine.ID) float32 {
			if m == engine.L2 {
				return f32.L2Sq(q, row(id))
			}
			return conv(f32.Dot(q, row(id)))
		}
		for _, quad := range []bool{false, true} {
			sp := Space{Data: data, Dim: dim, Stride: stride, Metric: m, Quad: quad}
			out := make([]float32, len(ids))
			sp.Prefetch(ids)
			sp.Score(q, ids, out)
			want := make([]float32, len(ids))
			i := 0
			if quad {
				for ; i+4 <= len(ids); i += 4 {
					var a, b, c, d float32
					if m == engine.L2 {
						a, b, c, d = f32.L2Sq4(q, row(ids[i]), row(ids[i+1]), row(ids[i+2]), row(ids[i+3]))
					} else {
						a, b, c, d = f32.Dot4(q, row(ids[i]), row(ids[i+1]), row(ids[i+2]), row(ids[i+3]))
						a, b, c, d = conv(a), conv(b), conv(c), conv(d)
					}
					want[i], want[i+1], want[i+2], want[i+3] = a, b, c, d
				}
			}
			for ; i < len(ids); i++ {
				want[i] = one(ids[i])
			}
			for j := range ids {
				if math.Float32bits(out[j]) != math.Float32bits(want[j]) {
					t.Fatalf("%v quad=%v: id %d scored %v, want %v", m, quad, ids[j], out[j], want[j])
				}
			}
		}
	}
}

// chain is a path graph 0–1–2–…, every node's list holding its two
// neighbours; its policy keeps everything (no bound) and records what it
// was given.
type chain struct {
	n        int
	buf      []engine.ID
	admitted []engine.ID
}

func (c *chain) Expand(id engine.ID) []engine.ID {
	c.buf = c.buf[:0]
	if id > 0 {
		c.buf = append(c.buf, id-1)
	}
	if int(id)+1 < c.n {
		c.buf = append(c.buf, id+1, id+1) // a duplicate: visited once
	}
	return c.buf
}

func (c *chain) Admit(w *Walk, ids []engine.ID, dists []float32) {
	for i, id := range ids {
		c.admitted = append(c.admitted, id)
		w.Cand.Push(engine.Result{ID: id, Dist: dists[i]})
	}
}

// TestRunLimit walks the chain from node 0 with and without a limit: the
// walk reaches every node once without one, and with Limit L it scores
// L+1 nodes, admits L and reports false.
func TestRunLimit(t *testing.T) {
	const n, dim = 20, 4
	data := make([]float32, n*dim)
	for i := 0; i < n; i++ {
		data[i*dim] = float32(i)
	}
	sp := Space{Data: data, Dim: dim, Stride: dim, Metric: engine.L2}
	q := make([]float32, dim)
	for _, limit := range []int{0, 7} {
		c := &chain{n: n}
		w := &Walk{Vis: topk.NewVisited(n), Bound: float32(math.Inf(1)), Limit: limit}
		w.Vis.Visit(0)
		w.Cand.Push(engine.Result{ID: 0})
		ok := Run(w, &sp, q, nil, c)
		switch {
		case limit == 0 && (!ok || len(c.admitted) != n-1 || w.Scored != n-1 || w.Hops != n):
			t.Fatalf("no limit: ok %v, admitted %d, scored %d, hops %d; want true, %d, %d, %d", ok, len(c.admitted), w.Scored, w.Hops, n-1, n-1, n)
		case limit > 0 && (ok || len(c.admitted) != limit || w.Scored != limit+1):
			t.Fatalf("limit %d: ok %v, admitted %d, scored %d; want false, %d, %d", limit, ok, len(c.admitted), w.Scored, limit, limit+1)
		}
		for i, id := range c.admitted {
			if id != engine.ID(i+1) {
				t.Fatalf("limit %d: admitted %v, want 1, 2, 3, …", limit, c.admitted)
			}
		}
	}
}
