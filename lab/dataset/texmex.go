package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// MaxTexmexDim bounds the dimension header of a .fvecs/.ivecs record; a
// larger value is taken as a corrupt (or non-TEXMEX) file rather than a
// reason to allocate gigabytes.
const MaxTexmexDim = 1 << 20

// A TEXMEX file (http://corpus-texmex.irisa.fr/) is a sequence of records,
// all little-endian:
//
//	+-----------+------------------------------+
//	| dim int32 | dim × float32 (int32, uint8) |  record 0
//	+-----------+------------------------------+
//	| dim int32 | …                             |  record 1 …
//
// Every record of one file has the same dim. .fvecs holds float32
// components, .ivecs int32 and .bvecs uint8 (SIFT1B's bytes); the
// dimension header is an int32 in all three.

// ReadFvecs reads a whole .fvecs stream into a matrix. Errors wrap
// engine.ErrCorrupt and name the record and byte offset: a dimension header
// ≤ 0 or > MaxTexmexDim, a truncated record, a record whose dim differs
// from the first, a NaN or Inf component. An empty stream wraps
// engine.ErrEmpty.
func ReadFvecs(r io.Reader) (*vec.Matrix, error) {
	var m *vec.Matrix
	err := readTexmex(r, 4, func(rec int, off int64, dim int, body []byte) error {
		if m == nil {
			m = &vec.Matrix{Dim: dim, Stride: dim}
		}
		for j := 0; j < dim; j++ {
			x := math.Float32frombits(binary.LittleEndian.Uint32(body[4*j:]))
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("record %d at offset %d: component %d is %v: %w", rec, off, j, x, engine.ErrCorrupt)
			}
			m.Data = append(m.Data, x)
		}
		m.N++
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dataset: fvecs: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("dataset: fvecs: no records: %w", engine.ErrEmpty)
	}
	return m, nil
}

