package e12

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/hnsw"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
	"github.com/veclab/veclab/lab/experiment"
	"github.com/veclab/veclab/lab/measure"
	"github.com/veclab/veclab/lab/scratch"
	"github.com/veclab/veclab/lab/table"
)

// e12 is a nearly full disk (Spring AI VectorStore article).
var e12 = experiment.Experiment{
	ID:     "E12",
	Claims: claims,
	Title:  "a nearly full disk: the lab's store refuses writes above a disk watermark, says which, and loses nothing already written",
	Article: "Spring AI VectorStore article (\"Elasticsearch will refuse to store your data on a nearly full disk\"): " +
		"with the disk above the high watermark (cluster.routing.allocation.disk.watermark.high = 90 %) a new index's shards stayed UNASSIGNED, " +
		"the bulk failed with \"primary shard is not active Timeout: [1m]\", and only a WARN line in the Elasticsearch log said why",
	Figures: []experiment.Figure{
		{Row: "elasticsearch", Measure: "high watermark", Value: 90, Unit: "% used"},
		{Row: "elasticsearch", Measure: "bulk timeout", Value: 1, Unit: "min"},
	},
}

func init() { e12.Run, e12.Notebook = runE12, "06-footprint.ipynb"; experiment.Register(e12) }

// Disk is one simulated disk the new files are saved on.
type Disk struct {
	Label string
	// Used is the fraction of the disk taken by other data (the previous
	// files in the directory count on top).
	Used float64
	// Cross, when set, replaces Used: the disk starts so close below the
	// high watermark that the save's own bytes cross it (half of them fit).
	Cross bool
	// FloodAtSync makes another writer fill the disk to 96 % while the
	// index's temporary file is synced, just before its rename.
	FloodAtSync bool
}

// Disks are the disks E12 runs on: below the low and high watermarks,
// crossing the high one during the save, above it, above the flood stage,
// and flooded by someone else mid-save.
var Disks = []Disk{
	{Label: "80 %", Used: 0.80},
	{Label: "89 %", Used: 0.89},
	{Label: "just under 90 %, the save crosses it", Cross: true},
	{Label: "91 %", Used: 0.91},
	{Label: "96 %", Used: 0.96},
	{Label: "80 %, flooded to 96 % before the rename", Used: 0.80, FloodAtSync: true},
}

// DiskBytes is the simulated disk's size: the article's disk had
// 25.1 GB free at 90 % used, about 250 GB.
const DiskBytes = 250_000_000_000

// Row is one file saved on one disk.
type Row struct {
	Disk      string  // the Disk's label
	File      string  // "index" (hnsw Save) or "vectors" (store.WriteMatrixFS)
	Before    float64 // the disk's usage (fraction) when the save started
	Level     string  // the highest watermark the disk was above then ("" none)
	Written   bool
	Op        string // refused at: create, write, rename
	Watermark string // the refusing watermark: high, flood-stage
	Err       string // the error text, "" when written
	OnDisk    string // what the path holds afterwards: "new" or "previous" generation
	Vectors   int    // vectors in the file at the path afterwards
	Loads     bool   // the file at the path opens and verifies
	Identical bool   // its search results equal those of its generation as first saved
	TempLeft  int    // temporary files left in the directory
}

// e12Gen is one generation of the two files, with the search results
// recorded when it was saved without any watermark.
type e12Gen struct {
	name     string
	index    []byte
	vectors  []byte
	n        int
	ixHits   [][]engine.Result
	vecHits  [][]engine.Result
	ixSize   uint64
	vecsSize uint64
}

