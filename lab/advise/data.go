package advise

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
	"github.com/veclab/veclab/lab/dataset/ingest"
)

// LoadOptions say how [Load] reads a file and what it checks.
type LoadOptions struct {
	// K is the k of recall@k: the base must hold at least K rows (and,
	// with a filter, at least K matching rows).
	K int
	// Queries is how many queries to use: the first Queries of the file's
	// own (an HDF5 file's test, a directory's query file), or how many
	// rows to hold out of the base with Seed (0: 1,000, or a tenth of the
	// rows when that is less).
	Queries int
	// HoldOut holds the queries out of the base even when the file has
	// its own.
	HoldOut bool
	Seed    uint64
	// Metric overrides the file's metric ("" keeps it: an HDF5 file's
	// distance attribute, a directory's manifest, cosine otherwise).
	Metric string
	// Column is a Parquet file's vector column or an HDF5 file's base
	// dataset ("" takes the reader's default).
	Column string
	// Filter is "column=value": the base rows whose metadata column holds
	// value (a Parquet column, or a directory's base-labels.ivecs as
	// "label"). Selectivity is the other way to filter: a seeded subset of
	// that fraction of the base rows. At most one of the two.
	Filter      string
	Selectivity float64
	// Progress, when not nil, reports rows read.
	Progress func(done, total int64)
}

// Data is a user's vector set, checked, ready for [Run].
type Data struct {
	Name   string // the file's or directory's name
	Path   string
	Source string // what was read, in words
	Metric engine.Metric
	// Base and Queries hold the file's values (not normalised).
	Base, Queries *vec.Matrix
	// QuerySource says where the queries came from: the file's own, or
	// held out with a seed.
	QuerySource string
	// Match is the filter's allow-list over the base rows (nil without a
	// filter), FilterDesc says what it is in words.
	Match      *engine.Bitset
	FilterDesc string
}

// Selectivity is the fraction of base rows the filter matches (1 without
// a filter).
func (d *Data) Selectivity() float64 {
	if d.Match == nil || d.Base.N == 0 {
		return 1
	}
	return float64(d.Match.Count()) / float64(d.Base.N)
}

