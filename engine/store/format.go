package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/blockfile"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

// Format constants: part of the file format; never change.
const (
	Magic = "VLABVEC\x00"
	// Version history: 1 = a framing of its own (a 44-byte header page,
	// never committed to any file, so not read); 2 = blockfile.
	Version    = 2
	pageSize   = 4096
	dataOffset = pageSize // the first row
	vhdrSize   = 20       // VHDR payload
	tagRows    = "ROWS"
	tagHeader  = "VHDR"
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
	b := make([]byte, 0, vhdrSize)
	b = binary.LittleEndian.AppendUint32(b, h.dim)
	b = binary.LittleEndian.AppendUint64(b, h.count)
	b = append(b, byte(h.metric), 0, 0, 0)
	return binary.LittleEndian.AppendUint32(b, h.rowBytes)
}

// readLayout checks the framing of the vector file r of size bytes — magic,
// then version, then the header's checksum, the ROWS section's place and
// length (not its payload: each row carries its own CRC, checked when it
// is read), the VHDR section and the end marker — and returns its header.
// Errors name the file and the byte offset of the first problem.
func readLayout(path string, r io.ReaderAt, size int64) (header, error) {
	var h header
	rd, err := blockfile.NewReaderVersions(path, r, size, Magic, Version, Version)
	if err != nil {
		return h, err
	}
	rows, err := rd.Skip()
	if err == io.EOF {
		return h, fmt.Errorf("store: %s: no %s section: %w", path, tagRows, engine.ErrCorrupt)
	}
	if err != nil {
		return h, err
	}
	if rows.Tag != tagRows || rows.PayloadOffset() != dataOffset {
		return h, rd.Corrupt(rows, fmt.Sprintf("found where section %q with its payload at offset %d was expected", tagRows, dataOffset))
	}
	s, err := rd.Expect(tagHeader)
	if err != nil {
		return h, err
	}
	b := s.Data
	if len(b) != vhdrSize {
		return h, rd.Corrupt(s, fmt.Sprintf("%d bytes, want %d", len(b), vhdrSize))
	}
	h.dim = binary.LittleEndian.Uint32(b[0:])
	h.count = binary.LittleEndian.Uint64(b[4:])
	h.metric = engine.Metric(b[12])
	h.rowBytes = binary.LittleEndian.Uint32(b[16:])
	h.dataOff = uint64(rows.PayloadOffset())
	at := func(field int64) int64 { return s.PayloadOffset() + field }
	switch {
	case h.dim == 0 || h.dim > 1<<20:
		return h, fmt.Errorf("store: %s: offset %d: dimension %d out of range: %w", path, at(0), h.dim, engine.ErrCorrupt)
	case h.count > uint64(math.MaxUint32):
		return h, fmt.Errorf("store: %s: offset %d: count %d exceeds the id space: %w", path, at(4), h.count, engine.ErrCorrupt)
	case !h.metric.Valid():
		return h, fmt.Errorf("store: %s: offset %d: unknown metric %d: %w", path, at(12), h.metric, engine.ErrCorrupt)
	case b[13] != 0 || b[14] != 0 || b[15] != 0:
		return h, fmt.Errorf("store: %s: offset %d: reserved bytes not zero: %w", path, at(13), engine.ErrCorrupt)
	case h.rowBytes != 4*h.dim+4:
		return h, fmt.Errorf("store: %s: offset %d: row bytes %d, want %d for dimension %d: %w", path, at(16), h.rowBytes, 4*h.dim+4, h.dim, engine.ErrCorrupt)
	case uint64(rows.Size) != h.count*uint64(h.rowBytes):
		return h, rd.Corrupt(rows, fmt.Sprintf("%d bytes of rows, but %d vectors of %d bytes", rows.Size, h.count, h.rowBytes))
	}
	if err := rd.Finish(); err != nil {
		return h, err
	}
	return h, nil
}