// ReadIvecs reads a whole .ivecs stream (e.g. ground-truth neighbour ids),
// one []int32 per record, with the same errors as ReadFvecs.
func ReadIvecs(r io.Reader) ([][]int32, error) {
	var rows [][]int32
	err := readTexmex(r, 4, func(rec int, off int64, dim int, body []byte) error {
		row := make([]int32, dim)
		for j := range row {
			row[j] = int32(binary.LittleEndian.Uint32(body[4*j:]))
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dataset: ivecs: %w", err)
	}
	if rows == nil {
		return nil, fmt.Errorf("dataset: ivecs: no records: %w", engine.ErrEmpty)
	}
	return rows, nil
}

// ReadBvecs reads a whole .bvecs stream (uint8 components, as SIFT1B's
// base set) into a float32 matrix, with the same errors as ReadFvecs
// (a byte cannot be NaN).
func ReadBvecs(r io.Reader) (*vec.Matrix, error) {
	var m *vec.Matrix
	err := readTexmex(r, 1, func(rec int, off int64, dim int, body []byte) error {
		if m == nil {
			m = &vec.Matrix{Dim: dim, Stride: dim}
		}
		for _, b := range body {
			m.Data = append(m.Data, float32(b))
		}
		m.N++
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dataset: bvecs: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("dataset: bvecs: no records: %w", engine.ErrEmpty)
	}
	return m, nil
}

// WriteBvecs writes m as .bvecs records. Every component must be an
// integer in 0…255; the first that is not is an error naming its row and
// column, and nothing is written past the row before it.
func WriteBvecs(w io.Writer, m *vec.Matrix) error {
	if m == nil || m.Dim <= 0 {
		return fmt.Errorf("dataset: bvecs: nil or zero-dimension matrix: %w", engine.ErrInvalidArgument)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 4+m.Dim)
	binary.LittleEndian.PutUint32(buf, uint32(m.Dim))
	for i := 0; i < m.N; i++ {
		for j, x := range m.Row(i) {
			if !(x >= 0 && x <= 255) || x != float32(math.Trunc(float64(x))) {
				if err := bw.Flush(); err != nil {
					return err
				}
				return fmt.Errorf("dataset: bvecs: row %d component %d is %v, not a byte: %w", i, j, x, engine.ErrInvalidArgument)
			}
			buf[4+j] = byte(x)
		}
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("dataset: bvecs: record %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// readTexmex frames records of elem-byte components and checks headers,
// lengths and dim consistency.
func readTexmex(r io.Reader, elem int, fn func(rec int, off int64, dim int, body []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	var hdr [4]byte
	var body []byte
	var off int64
	first := -1
	for rec := 0; ; rec++ {
		n, err := io.ReadFull(br, hdr[:])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("record %d at offset %d: truncated dimension header (%d of 4 bytes): %w", rec, off, n, engine.ErrCorrupt)
			}
			return fmt.Errorf("record %d at offset %d: %w", rec, off, err)
		}
		dim := int(int32(binary.LittleEndian.Uint32(hdr[:])))
		if dim <= 0 || dim > MaxTexmexDim {
			return fmt.Errorf("record %d at offset %d: bad dimension header %d (want 1…%d): %w", rec, off, dim, MaxTexmexDim, engine.ErrCorrupt)
		}
		if first < 0 {
			first = dim
		} else if dim != first {
			return fmt.Errorf("record %d at offset %d: dimension %d, earlier records have %d: %w", rec, off, dim, first, engine.ErrCorrupt)
		}
		if cap(body) < elem*dim {
			body = make([]byte, elem*dim)
		}
		body = body[:elem*dim]
		n, err = io.ReadFull(br, body)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
				return fmt.Errorf("record %d at offset %d: truncated: %d of %d body bytes: %w", rec, off, n, elem*dim, engine.ErrCorrupt)
			}
			return fmt.Errorf("record %d at offset %d: %w", rec, off, err)
		}
		if err := fn(rec, off, dim, body); err != nil {
			return err
		}
		off += 4 + int64(elem)*int64(dim)
	}
}

// WriteFvecs writes m as .fvecs records.
func WriteFvecs(w io.Writer, m *vec.Matrix) error {
	if m == nil || m.Dim <= 0 {
		return fmt.Errorf("dataset: fvecs: nil or zero-dimension matrix: %w", engine.ErrInvalidArgument)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 4+4*m.Dim)
	binary.LittleEndian.PutUint32(buf, uint32(m.Dim))
	for i := 0; i < m.N; i++ {
		for j, x := range m.Row(i) {
			binary.LittleEndian.PutUint32(buf[4+4*j:], math.Float32bits(x))
		}
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("dataset: fvecs: record %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// WriteIvecs writes rows as .ivecs records; every row must have the same
// non-zero length.
func WriteIvecs(w io.Writer, rows [][]int32) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	for i, row := range rows {
		if len(row) == 0 || len(row) != len(rows[0]) {
			return fmt.Errorf("dataset: ivecs: row %d has %d values, row 0 has %d: %w", i, len(row), len(rows[0]), engine.ErrInvalidArgument)
		}
		buf = binary.LittleEndian.AppendUint32(buf[:0], uint32(len(row)))
		for _, x := range row {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(x))
		}
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("dataset: ivecs: record %d: %w", i, err)
		}
	}
	return bw.Flush()
}

// LoadFvecs reads a .fvecs file; errors name the file.
func LoadFvecs(path string) (*vec.Matrix, error) {
	f, err := dataFS.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := ReadFvecs(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// LoadIvecs reads a .ivecs file; errors name the file.
func LoadIvecs(path string) ([][]int32, error) {
	return loadIvecs(files{dir: filepath.Dir(path)}, filepath.Base(path))
}

// Files are the paths WriteDir wrote.
type Files struct {
	Base, Queries, Truth string
}

// WriteDir writes the data set as TEXMEX files into dir (created if
// missing): base.fvecs, query.fvecs and, when truth is not nil,
// groundtruth.ivecs holding truth's neighbour ids. This is the hand-off to
// peer harnesses such as bench/peers/hnswlib.
func WriteDir(dir string, ds *Dataset, truth *GroundTruth) (Files, error) {
	if ds == nil || ds.Base == nil || ds.Queries == nil {
		return Files{}, fmt.Errorf("WriteDir: data set has no vectors: %w", engine.ErrInvalidArgument)
	}
	if err := dataFS.MkdirAll(dir); err != nil {
		return Files{}, err
	}
	fs := Files{Base: filepath.Join(dir, "base.fvecs"), Queries: filepath.Join(dir, "query.fvecs")}
	if err := writeFile(fs.Base, func(w io.Writer) error { return WriteFvecs(w, ds.Base) }); err != nil {
		return Files{}, err
	}
	if err := writeFile(fs.Queries, func(w io.Writer) error { return WriteFvecs(w, ds.Queries) }); err != nil {
		return Files{}, err
	}
	if truth != nil {
		fs.Truth = filepath.Join(dir, "groundtruth.ivecs")
		rows := make([][]int32, len(truth.IDs))
		for i, ids := range truth.IDs {
			rows[i] = make([]int32, len(ids))
			for j, id := range ids {
				rows[i][j] = int32(id)
			}
		}
		if err := writeFile(fs.Truth, func(w io.Writer) error { return WriteIvecs(w, rows) }); err != nil {
			return Files{}, err
		}
	}
	return fs, nil
}

// writeFile writes path on dataFS through a temporary file renamed into
// place.
func writeFile(path string, fill func(io.Writer) error) error {
	name := tempName(path + ".tmp")
	tmp, err := dataFS.Create(name)
	if err != nil {
		return err
	}
	defer dataFS.Remove(name)
	bw := bufio.NewWriterSize(tmp, 1<<16)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return dataFS.Rename(name, path)
}

// Load reads base.fvecs and query.fvecs (as WriteDir writes them) from dir
// into a Dataset without metadata; Config records the sizes only.
func Load(dir string) (*Dataset, error) {
	base, err := LoadFvecs(filepath.Join(dir, "base.fvecs"))
	if err != nil {
		return nil, err
	}
	q, err := LoadFvecs(filepath.Join(dir, "query.fvecs"))
	if err != nil {
		return nil, err
	}
	if q.Dim != base.Dim {
		return nil, fmt.Errorf("%s: queries have %d dims, base has %d: %w", dir, q.Dim, base.Dim, engine.ErrDimension)
	}
	return &Dataset{Config: Config{N: base.N, Queries: q.N, Dim: base.Dim}, Base: base, Queries: q}, nil
}