// Load reads a vector set for advice: a Parquet file, an ann-benchmarks
// HDF5 file, a .fvecs/.bvecs/.npy/IDX file (optionally .gz), or a data set
// directory (as `veclab data import` and `data get` write), or a data
// set's name as lab/dataset resolves it (glove-3k is compiled in, so it
// opens in a browser too). Every problem
// is one error naming the file, and the row or column: a NaN or infinite
// component, rows of different dimensions, a zero vector under cosine,
// fewer rows than K, a filter column the file lacks or a value no row
// holds.
func Load(ctx context.Context, path string, opt LoadOptions) (*Data, error) {
	fcol, fval, err := opt.filter()
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	var set *dataset.Real // a data set lab/dataset opened by name
	if err != nil {
		// Not a file of the OS: a data set's name or directory as
		// lab/dataset resolves it (the compiled-in glove-3k, a set `veclab
		// data get` fetched; in a browser, which has no OS files, one a
		// cell wrote into the tab's data directory).
		r, derr := dataset.OpenData(path, "")
		if derr != nil {
			return nil, &InputError{Msg: fmt.Sprintf("%s: no such file, directory or data set: give a Parquet, ann-benchmarks HDF5, .fvecs, .bvecs, .npy or IDX file, a data set directory, or a data set's name (veclab data list)", path), Err: err}
		}
		set = r
	}
	d := &Data{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Path: path, Metric: engine.Cosine}
	var base, queries *vec.Matrix
	var meta map[string][]string // per base row, by column
	var columns []string         // the metadata columns the file has, for messages
	metricGiven := false
	switch {
	case set != nil || st.IsDir():
		r := set
		if r == nil {
			if r, err = dataset.Open(path); err != nil {
				return nil, readErr(path, err)
			}
		}
		d.Name = filepath.Base(filepath.Clean(path))
		base, queries, d.Metric, metricGiven = r.Base, r.Queries, r.Metric, true
		where := "data set directory " + path
		if r.Dir == "" {
			where = "data set " + path + ", compiled in"
		}
		d.Source = fmt.Sprintf("%s (%s)", where, r.Manifest.Source)
		if r.Manifest.Source == "" {
			d.Source = where
		}
		if r.Labels != nil {
			columns = append(columns, "label")
			if fcol == "label" {
				meta = map[string][]string{"label": make([]string, len(r.Labels))}
				for i, l := range r.Labels {
					meta["label"][i] = strconv.Itoa(int(l))
				}
			}
		}
	default:
		switch ext := strings.ToLower(strings.TrimSuffix(filepath.Ext(strings.TrimSuffix(path, ".gz")), ".gz")); {
		case ext == ".fvecs" || ext == ".bvecs" || ext == ".npy" || ext == ".idx" || strings.HasSuffix(strings.TrimSuffix(path, ".gz"), "-ubyte"):
			if base, err = dataset.LoadMatrix(path); err != nil {
				return nil, readErr(path, err)
			}
			d.Source = fmt.Sprintf("%s (%s)", filepath.Base(path), strings.TrimPrefix(ext, "."))
		default:
			format, err := ingest.Sniff(path)
			if err != nil {
				return nil, bad(engine.ErrInvalidArgument, "%s: not a file advise reads: give a Parquet, ann-benchmarks HDF5, .fvecs, .bvecs, .npy or IDX file, or a data set directory", path)
			}
			switch format {
			case ingest.Parquet:
				f, err := os.Open(path)
				if err != nil {
					return nil, readErr(path, err)
				}
				base, meta, d.Source, err = readParquet(f, st.Size(), path, fcol, opt)
				f.Close()
				if err != nil {
					return nil, err
				}
				columns = append(columns, fcol)
			case ingest.HDF5:
				a, err := ingest.ReadHDF5(ctx, path, ingest.HDF5Options{Base: opt.Column, Progress: opt.Progress})
				if err != nil {
					return nil, readErr(path, err)
				}
				base, queries = a.Base, a.Queries
				d.Source = fmt.Sprintf("%s (ann-benchmarks HDF5), datasets %s", filepath.Base(path), strings.Join(a.Names, ", "))
				if a.Distance != "" {
					if d.Metric, err = ingest.MetricOf(a.Distance); err != nil {
						return nil, readErr(path, err)
					}
					metricGiven = true
				}
			}
		}
	}
	return finish(d, path, base, queries, meta, columns, metricGiven, fcol, fval, opt)
}

// filter checks the options that do not depend on the file and splits
// -filter into its column and value.
func (opt LoadOptions) filter() (fcol, fval string, err error) {
	if opt.K < 1 {
		return "", "", bad(engine.ErrInvalidArgument, "-k %d: give a k of at least 1 (recall@k of the k nearest rows)", opt.K)
	}
	if opt.Filter != "" && opt.Selectivity != 0 {
		return "", "", bad(engine.ErrInvalidArgument, "-filter %q and -selectivity %v: give one of the two", opt.Filter, opt.Selectivity)
	}
	if opt.Selectivity != 0 && !(opt.Selectivity > 0 && opt.Selectivity < 1) {
		return "", "", bad(engine.ErrInvalidArgument, "-selectivity %v: give a fraction of the rows between 0 and 1 (0.05 keeps 5 %%)", opt.Selectivity)
	}
	if opt.Filter != "" {
		var ok bool
		fcol, fval, ok = strings.Cut(opt.Filter, "=")
		fcol = strings.TrimSpace(fcol)
		if !ok || fcol == "" {
			return "", "", bad(engine.ErrInvalidArgument, "-filter %q: give column=value, a metadata column of the file and the value the filtered rows hold", opt.Filter)
		}
	}
	return fcol, fval, nil
}

