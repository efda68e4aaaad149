package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"io"
	"math"
	"path/filepath"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/flat"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

// GroundTruth is the exact top-K of every query: IDs[q] and Dists[q] hold
// query q's neighbours nearest first (ties by id), as engine/flat returns
// them.
type GroundTruth struct {
	K      int
	Metric engine.Metric
	IDs    [][]engine.ID
	Dists  [][]float32
}

// At returns the first k ids of query q's truth (all of them if k > K).
func (t *GroundTruth) At(q, k int) []engine.ID {
	ids := t.IDs[q]
	return ids[:min(k, len(ids))]
}

// Truth returns the exact top-k neighbours of every query of ds under
// metric, computed by engine/flat on all cores. With a non-empty cacheDir
// the result is read from, or written to, a file there whose header holds
// a hash of the data set's config and vectors, k and the metric; a file
// whose header does not match (another data set, a stale generator, a
// torn write) is recomputed and replaced, never used.
func Truth(ds *Dataset, k int, metric engine.Metric, cacheDir string) (*GroundTruth, error) {
	if ds == nil || ds.Base == nil || ds.Queries == nil {
		return nil, fmt.Errorf("dataset: truth: data set has no vectors: %w", engine.ErrInvalidArgument)
	}
	if err := engine.CheckK(k); err != nil {
		return nil, fmt.Errorf("dataset: truth: %w", err)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("dataset: truth: metric %v: %w", metric, engine.ErrInvalidArgument)
	}
	var path string
	var key uint64
	if cacheDir != "" {
		key = ds.Hash()
		path = filepath.Join(cacheDir, truthCacheName(key, k, metric))
		if t, err := readTruthFile(path, key, k, metric, ds.Queries.N); err == nil {
			return t, nil
		}
	}
	t, err := ComputeTruth(ds.Base, ds.Queries, k, metric, nil)
	if err != nil {
		return nil, err
	}
	if path != "" {
		if err := dataFS.MkdirAll(cacheDir); err != nil {
			return nil, fmt.Errorf("dataset: truth cache: %w", err)
		}
		if err := writeFile(path, func(w io.Writer) error { return writeTruth(w, t, key) }); err != nil {
			return nil, fmt.Errorf("dataset: truth cache: %w", err)
		}
	}
	return t, nil
}

// truthCacheName is the file name of a truth cache entry.
func truthCacheName(key uint64, k int, metric engine.Metric) string {
	return fmt.Sprintf("truth-%016x-k%d-%s.bin", key, k, metric)
}

// ComputeTruth is exact search of every query row over base, on all cores,
// restricted to allow when it is not nil (the filtered truth of the
// articles is computed over the matching documents only).
func ComputeTruth(base, queries *vec.Matrix, k int, metric engine.Metric, allow engine.Filter) (*GroundTruth, error) {
	x, err := flat.New(base, flat.Config{Metric: metric, Workers: flat.AllCores()})
	if err != nil {
		return nil, fmt.Errorf("dataset: truth: %w", err)
	}
	res, err := x.SearchBatch(queries, k, allow)
	if err != nil {
		return nil, fmt.Errorf("dataset: truth: %w", err)
	}
	return truthOf(k, metric, res), nil
}

// truthOf copies exact search results into a GroundTruth.
func truthOf(k int, metric engine.Metric, res [][]engine.Result) *GroundTruth {
	t := &GroundTruth{K: k, Metric: metric, IDs: make([][]engine.ID, len(res)), Dists: make([][]float32, len(res))}
	for q, rs := range res {
		t.IDs[q] = make([]engine.ID, len(rs))
		t.Dists[q] = make([]float32, len(rs))
		for i, r := range rs {
			t.IDs[q][i], t.Dists[q][i] = r.ID, r.Dist
		}
	}
	return t
}

var crc64Table = crc64.MakeTable(crc64.ECMA)

