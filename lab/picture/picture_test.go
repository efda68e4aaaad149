package picture

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/quant"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/dataset"
)

func TestHNSWPictures(t *testing.T) {
	pts, err := dataset.Plane(300, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Graph(pts, GraphOptions{M: 4, EfConstruction: 32, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Layers(ix)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Err(); err != nil || len(g.Charts) != ix.MaxLevel()+1 {
		t.Fatalf("layers grid: %v, %d charts for %d layers", err, len(g.Charts), ix.MaxLevel()+1)
	}
	q := []float32{0.1, -0.2}
	tr, err := ix.NewSearcher().SearchTrace(q, engine.Request{K: 5, Breadth: 20})
	if err != nil {
		t.Fatal(err)
	}
	w, err := Walk(ix, tr, q)
	if err != nil || w.Err() != nil {
		t.Fatalf("walk: %v %v", err, w.Err())
	}
	if !strings.Contains(w.SVG(), "<svg") {
		t.Fatal("walk does not render")
	}
	if s := DescribeTrace(tr); !strings.Contains(s, "layer 0: beam search") {
		t.Fatalf("DescribeTrace: %s", s)
	}
	// A hand-made, empty trace is drawn, not panicked over.
	empty := &hnsw.Trace{Layers: []hnsw.LayerTrace{{Level: 0}}}
	if _, err := WalkPicture(ix, empty, q, 0); err != nil || !strings.Contains(DescribeTrace(empty), "results []") {
		t.Fatalf("empty trace: %v, %q", err, DescribeTrace(empty))
	}
	// A wider beam scores more nodes: the picture's point.
	_, narrow, _ := VisitedPicture(ix, q, 5, 5)
	_, wide, _ := VisitedPicture(ix, q, 5, 80)
	if wide.Distances <= narrow.Distances || wide.Scored0 <= narrow.Scored0 || wide.Scored0 > wide.Distances {
		t.Fatalf("ef 80: %v; ef 5: %v", wide, narrow)
	}
	// Found and missed split the exact top k, and a beam as wide as the
	// graph finds all of it.
	for _, v := range []Visit{narrow, wide} {
		if v.Found+len(v.Missed) != 5 {
			t.Fatalf("%v: found %d + missed %d, want 5", v, v.Found, len(v.Missed))
		}
	}
	if _, all, _ := VisitedPicture(ix, q, 5, 300); all.Found != 5 {
		t.Fatalf("ef 300 over 300 points: %v", all)
	}
	// Larger M: more links per node.
	small, _ := Facts(ix)
	big, _ := Graph(pts, GraphOptions{M: 16, EfConstruction: 32, Seed: 1})
	bf, _ := Facts(big)
	if bf.MeanDegree0 <= small.MeanDegree0 || small.MaxDegree0 > 2*4 || bf.Nodes[0] != 300 {
		t.Fatalf("facts: M=4 %+v, M=16 %+v", small, bf)
	}
	if tb := FactsTable([]GraphFacts{small, bf}); len(tb.Rows) != 2 {
		t.Fatal("facts table")
	}
	// Errors name what is wrong.
	if _, err := LayerPicture(ix, ix.MaxLevel()+1); !errors.Is(err, ErrBadArgument) {
		t.Fatalf("layer above the top: %v", err)
	}
	ix3, _ := Graph(vec.NewMatrix(3, 3), GraphOptions{M: 4, EfConstruction: 8})
	if _, err := Layers(ix3); !errors.Is(err, ErrBadArgument) {
		t.Fatalf("3-D graph drawn: %v", err)
	}
}

func TestQuantPictures(t *testing.T) {
	base, _ := dataset.Plane(400, 4, 2) // any data will do; widen it to 32 dims
	m := vec.NewMatrix(400, 32)
	for i := 0; i < 400; i++ {
		for j := 0; j < 32; j++ {
			m.Row(i)[j] = base.Row(i)[j%2] * float32(1+j%5)
		}
	}
	var prev = 2.0
	for _, cfg := range []quant.OSQConfig{{Bits: 1}, {Bits: 2}, {Bits: 4}} {
		q, err := quant.TrainOSQ(m, engine.L2, cfg)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ReconstructionError(q, m, 100)
		if err != nil {
			t.Fatal(err)
		}
		if e >= prev {
			t.Fatalf("%d bits: error %g not below %g", cfg.Bits, e, prev)
		}
		prev = e
		d, err := MeasureDistortion(q, "x", m, m, 5, 100)
		if err != nil || len(d.True) != 500 || d.Spearman < 0.5 {
			t.Fatalf("distortion: %v, %d pairs, rank corr %v", err, len(d.True), d.Spearman)
		}
		if d.Scatter().Err() != nil {
			t.Fatal(d.Scatter().Err())
		}
	}
	s, err := quant.TrainScalar(m, engine.L2, quant.ScalarConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := Components(m.Row(0), 16, []string{"int8"}, []quant.Quantizer{s}); err != nil || c.Err() != nil {
		t.Fatalf("components: %v", err)
	}
	labels, qs, err := Centring(m, engine.L2, 1, 1)
	if err != nil || len(labels) != 2 || len(qs) != 2 {
		t.Fatalf("centring under L2: %v %v", labels, err)
	}
	plain, cen := qs[0], qs[1]
	if labels, qs, _ := Centring(m, engine.Cosine, 1, 1); len(labels) != 3 || math.Abs(Norm(qs[1].Centroid())-1) > 1e-5 {
		t.Fatalf("centring under Cosine: %v, Lucene's centroid has length %v", labels, Norm(qs[1].Centroid()))
	}
	ec, _ := ReconstructionError(cen, m, 200)
	ep, _ := ReconstructionError(plain, m, 200)
	if Norm(plain.Centroid()) != 0 || Norm(cen.Centroid()) == 0 || ec <= 0 || ep <= 0 {
		t.Fatalf("centring: centroids %v / %v, errors %v / %v", Norm(cen.Centroid()), Norm(plain.Centroid()), ec, ep)
	}
	if o, err := Offset(m, 3, 0.5); err != nil || o.N != 3 || o.Row(2)[5] != m.Row(2)[5]+0.5 {
		t.Fatalf("Offset: %v", err)
	}
	if r := ranks([]float64{3, 1, 1, 2}); r[0] != 3 || r[1] != 0.5 || r[2] != 0.5 || r[3] != 2 {
		t.Fatalf("ranks %v", r)
	}
}

func TestConstants(t *testing.T) {
	tb, err := Constants()
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) < 8 {
		t.Fatalf("%d rows", len(tb.Rows))
	}
	md := tb.Markdown()
	for _, want := range []string{"62 B = 48 B of bits + 14 B of corrections", "~384 vectors", "gp3-baseline", "0.9974"} {
		if !strings.Contains(md, want) {
			t.Errorf("constants table lacks %q:\n%s", want, md)
		}
	}
	for r := range tb.Rows {
		if tb.Cell(r, 3).String() == "" {
			t.Errorf("row %d (%s) has no source", r, tb.Cell(r, 0))
		}
	}
}

// TestGridInPlane: int4's grid in the plane has at most 16 values on each
// axis, every point moves to one of them, and points off the plane are
// refused.
func TestGridInPlane(t *testing.T) {
	pts, err := dataset.Plane(300, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, rel, err := GridInPlane(pts, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !(rel > 0 && rel < 0.05) {
		t.Errorf("relative error %v, want small but not zero", rel)
	}
	xs, ys := map[float64]bool{}, map[float64]bool{}
	for _, g := range c.Groups {
		if g.Role == chart.Dots {
			for i := range g.X {
				xs[g.X[i]], ys[g.Y[i]] = true, true
			}
		}
	}
	if len(xs) > 16 || len(ys) > 16 || len(xs) < 8 {
		t.Errorf("%d and %d distinct decoded values per axis, want at most 16", len(xs), len(ys))
	}
	if _, _, err := GridInPlane(vec.NewMatrix(3, 3), 4); !errors.Is(err, ErrBadArgument) {
		t.Errorf("3-D points: %v", err)
	}
}

// TestOneBitInPlane: one bit per component splits the plane into the four
// quadrants around the plain mean (every point in the group of its
// quadrant), the bits alone lose far more than int4's grid (≈ 0.009 on the
// same points), and points off the plane are refused.
func TestOneBitInPlane(t *testing.T) {
	pts, err := dataset.Plane(300, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	c, rel, cen, err := OneBitInPlane(pts)
	if err != nil {
		t.Fatal(err)
	}
	var mx, my float64
	for i := 0; i < pts.N; i++ {
		mx += float64(pts.Row(i)[0]) / float64(pts.N)
		my += float64(pts.Row(i)[1]) / float64(pts.N)
	}
	if math.Abs(float64(cen[0])-mx) > 1e-5 || math.Abs(float64(cen[1])-my) > 1e-5 {
		t.Errorf("centroid %v, want the plain mean (%.5f, %.5f)", cen, mx, my)
	}
	n, quads := 0, 0
	for _, g := range c.Groups {
		if g.Role != chart.Dots {
			continue
		}
		quads++
		n += len(g.X)
		for i := range g.X {
			right, above := g.X[i] > float64(cen[0]), g.Y[i] > float64(cen[1])
			if strings.Contains(g.Name, "right") != right || strings.Contains(g.Name, "above") != above {
				t.Fatalf("point (%v, %v) drawn in %q", g.X[i], g.Y[i], g.Name)
			}
		}
	}
	if quads != 4 || n != pts.N {
		t.Errorf("%d quadrant groups holding %d points, want 4 holding %d", quads, n, pts.N)
	}
	if !(rel > 0.05 && rel < 1) {
		t.Errorf("relative error %v, want that of one bit (well above int4's, below 1)", rel)
	}
	if _, _, _, err := OneBitInPlane(vec.NewMatrix(3, 3)); !errors.Is(err, ErrBadArgument) {
		t.Errorf("3-D points: %v", err)
	}
}
