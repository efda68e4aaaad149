package dataset

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

// ManifestFile is the optional file of a data set directory that names its
// metric, source and licence and lists its files' SHA-256 sums.
const ManifestFile = "dataset.json"

// Manifest is the content of dataset.json. Every field is optional; a
// directory without a manifest is read as TEXMEX's convention, L2.
type Manifest struct {
	Name    string `json:"name,omitempty"`
	Metric  string `json:"metric,omitempty"` // "cosine", "dot" or "l2"; default "l2"
	Source  string `json:"source,omitempty"` // where the vectors came from
	License string `json:"license,omitempty"`
	Base    int    `json:"base,omitempty"`    // rows of the base file
	Queries int    `json:"queries,omitempty"` // rows of the query file
	Dim     int    `json:"dim,omitempty"`
	Seed    uint64 `json:"seed,omitempty"` // the seed of the query hold-out, if any
	// SHA256 maps a file name of the directory to its hex SHA-256, written
	// by the converter and checked by [VerifyDir].
	SHA256 map[string]string `json:"sha256,omitempty"`
	Notes  string            `json:"notes,omitempty"`
}

// Real is a data set read from a directory: the vectors, the metric its
// manifest states, and the ground truth it ships, if any.
type Real struct {
	Dir      string
	Manifest Manifest
	Metric   engine.Metric
	*Dataset
	// Given is groundtruth.ivecs when the directory has one (shape checked:
	// one row per query, ids below the base size); nil otherwise.
	Given [][]int32
	// Labels are base-labels.ivecs's first column when the directory has
	// it (Fashion-MNIST's classes); nil otherwise.
	Labels []int32
	// compiled is the compiled-in glove-3k's files when the set was read
	// from them (Dir is then ""): Truth reads its cached top-100 there.
	compiled fs.FS
}

// files are where a data set's files are read: a directory of the OS, or
// a file system compiled into the binary (glove-3k), which opens without
// any file system at all — the browser's Go (js/wasm) has none: its
// wasm_exec.js answers every file call with ENOSYS.
type files struct {
	fsys fs.FS  // nil: the OS directory dir
	dir  string // the OS directory; for fsys, the name errors give it
}

func (f files) path(name string) string { return filepath.Join(f.dir, name) }

func (f files) open(name string) (io.ReadCloser, error) {
	if f.fsys != nil {
		return f.fsys.Open(name)
	}
	return dataFS.Open(f.path(name))
}

func (f files) readFile(name string) ([]byte, error) {
	if f.fsys != nil {
		return fs.ReadFile(f.fsys, name)
	}
	return vfs.ReadFile(dataFS, f.path(name))
}

func (f files) exists(name string) bool {
	var err error
	if f.fsys != nil {
		_, err = fs.Stat(f.fsys, name)
	} else {
		_, err = stat(f.path(name))
	}
	return err == nil
}

// layoutNames are the file names Open looks for, in order of preference.
var (
	baseNames  = []string{"base.fvecs", "base.bvecs", "base.npy"}
	queryNames = []string{"query.fvecs", "query.bvecs", "query.npy"}
)

// Open reads a data set directory: base.fvecs (or base.bvecs, base.npy),
// query.fvecs (or .bvecs, .npy), and optionally groundtruth.ivecs,
// base-labels.ivecs and dataset.json. Under cosine every row is returned
// normalised to unit length (the files keep the source's values). Errors name the file and, for
// malformed data, the row: a missing file, two base or query files, a
// decoding error, base and query dimensions that differ, a truth file of
// the wrong shape, a manifest whose counts disagree with the files.
func Open(dir string) (*Real, error) {
	return openFiles(files{dir: dir})
}