// Hash identifies the data set's content: the generator version, the
// config and every base and query component. Equal hashes mean the cached
// truth applies.
func (ds *Dataset) Hash() uint64 {
	h := crc64.New(crc64Table)
	fmt.Fprintf(h, "veclab dataset v%d %s\n", generatorVersion, ds.Config)
	for _, m := range []*vec.Matrix{ds.Base, ds.Queries} {
		fmt.Fprintf(h, "%d×%d\n", m.N, m.Dim)
		buf := make([]byte, 4*m.Dim)
		for i := 0; i < m.N; i++ {
			for j, x := range m.Row(i) {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
			}
			h.Write(buf)
		}
	}
	return h.Sum64()
}

// Truth cache file, all little-endian:
//
//	magic   [8]byte  "VLTRUTH\x00"
//	version uint32   truthVersion
//	key     uint64   Dataset.Hash
//	metric  uint32
//	k       uint32
//	queries uint32
//	per query: n uint32, n × (id uint32, dist float32)
//	crc     uint32   CRC-32C of everything before it
//
// Part of the file format; never change these constants.
const (
	truthMagic   = "VLTRUTH\x00"
	truthVersion = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func writeTruth(w io.Writer, t *GroundTruth, key uint64) error {
	var b []byte
	b = append(b, truthMagic...)
	b = binary.LittleEndian.AppendUint32(b, truthVersion)
	b = binary.LittleEndian.AppendUint64(b, key)
	b = binary.LittleEndian.AppendUint32(b, uint32(t.Metric))
	b = binary.LittleEndian.AppendUint32(b, uint32(t.K))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(t.IDs)))
	for q, ids := range t.IDs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(ids)))
		for i, id := range ids {
			b = binary.LittleEndian.AppendUint32(b, uint32(id))
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(t.Dists[q][i]))
		}
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	_, err := w.Write(b)
	return err
}

var errStale = errors.New("truth cache: stale")

// readTruthFile returns the cached truth if the file exists and its header
// and checksum match; any mismatch is an error (the caller recomputes).
func readTruthFile(path string, key uint64, k int, metric engine.Metric, queries int) (*GroundTruth, error) {
	b, err := vfs.ReadFile(dataFS, path)
	if err != nil {
		return nil, err
	}
	return decodeTruth(b, key, k, metric, queries)
}

func decodeTruth(b []byte, key uint64, k int, metric engine.Metric, queries int) (*GroundTruth, error) {
	const hdr = 8 + 4 + 8 + 4 + 4 + 4
	if len(b) < hdr+4 || !bytes.Equal(b[:8], []byte(truthMagic)) {
		return nil, fmt.Errorf("dataset: bad magic or short file: %w", engine.ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != truthVersion {
		return nil, fmt.Errorf("dataset: truth cache version %d: %w", v, engine.ErrVersion)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("dataset: checksum mismatch: %w", engine.ErrCorrupt)
	}
	if binary.LittleEndian.Uint64(b[12:]) != key ||
		engine.Metric(binary.LittleEndian.Uint32(b[20:])) != metric ||
		int(binary.LittleEndian.Uint32(b[24:])) != k ||
		int(binary.LittleEndian.Uint32(b[28:])) != queries {
		return nil, errStale
	}
	t := &GroundTruth{K: k, Metric: metric, IDs: make([][]engine.ID, queries), Dists: make([][]float32, queries)}
	p := body[hdr:]
	for q := 0; q < queries; q++ {
		if len(p) < 4 {
			return nil, fmt.Errorf("dataset: truncated at query %d: %w", q, engine.ErrCorrupt)
		}
		n := int(binary.LittleEndian.Uint32(p))
		p = p[4:]
		if n > k || len(p) < 8*n {
			return nil, fmt.Errorf("dataset: query %d: %d neighbours: %w", q, n, engine.ErrCorrupt)
		}
		t.IDs[q] = make([]engine.ID, n)
		t.Dists[q] = make([]float32, n)
		for i := 0; i < n; i++ {
			t.IDs[q][i] = engine.ID(binary.LittleEndian.Uint32(p[8*i:]))
			t.Dists[q][i] = math.Float32frombits(binary.LittleEndian.Uint32(p[8*i+4:]))
		}
		p = p[8*n:]
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("dataset: %d trailing bytes: %w", len(p), engine.ErrCorrupt)
	}
	return t, nil
}
