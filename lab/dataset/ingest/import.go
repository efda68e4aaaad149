package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/dataset"
)

// Format is a file format Import reads.
type Format string

const (
	Parquet Format = "parquet"
	HDF5    Format = "hdf5"
)

// The formats' magic numbers: Parquet files start and end with "PAR1"
// (https://parquet.apache.org/docs/file-format/); an HDF5 file's
// superblock signature is 8 bytes at offset 0 (or 512, 1024, … when a user
// block precedes it; HDF5 File Format Specification, section II.A).
var (
	parquetMagic = []byte("PAR1")
	hdf5Magic    = []byte("\x89HDF\r\n\x1a\n")
)

// Sniff names the format of the file at path from its first bytes, else
// from its extension.
func Sniff(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("ingest: %w", err)
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, parquetMagic):
		return Parquet, nil
	case bytes.HasPrefix(head, hdf5Magic):
		return HDF5, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return Parquet, nil
	case ".hdf5", ".h5", ".he5":
		return HDF5, nil
	}
	return "", fmt.Errorf("ingest: %s: neither Parquet (PAR1) nor HDF5 by its first bytes or its extension: %w", path, engine.ErrInvalidArgument)
}

// Options configure [Import].
type Options struct {
	// Column, IDColumn and TextColumn choose a Parquet file's columns
	// ([ParquetOptions]); for HDF5, Column names the base dataset
	// (default train).
	Column, IDColumn, TextColumn string
	// QueryFile is a second file of the same format whose rows are the
	// queries. Without it, the file's own queries (HDF5's test) are used,
	// else Queries rows are held out of the base with Seed.
	QueryFile string
	// Queries is how many queries to keep: the first Queries of the
	// file's own, or how many to hold out (0: 1,000, or a tenth of the
	// rows when that is less).
	Queries int
	// Seed is the hold-out's seed.
	Seed uint64
	// Name is the set's name in its manifest.
	Name string
	// Metric overrides the metric: "" takes HDF5's distance attribute, and
	// cosine for Parquet (embedding models are compared by cosine).
	Metric string
	// Sample is how many queries the file's own neighbours are checked on
	// against exact search (0: 100).
	Sample int
	// Python is the interpreter with h5py ("": DefaultPython).
	Python string
	// Progress, when not nil, reports rows read.
	Progress func(done, total int64)
}

// TruthK is how many exact neighbours Import computes and stores.
const TruthK = 100

// Report says what Import did.
type Report struct {
	Format        Format
	Source        string // the file, its SHA-256 and what was read from it
	Base, Queries int
	Dim           int
	Metric        engine.Metric
	HeldOut       bool // the queries were held out of the base rows
	// GivenK and GivenAgree are, for a file with its own neighbours, the
	// depth compared and the mean fraction of the file's first GivenK
	// neighbours found in the exact top GivenK, over Sampled queries.
	GivenK, Sampled int
	GivenAgree      float64
}

// minGivenAgree is the agreement below which a file's own neighbours are
// refused: near ties can swap a neighbour or two, a wrong metric or a
// base in another order changes most of them.
const minGivenAgree = 0.95