// finish checks what was read (its metric, every row, the filter's
// column), holds the queries out when the file has none, and makes the
// filter's allow-list: the part of [Load] and [LoadReader] after the
// reading.
func finish(d *Data, path string, base, queries *vec.Matrix, meta map[string][]string, columns []string, metricGiven bool, fcol, fval string, opt LoadOptions) (*Data, error) {
	var err error
	if opt.Metric != "" {
		if d.Metric, err = engine.ParseMetric(opt.Metric); err != nil {
			return nil, bad(engine.ErrInvalidArgument, "-metric %q: give cosine, l2 or dot", opt.Metric)
		}
	} else if !metricGiven {
		d.Metric = engine.Cosine // embedding models are compared by cosine
	}
	if err := check(path, "", base, d.Metric); err != nil {
		return nil, err
	}
	if queries != nil {
		if queries.Dim != base.Dim {
			return nil, bad(engine.ErrDimension, "%s: the queries have %d dimensions, the base rows %d: give queries of the base's dimension, or -holdout to draw them from the base", path, queries.Dim, base.Dim)
		}
		if err := check(path, "query ", queries, d.Metric); err != nil {
			return nil, err
		}
	}
	// The filter's column, before anything is held out.
	if fcol != "" && meta[fcol] == nil {
		has := "it has no metadata column"
		if len(columns) > 0 && columns[0] != fcol {
			has = "its metadata columns: " + strings.Join(columns, ", ")
		}
		return nil, bad(engine.ErrNotFound, "%s: no column %q to filter on (%s): name one with -filter column=value, or filter a random subset with -selectivity", path, fcol, has)
	}
	// The queries: the file's own, or held out.
	n := opt.Queries
	if queries != nil && !opt.HoldOut {
		if n > 0 && n < queries.N {
			queries = &vec.Matrix{N: n, Dim: queries.Dim, Stride: queries.Stride, Data: queries.Data[:n*queries.Stride]}
		}
		d.QuerySource = fmt.Sprintf("the file's own %d queries", queries.N)
	} else {
		if n <= 0 {
			n = min(1000, base.N/10)
		}
		if n < 1 || n >= base.N {
			return nil, bad(engine.ErrInvalidArgument, "%s: %d rows: too few to hold %d queries out and keep a base: use a larger file or fewer -queries", path, base.N, max(n, 1))
		}
		b, q, bRows, _, err := dataset.HoldOut(base, n, 0, opt.Seed)
		if err != nil {
			return nil, readErr(path, err)
		}
		for c, vals := range meta {
			kept := make([]string, len(bRows))
			for i, r := range bRows {
				kept[i] = vals[r]
			}
			meta[c] = kept
		}
		d.QuerySource = fmt.Sprintf("%d rows held out of %d as queries with seed %d (not in the base)", n, base.N, opt.Seed)
		base, queries = b, q
	}
	if base.N < opt.K {
		return nil, bad(engine.ErrInvalidArgument, "%s: %d base rows, fewer than -k %d: use a smaller -k or a larger file", path, base.N, opt.K)
	}
	d.Base, d.Queries = base, queries
	switch {
	case fcol != "":
		d.Match = engine.NewBitset(base.N)
		for i, v := range meta[fcol] {
			if v == fval {
				d.Match.Set(engine.ID(i))
			}
		}
		if d.Match.Count() == 0 {
			return nil, bad(engine.ErrNotFound, "%s: no base row has %s = %q: give a value the column holds", path, fcol, fval)
		}
		d.FilterDesc = fmt.Sprintf("%s = %q", fcol, fval)
	case opt.Selectivity > 0:
		d.Match = engine.NewBitset(base.N)
		r := rand.New(rand.NewPCG(opt.Seed, streamSubset))
		for _, i := range r.Perm(base.N)[:max(1, int(math.Round(opt.Selectivity*float64(base.N))))] {
			d.Match.Set(engine.ID(i))
		}
		d.FilterDesc = fmt.Sprintf("a random %.3g %% of the rows (seed %d)", 100*opt.Selectivity, opt.Seed)
	}
	return d, nil
}