// Measure saves a new generation of an HNSW index and of a vector file
// (env's data set) over a previous one (its first tenth), through a
// vfs.WatermarkFS with Elasticsearch's default watermarks (85 / 90 / 95 %)
// on each simulated disk of diskBytes bytes, in a fresh temporary
// directory each; it reports for every file whether it was written or
// refused, the error, and what the path holds afterwards: which
// generation, whether it loads, and whether its search results (env's
// queries, k = env's K) equal those recorded when it was first saved.
func Measure(env *experiment.Env, diskBytes uint64, disks []Disk) ([]Row, error) {
	if len(disks) == 0 || diskBytes == 0 {
		return nil, fmt.Errorf("experiment: E12: need at least one disk and a disk size: %w", experiment.ErrBadArgument)
	}
	ds, err := env.Dataset()
	if err != nil {
		return nil, err
	}
	nq := min(ds.Queries.N, 20)
	k, ef := env.Scale.K, 100
	// The new generation: the shared HNSW (codes are not saved) over all vectors.
	hn, err := experiment.HNSWCodes(env, 2)
	if err != nil {
		return nil, err
	}
	nPrev := max(ds.Base.N/10, k)
	prevBase := &vec.Matrix{N: nPrev, Dim: ds.Base.Dim, Stride: ds.Base.Stride, Data: ds.Base.Data[:nPrev*ds.Base.Stride]}
	cfg := hn.Index.Config()
	cfg.Codes, cfg.Workers = nil, max(env.Workers, 1)
	prevIx, err := hnsw.New(cfg)
	if err != nil {
		return nil, err
	}
	keys := make([]uint64, nPrev)
	for i := range keys {
		keys[i] = uint64(i)
	}
	if err := prevIx.AddBatch(keys, prevBase); err != nil {
		return nil, fmt.Errorf("experiment: E12 previous index: %w", err)
	}
	sd, err := scratch.New("veclab-e12")
	if err != nil {
		return nil, fmt.Errorf("experiment: E12: %w", err)
	}
	defer sd.Remove()
	fsys, root := sd.FS, sd.Path
	gen := func(name string, ix *hnsw.Index, m *vec.Matrix) (*e12Gen, error) {
		dir, err := sd.Mkdir(name)
		if err != nil {
			return nil, err
		}
		ixPath, vecPath := filepath.Join(dir, "index.hnsw"), filepath.Join(dir, "vectors.vec")
		if err := ix.Save(fsys, ixPath); err != nil {
			return nil, err
		}
		if err := store.WriteMatrixFS(fsys, vecPath, m, env.Metric()); err != nil {
			return nil, err
		}
		g := &e12Gen{name: name, n: m.N}
		if g.index, err = vfs.ReadFile(fsys, ixPath); err != nil {
			return nil, err
		}
		if g.vectors, err = vfs.ReadFile(fsys, vecPath); err != nil {
			return nil, err
		}
		g.ixSize, g.vecsSize = uint64(len(g.index)), uint64(len(g.vectors))
		var n1, n2 int
		g.ixHits, n1, err = e12SearchIndex(fsys, ixPath, ds.Queries, nq, k, ef)
		if err != nil {
			return nil, err
		}
		g.vecHits, n2, err = e12SearchVectors(fsys, vecPath, ds.Queries, nq, k)
		if err != nil {
			return nil, err
		}
		if n1 != m.N || n2 != m.N {
			return nil, fmt.Errorf("experiment: E12: %s generation reloads with %d and %d vectors, want %d", name, n1, n2, m.N)
		}
		return g, nil
	}
	env.Logf("E12: saving the previous (%d vectors) and new (%d vectors) generations without a watermark", nPrev, ds.Base.N)
	prev, err := gen("previous", prevIx, prevBase)
	if err != nil {
		return nil, fmt.Errorf("experiment: E12 previous generation: %w", err)
	}
	next, err := gen("new", hn.Index, ds.Base)
	if err != nil {
		return nil, fmt.Errorf("experiment: E12 new generation: %w", err)
	}

	var rows []Row
	for i, d := range disks {
		env.Step(i, len(disks), "E12 disks")
		dir, err := sd.Mkdir(fmt.Sprintf("disk%d", i))
		if err != nil {
			return nil, fmt.Errorf("experiment: E12: %w", err)
		}
		files := []struct {
			name, path string
			prevBytes  []byte
		}{
			{"index", filepath.Join(dir, "index.hnsw"), prev.index},
			{"vectors", filepath.Join(dir, "vectors.vec"), prev.vectors},
		}
		for _, f := range files {
			if err := vfs.WriteFile(fsys, f.path, f.prevBytes); err != nil {
				return nil, fmt.Errorf("experiment: E12: %w", err)
			}
		}
		prevBytes := prev.ixSize + prev.vecsSize
		other := uint64(d.Used * float64(diskBytes))
		if d.Cross {
			other = uint64(0.90*float64(diskBytes)) - prevBytes - next.ixSize/2
		} else {
			other -= min(other, prevBytes)
		}
		var flooded atomic.Bool
		inner := fsys
		if d.FloodAtSync {
			inner = vfs.NewErrorFS(fsys, vfs.InjectorFunc(func(op vfs.Op, name string) error {
				if op == vfs.OpSync && filepath.Dir(name) == dir {
					flooded.Store(true)
				}
				return nil
			}))
		}
		disk := vfs.SimulatedDisk{FS: fsys, Used: other, Total: diskBytes}
		usage := func(dir string) (uint64, uint64, error) {
			if flooded.Load() {
				return uint64(0.96 * float64(diskBytes)), diskBytes, nil
			}
			return disk.Usage(dir)
		}
		wm, err := vfs.NewWatermark(vfs.Watermark{FS: inner, Usage: usage})
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			level, used, total, err := wm.Level(dir)
			if err != nil {
				return nil, err
			}
			r := Row{Disk: d.Label, File: f.name, Before: float64(used) / float64(total), Level: level}
			var serr error
			if f.name == "index" {
				serr = hn.Index.Save(wm, f.path)
			} else {
				serr = store.WriteMatrixFS(wm, f.path, ds.Base, env.Metric())
			}
			var we *vfs.WatermarkError
			switch {
			case serr == nil:
				r.Written = true
			case errors.As(serr, &we):
				// The report carries no machine paths.
				r.Op, r.Watermark, r.Err = we.Op, we.Watermark, strings.ReplaceAll(serr.Error(), root+string(filepath.Separator), "")
			default:
				return nil, fmt.Errorf("experiment: E12 %s on %s: %w", f.name, d.Label, serr)
			}
			if err := e12Check(fsys, &r, f.path, dir, prev, next, ds.Queries, nq, k, ef); err != nil {
				return nil, err
			}
			rows = append(rows, r)
		}
	}
	env.Step(len(disks), len(disks), "E12 disks")
	return rows, nil
}

