// Package ingest reads the files people keep their own embeddings in —
// Parquet and ann-benchmarks' HDF5 — and turns them into the data set
// layout of [dataset.WriteLayout], so that any `-data` flag, `reproduce`
// and the notebooks run on them.
//
// # Parquet
//
// [ReadParquet] reads one vector column, chosen by name, through
// github.com/parquet-go/parquet-go: a LIST (or legacy repeated) column of
// FLOAT or DOUBLE, as DuckDB writes FLOAT[] and FLOAT[n], Arrow writes
// list<float32> and fixed_size_list<float32, n>, and the published
// embedding sets (OpenAI, Cohere) store theirs. It streams one row group
// and one page at a time (Apache Parquet's format: a row of a repeated
// column starts at every value of repetition level 0, and a value whose
// definition level is below the column's maximum is a null or an empty
// list; https://parquet.apache.org/docs/file-format/nestedencoding/). An
// id column and a text column, also chosen by name, are kept beside the
// vectors. Every malformed input is an error wrapping engine.ErrCorrupt
// (engine.ErrEmpty for no rows, engine.ErrDimension for ragged rows,
// engine.ErrInvalidArgument for a column of the wrong type) that names the
// file, the column, the row group and the row.
//
// parquet-go was chosen over apache/arrow-go's parquet package: it is pure
// Go with a purego build for js/wasm, its page-level reader exposes the
// repetition and definition levels the checks above need without going
// through Arrow arrays, and it adds six small modules to go.mod where
// arrow-go adds Arrow, Thrift, FlatBuffers and their own dependencies.
//
// # HDF5
//
// ann-benchmarks stores a set as one HDF5 file with the datasets train
// (base), test (queries), neighbors (int, nearest first) and distances,
// and the file attribute distance ("angular", "euclidean", "dot"); see
// ann_benchmarks/datasets.py in github.com/erikbern/ann-benchmarks.
// [ReadHDF5] reads it with h5py over Debian's libhdf5 (python3-h5py, run
// as /usr/bin/python3), streaming rows as little-endian float32 to this
// process, which checks shapes, NaN and Inf as for every other format. No
// Go reader of HDF5 is served by the module proxy this project builds
// from (gonum.org/v1/hdf5, the cgo binding, and the pure-Go readers are
// refused), and a hand-written cgo binding would make every build of the
// veclab command need a C compiler and libhdf5-dev, and the js/wasm build
// a stub; one Debian package at import time costs less.
//
// # Import
//
// [Import] reads either format and returns a [dataset.Layout]: the
// queries are another file of the same format, or held out of the base
// with a seeded permutation ([dataset.HoldOut]); the exact top-100 is
// computed (all cores) and stored, and an HDF5 file's own neighbours are
// kept as groundtruth.ivecs after being checked against ours on a sample
// of queries.
//
// # Sentence sets
//
// [FortunesLayout] makes the sentence sets of `veclab data get fortunes`
// and `fortunes-use` from Debian's fortune files, embedded offline by an
// [Encoder] of the npm tree [SentencesTree], a Node script fed one JSON
// text a line: [GloVeMean] (wink-nlp's averaged GloVe 6B 100-d vectors)
// or [USELite] (Google's Universal Sentence Encoder lite, a Transformer
// encoder, 512-d; Cer et al. 2018, arXiv:1803.11175). Both sets drop the
// same texts (those GloVe knows no word of), so they share texts, ids and
// held-out queries and differ only in their vectors.
//
// # Invariants
//
// The same texts give the same bytes: USE lite's vector of a text
// depends on its batch in the last bits, so [Encoder.ByLength] fixes the
// batches as a function of the texts (shortest first, ties in input
// order), and the tfjs CPU backend is deterministic for a batch.
package ingest