// LoadReader is [Load] of a file's bytes, for a caller without the file
// on disk (a file dropped on a browser page: js/wasm has no OS files):
// name is the file's name, whose extension says the format (.parquet, or
// Parquet's PAR1 magic; .fvecs, .bvecs, .npy, .idx or IDX's -ubyte,
// each optionally .gz), r its size bytes. An ann-benchmarks HDF5 file
// or a data set directory needs [Load]. The checks and messages are
// Load's, naming the file by name.
func LoadReader(ctx context.Context, name string, r io.ReaderAt, size int64, opt LoadOptions) (*Data, error) {
	fcol, fval, err := opt.filter()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := &Data{Name: strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)), Path: name, Metric: engine.Cosine}
	plain := strings.TrimSuffix(strings.ToLower(name), ".gz")
	ext := filepath.Ext(plain)
	var magic [4]byte
	r.ReadAt(magic[:], 0)
	var base *vec.Matrix
	var meta map[string][]string
	var columns []string
	switch {
	case ext == ".parquet" || string(magic[:]) == "PAR1":
		if base, meta, d.Source, err = readParquet(r, size, name, fcol, opt); err != nil {
			return nil, err
		}
		columns = append(columns, fcol)
	case ext == ".fvecs" || ext == ".bvecs" || ext == ".npy" || ext == ".idx" || strings.HasSuffix(plain, "-ubyte"):
		read := map[string]func(io.Reader) (*vec.Matrix, error){".fvecs": dataset.ReadFvecs, ".bvecs": dataset.ReadBvecs, ".npy": dataset.ReadNpy}[ext]
		if read == nil {
			read = dataset.ReadIDX
		}
		var in io.Reader = io.NewSectionReader(r, 0, size)
		if strings.HasSuffix(strings.ToLower(name), ".gz") {
			zr, err := gzip.NewReader(in)
			if err != nil {
				return nil, bad(engine.ErrCorrupt, "%s: not a gzip stream (%v): give the file as it was saved, or without .gz", name, err)
			}
			defer zr.Close()
			in = zr
		}
		if base, err = read(in); err != nil {
			return nil, readErr(name, err)
		}
		d.Source = fmt.Sprintf("%s (%s)", filepath.Base(name), strings.TrimPrefix(ext, "."))
		if ext != ".fvecs" && ext != ".bvecs" && ext != ".npy" {
			d.Source = fmt.Sprintf("%s (IDX)", filepath.Base(name))
		}
	default:
		return nil, bad(engine.ErrInvalidArgument, "%s: not a file advise reads here: give a Parquet, .fvecs, .bvecs, .npy or IDX file", name)
	}
	return finish(d, name, base, nil, meta, columns, false, fcol, fval, opt)
}

// readParquet reads a Parquet file's vector column (opt.Column, or the
// reader's choice) and, for a filter, its column fcol.
func readParquet(r io.ReaderAt, size int64, path, fcol string, opt LoadOptions) (*vec.Matrix, map[string][]string, string, error) {
	var cols []string
	if fcol != "" {
		cols = []string{fcol}
	}
	t, err := ingest.ReadParquet(r, size, path, ingest.ParquetOptions{Column: opt.Column, IDColumn: "-", TextColumn: "-", Columns: cols, Progress: opt.Progress})
	if err != nil && errors.Is(err, engine.ErrNotFound) {
		msg, is := inUserTerms(err, path)
		return nil, nil, "", bad(is, "%s: %s: name a column the file has: -filter column=value for the filter, -column for the vectors (or filter a random subset with -selectivity)", path, msg)
	}
	if err != nil {
		return nil, nil, "", readErr(path, err)
	}
	return t.Vectors, t.Columns, fmt.Sprintf("%s (Parquet), column %q", filepath.Base(path), t.Column), nil
}

// streamSubset is the random stream of -selectivity's subset.
const streamSubset = 0x5eed5e1ec7

// check names the first row with a NaN or infinite component, or (under
// cosine) of zero length; what is "" for base rows, "query " for queries.
func check(path, what string, m *vec.Matrix, metric engine.Metric) error {
	if m == nil || m.N == 0 {
		return bad(engine.ErrEmpty, "%s: no %srows: advise needs vectors to measure", path, what)
	}
	for i := 0; i < m.N; i++ {
		var norm float64
		for j, x := range m.Row(i) {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return bad(engine.ErrCorrupt, "%s: %srow %d, component %d is %v: fix or drop that row (every component finite)", path, what, i, j, x)
			}
			norm += float64(x) * float64(x)
		}
		if norm == 0 && metric == engine.Cosine {
			return bad(engine.ErrInvalidArgument, "%s: %srow %d is the zero vector, which has no direction under cosine: drop it, or compare by -metric l2", path, what, i)
		}
	}
	return nil
}
