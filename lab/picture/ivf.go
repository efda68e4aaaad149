package picture

import (
	"errors"
	"fmt"
	"slices"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/ivf"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/chart"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/metrics"
	"github.com/veclab/veclab/lab/scratch"
	"github.com/veclab/veclab/lab/table"
)

// IVFOptions configure an IVF index over points of the plane.
type IVFOptions struct {
	Nlist int    // lists (k-means cells); 0: 8
	Seed  uint64 // k-means; 0: 1
}

// IVF builds an IVF-Flat index (float32 lists, squared L2, one worker, so
// the same seed gives the same cells) over points of the plane (notebook
// 00d): engine/ivf's Build, k-means on every point.
func IVF(points *vec.Matrix, o IVFOptions) (*ivf.Index, error) {
	if points == nil || points.N == 0 || points.Dim != 2 {
		return nil, fmt.Errorf("picture: IVF draws points of the plane (2 dimensions): %w", ErrBadArgument)
	}
	if o.Nlist == 0 {
		o.Nlist = 8
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	ix, err := ivf.Build(points, ivf.Config{Nlist: o.Nlist, Metric: engine.L2, Seed: o.Seed, Workers: 1, TrainSample: -1})
	if err != nil {
		return nil, fmt.Errorf("picture: %w", err)
	}
	return ix, nil
}

// borderGrid is the resolution (borderGrid × borderGrid points over the
// pictured square) at which the cells' borders are traced: a grid point is
// on a border when the list a query there would probe first differs from
// its right or upper neighbour's. The cells are the Voronoi cells of the
// centroids, found by the search's own ranking (ivf.Index.ProbeOrder), not
// redrawn by geometry.
const borderGrid = 110

// borders returns the grid points on the cells' borders, and the label
// (first-probed list) of every grid point with the grid's geometry.
func borders(ix *ivf.Index, points *vec.Matrix) (bx, by []float64, err error) {
	lo, hi := planeBox(points, ix.Centroids())
	at := func(i, j int) (float64, float64) {
		return lo[0] + (hi[0]-lo[0])*(float64(i)+0.5)/borderGrid, lo[1] + (hi[1]-lo[1])*(float64(j)+0.5)/borderGrid
	}
	label := make([]int, borderGrid*borderGrid)
	for i := 0; i < borderGrid; i++ {
		for j := 0; j < borderGrid; j++ {
			x, y := at(i, j)
			first, err := ix.ProbeOrder([]float32{float32(x), float32(y)}, 1)
			if err != nil {
				return nil, nil, fmt.Errorf("picture: %w", err)
			}
			label[i*borderGrid+j] = first[0]
		}
	}
	for i := 0; i < borderGrid; i++ {
		for j := 0; j < borderGrid; j++ {
			l := label[i*borderGrid+j]
			if i+1 < borderGrid && label[(i+1)*borderGrid+j] != l || j+1 < borderGrid && label[i*borderGrid+j+1] != l {
				x, y := at(i, j)
				bx, by = append(bx, x), append(by, y)
			}
		}
	}
	return bx, by, nil
}

func check2DIVF(ix *ivf.Index, points *vec.Matrix) error {
	if ix == nil || points == nil || ix.Len() == 0 {
		return fmt.Errorf("picture: empty or nil IVF index or points: %w", ErrBadArgument)
	}
	if ix.Dim() != 2 || points.Dim != 2 || points.N != ix.Len() {
		return fmt.Errorf("picture: an IVF index of %d %d-dimensional vectors cannot be drawn with %d points of %d dimensions: %w",
			ix.Len(), ix.Dim(), points.N, points.Dim, ErrBadArgument)
	}
	return nil
}

func rowsXY(points *vec.Matrix, ids []engine.ID) (x, y []float64) {
	x, y = make([]float64, len(ids)), make([]float64, len(ids))
	for i, id := range ids {
		r := points.Row(int(id))
		x[i], y[i] = float64(r[0]), float64(r[1])
	}
	return x, y
}

// Cells draws IVF's cells: their borders (light grey: where the list a
// query would probe first changes), every point in its list's colour (the
// palette repeats past eight lists) and the centroids as crosses. A cell's
// points are its posting list (ivf.Index.List).
func Cells(ix *ivf.Index, points *vec.Matrix) (*chart.Scatter, error) {
	if err := check2DIVF(ix, points); err != nil {
		return nil, err
	}
	bx, by, err := borders(ix, points)
	if err != nil {
		return nil, err
	}
	c := square(fmt.Sprintf("%d points in %d cells (lists of %s points)", ix.Len(), ix.Nlist(), sizeRange(ix.ListSizes())))
	c.Add("cell borders", chart.Background, bx, by)
	for j := 0; j < ix.Nlist(); j++ {
		ids, err := ix.List(j)
		if err != nil {
			return nil, fmt.Errorf("picture: %w", err)
		}
		x, y := rowsXY(points, ids)
		c.Add(fmt.Sprintf("list %d", j), chart.Dots, x, y)
	}
	cx, cy := make([]float64, ix.Nlist()), make([]float64, ix.Nlist())
	for j := 0; j < ix.Nlist(); j++ {
		r := ix.Centroids().Row(j)
		cx[j], cy[j] = float64(r[0]), float64(r[1])
	}
	c.Add("centroids", chart.Star, cx, cy)
	return c, nil
}

func sizeRange(s []int) string {
	lo, hi := s[0], s[0]
	for _, v := range s {
		lo, hi = min(lo, v), max(hi, v)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// Probe is what one IVF search read and found (see ProbePicture).
type Probe struct {
	Nprobe, K int
	Lists     []int // the lists probed, nearest centroid first
	Scanned   int   // vectors scanned: the probed lists' entries
	// Found of the exact top K were returned; Missed are the others.
	Found  int
	Missed []engine.ID
}

// String is one line: the probe's reading and finding.
func (p Probe) String() string {
	return fmt.Sprintf("nprobe = %d: lists %v, %d vectors scanned, %d of the true top %d found", p.Nprobe, p.Lists, p.Scanned, p.Found, p.K)
}

// ProbePicture runs one IVF search (k results, nprobe lists) and draws it:
// the probed cells shaded, the vectors it scanned, the query, its results
// and the true top k it missed (an exact scan, engine/flat, finds them).
func ProbePicture(ix *ivf.Index, points *vec.Matrix, q []float32, k, nprobe int) (*chart.Scatter, Probe, error) {
	if err := check2DIVF(ix, points); err != nil {
		return nil, Probe{}, err
	}
	res, st, err := ix.Search(q, k, nprobe)
	if err != nil {
		return nil, Probe{}, fmt.Errorf("picture: %w", err)
	}
	lists, err := ix.ProbeOrder(q, nprobe)
	if err != nil {
		return nil, Probe{}, fmt.Errorf("picture: %w", err)
	}
	p := Probe{Nprobe: nprobe, K: k, Lists: lists, Scanned: st.Scanned}
	var scanned []engine.ID
	for _, j := range lists {
		ids, err := ix.List(j)
		if err != nil {
			return nil, Probe{}, fmt.Errorf("picture: %w", err)
		}
		scanned = append(scanned, ids...)
	}
	exact, err := flat.New(points, flat.Config{Metric: engine.L2})
	if err != nil {
		return nil, Probe{}, fmt.Errorf("picture: %w", err)
	}
	truth, _, err := exact.Search(q, k, nil)
	if err != nil {
		return nil, Probe{}, fmt.Errorf("picture: %w", err)
	}
	got := map[engine.ID]bool{}
	for _, r := range res {
		got[r.ID] = true
	}
	for _, r := range truth {
		if got[r.ID] {
			p.Found++
		} else {
			p.Missed = append(p.Missed, r.ID)
		}
	}
	bx, by, err := borders(ix, points)
	if err != nil {
		return nil, Probe{}, err
	}
	c := square(fmt.Sprintf("nprobe = %d: %d of %d found, %d scanned", nprobe, p.Found, k, p.Scanned))
	c.Add("cell borders", chart.Background, bx, by)
	all := make([]engine.ID, points.N)
	for i := range all {
		all[i] = engine.ID(i)
	}
	x, y := rowsXY(points, all)
	c.Add("points", chart.Background, x, y)
	x, y = rowsXY(points, scanned)
	c.Add("scanned", chart.Dots, x, y) // palette 0: blue, as VisitedPicture's scored nodes
	// Two empty groups take palette colours 1 and 2, so the query, the
	// results and the misses take VisitedPicture's colours.
	c.Add("", chart.Dots, nil, nil)
	c.Add("", chart.Dots, nil, nil)
	c.Add("query", chart.Star, []float64{float64(q[0])}, []float64{float64(q[1])}) // palette 3: reddish purple
	ids := make([]engine.ID, len(res))
	for i, r := range res {
		ids[i] = r.ID
	}
	x, y = rowsXY(points, ids)
	c.Add("results", chart.Marks, x, y) // palette 4: orange
	x, y = rowsXY(points, p.Missed)
	c.Add("missed (true top k)", chart.Marks, x, y) // palette 5: sky blue
	return c, p, nil
}

// ProbeLegend is the legend of ProbePicture's panels, one line.
func ProbeLegend() string {
	return "light grey: the cell borders and every point; blue dots: the vectors scanned (the probed cells' lists); purple cross: the query; " +
		"orange rings: the results; light-blue rings: the true top k the search missed"
}

// NprobePoint is one nprobe of a sweep: mean recall@K over the queries and
// the mean lists probed, vectors scanned and (lists on disk) list reads
// and bytes read per query.
type NprobePoint struct {
	Nprobe, K             int
	Recall                float64
	Lists, Scanned, Share float64 // Share: Scanned over the index's vectors
	Reads, Bytes          float64 // per query; 0 with the lists in RAM
}

// NprobeSweep searches every query at each nprobe and averages what the
// searches read (ivf.Stats) and their recall@k against truth (lab/metrics).
// With the lists on disk (ivf.Index.UseDiskLists) it counts their reads too.
func NprobeSweep(ix *ivf.Index, queries *vec.Matrix, truth *dataset.GroundTruth, k int, nprobes []int) ([]NprobePoint, error) {
	if ix == nil || queries == nil || queries.N == 0 || truth == nil || len(truth.IDs) < queries.N || k < 1 || truth.K < k {
		return nil, fmt.Errorf("picture: NprobeSweep needs an index, queries and their exact top %d: %w", k, ErrBadArgument)
	}
	var out []NprobePoint
	for _, n := range nprobes {
		if n < 1 {
			return nil, fmt.Errorf("picture: nprobe %d: %w", n, ErrBadArgument)
		}
		p := NprobePoint{Nprobe: n, K: k}
		for qi := 0; qi < queries.N; qi++ {
			res, st, err := ix.Search(queries.Row(qi), k, n)
			if err != nil {
				return nil, fmt.Errorf("picture: %w", err)
			}
			p.Recall += metrics.Recall(res, truth.At(qi, k), k)
			p.Lists += float64(st.ListsProbed)
			p.Scanned += float64(st.Scanned)
			p.Reads += float64(st.ListIO.Reads)
			p.Bytes += float64(st.ListIO.Bytes)
		}
		nq := float64(queries.N)
		p.Recall, p.Lists, p.Scanned, p.Reads, p.Bytes = p.Recall/nq, p.Lists/nq, p.Scanned/nq, p.Reads/nq, p.Bytes/nq
		p.Share = p.Scanned / float64(ix.Len())
		out = append(out, p)
	}
	return out, nil
}

// NprobeTable tabulates a sweep: recall and what each query read.
func NprobeTable(title string, pts []NprobePoint) *table.Table {
	k := 10
	if len(pts) > 0 {
		k = pts[0].K
	}
	disk := false
	for _, p := range pts {
		disk = disk || p.Reads > 0
	}
	cols := []table.Column{table.Col("nprobe", ""), {Header: fmt.Sprintf("recall@%d", k), Prec: 3},
		{Header: "lists read", Prec: 1}, {Header: "vectors scanned", Prec: 0}, {Header: "share of the data", Prec: 3}}
	if disk {
		cols = append(cols, table.Column{Header: "list reads", Prec: 1}, table.Column{Header: "kB read", Prec: 1})
	}
	t := table.New(title, cols...)
	for _, p := range pts {
		row := []any{p.Nprobe, p.Recall, p.Lists, p.Scanned, p.Share}
		if disk {
			row = append(row, p.Reads, p.Bytes/1000)
		}
		_ = t.AddValues(row...)
	}
	return t
}

// NprobeCurve draws recall@k against the share of the data a query scans,
// each point labelled with its nprobe.
func NprobeCurve(title string, pts []NprobePoint) *chart.Line {
	x, y, labels := make([]float64, len(pts)), make([]float64, len(pts)), make([]string, len(pts))
	k := 10
	for i, p := range pts {
		x[i], y[i], labels[i], k = 100*p.Share, p.Recall, fmt.Sprintf("nprobe=%d", p.Nprobe), p.K
	}
	c := chart.NewLine(title, "vectors scanned per query (% of the data, log scale)", fmt.Sprintf("recall@%d", k))
	c.LogX = true // nprobe doubles along the sweep: equal steps on the axis
	c.AddLabeled("lab", x, y, labels)
	return c
}

// Lists returns a short description of the lists' sizes: count, smallest,
// median and largest, for a cell's print-out.
func Lists(ix *ivf.Index) string {
	s := ix.ListSizes()
	sorted := slices.Sorted(slices.Values(s))
	return fmt.Sprintf("%d lists of %d vectors: smallest %d, median %d, largest %d", len(s), ix.Len(), sorted[0], sorted[len(sorted)/2], sorted[len(sorted)-1])
}

// planeBox is the square the points and the centroids span, with a margin.
func planeBox(points *vec.Matrix, cents *vec.Matrix) (lo, hi [2]float64) {
	lo, hi = [2]float64{1e300, 1e300}, [2]float64{-1e300, -1e300}
	for _, m := range []*vec.Matrix{points, cents} {
		for i := 0; i < m.N; i++ {
			r := m.Row(i)
			for d := 0; d < 2; d++ {
				lo[d], hi[d] = min(lo[d], float64(r[d])), max(hi[d], float64(r[d]))
			}
		}
	}
	for d := 0; d < 2; d++ {
		pad := 0.05 * (hi[d] - lo[d])
		lo[d], hi[d] = lo[d]-pad, hi[d]+pad
	}
	return lo, hi
}

// ListsOnDisk moves ix's posting lists to a file in a lab/scratch
// directory (ivf.Index.WriteListsFS, then UseDiskListsFS): from then on a
// search reads each probed list with one counted read, and NprobeSweep
// reports the reads. The returned func closes the file and removes the
// directory; the index cannot search afterwards.
func ListsOnDisk(ix *ivf.Index) (closeLists func() error, err error) {
	if ix == nil {
		return nil, fmt.Errorf("picture: ListsOnDisk: nil index: %w", ErrBadArgument)
	}
	dir, err := scratch.New("ivf-lists")
	if err != nil {
		return nil, fmt.Errorf("picture: %w", err)
	}
	path := dir.Join("lists.ivf")
	if err := ix.WriteListsFS(dir.FS, path); err != nil {
		dir.Remove()
		return nil, fmt.Errorf("picture: %w", err)
	}
	if err := ix.UseDiskListsFS(dir.FS, path, store.Options{}); err != nil {
		dir.Remove()
		return nil, fmt.Errorf("picture: %w", err)
	}
	return func() error {
		return errors.Join(ix.CloseLists(), dir.Remove())
	}, nil
}