// e12Check fills what the path holds after the save: which generation,
// whether it loads and whether its searches match that generation's.
func e12Check(fsys vfs.FS, r *Row, path, dir string, prev, next *e12Gen, q *vec.Matrix, nq, k, ef int) error {
	names, err := fsys.List(dir)
	if err != nil {
		return err
	}
	for _, n := range names {
		if n != "index.hnsw" && n != "vectors.vec" {
			r.TempLeft++
		}
	}
	b, err := vfs.ReadFile(fsys, path)
	if err != nil {
		return err
	}
	var g *e12Gen
	var hits [][]engine.Result
	var n int
	if r.File == "index" {
		switch {
		case slices.Equal(b, prev.index):
			g = prev
		case slices.Equal(b, next.index):
			g = next
		}
		hits, n, err = e12SearchIndex(fsys, path, q, nq, k, ef)
	} else {
		switch {
		case slices.Equal(b, prev.vectors):
			g = prev
		case slices.Equal(b, next.vectors):
			g = next
		}
		hits, n, err = e12SearchVectors(fsys, path, q, nq, k)
	}
	r.Loads = err == nil
	r.Vectors = n
	r.OnDisk = "neither generation"
	if g == nil || !r.Loads {
		return nil
	}
	r.OnDisk = g.name
	want := g.ixHits
	if r.File == "vectors" {
		want = g.vecHits
	}
	r.Identical = slices.EqualFunc(hits, want, func(a, b []engine.Result) bool { return slices.Equal(a, b) })
	return nil
}

// e12SearchIndex loads an index file and searches the first nq queries.
func e12SearchIndex(fsys vfs.FS, path string, q *vec.Matrix, nq, k, ef int) ([][]engine.Result, int, error) {
	ix, err := hnsw.Load(fsys, path)
	if err != nil {
		return nil, 0, err
	}
	out := make([][]engine.Result, nq)
	for i := range out {
		if out[i], _, err = ix.Query(q.Row(i), engine.Request{K: k, Breadth: ef}); err != nil {
			return nil, 0, err
		}
	}
	return out, ix.Len(), nil
}