// openFiles is [Open] over a directory of the OS or a compiled-in file
// system; errors name f.path(file).
func openFiles(f files) (*Real, error) {
	dir := f.dir
	r := &Real{Metric: engine.L2}
	if f.fsys == nil {
		r.Dir = dir
	} else {
		r.compiled = f.fsys
	}
	if b, err := f.readFile(ManifestFile); err == nil {
		if err := json.Unmarshal(b, &r.Manifest); err != nil {
			return nil, fmt.Errorf("dataset: %s: %v: %w", filepath.Join(dir, ManifestFile), err, engine.ErrCorrupt)
		}
		if r.Manifest.Metric != "" {
			if r.Metric, err = engine.ParseMetric(r.Manifest.Metric); err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	base, bpath, err := loadOne(f, baseNames)
	if err != nil {
		return nil, err
	}
	q, qpath, err := loadOne(f, queryNames)
	if err != nil {
		return nil, err
	}
	if q.Dim != base.Dim {
		return nil, fmt.Errorf("dataset: %s has %d dimensions, %s has %d: %w", qpath, q.Dim, bpath, base.Dim, engine.ErrDimension)
	}
	mf := r.Manifest
	for _, c := range []struct {
		what       string
		got, want  int
		path, name string
	}{{"rows", base.N, mf.Base, bpath, "base"}, {"rows", q.N, mf.Queries, qpath, "queries"}, {"dimensions", base.Dim, mf.Dim, bpath, "dim"}} {
		if c.want != 0 && c.got != c.want {
			return nil, fmt.Errorf("dataset: %s has %d %s, %s says %s %d: %w", c.path, c.got, c.what, ManifestFile, c.name, c.want, engine.ErrCorrupt)
		}
	}
	r.Dataset = &Dataset{Config: Config{N: base.N, Queries: q.N, Dim: base.Dim}, Base: base, Queries: q}
	gpath := f.path("groundtruth.ivecs")
	if rows, err := loadIvecs(f, "groundtruth.ivecs"); err == nil {
		if len(rows) != q.N {
			return nil, fmt.Errorf("dataset: %s has %d rows, %s has %d queries: %w", gpath, len(rows), qpath, q.N, engine.ErrCorrupt)
		}
		for i, row := range rows {
			for j, id := range row {
				if id < 0 || int(id) >= base.N {
					return nil, fmt.Errorf("dataset: %s: row %d column %d: id %d outside 0…%d: %w", gpath, i, j, id, base.N-1, engine.ErrCorrupt)
				}
			}
		}
		r.Given = rows
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	lpath := f.path("base-labels.ivecs")
	if rows, err := loadIvecs(f, "base-labels.ivecs"); err == nil {
		if len(rows) != base.N {
			return nil, fmt.Errorf("dataset: %s has %d rows, %s has %d: %w", lpath, len(rows), bpath, base.N, engine.ErrCorrupt)
		}
		r.Labels = make([]int32, len(rows))
		for i, row := range rows {
			r.Labels[i] = row[0]
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if r.Metric == engine.Cosine {
		// Cosine is blind to length, and the engine's cosine paths (HNSW,
		// the quantizers, the rescorers) take unit vectors, as the
		// generated set's are: normalise here, once, naming a zero row.
		for _, m := range []struct {
			m    *vec.Matrix
			path string
		}{{base, bpath}, {q, qpath}} {
			for i := 0; i < m.m.N; i++ {
				if err := engine.CheckVector(m.m.Row(i), m.m.Dim, engine.Cosine); err != nil {
					return nil, fmt.Errorf("%s: row %d: %w", m.path, i, err)
				}
				if err := vec.Normalize(m.m.Row(i)); err != nil {
					return nil, fmt.Errorf("%s: row %d: %w", m.path, i, err)
				}
			}
		}
	}
	return r, nil
}

// loadOne reads the one file of names present in f.
func loadOne(f files, names []string) (*vec.Matrix, string, error) {
	var found []string
	for _, n := range names {
		if f.exists(n) {
			found = append(found, n)
		}
	}
	switch len(found) {
	case 0:
		return nil, "", fmt.Errorf("dataset: %s: none of %v: %w", f.dir, names, engine.ErrNotFound)
	case 1:
	default:
		return nil, "", fmt.Errorf("dataset: %s: both %s and %s; keep one: %w", f.dir, found[0], found[1], engine.ErrInvalidArgument)
	}
	m, err := loadMatrix(f, found[0])
	return m, f.path(found[0]), err
}

// LoadMatrix reads a .fvecs, .bvecs, .npy or IDX (.idx, -ubyte, as
// MNIST's files are named) file by its name, gzip-compressed when the name
// ends in .gz; errors name the file.
func LoadMatrix(path string) (*vec.Matrix, error) {
	return loadMatrix(files{dir: filepath.Dir(path)}, filepath.Base(path))
}

// loadMatrix is [LoadMatrix] of the file name in f.
func loadMatrix(f files, file string) (*vec.Matrix, error) {
	path := f.path(file)
	name := strings.TrimSuffix(path, ".gz")
	var read func(io.Reader) (*vec.Matrix, error)
	switch ext := filepath.Ext(name); {
	case ext == ".fvecs":
		read = ReadFvecs
	case ext == ".bvecs":
		read = ReadBvecs
	case ext == ".npy":
		read = ReadNpy
	case ext == ".idx" || strings.HasSuffix(name, "-ubyte"):
		read = ReadIDX
	default:
		return nil, fmt.Errorf("dataset: %s: unknown extension %q (want .fvecs, .bvecs, .npy or .idx, optionally .gz): %w", path, ext, engine.ErrInvalidArgument)
	}
	rc, err := f.open(file)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var in io.Reader = rc
	if name != path {
		z, err := gzip.NewReader(rc)
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: %v: %w", path, err, engine.ErrCorrupt)
		}
		defer z.Close()
		in = z
	}
	m, err := read(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// loadIvecs is [LoadIvecs] of the file name in f.
func loadIvecs(f files, file string) ([][]int32, error) {
	rc, err := f.open(file)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	rows, err := ReadIvecs(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.path(file), err)
	}
	return rows, nil
}

// Truth returns the exact top-k of every query under the data set's
// metric, cached in the data set's directory under its content hash (see
// [Truth]); when the directory is not writable it is computed uncached.
func (r *Real) Truth(k int) (*GroundTruth, error) {
	if r.compiled != nil {
		// The compiled-in set carries its top-100 cache; anything else is
		// computed and not kept (there may be no file system to keep it).
		if b, err := fs.ReadFile(r.compiled, truthCacheName(r.Dataset.Hash(), k, r.Metric)); err == nil {
			if t, err := decodeTruth(b, r.Dataset.Hash(), k, r.Metric, r.Queries.N); err == nil {
				return t, nil
			}
		}
		return Truth(r.Dataset, k, r.Metric, "")
	}
	cache := r.Dir
	probe := filepath.Join(r.Dir, tempName(".veclab-writable-"))
	if f, err := dataFS.Create(probe); err != nil {
		cache = ""
	} else {
		f.Close()
		dataFS.Remove(probe)
	}
	return Truth(r.Dataset, k, r.Metric, cache)
}

// streamHoldout is the random stream of HoldOut's permutation.
const streamHoldout = 0x9e3779b97f4a7c15 + 0x100

// HoldOut splits m deterministically: a seeded permutation picks queries
// rows as queries and, of the rest, base rows as the base (base ≤ 0 keeps
// them all). Both keep m's row order, so a frequency-ordered vocabulary
// stays frequency-ordered. It returns the row numbers of m taken for
// each.
func HoldOut(m *vec.Matrix, queries, base int, seed uint64) (b, q *vec.Matrix, bRows, qRows []int, err error) {
	if m == nil || queries < 1 || queries >= m.N {
		return nil, nil, nil, nil, fmt.Errorf("dataset: HoldOut: %d queries of %d rows: %w", queries, rowsOf(m), engine.ErrInvalidArgument)
	}
	rest := m.N - queries
	if base <= 0 || base > rest {
		base = rest
	}
	perm := rand.New(rand.NewPCG(seed, streamHoldout)).Perm(m.N)
	qRows = slices.Clone(perm[:queries])
	bRows = slices.Clone(perm[queries : queries+base])
	slices.Sort(qRows)
	slices.Sort(bRows)
	return pickRows(m, bRows), pickRows(m, qRows), bRows, qRows, nil
}

func rowsOf(m *vec.Matrix) int {
	if m == nil {
		return 0
	}
	return m.N
}

func pickRows(m *vec.Matrix, rows []int) *vec.Matrix {
	out := vec.NewMatrix(len(rows), m.Dim)
	for i, r := range rows {
		copy(out.Row(i), m.Row(r))
	}
	return out
}

// AttachMeta gives a data set read from files the metadata the filtered
// experiments need, drawn from the generator's weights with seed: year
// and region as for the generated set; the category from labels (label mod
// Categories) when labels are given, else uniformly at random. Unlike the
// generated set, whose categories follow its clusters, a real set without
// labels gets categories independent of its vectors; say so beside any
// filtered result.
func AttachMeta(ds *Dataset, labels []int32, seed uint64) error {
	if ds == nil || ds.Base == nil {
		return fmt.Errorf("dataset: AttachMeta: no data set: %w", engine.ErrInvalidArgument)
	}
	if labels != nil && len(labels) != ds.Base.N {
		return fmt.Errorf("dataset: AttachMeta: %d labels for %d rows: %w", len(labels), ds.Base.N, engine.ErrInvalidArgument)
	}
	rm := rand.New(rand.NewPCG(seed, streamMeta))
	ds.Meta = make([]Doc, ds.Base.N)
	for i := range ds.Meta {
		cl := rm.IntN(Categories)
		if labels != nil {
			cl = int(labels[i])
		}
		ds.Meta[i] = Doc{
			Cluster:  cl,
			Category: "c" + strconv.Itoa(((cl%Categories)+Categories)%Categories),
			Year:     FirstYear + pick(rm, yearWeights),
			Region:   Regions[pick(rm, regionWeights)],
		}
	}
	return nil
}
