package blockfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"sync/atomic"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// Sizes of the framing; part of the file format, never change.
const (
	HeaderSize        = 16
	SectionHeaderSize = 12
	SectionTrailer    = 4
	endTag            = "END!"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Checksum returns the CRC-32C of b, the checksum every section carries.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

var tmpSeq atomic.Uint64

// Writer writes one framed file through a temporary name.
type Writer struct {
	fsys      vfs.FS
	path, tmp string
	f         vfs.File
	bw        *bufio.Writer
	sections  uint64
	open      *sectionWriter // the section being streamed, if any
	committed bool
	aborted   bool
}

// Create starts a file that will replace path on Commit. magic must be 8
// bytes, version ≥ 1.
func Create(fsys vfs.FS, path, magic string, version uint32) (*Writer, error) {
	if len(magic) != 8 {
		return nil, fmt.Errorf("%w: blockfile magic %q must be 8 bytes", engine.ErrInvalidArgument, magic)
	}
	if version == 0 {
		return nil, fmt.Errorf("%w: blockfile version must be ≥ 1", engine.ErrInvalidArgument)
	}
	tmp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), tmpSeq.Add(1))
	f, err := fsys.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	w := &Writer{fsys: fsys, path: path, tmp: tmp, f: f, bw: bufio.NewWriterSize(f, 1<<20)}
	var hdr [HeaderSize]byte
	copy(hdr[:8], magic)
	binary.LittleEndian.PutUint32(hdr[8:], version)
	binary.LittleEndian.PutUint32(hdr[12:], Checksum(hdr[:12]))
	if _, err := w.bw.Write(hdr[:]); err != nil {
		w.Abort()
		return nil, w.wrap(err)
	}
	return w, nil
}

func (w *Writer) wrap(err error) error { return fmt.Errorf("write %s: %w", w.path, err) }

func checkTag(tag string) error {
	if len(tag) != 4 || tag == endTag {
		return fmt.Errorf("%w: blockfile section tag %q must be 4 bytes and not %q", engine.ErrInvalidArgument, tag, endTag)
	}
	return nil
}

// Section writes one section holding payload.
func (w *Writer) Section(tag string, payload []byte) error {
	sw, err := w.Begin(tag, int64(len(payload)))
	if err != nil {
		return err
	}
	if _, err := sw.Write(payload); err != nil {
		return err
	}
	return sw.Close()
}

// Begin starts a section of exactly size payload bytes, to be written to the
// returned writer and finished with its Close (which fails if fewer or more
// bytes were written).
func (w *Writer) Begin(tag string, size int64) (io.WriteCloser, error) {
	if err := checkTag(tag); err != nil {
		return nil, err
	}
	if w.committed || w.aborted || w.open != nil {
		return nil, fmt.Errorf("%w: blockfile: section %q begun on a finished writer or inside another section", engine.ErrInvalidArgument, tag)
	}
	if size < 0 {
		return nil, fmt.Errorf("%w: blockfile: negative section size", engine.ErrInvalidArgument)
	}
	sw := &sectionWriter{w: w, tag: tag, size: size, crc: crc32.New(castagnoli)}
	var h [SectionHeaderSize]byte
	copy(h[:4], tag)
	binary.LittleEndian.PutUint64(h[4:], uint64(size))
	sw.crc.Write(h[:])
	if _, err := w.bw.Write(h[:]); err != nil {
		return nil, w.wrap(err)
	}
	w.open = sw
	return sw, nil
}

type sectionWriter struct {
	w       *Writer
	tag     string
	size, n int64
	crc     hash.Hash32
}

func (s *sectionWriter) Write(p []byte) (int, error) {
	if s.n+int64(len(p)) > s.size {
		return 0, fmt.Errorf("%w: blockfile: section %q overflows its declared %d bytes", engine.ErrInvalidArgument, s.tag, s.size)
	}
	s.crc.Write(p)
	n, err := s.w.bw.Write(p)
	s.n += int64(n)
	if err != nil {
		return n, s.w.wrap(err)
	}
	return n, nil
}

func (s *sectionWriter) Close() error {
	if s.w.open != s {
		return fmt.Errorf("%w: blockfile: section %q closed twice", engine.ErrInvalidArgument, s.tag)
	}
	s.w.open = nil
	if s.n != s.size {
		return fmt.Errorf("%w: blockfile: section %q got %d bytes, declared %d", engine.ErrInvalidArgument, s.tag, s.n, s.size)
	}
	var t [SectionTrailer]byte
	binary.LittleEndian.PutUint32(t[:], s.crc.Sum32())
	if _, err := s.w.bw.Write(t[:]); err != nil {
		return s.w.wrap(err)
	}
	s.w.sections++
	return nil
}