// e12SearchVectors opens a vector file, verifies every row's checksum,
// reads it back and searches it exactly with the first nq queries.
func e12SearchVectors(fsys vfs.FS, path string, q *vec.Matrix, nq, k int) ([][]engine.Result, int, error) {
	f, err := store.OpenFS(fsys, path, store.Options{})
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if err := f.Verify(); err != nil {
		return nil, 0, err
	}
	m := vec.NewMatrix(f.Len(), f.Dim())
	for i := 0; i < m.N; i++ {
		if _, err := f.Vector(m.Row(i), engine.ID(i)); err != nil {
			return nil, 0, err
		}
	}
	ix, err := flat.New(m, flat.Config{Metric: f.Metric()})
	if err != nil {
		return nil, 0, err
	}
	out := make([][]engine.Result, nq)
	for i := range out {
		if out[i], _, err = ix.Search(q.Row(i), k, nil); err != nil {
			return nil, 0, err
		}
	}
	return out, m.N, nil
}

// Table lays the rows out beside the article's behaviour.
func Table(rows []Row) *table.Table {
	t := table.New("E12 saving on a nearly full disk through the lab's watermark (low 85 %, high 90 %, flood stage 95 %, Elasticsearch's defaults)",
		table.Col("disk", ""), table.Col("file", ""))
	measure.SimulatedNote(t)
	t.AddColumns(table.Column{Header: "used before", Unit: "%", Source: table.Lab, Prec: 3, Align: table.Right},
		table.Col("above", ""), table.Col("save", ""), table.Col("refused at", ""), table.Col("by watermark", ""),
		table.Col("path holds", ""), table.Column{Header: "vectors", Source: table.Lab, Prec: -1},
		table.Col("loads", ""), table.Col("same results", ""), table.Column{Header: "temp files left", Source: table.Lab, Prec: -1})
	for _, r := range rows {
		save := "written"
		if !r.Written {
			save = "REFUSED"
		}
		level := r.Level
		if level == "" {
			level = "none"
		}
		_ = t.AddValues(r.Disk, r.File, 100*r.Before, level, save, r.Op, r.Watermark, r.OnDisk, r.Vectors,
			yesNo(r.Loads), yesNo(r.Identical), r.TempLeft)
	}
	t.Note("simulated disk of %d GB (about the article's: 25.1 GB free at 90 %% used): its usage is other data plus the files in the directory, so a save's own bytes count as they are written; the files themselves are real files on this machine's disk", DiskBytes/1_000_000_000)
	t.Note("same results = the file at the path, reloaded, gives the same top-k (HNSW search for the index, exact search over the vectors read back) as its generation did when first saved")
	return t
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func runE12(env *experiment.Env) (*experiment.Report, error) {
	rows, err := Measure(env, DiskBytes, Disks)
	if err != nil {
		return nil, err
	}
	r := experiment.NewReport(e12, env)
	r.AddTable(Table(rows))
	r.Note("article: Elasticsearch above its %g %% high watermark left a new index's shards UNASSIGNED; the bulk timed out after %g min (\"primary shard is not active\") and only one WARN line in its log said why. Lab: the save itself fails at once with an error naming the watermark, the file, the disk's usage and the bytes it would add",
		e12.ArticleValue("elasticsearch", "high watermark"), e12.ArticleValue("elasticsearch", "bulk timeout"))
	seen := map[string]bool{}
	for _, row := range rows {
		if row.Err == "" || seen[row.Op+row.Watermark] {
			continue
		}
		seen[row.Op+row.Watermark] = true
		r.Note("error (%s, %s): %s", row.Disk, row.File, row.Err)
	}
	lost := 0
	for _, row := range rows {
		if !row.Written && (row.OnDisk != "previous" || !row.Loads || !row.Identical || row.TempLeft > 0) {
			lost++
		}
	}
	if lost == 0 {
		r.Note("every refused save left the previous file byte for byte, loadable, with identical search results, and no temporary file: the refusal comes before the rename of the crash-safe replace, and the writer's Abort removes its temporary file")
	} else {
		r.Note("FINDING: %d refused save(s) did not leave the previous file intact; see the table", lost)
	}
	r.Note("between 90 %% and 95 %% a rename is still allowed (it commits bytes already accepted and frees the file it replaces); above 95 %% the disk is read-only for the lab, deletes allowed, as Elasticsearch's index.blocks.read_only_allow_delete")
	r.Verdicts = append(r.Verdicts, Verdicts(env, rows)...)
	return r, nil
}

// Verdicts compares Measure's saves with the article's account:
// above the 90 % high watermark Elasticsearch refused the new index's
// shards (the bulk failed after a 1 min timeout, the reason in one WARN
// line). The lab's store refuses the save itself, at once: every save
// below the watermark is written, every save above it refused, the
// refusal names the watermark, and nothing is lost (the previous
// generation reloads identical, no temporary file, no machine path in
// the error).
func Verdicts(env *experiment.Env, rows []Row) experiment.Verdicts {
	high := e12.ArticleValue("elasticsearch", "high watermark")
	var nBelow, okBelow, nAbove, okAbove, named, refused, intact, temp int
	crossed, flooded, paths := false, false, false
	for _, r := range rows {
		if r.Level == "" || r.Level == "low" {
			// A save that starts below can still be refused by its own
			// bytes (crosses) or a flood before its rename.
			if !strings.Contains(r.Disk, "flooded") && !strings.Contains(r.Disk, "crosses") {
				nBelow++
				if r.Written {
					okBelow++
				}
			}
		}
		if r.Level == "high" || r.Level == "flood-stage" {
			nAbove++
			if !r.Written {
				okAbove++
			}
		}
		if strings.Contains(r.Disk, "crosses") && r.File == "index" && !r.Written && r.Watermark == "high" {
			crossed = true
		}
		if strings.Contains(r.Disk, "flooded") && r.File == "index" && !r.Written && r.Op == "rename" && r.Watermark == "flood-stage" {
			flooded = true
		}
		if !r.Written {
			refused++
			if r.Watermark != "" && strings.Contains(r.Err, r.Watermark) {
				named++
			}
		}
		want := "new"
		if !r.Written {
			want = "previous"
		}
		if r.OnDisk == want && r.Loads && r.Identical {
			intact++
		}
		temp += r.TempLeft
		if strings.Contains(r.Err, os.TempDir()) || strings.Contains(r.Err, " /") {
			paths = true
		}
	}
	return experiment.Verdicts{
		experiment.Holds("E12", "a save on a disk below the high watermark is written", "written below 90 %", experiment.OfN(okBelow, nBelow)+" written",
			nBelow > 0 && okBelow == nBelow, "saves that start below it and stay below"),
		experiment.Holds("E12", fmt.Sprintf("a save that starts above the %v %% high watermark is refused", high), fmt.Sprintf("refused above %v %% used", high), experiment.OfN(okAbove, nAbove)+" refused",
			nAbove > 0 && okAbove == nAbove, "the lab's store checks the watermark before it writes"),
		experiment.Holds("E12", "a save whose own bytes cross the high watermark is refused mid-write", "(lab) refused at the crossing", yesNo(crossed),
			crossed, "the write that crosses it fails; the previous file stays"),
		experiment.Holds("E12", "a disk flooded before the rename refuses the rename (flood stage)", "(lab) read-only above 95 %", yesNo(flooded),
			flooded, "as index.blocks.read_only_allow_delete"),
		experiment.Holds("E12", "the refusal names the watermark at once (the article: a 1 min timeout and one WARN line)", "1 min timeout, reason in the log",
			experiment.OfN(named, refused)+" refusals name it", refused > 0 && named == refused, "the lab's refusal comes from the save itself, not from a shard allocator"),
		experiment.Holds("E12", "nothing is lost: each path holds a whole generation that reloads with identical results", "(lab) crash-safe replace",
			experiment.OfN(intact, len(rows))+" intact", len(rows) > 0 && intact == len(rows), "the refusal comes before the rename"),
		experiment.Holds("E12", "no temporary file is left behind and no error text carries a machine path", "(lab)",
			fmt.Sprintf("%d temporary files, machine paths: %s", temp, yesNo(paths)), temp == 0 && !paths, "the writer's Abort removes its temporary file"),
	}
}
