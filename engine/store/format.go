package store

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

// Format constants: part of the file format; never change.
const (
	Magic      = "VLABVEC\x00"
	Version    = 1
	headerSize = 44
	pageSize   = 4096
	dataOffset = pageSize
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type header struct {
	dim      uint32
	count    uint64
	metric   engine.Metric
	rowBytes uint32
	dataOff  uint64
}

func (h header) encode() []byte {
	b := make([]byte, pageSize)
	copy(b, Magic)
	binary.LittleEndian.PutUint32(b[8:], Version)
	binary.LittleEndian.PutUint32(b[12:], h.dim)
	binary.LittleEndian.PutUint64(b[16:], h.count)
	b[24] = byte(h.metric)
	binary.LittleEndian.PutUint32(b[28:], h.rowBytes)
	binary.LittleEndian.PutUint64(b[32:], h.dataOff)
	binary.LittleEndian.PutUint32(b[40:], crc32.Checksum(b[:40], castagnoli))
	return b
}

// decodeHeader checks magic, then version, then the checksum, then the
// fields, in that order, naming the file and offset of the first problem.
func decodeHeader(path string, b []byte, size int64) (header, error) {
	var h header
	if len(b) < headerSize {
		return h, fmt.Errorf("%w: %s: file is %d bytes, shorter than the %d-byte header", engine.ErrCorrupt, path, len(b), headerSize)
	}
	if string(b[:8]) != Magic {
		return h, fmt.Errorf("%w: %s: offset 0: bad magic %q, not a veclab vector file", engine.ErrCorrupt, path, b[:8])
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != Version {
		return h, fmt.Errorf("%w: %s: offset 8: version %d, this build reads %d", engine.ErrVersion, path, v, Version)
	}
	if got, want := crc32.Checksum(b[:40], castagnoli), binary.LittleEndian.Uint32(b[40:]); got != want {
		return h, fmt.Errorf("%w: %s: offset 40: header checksum %08x, computed %08x", engine.ErrCorrupt, path, want, got)
	}
	h.dim = binary.LittleEndian.Uint32(b[12:])
	h.count = binary.LittleEndian.Uint64(b[16:])
	h.metric = engine.Metric(b[24])
	h.rowBytes = binary.LittleEndian.Uint32(b[28:])
	h.dataOff = binary.LittleEndian.Uint64(b[32:])
	switch {
	case h.dim == 0 || h.dim > 1<<20:
		return h, fmt.Errorf("%w: %s: offset 12: dimension %d out of range", engine.ErrCorrupt, path, h.dim)
	case !h.metric.Valid():
		return h, fmt.Errorf("%w: %s: offset 24: unknown metric %d", engine.ErrCorrupt, path, h.metric)
	case h.rowBytes != 4*h.dim+4:
		return h, fmt.Errorf("%w: %s: offset 28: row bytes %d, want %d for dimension %d", engine.ErrCorrupt, path, h.rowBytes, 4*h.dim+4, h.dim)
	case h.dataOff != dataOffset:
		return h, fmt.Errorf("%w: %s: offset 32: data offset %d, want %d", engine.ErrCorrupt, path, h.dataOff, dataOffset)
	case h.count > uint64(math.MaxUint32):
		return h, fmt.Errorf("%w: %s: offset 16: count %d exceeds the id space", engine.ErrCorrupt, path, h.count)
	}
	if need := int64(h.dataOff) + int64(h.count)*int64(h.rowBytes); size < need {
		return h, fmt.Errorf("%w: %s: truncated: %d vectors need %d bytes, file has %d (data ends early at offset %d)",
			engine.ErrCorrupt, path, h.count, need, size, size)
	}
	return h, nil
}

// Writer appends vectors to a new vector file. Nothing is visible at the
// final path until Commit, which writes the header, syncs the file, renames
// it into place and syncs the directory; Abort (safe after Commit, so it can
// be deferred) removes the temporary file. Any failure — an I/O error, or
// a write refused by a vfs.WatermarkFS — leaves a previous file at the path
// untouched.
type Writer struct {
	fsys      vfs.FS
	path, tmp string
	f         vfs.File
	bw        *bufio.Writer
	dim       int
	metric    engine.Metric
	count     uint64
	row       []byte
	scratch   []float32
	done      bool
}

// Create starts a vector file of dimension dim at path on the operating
// system's files. Under Cosine every appended vector is stored
// unit-normalised.
func Create(path string, dim int, metric engine.Metric) (*Writer, error) {
	return CreateFS(vfs.Default, path, dim, metric)
}

// CreateFS is [Create] through fsys (e.g. a vfs.WatermarkFS). [Open] reads
// the result from the operating system's files, so fsys must write there
// for the file to be opened.
func CreateFS(fsys vfs.FS, path string, dim int, metric engine.Metric) (*Writer, error) {
	if fsys == nil {
		return nil, fmt.Errorf("%w: nil file system", engine.ErrInvalidArgument)
	}
	if dim <= 0 || dim > 1<<20 {
		return nil, fmt.Errorf("%w: vector file dimension %d out of range", engine.ErrInvalidArgument, dim)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("%w: unknown metric %d", engine.ErrInvalidArgument, metric)
	}
	tmp := path + ".tmp"
	f, err := fsys.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	w := &Writer{fsys: fsys, path: path, tmp: tmp, f: f, bw: bufio.NewWriterSize(f, 1<<20), dim: dim, metric: metric,
		row: make([]byte, 4*dim+4), scratch: make([]float32, dim)}
	if _, err := w.bw.Write(make([]byte, dataOffset)); err != nil { // header placeholder
		w.Abort()
		return nil, fmt.Errorf("store: write %s: %w", tmp, err)
	}
	return w, nil
}

// Append validates v (dimension, finite components, non-zero under Cosine),
// normalises a copy under Cosine and appends it; it returns the vector's id.
func (w *Writer) Append(v []float32) (engine.ID, error) {
	if w.done {
		return 0, fmt.Errorf("%w: vector file writer for %s already committed or aborted", engine.ErrClosed, w.path)
	}
	if err := engine.CheckVector(v, w.dim, w.metric); err != nil {
		return 0, fmt.Errorf("store: vector %d: %w", w.count, err)
	}
	if w.count >= math.MaxUint32 {
		return 0, fmt.Errorf("%w: vector file %s is full (%d vectors)", engine.ErrInvalidArgument, w.path, w.count)
	}
	x := v
	if w.metric == engine.Cosine {
		copy(w.scratch, v)
		if err := vec.Normalize(w.scratch); err != nil {
			return 0, fmt.Errorf("store: vector %d: %w", w.count, err)
		}
		x = w.scratch
	}
	for i, c := range x {
		binary.LittleEndian.PutUint32(w.row[4*i:], math.Float32bits(c))
	}
	binary.LittleEndian.PutUint32(w.row[4*w.dim:], crc32.Checksum(w.row[:4*w.dim], castagnoli))
	if _, err := w.bw.Write(w.row); err != nil {
		return 0, fmt.Errorf("store: write %s: %w", w.tmp, err)
	}
	id := engine.ID(w.count)
	w.count++
	return id, nil
}

// Len returns the number of vectors appended.
func (w *Writer) Len() int { return int(w.count) }

// Commit makes the file durable and visible at its path.
func (w *Writer) Commit() error {
	if w.done {
		return fmt.Errorf("%w: vector file writer for %s already committed or aborted", engine.ErrClosed, w.path)
	}
	size := int64(dataOffset) + int64(w.count)*int64(4*w.dim+4)
	if pad := (pageSize - size%pageSize) % pageSize; pad > 0 {
		if _, err := w.bw.Write(make([]byte, pad)); err != nil {
			return w.fail(err)
		}
	}
	if err := w.bw.Flush(); err != nil {
		return w.fail(err)
	}
	h := header{dim: uint32(w.dim), count: w.count, metric: w.metric, rowBytes: uint32(4*w.dim + 4), dataOff: dataOffset}
	if _, err := w.f.WriteAt(h.encode(), 0); err != nil {
		return w.fail(err)
	}
	if err := w.f.Sync(); err != nil {
		return w.fail(err)
	}
	if err := w.f.Close(); err != nil {
		return w.fail(err)
	}
	if err := w.fsys.Rename(w.tmp, w.path); err != nil {
		return w.fail(err)
	}
	w.done = true
	if err := w.fsys.SyncDir(vfs.Dir(w.path)); err != nil {
		return fmt.Errorf("store: sync directory of %s: %w", w.path, err)
	}
	return nil
}

func (w *Writer) fail(err error) error {
	w.Abort()
	return fmt.Errorf("store: commit %s: %w", w.path, err)
}

// Abort discards an uncommitted file; after Commit it does nothing.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	w.fsys.Remove(w.tmp)
}

// WriteMatrix writes every row of m to a new vector file at path.
func WriteMatrix(path string, m *vec.Matrix, metric engine.Metric) error {
	return WriteMatrixFS(vfs.Default, path, m, metric)
}

// WriteMatrixFS is [WriteMatrix] through fsys.
func WriteMatrixFS(fsys vfs.FS, path string, m *vec.Matrix, metric engine.Metric) error {
	if m == nil {
		return fmt.Errorf("%w: nil matrix", engine.ErrInvalidArgument)
	}
	w, err := CreateFS(fsys, path, m.Dim, metric)
	if err != nil {
		return err
	}
	defer w.Abort()
	for i := 0; i < m.N; i++ {
		if _, err := w.Append(m.Row(i)); err != nil {
			return err
		}
	}
	return w.Commit()
}

var errShort = errors.New("short read")
