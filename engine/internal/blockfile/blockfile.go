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
	// EndSize is the size of the end section.
	EndSize = SectionHeaderSize + 8 + SectionTrailer
	endTag  = "END!"
	// padTag marks a padding section (zero payload) that aligns the next
	// section; readers skip it.
	padTag = "PAD "
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
	off       int64          // bytes written so far (the next section's offset)
	open      *sectionWriter // the section being streamed, if any
	committed bool
	aborted   bool
}

// Create starts a file that will replace path on Commit. magic must be 8
// bytes, version ≥ 1.
func Create(fsys vfs.FS, path, magic string, version uint32) (*Writer, error) {
	if len(magic) != 8 {
		return nil, fmt.Errorf("blockfile: magic %q must be 8 bytes: %w", magic, engine.ErrInvalidArgument)
	}
	if version == 0 {
		return nil, fmt.Errorf("blockfile: version must be ≥ 1: %w", engine.ErrInvalidArgument)
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
	w.off = HeaderSize
	return w, nil
}

// Offset returns the file offset the next section will start at.
func (w *Writer) Offset() int64 { return w.off }

// PadSize returns the bytes [Writer.Pad] writes at offset off to align the
// next section to align bytes: 0 when off is aligned, else a padding
// section of at least SectionHeaderSize+SectionTrailer bytes.
func PadSize(off, align int64) int64 {
	if align <= 1 || off%align == 0 {
		return 0
	}
	const min = SectionHeaderSize + SectionTrailer
	n := align - off%align
	for n < min {
		n += align
	}
	return n
}

// PadBefore writes a padding section so that lead bytes after it the
// offset is a multiple of align: lead = SectionHeaderSize aligns the next
// section's payload (engine/store's rows start on a page), lead = EndSize
// makes the file end on a multiple of align. Nothing is written when the
// offset is already where it should be.
func (w *Writer) PadBefore(lead, align int64) error {
	n := PadSize(w.off+lead, align)
	if n == 0 {
		return nil
	}
	sw, err := w.begin(padTag, n-SectionHeaderSize-SectionTrailer)
	if err != nil {
		return err
	}
	if _, err := sw.Write(make([]byte, sw.size)); err != nil {
		return err
	}
	return sw.Close()
}

// BeginStream starts a section whose length is not known in advance (a
// vector file appended one vector at a time): its header is written with
// the length once the returned writer is closed (a positioned write back
// into the file), and its CRC is the payload's, combined with the final
// header's. The bytes are those of Begin with the final size.
func (w *Writer) BeginStream(tag string) (io.WriteCloser, error) {
	if err := checkTag(tag); err != nil {
		return nil, err
	}
	hdrOff := w.off
	sw, err := w.begin(tag, -1)
	if err != nil {
		return nil, err
	}
	sw.stream, sw.hdrOff = true, hdrOff
	sw.crc.Reset() // the payload alone; the header is combined in at Close
	return sw, nil
}

// Pad writes a padding section (tag "PAD ", zero payload, skipped by
// readers) so that the next section starts on a multiple of align: a
// format that reads a section with one aligned pread (engine/ivf's
// posting lists) puts each on a page boundary. Nothing is written when the
// offset is already aligned.
func (w *Writer) Pad(align int64) error { return w.PadBefore(0, align) }

func (w *Writer) wrap(err error) error { return fmt.Errorf("write %s: %w", w.path, err) }

func checkTag(tag string) error {
	if len(tag) != 4 || tag == endTag || tag == padTag {
		return fmt.Errorf("blockfile: section tag %q must be 4 bytes and not %q or %q: %w", tag, endTag, padTag, engine.ErrInvalidArgument)
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
	return w.begin(tag, size)
}

func (w *Writer) begin(tag string, size int64) (*sectionWriter, error) {
	if w.committed || w.aborted || w.open != nil {
		return nil, fmt.Errorf("blockfile: section %q begun on a finished writer or inside another section: %w", tag, engine.ErrInvalidArgument)
	}
	if size < 0 && size != -1 { // -1: streamed (BeginStream)
		return nil, fmt.Errorf("blockfile: negative section size: %w", engine.ErrInvalidArgument)
	}
	sw := &sectionWriter{w: w, tag: tag, size: size, crc: crc32.New(castagnoli)}
	var h [SectionHeaderSize]byte
	copy(h[:4], tag)
	binary.LittleEndian.PutUint64(h[4:], uint64(max(size, 0)))
	sw.crc.Write(h[:])
	if _, err := w.bw.Write(h[:]); err != nil {
		return nil, w.wrap(err)
	}
	w.off += SectionHeaderSize
	w.open = sw
	return sw, nil
}

type sectionWriter struct {
	w       *Writer
	tag     string
	size, n int64
	crc     hash.Hash32
	stream  bool  // length unknown until Close (BeginStream)
	hdrOff  int64 // stream: offset of the header to complete
}

func (s *sectionWriter) Write(p []byte) (int, error) {
	if !s.stream && s.n+int64(len(p)) > s.size {
		return 0, fmt.Errorf("blockfile: section %q overflows its declared %d bytes: %w", s.tag, s.size, engine.ErrInvalidArgument)
	}
	s.crc.Write(p)
	n, err := s.w.bw.Write(p)
	s.n += int64(n)
	s.w.off += int64(n)
	if err != nil {
		return n, s.w.wrap(err)
	}
	return n, nil
}

func (s *sectionWriter) Close() error {
	if s.w.open != s {
		return fmt.Errorf("blockfile: section %q closed twice: %w", s.tag, engine.ErrInvalidArgument)
	}
	s.w.open = nil
	sum := s.crc.Sum32()
	if s.stream {
		// Complete the header in place, then checksum header‖payload.
		var h [SectionHeaderSize]byte
		copy(h[:4], s.tag)
		binary.LittleEndian.PutUint64(h[4:], uint64(s.n))
		if err := s.w.bw.Flush(); err != nil {
			return s.w.wrap(err)
		}
		if _, err := s.w.f.WriteAt(h[4:], s.hdrOff+4); err != nil {
			return s.w.wrap(err)
		}
		sum = crcCombine(Checksum(h[:]), sum, s.n)
	} else if s.n != s.size {
		return fmt.Errorf("blockfile: section %q got %d bytes, declared %d: %w", s.tag, s.n, s.size, engine.ErrInvalidArgument)
	}
	var t [SectionTrailer]byte
	binary.LittleEndian.PutUint32(t[:], sum)
	if _, err := s.w.bw.Write(t[:]); err != nil {
		return s.w.wrap(err)
	}
	s.w.off += SectionTrailer
	s.w.sections++
	return nil
}

// Commit writes the end section and atomically replaces the target file:
// flush, fsync, close, rename, fsync the directory. After an error the
// target is unchanged (or, if only the directory sync failed, replaced but
// perhaps not durable) and Abort cleans up.
func (w *Writer) Commit() error {
	if w.committed || w.aborted {
		return fmt.Errorf("blockfile: Commit of a finished writer: %w", engine.ErrInvalidArgument)
	}
	if w.open != nil {
		return fmt.Errorf("blockfile: Commit with section %q still open: %w", w.open.tag, engine.ErrInvalidArgument)
	}
	end := appendEnd(nil, w.sections)
	if _, err := w.bw.Write(end); err != nil {
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

func appendEnd(dst []byte, sections uint64) []byte {
	var end [EndSize]byte
	copy(end[:4], endTag)
	binary.LittleEndian.PutUint64(end[4:], 8)
	binary.LittleEndian.PutUint64(end[12:], sections)
	binary.LittleEndian.PutUint32(end[20:], Checksum(end[:20]))
	return append(dst, end[:]...)
}

// A Payload is one section given to [Append].
type Payload struct {
	Tag  string
	Data []byte
}

// Append appends to dst the bytes of a framed file holding sections (what
// Create, Section… and Commit would write), for formats kept in memory or
// embedded in other files: a quantizer's MarshalBinary. Read them back
// with NewReader over a bytes.Reader.
func Append(dst []byte, magic string, version uint32, sections ...Payload) ([]byte, error) {
	if len(magic) != 8 {
		return nil, fmt.Errorf("blockfile: magic %q must be 8 bytes: %w", magic, engine.ErrInvalidArgument)
	}
	if version == 0 {
		return nil, fmt.Errorf("blockfile: version must be ≥ 1: %w", engine.ErrInvalidArgument)
	}
	var hdr [HeaderSize]byte
	copy(hdr[:8], magic)
	binary.LittleEndian.PutUint32(hdr[8:], version)
	binary.LittleEndian.PutUint32(hdr[12:], Checksum(hdr[:12]))
	dst = append(dst, hdr[:]...)
	for _, s := range sections {
		if err := checkTag(s.Tag); err != nil {
			return nil, err
		}
		start := len(dst)
		var h [SectionHeaderSize]byte
		copy(h[:4], s.Tag)
		binary.LittleEndian.PutUint64(h[4:], uint64(len(s.Data)))
		dst = append(dst, h[:]...)
		dst = append(dst, s.Data...)
		dst = binary.LittleEndian.AppendUint32(dst, Checksum(dst[start:]))
	}
	return appendEnd(dst, uint64(len(sections))), nil
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
	return NewReaderVersions(name, r, size, magic, 1, maxVersion)
}

// NewReaderVersions is NewReader for a format that reads versions
// minVersion…maxVersion only: a format whose earlier versions had a
// framing of their own at the same magic (engine/store, engine/ivf) so
// refuses them as versions before their bytes are misread as a header.
func NewReaderVersions(name string, r io.ReaderAt, size int64, magic string, minVersion, maxVersion uint32) (*Reader, error) {
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
	if v == 0 || v < minVersion || v > maxVersion {
		return nil, fmt.Errorf("blockfile: %s: format version %d at offset 8, this build reads %d…%d: %w", name, v, max(minVersion, 1), maxVersion, engine.ErrVersion)
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
	return fmt.Errorf("blockfile: %s: %s at offset %d: %s: %w", r.name, what, off, msg, engine.ErrCorrupt)
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
	for {
		if r.done {
			return Section{}, io.EOF
		}
		s, err := r.readSection(r.off, keep)
		if err != nil {
			return Section{}, err
		}
		r.off = s.Offset + SectionHeaderSize + s.Size + SectionTrailer
		if s.Tag == endTag {
			if binary.LittleEndian.Uint64(s.Data) != r.count {
				return Section{}, r.corrupt(s.Offset, "end marker", fmt.Sprintf("records a section count that does not match the %d sections read", r.count))
			}
			if r.off != r.size {
				return Section{}, r.corrupt(r.off, "end marker", fmt.Sprintf("%d trailing bytes after the end marker", r.size-r.off))
			}
			r.done = true
			return Section{}, io.EOF
		}
		r.count++
		if s.Tag == padTag {
			continue
		}
		if !keep {
			s.Data = nil
		}
		return s, nil
	}
}

// readSection reads and verifies the section whose header is at off.
func (r *Reader) readSection(off int64, keep bool) (Section, error) {
	if off < 0 || r.size-off < SectionHeaderSize {
		return Section{}, r.corrupt(off, "section header", "truncated: file ends without an end marker")
	}
	var h [SectionHeaderSize]byte
	if err := r.readAt(h[:], off, "section header"); err != nil {
		return Section{}, err
	}
	tag, n, err := r.parseHeader(h[:], off, r.size-off)
	if err != nil {
		return Section{}, err
	}
	what := fmt.Sprintf("section %q", tag)
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
	if tag == endTag && n != 8 {
		return Section{}, r.corrupt(off, "end marker", fmt.Sprintf("payload of %d bytes, want 8", n))
	}
	return s, nil
}

// parseHeader checks a section header found at off with rem bytes of the
// file (or buffer) from off on: an ASCII tag and a length that fits.
func (r *Reader) parseHeader(h []byte, off, rem int64) (string, uint64, error) {
	for _, c := range h[:4] {
		if c < 0x20 || c > 0x7e {
			return "", 0, r.corrupt(off, "section header", fmt.Sprintf("tag %q is not ASCII", h[:4]))
		}
	}
	tag := string(h[:4])
	n := binary.LittleEndian.Uint64(h[4:])
	if left := uint64(rem - SectionHeaderSize); left < SectionTrailer || n > left-SectionTrailer {
		return "", 0, r.corrupt(off, fmt.Sprintf("section %q", tag), fmt.Sprintf("length %d runs past the end of the %d-byte file", n, r.size))
	}
	return tag, n, nil
}

// SectionAt reads and verifies the section whose header is at off (an
// offset the format recorded, e.g. in a directory section), payload kept,
// without moving the sequential position of Next. want, when not empty,
// is the tag the section must have.
func (r *Reader) SectionAt(off int64, want string) (Section, error) {
	s, err := r.readSection(off, true)
	if err != nil {
		return Section{}, err
	}
	if want != "" && s.Tag != want {
		return Section{}, r.Corrupt(s, fmt.Sprintf("found where section %q was expected", want))
	}
	return s, nil
}

// DecodeSection verifies a section held in b, the exact bytes of one
// section (header, payload, trailer) read from offset off of the file: a
// format that reads a section with one pread of its own (counted, cached
// or direct) checks it here. The payload aliases b. Errors name the file
// and offset as the Reader's do.
func (r *Reader) DecodeSection(b []byte, off int64, want string) (Section, error) {
	if len(b) < SectionHeaderSize+SectionTrailer {
		return Section{}, r.corrupt(off, "section header", fmt.Sprintf("%d bytes cannot hold a section", len(b)))
	}
	tag, n, err := r.parseHeader(b[:SectionHeaderSize], off, int64(len(b)))
	if err != nil {
		return Section{}, err
	}
	s := Section{Tag: tag, Offset: off, Size: int64(n)}
	if uint64(len(b)) != SectionHeaderSize+n+SectionTrailer {
		return Section{}, r.Corrupt(s, fmt.Sprintf("length %d, the directory says %d", n, len(b)-SectionHeaderSize-SectionTrailer))
	}
	if want != "" && tag != want {
		return Section{}, r.Corrupt(s, fmt.Sprintf("found where section %q was expected", want))
	}
	body := b[:SectionHeaderSize+n]
	if binary.LittleEndian.Uint32(b[SectionHeaderSize+n:]) != Checksum(body) {
		return Section{}, r.Corrupt(s, "checksum mismatch")
	}
	s.Data = b[SectionHeaderSize : SectionHeaderSize+n]
	return s, nil
}

// Skip steps over the next section checking its header and length but not
// its payload's CRC: for a format whose payload carries finer checksums of
// its own, each verified when that part is read (engine/store's rows, one
// pread and one CRC each), so that opening a file does not read all of it.
// It returns the section (Data nil) or io.EOF after a valid end marker.
func (r *Reader) Skip() (Section, error) {
	for {
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
		tag, n, err := r.parseHeader(h[:], off, r.size-off)
		if err != nil {
			return Section{}, err
		}
		if tag == endTag {
			return r.next(false) // verified in full: count and file end
		}
		if tag == padTag { // small: verified in full, then skipped
			if _, err := r.readSection(off, false); err != nil {
				return Section{}, err
			}
			r.off = off + SectionHeaderSize + int64(n) + SectionTrailer
			r.count++
			continue
		}
		r.off = off + SectionHeaderSize + int64(n) + SectionTrailer
		r.count++
		return Section{Tag: tag, Offset: off, Size: int64(n)}, nil
	}
}

// CheckEnd verifies that the file ends with a valid end marker recording
// sections sections: for formats read by SectionAt or DecodeSection
// rather than to the end, it is the check that the file was not cut short.
func (r *Reader) CheckEnd(sections uint64) error {
	off := r.size - EndSize
	s, err := r.readSection(off, true)
	if err != nil {
		return err
	}
	if s.Tag != endTag {
		return r.corrupt(off, "end marker", fmt.Sprintf("section %q where the end marker should be", s.Tag))
	}
	if got := binary.LittleEndian.Uint64(s.Data); got != sections {
		return r.corrupt(off, "end marker", fmt.Sprintf("records %d sections, the format expects %d", got, sections))
	}
	return nil
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