// Commit writes the end section and atomically replaces the target file:
// flush, fsync, close, rename, fsync the directory. After an error the
// target is unchanged (or, if only the directory sync failed, replaced but
// perhaps not durable) and Abort cleans up.
func (w *Writer) Commit() error {
	if w.committed || w.aborted {
		return fmt.Errorf("%w: blockfile: Commit of a finished writer", engine.ErrInvalidArgument)
	}
	if w.open != nil {
		return fmt.Errorf("%w: blockfile: Commit with section %q still open", engine.ErrInvalidArgument, w.open.tag)
	}
	var end [SectionHeaderSize + 8 + SectionTrailer]byte
	copy(end[:4], endTag)
	binary.LittleEndian.PutUint64(end[4:], 8)
	binary.LittleEndian.PutUint64(end[12:], w.sections)
	binary.LittleEndian.PutUint32(end[20:], Checksum(end[:20]))
	if _, err := w.bw.Write(end[:]); err != nil {
		return w.wrap(err)
	}
	if err := w.bw.Flush(); err != nil {
		return w.wrap(err)
	}
	if err := w.f.Sync(); err != nil {
		return w.wrap(err)
	}
	f := w.f
	w.f = nil
	if err := f.Close(); err != nil {
		return w.wrap(err)
	}
	if err := w.fsys.Rename(w.tmp, w.path); err != nil {
		return w.wrap(err)
	}
	w.committed = true
	if err := w.fsys.SyncDir(vfs.Dir(w.path)); err != nil {
		return w.wrap(err)
	}
	return nil
}

// Abort discards an uncommitted file; after Commit it does nothing. It is
// safe to call more than once (defer it).
func (w *Writer) Abort() {
	if w.committed || w.aborted {
		return
	}
	w.aborted = true
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	w.fsys.Remove(w.tmp)
}

// Section is one verified section of a file.
type Section struct {
	Tag    string
	Offset int64  // byte offset of the section header in the file
	Data   []byte // the payload (nil from NextInfo)
	Size   int64  // payload length
}

// PayloadOffset returns the file offset of the section's first payload byte.
func (s Section) PayloadOffset() int64 { return s.Offset + SectionHeaderSize }

// Reader reads a framed file section by section, verifying each CRC.
type Reader struct {
	r       io.ReaderAt
	name    string
	size    int64
	version uint32
	off     int64
	count   uint64
	done    bool
}

// Open opens path and checks its magic and version (1…maxVersion). The
// caller closes the returned file after reading.
func Open(fsys vfs.FS, path, magic string, maxVersion uint32) (*Reader, vfs.File, error) {
	f, err := fsys.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	size, err := f.Size()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	r, err := NewReader(path, f, size, magic, maxVersion)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}

// NewReader reads a framed file of size bytes from r; name is used in errors.
func NewReader(name string, r io.ReaderAt, size int64, magic string, maxVersion uint32) (*Reader, error) {
	rd := &Reader{r: r, name: name, size: size}
	var hdr [HeaderSize]byte
	if size < 8 {
		return nil, rd.corrupt(0, "file header", fmt.Sprintf("file is %d bytes, shorter than the magic number", size))
	}
	if err := rd.readAt(hdr[:min(size, HeaderSize)], 0, "file header"); err != nil {
		return nil, err
	}
	if string(hdr[:8]) != magic {
		return nil, rd.corrupt(0, "file header", fmt.Sprintf("magic %q, want %q", hdr[:8], magic))
	}
	if size < HeaderSize {
		return nil, rd.corrupt(0, "file header", fmt.Sprintf("file is %d bytes, shorter than the %d-byte header", size, HeaderSize))
	}
	v := binary.LittleEndian.Uint32(hdr[8:])
	if v == 0 || v > maxVersion {
		return nil, fmt.Errorf("%w: %s: format version %d, this build reads 1…%d", engine.ErrVersion, name, v, maxVersion)
	}
	if got, want := Checksum(hdr[:12]), binary.LittleEndian.Uint32(hdr[12:]); got != want {
		return nil, rd.corrupt(0, "file header", "checksum mismatch")
	}
	rd.version = v
	rd.off = HeaderSize
	return rd, nil
}

// Version returns the file's format version.
func (r *Reader) Version() uint32 { return r.version }

// Name returns the file name used in errors.
func (r *Reader) Name() string { return r.name }