// Import reads a Parquet or ann-benchmarks HDF5 file into a data set
// layout: vectors, queries, the exact top-100 (computed on all cores), the
// file's own neighbours when it has them (checked), ids and texts.
func Import(ctx context.Context, path string, opt Options) (dataset.Layout, Report, error) {
	var l dataset.Layout
	format, err := Sniff(path)
	if err != nil {
		return l, Report{}, err
	}
	rep := Report{Format: format}
	sum, err := fileSHA256(path)
	if err != nil {
		return l, rep, err
	}
	var base, queries *vec.Matrix
	var ids, texts, qids, qtexts []string
	var given [][]int32
	metric := engine.Cosine
	switch format {
	case Parquet:
		t, err := readParquetPath(path, opt)
		if err != nil {
			return l, rep, err
		}
		base, ids, texts = t.Vectors, t.IDs, t.Texts
		rep.Source = fmt.Sprintf("%s (Parquet, SHA-256 %s), column %q", filepath.Base(path), sum, t.Column)
		if opt.QueryFile != "" {
			if f, err := Sniff(opt.QueryFile); err != nil || f != Parquet {
				return l, rep, fmt.Errorf("ingest: %s: the queries must be Parquet too: %w", opt.QueryFile, engine.ErrInvalidArgument)
			}
			q, err := readParquetPath(opt.QueryFile, Options{Column: t.Column, IDColumn: orNone(t.IDColumn), TextColumn: orNone(t.TextColumn)})
			if err != nil {
				return l, rep, err
			}
			queries, qids, qtexts = q.Vectors, q.IDs, q.Texts
			if (qids == nil) != (ids == nil) || (qtexts == nil) != (texts == nil) {
				return l, rep, fmt.Errorf("ingest: %s and %s differ in their id or text columns: %w", path, opt.QueryFile, engine.ErrInvalidArgument)
			}
			rep.Source += fmt.Sprintf("; queries from %s", filepath.Base(opt.QueryFile))
		}
	case HDF5:
		a, err := ReadHDF5(ctx, path, HDF5Options{Base: opt.Column, Python: opt.Python, Progress: opt.Progress})
		if err != nil {
			return l, rep, err
		}
		base, queries, given = a.Base, a.Queries, a.Neighbors
		if a.Distance != "" {
			if metric, err = MetricOf(a.Distance); err != nil {
				return l, rep, fmt.Errorf("%s: %w", path, err)
			}
		} else {
			metric = engine.L2
		}
		rep.Source = fmt.Sprintf("%s (ann-benchmarks HDF5, SHA-256 %s), datasets %s, distance %q", filepath.Base(path), sum, strings.Join(a.Names, ", "), a.Distance)
		if opt.QueryFile != "" {
			return l, rep, fmt.Errorf("ingest: %s: an HDF5 file carries its queries (test); -queries FILE is for Parquet: %w", opt.QueryFile, engine.ErrInvalidArgument)
		}
	}
	if opt.Metric != "" {
		if metric, err = engine.ParseMetric(opt.Metric); err != nil {
			return l, rep, err
		}
	}
	rep.Metric = metric
	if queries != nil {
		if queries.Dim != base.Dim {
			return l, rep, fmt.Errorf("ingest: %s has %d dimensions, %s %d: %w", opt.QueryFile, queries.Dim, path, base.Dim, engine.ErrDimension)
		}
		if n := opt.Queries; n > 0 && n < queries.N {
			queries = &vec.Matrix{N: n, Dim: queries.Dim, Stride: queries.Stride, Data: queries.Data[:n*queries.Stride]}
			if given != nil {
				given = given[:n]
			}
			if qids != nil {
				qids, qtexts = qids[:n], cut(qtexts, n)
			}
		}
	} else {
		n := opt.Queries
		if n <= 0 {
			n = min(1000, base.N/10)
		}
		if n < 1 || n >= base.N {
			return l, rep, fmt.Errorf("ingest: %s: %d rows: too few to hold %d queries out: %w", path, base.N, n, engine.ErrInvalidArgument)
		}
		b, q, bRows, qRows, err := dataset.HoldOut(base, n, 0, opt.Seed)
		if err != nil {
			return l, rep, err
		}
		pick := func(s []string, rows []int) []string {
			if s == nil {
				return nil
			}
			out := make([]string, len(rows))
			for i, r := range rows {
				out[i] = s[r]
			}
			return out
		}
		ids, qids = pick(ids, bRows), pick(ids, qRows)
		texts, qtexts = pick(texts, bRows), pick(texts, qRows)
		base, queries = b, q
		rep.HeldOut = true
	}
	rep.Base, rep.Queries, rep.Dim = base.N, queries.N, base.Dim
	// Exact search over the vectors as dataset.Open returns them (unit
	// length under cosine), as `veclab data get` does.
	nb, nq := base, queries
	if metric == engine.Cosine {
		if nb, err = unit(base, path); err != nil {
			return l, rep, err
		}
		if nq, err = unit(queries, path+" (queries)"); err != nil {
			return l, rep, err
		}
	}
	truth, err := dataset.ComputeTruth(nb, nq, min(TruthK, base.N), metric, nil)
	if err != nil {
		return l, rep, err
	}
	if given != nil {
		rep.GivenK = min(10, len(given[0]), truth.K)
		rep.Sampled = min(queries.N, max(opt.Sample, 0))
		if opt.Sample == 0 {
			rep.Sampled = min(queries.N, 100)
		}
		rep.GivenAgree = agreement(given, truth, rep.GivenK, rep.Sampled)
		if rep.GivenAgree < minGivenAgree {
			return l, rep, fmt.Errorf("ingest: %s: the file's neighbours agree with exact %s search on %.3f of the first %d over %d queries (want ≥ %.2f): the metric (-metric) or the file is wrong: %w",
				path, metric, rep.GivenAgree, rep.GivenK, rep.Sampled, minGivenAgree, engine.ErrCorrupt)
		}
	}
	l = dataset.Layout{Base: base, Queries: queries, Truth: truth, Given: given,
		Manifest: dataset.Manifest{Name: opt.Name, Metric: metric.String(), Source: "imported by veclab data import from " + rep.Source, Seed: opt.Seed}}
	if ids != nil {
		l.IDs = oneLine(append(ids, qids...))
	}
	if texts != nil {
		l.Words = oneLine(append(texts, qtexts...))
	}
	switch {
	case rep.HeldOut:
		l.Manifest.Notes = fmt.Sprintf("%d queries held out of %d rows with seed %d (lab/dataset.HoldOut)", queries.N, base.N+queries.N, opt.Seed)
	case opt.QueryFile != "":
		l.Manifest.Notes = "queries from a second file"
	default:
		l.Manifest.Notes = "the file's own queries"
	}
	if given != nil {
		l.Manifest.Notes += fmt.Sprintf("; groundtruth.ivecs is the file's own neighbours, which agree with exact search on %.3f of the first %d over %d queries", rep.GivenAgree, rep.GivenK, rep.Sampled)
	}
	if texts != nil {
		l.Manifest.Notes += "; words.txt holds each row's text (line breaks as spaces), base rows then queries"
	}
	if ids != nil {
		l.Manifest.Notes += "; ids.txt holds each row's id, base rows then queries"
	}
	return l, rep, nil
}