// verifyRows streams the ROWS section's payload through its section CRC
// (the check per row is the reader's; this one also covers the row CRCs).
func verifyRows(path string, r io.ReaderAt, size int64) error {
	rd, err := blockfile.NewReaderVersions(path, r, size, Magic, Version, Version)
	if err != nil {
		return err
	}
	_, err = rd.NextInfo()
	return err
}

// Writer appends vectors to a new vector file. Nothing is visible at the
// final path until Commit, which completes the rows section, writes the
// header section, syncs the file, renames it into place and syncs the
// directory (engine/internal/blockfile); Abort (safe after Commit, so it
// can be deferred) removes the temporary file. Any failure — an I/O
// error, or a write refused by a vfs.WatermarkFS — leaves a previous file
// at the path untouched.
type Writer struct {
	path    string
	bf      *blockfile.Writer
	rows    io.WriteCloser // the ROWS section being streamed
	dim     int
	metric  engine.Metric
	count   uint64
	row     []byte
	scratch []float32
	done    bool
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
		return nil, fmt.Errorf("store: nil file system: %w", engine.ErrInvalidArgument)
	}
	if dim <= 0 || dim > 1<<20 {
		return nil, fmt.Errorf("store: vector file dimension %d out of range: %w", dim, engine.ErrInvalidArgument)
	}
	if !metric.Valid() {
		return nil, fmt.Errorf("store: unknown metric %d: %w", metric, engine.ErrInvalidArgument)
	}
	bf, err := blockfile.Create(fsys, path, Magic, Version)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	w := &Writer{path: path, bf: bf, dim: dim, metric: metric, row: make([]byte, 4*dim+4), scratch: make([]float32, dim)}
	// The rows start on a page: one vector is one pread at a fixed stride.
	if err := bf.PadBefore(blockfile.SectionHeaderSize, pageSize); err != nil {
		w.Abort()
		return nil, fmt.Errorf("store: %w", err)
	}
	if w.rows, err = bf.BeginStream(tagRows); err != nil {
		w.Abort()
		return nil, fmt.Errorf("store: %w", err)
	}
	return w, nil
}

// Append validates v (dimension, finite components, non-zero under Cosine),
// normalises a copy under Cosine and appends it; it returns the vector's id.
func (w *Writer) Append(v []float32) (engine.ID, error) {
	if w.done {
		return 0, fmt.Errorf("store: vector file writer for %s already committed or aborted: %w", w.path, engine.ErrClosed)
	}
	if err := engine.CheckVector(v, w.dim, w.metric); err != nil {
		return 0, fmt.Errorf("store: vector %d: %w", w.count, err)
	}
	if w.count >= math.MaxUint32 {
		return 0, fmt.Errorf("store: vector file %s is full (%d vectors): %w", w.path, w.count, engine.ErrInvalidArgument)
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
	if _, err := w.rows.Write(w.row); err != nil {
		return 0, fmt.Errorf("store: %w", err)
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
		return fmt.Errorf("store: vector file writer for %s already committed or aborted: %w", w.path, engine.ErrClosed)
	}
	if err := w.rows.Close(); err != nil {
		return w.fail(err)
	}
	h := header{dim: uint32(w.dim), count: w.count, metric: w.metric, rowBytes: uint32(4*w.dim + 4)}
	if err := w.bf.Section(tagHeader, h.encode()); err != nil {
		return w.fail(err)
	}
	// The file ends on a page, as O_DIRECT reads of the last row expect.
	if err := w.bf.PadBefore(blockfile.EndSize, pageSize); err != nil {
		return w.fail(err)
	}
	if err := w.bf.Commit(); err != nil {
		return w.fail(err)
	}
	w.done = true
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
	w.bf.Abort()
}

// WriteMatrix writes every row of m to a new vector file at path.
func WriteMatrix(path string, m *vec.Matrix, metric engine.Metric) error {
	return WriteMatrixFS(vfs.Default, path, m, metric)
}

// WriteMatrixFS is [WriteMatrix] through fsys.
func WriteMatrixFS(fsys vfs.FS, path string, m *vec.Matrix, metric engine.Metric) error {
	if m == nil {
		return fmt.Errorf("store: nil matrix: %w", engine.ErrInvalidArgument)
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