func (r *Reader) corrupt(off int64, what, msg string) error {
	return fmt.Errorf("%w: %s: %s at offset %d: %s", engine.ErrCorrupt, r.name, what, off, msg)
}

// Corrupt returns an error wrapping engine.ErrCorrupt that names the file,
// section s and msg: for formats that find a semantic problem in a
// checksummed payload.
func (r *Reader) Corrupt(s Section, msg string) error {
	return r.corrupt(s.Offset, fmt.Sprintf("section %q", s.Tag), msg)
}

func (r *Reader) readAt(p []byte, off int64, what string) error {
	n, err := r.r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return r.corrupt(off, what, "unexpected end of file")
	}
	return fmt.Errorf("read %s: %s at offset %d: %w", r.name, what, off, err)
}

// Next returns the next section with its payload in memory, or io.EOF after
// a valid end marker.
func (r *Reader) Next() (Section, error) { return r.next(true) }

// NextInfo is Next without keeping the payload: it streams the payload to
// verify the CRC and returns its offset and size, for formats that read
// payloads later with ReadAt.
func (r *Reader) NextInfo() (Section, error) { return r.next(false) }

// Expect is Next, failing unless the section has the given tag.
func (r *Reader) Expect(tag string) (Section, error) {
	s, err := r.Next()
	if err == io.EOF {
		return s, r.corrupt(r.off, fmt.Sprintf("section %q", tag), "missing (end marker found)")
	}
	if err != nil {
		return s, err
	}
	if s.Tag != tag {
		return s, r.Corrupt(s, fmt.Sprintf("found where section %q was expected", tag))
	}
	return s, nil
}

func (r *Reader) next(keep bool) (Section, error) {
	if r.done {
		return Section{}, io.EOF
	}
	off := r.off
	if r.size-off < SectionHeaderSize {
		return Section{}, r.corrupt(off, "section header", "truncated: file ends without an end marker")
	}
	var h [SectionHeaderSize]byte
	if err := r.readAt(h[:], off, "section header"); err != nil {
		return Section{}, err
	}
	tag := string(h[:4])
	for _, c := range h[:4] {
		if c < 0x20 || c > 0x7e {
			return Section{}, r.corrupt(off, "section header", fmt.Sprintf("tag %q is not ASCII", h[:4]))
		}
	}
	n := binary.LittleEndian.Uint64(h[4:])
	what := fmt.Sprintf("section %q", tag)
	if rem := uint64(r.size - off - SectionHeaderSize); rem < SectionTrailer || n > rem-SectionTrailer {
		return Section{}, r.corrupt(off, what, fmt.Sprintf("length %d runs past the end of the %d-byte file", n, r.size))
	}
	crc := crc32.Update(0, castagnoli, h[:])
	s := Section{Tag: tag, Offset: off, Size: int64(n)}
	pos := off + SectionHeaderSize
	if keep || tag == endTag {
		s.Data = make([]byte, n)
		if err := r.readAt(s.Data, pos, what); err != nil {
			return Section{}, err
		}
		crc = crc32.Update(crc, castagnoli, s.Data)
	} else {
		buf := make([]byte, min(int64(n), 1<<20))
		for left := int64(n); left > 0; {
			c := buf[:min(left, int64(len(buf)))]
			if err := r.readAt(c, pos, what); err != nil {
				return Section{}, err
			}
			crc = crc32.Update(crc, castagnoli, c)
			pos += int64(len(c))
			left -= int64(len(c))
		}
	}
	var t [SectionTrailer]byte
	if err := r.readAt(t[:], off+SectionHeaderSize+int64(n), what); err != nil {
		return Section{}, err
	}
	if binary.LittleEndian.Uint32(t[:]) != crc {
		return Section{}, r.corrupt(off, what, "checksum mismatch")
	}
	r.off = off + SectionHeaderSize + int64(n) + SectionTrailer
	if tag == endTag {
		if n != 8 || binary.LittleEndian.Uint64(s.Data) != r.count {
			return Section{}, r.corrupt(off, "end marker", fmt.Sprintf("records a section count that does not match the %d sections read", r.count))
		}
		if r.off != r.size {
			return Section{}, r.corrupt(r.off, "end marker", fmt.Sprintf("%d trailing bytes after the end marker", r.size-r.off))
		}
		r.done = true
		return Section{}, io.EOF
	}
	r.count++
	if !keep {
		s.Data = nil
	}
	return s, nil
}

// Finish checks that the next section is the end marker (no extra sections).
func (r *Reader) Finish() error {
	s, err := r.Next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	return r.Corrupt(s, "unexpected section where the end marker was expected")
}