func orNone(col string) string {
	if col == "" {
		return "-"
	}
	return col
}

func cut(s []string, n int) []string {
	if s == nil {
		return nil
	}
	return s[:n]
}

func readParquetPath(path string, opt Options) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return ReadParquet(f, st.Size(), path, ParquetOptions{Column: opt.Column, IDColumn: opt.IDColumn, TextColumn: opt.TextColumn, Progress: opt.Progress})
}

// unit returns a copy of m with unit rows, naming a zero row.
func unit(m *vec.Matrix, name string) (*vec.Matrix, error) {
	out := vec.NewMatrix(m.N, m.Dim)
	for i := 0; i < m.N; i++ {
		copy(out.Row(i), m.Row(i))
		if err := vec.Normalize(out.Row(i)); err != nil {
			return nil, fmt.Errorf("ingest: %s: row %d: a zero vector has no direction under cosine: %w", name, i, err)
		}
	}
	return out, nil
}

// agreement is the mean fraction of given[q][:k] found in the exact top k,
// over the first n queries.
func agreement(given [][]int32, t *dataset.GroundTruth, k, n int) float64 {
	if n == 0 || k == 0 {
		return 1
	}
	var sum float64
	for q := 0; q < n; q++ {
		exact := map[engine.ID]bool{}
		for _, id := range t.At(q, k) {
			exact[id] = true
		}
		hit := 0
		for _, id := range given[q][:min(k, len(given[q]))] {
			if exact[engine.ID(id)] {
				hit++
			}
		}
		sum += float64(hit) / float64(k)
	}
	return sum / float64(n)
}

// oneLine replaces line breaks and tabs by spaces, so every text is one
// line of words.txt.
func oneLine(s []string) []string {
	r := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")
	for i := range s {
		s[i] = r.Replace(s[i])
	}
	return s
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("ingest: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("ingest: %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func init() { dataset.RegisterImporter(ImportOnce) }

// ImportOnce is the importer [dataset.Resolve] calls for a Parquet or HDF5
// file given where a data set is expected (-data FILE,
// Env.UseData(FILE, "")): it imports the file with the default [Options]
// into root (DataRoot when "") as NAME-SHA, the file's name and the first
// 12 hex digits of its SHA-256, and returns that directory; a file already
// imported is not read again.
func ImportOnce(path, root string) (string, error) {
	if root == "" {
		var err error
		if root, err = dataset.DataRoot(); err != nil {
			return "", err
		}
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return "", err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + "-" + sum[:12]
	dir := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(dir, dataset.ManifestFile)); err == nil {
		return dir, dataset.VerifyDir(dir)
	}
	l, _, err := Import(context.Background(), path, Options{Name: name})
	if err != nil {
		return "", err
	}
	if err := dataset.WriteLayout(dir, l); err != nil {
		return "", err
	}
	return dir, nil
}
