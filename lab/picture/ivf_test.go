package picture

import (
	"errors"
	"testing"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

// TestIVFPictures: the cells picture holds one group per list with the
// list's points; a probe reads its lists' entries, finds more of the true
// top k as nprobe grows and all of them with every list; bad input is an
// error.
func TestIVFPictures(t *testing.T) {
	points, err := dataset.Plane(300, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := IVF(points, IVFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Cells(ix, points)
	if err != nil {
		t.Fatal(err)
	}
	inLists := 0
	for _, g := range c.Groups {
		if len(g.Name) > 5 && g.Name[:5] == "list " {
			inLists += len(g.X)
		}
	}
	if inLists != points.N {
		t.Errorf("the cells picture shows %d of %d points in lists", inLists, points.N)
	}
	prev := -1
	for n := 1; n <= ix.Nlist(); n++ {
		_, p, err := ProbePicture(ix, points, []float32{0.6, 0.2}, 5, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Lists) != n || p.Found+len(p.Missed) != 5 || p.Found < prev {
			t.Errorf("nprobe %d: %v", n, p)
		}
		prev = p.Found
		if n == ix.Nlist() && (p.Found != 5 || p.Scanned != points.N) {
			t.Errorf("every list: %v", p)
		}
	}
	flat, _ := ivf.Build(points, ivf.Config{Nlist: 4, Metric: engine.L2, Seed: 1})
	one := vec.NewMatrix(1, 3)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"3-D points", func() error { _, err := IVF(one, IVFOptions{}); return err }()},
		{"nil index", func() error { _, err := Cells(nil, points); return err }()},
		{"points of another index", func() error { p, _ := dataset.Plane(10, 2, 1); _, err := Cells(flat, p); return err }()},
		{"nprobe 0", func() error { _, _, err := ProbePicture(ix, points, []float32{0, 0}, 5, 0); return err }()},
		{"sweep without truth", func() error { _, err := NprobeSweep(ix, points, nil, 5, []int{1}); return err }()},
	} {
		if tc.err == nil || tc.name != "nprobe 0" && !errors.Is(tc.err, ErrBadArgument) {
			t.Errorf("%s: error %v", tc.name, tc.err)
		}
	}
}

// TestNprobeSweep: recall grows with nprobe and is 1 with every list; the
// share scanned is 1 then; lists on disk are read once per probed list.
func TestNprobeSweep(t *testing.T) {
	points, _ := dataset.Plane(2000, 6, 2)
	queries, _ := dataset.Plane(20, 6, 3)
	truth, err := dataset.ComputeTruth(points, queries, 10, engine.L2, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := IVF(points, IVFOptions{Nlist: 16})
	if err != nil {
		t.Fatal(err)
	}
	pts, err := NprobeSweep(ix, queries, truth, 10, []int{1, 2, 4, 16})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pts {
		if i > 0 && p.Recall < pts[i-1].Recall || p.Lists != float64(p.Nprobe) || p.Reads != 0 {
			t.Errorf("%+v", p)
		}
	}
	if last := pts[len(pts)-1]; last.Recall != 1 || last.Share != 1 {
		t.Errorf("every list: %+v", last)
	}
	if tb := NprobeTable("t", pts); len(tb.Rows) != 4 {
		t.Errorf("%d rows", len(tb.Rows))
	}
	if NprobeCurve("c", pts).Err() != nil {
		t.Error(NprobeCurve("c", pts).Err())
	}
}

// TestListsOnDisk: with the lists in a file a search reads one list per
// probed list and finds what it found from RAM; closing removes the file.
func TestListsOnDisk(t *testing.T) {
	points, _ := dataset.Plane(1000, 6, 2)
	queries, _ := dataset.Plane(10, 6, 3)
	truth, _ := dataset.ComputeTruth(points, queries, 5, engine.L2, nil)
	ix, err := IVF(points, IVFOptions{Nlist: 10})
	if err != nil {
		t.Fatal(err)
	}
	ram, err := NprobeSweep(ix, queries, truth, 5, []int{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	closeLists, err := ListsOnDisk(ix)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := NprobeSweep(ix, queries, truth, 5, []int{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ram {
		if disk[i].Recall != ram[i].Recall || disk[i].Reads != float64(disk[i].Nprobe) || disk[i].Bytes == 0 {
			t.Errorf("RAM %+v, disk %+v", ram[i], disk[i])
		}
	}
	if err := closeLists(); err != nil {
		t.Fatal(err)
	}
	if _, err := ListsOnDisk(nil); !errors.Is(err, ErrBadArgument) {
		t.Errorf("nil index: %v", err)
	}
}
