package ivf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/internal/blockfile"
	"github.com/veclab/veclab/engine/store"
	"github.com/veclab/veclab/engine/vfs"
)

// On-disk posting lists (the regime of E27: the index itself no longer
// fits in RAM, so a probed list is read from disk, one pread per list).
//
// The list file is an engine/internal/blockfile file (magic "VLABIVFL",
// version 2; version 1 was a framing of its own, never committed
// anywhere, so this build reads version 2 only). Little-endian; part of
// the file format, never change without bumping listVersion:
//
//	section  payload
//	IVFH     nlist u32, dim u32, bits u32 (0 = float32 records),
//	         record bytes u32 (OSQ code size, or 4·dim), vectors indexed
//	         u32, sections u32 (every section before the end marker,
//	         padding included: what the end marker must record)
//	IDIR     nlist × {LIST section offset u64, count u32}
//	PAD      (blockfile padding) so that the next section starts on a
//	         4096-byte boundary
//	LIST     count ids (u32), then count records; one per list, in list
//	         order, each followed by padding to the next 4096-byte
//	         boundary (but the last)
//	END!     blockfile's end marker
//
// A probed list is one pread of its whole LIST section (header, payload,
// CRC-32C) from a page boundary, verified as it is read; opening checks the
// file header, IVFH, IDIR and the end marker, not the lists themselves.
const (
	listMagic   = "VLABIVFL"
	listVersion = 2
	listPage    = 4096
	listHdrSize = 24
)

type diskDir struct {
	off   int64 // of the LIST section header
	count int
}

// diskLists is an opened list file.
type diskLists struct {
	blob *store.Blob
	rd   *blockfile.Reader // over blob (uncounted reads), for errors and decoding
	dir  []diskDir
	rec  int
}

func (ix *Index) recordBytes() int {
	if ix.cfg.Bits == 0 {
		return 4 * ix.dim
	}
	return ix.codeSize
}

// listLayout returns the offset of every LIST section, the offset after
// the last one and the number of sections before the end marker, for
// lists of the given sizes: the writer follows it, and the directory
// records it.
func listLayout(counts []int, rec int) (offs []int64, total uint64) {
	const framing = blockfile.SectionHeaderSize + blockfile.SectionTrailer
	off := int64(blockfile.HeaderSize) + framing + listHdrSize + framing + int64(len(counts))*12
	total = 2
	offs = make([]int64, len(counts))
	for j, c := range counts {
		if p := blockfile.PadSize(off, listPage); p > 0 {
			off += p
			total++
		}
		offs[j] = off
		off += framing + int64(c)*int64(4+rec)
		total++
	}
	return offs, total
}

// WriteLists writes the posting lists to a new file at path on the
// operating system's files; see [Index.WriteListsFS].
func (ix *Index) WriteLists(path string) error { return ix.WriteListsFS(vfs.Default, path) }

// WriteListsFS writes the posting lists to a new file at path through fsys
// (a vfs.WatermarkFS refuses it on a full disk; an ErrorFS injects
// failures), atomically: a temporary file, fsync, rename, fsync of the
// directory, so a failure leaves a previous file at path intact. The
// output is deterministic. [Index.UseDiskLists] reads the file from the
// operating system's files, so fsys must write there for it to be opened.
func (ix *Index) WriteListsFS(fsys vfs.FS, path string) error {
	if ix.lists == nil {
		return fmt.Errorf("ivf: no lists to write (call Add): %w", engine.ErrEmpty)
	}
	if ix.disk != nil {
		return fmt.Errorf("ivf: lists already live on disk in %s: %w", ix.disk.blob.Path(), engine.ErrInvalidArgument)
	}
	if fsys == nil {
		return fmt.Errorf("ivf: write lists %s: nil file system: %w", path, engine.ErrInvalidArgument)
	}
	rec := ix.recordBytes()
	nl := len(ix.lists)
	counts := make([]int, nl)
	for j := range ix.lists {
		counts[j] = len(ix.lists[j].ids)
	}
	offs, total := listLayout(counts, rec)
	le := binary.LittleEndian
	hdr := make([]byte, 0, listHdrSize)
	for _, v := range []int{nl, ix.dim, ix.cfg.Bits, rec, ix.n, int(total)} {
		hdr = le.AppendUint32(hdr, uint32(v))
	}
	dir := make([]byte, 0, nl*12)
	for j := range offs {
		dir = le.AppendUint64(dir, uint64(offs[j]))
		dir = le.AppendUint32(dir, uint32(counts[j]))
	}
	fail := func(err error) error { return fmt.Errorf("ivf: write lists: %w", err) }
	w, err := blockfile.Create(fsys, path, listMagic, listVersion)
	if err != nil {
		return fail(err)
	}
	defer w.Abort()
	if err := w.Section("IVFH", hdr); err != nil {
		return fail(err)
	}
	if err := w.Section("IDIR", dir); err != nil {
		return fail(err)
	}
	var b []byte
	for j := range ix.lists {
		if err := w.Pad(listPage); err != nil {
			return fail(err)
		}
		if w.Offset() != offs[j] { // the layout and the writer agree by construction
			return fail(fmt.Errorf("internal error: list %d written at offset %d, laid out at %d", j, w.Offset(), offs[j]))
		}
		l := &ix.lists[j]
		b = b[:0]
		for _, id := range l.ids {
			b = le.AppendUint32(b, uint32(id))
		}
		if ix.cfg.Bits == 0 {
			for _, v := range l.vecs {
				b = le.AppendUint32(b, math.Float32bits(v))
			}
		} else {
			b = append(b, l.codes...)
		}
		if err := w.Section("LIST", b); err != nil {
			return fail(err)
		}
	}
	if err := w.Commit(); err != nil {
		return fail(err)
	}
	return nil
}

// blobReader reads a Blob for blockfile without counting (opening the
// file is not a query's I/O: the counters are reset afterwards).
type blobReader struct{ b *store.Blob }

func (r blobReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.b.Size() {
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.b.Size()-off)
	if err := r.b.ReadAt(p[:n], off, nil); err != nil {
		return 0, err
	}
	if int(n) < len(p) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// UseDiskLists opens a list file written by WriteLists for this index and
// releases the resident lists: from then on every probed list is read with
// one counted pread (Stats.ListIO) and verified against its CRC. The file
// is checked against the index (magic, version, shape, directory, end
// marker); an error wraps engine.ErrCorrupt or engine.ErrVersion and names
// the file and offset, or engine.ErrInvalidArgument for a valid file of
// another index. It must not run concurrently with searches; searches
// afterwards are safe together.
func (ix *Index) UseDiskLists(path string, opt store.Options) error {
	return ix.UseDiskListsFS(vfs.Default, path, opt)
}

// UseDiskListsFS is [Index.UseDiskLists] on fsys (store.OpenBlobFS: on a
// non-OS FS the reads have a simulated page cache and device).
func (ix *Index) UseDiskListsFS(fsys vfs.FS, path string, opt store.Options) error {
	if ix.lists == nil {
		return fmt.Errorf("ivf: index has no lists: %w", engine.ErrEmpty)
	}
	b, err := store.OpenBlobFS(fsys, path, opt)
	if err != nil {
		return err
	}
	dl, err := ix.openLists(b)
	if err != nil {
		b.Close()
		return fmt.Errorf("ivf: list file: %w", err)
	}
	b.ResetStats()
	if ix.disk != nil {
		ix.disk.blob.Close()
	}
	ix.disk = dl
	for j := range ix.lists { // the lists now live on disk
		ix.lists[j] = list{}
	}
	return nil
}

func (ix *Index) openLists(b *store.Blob) (*diskLists, error) {
	rd, err := blockfile.NewReaderVersions(b.Path(), blobReader{b}, b.Size(), listMagic, listVersion, listVersion)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	s, err := rd.Expect("IVFH")
	if err != nil {
		return nil, err
	}
	if len(s.Data) != listHdrSize {
		return nil, rd.Corrupt(s, fmt.Sprintf("%d bytes, want %d", len(s.Data), listHdrSize))
	}
	var h [6]int
	for i := range h {
		h[i] = int(le.Uint32(s.Data[4*i:]))
	}
	nl, rec := len(ix.lists), ix.recordBytes()
	if h[0] != nl || h[1] != ix.dim || h[2] != ix.cfg.Bits || h[3] != rec || h[4] != ix.n {
		return nil, fmt.Errorf("ivf: %s was written for another index (nlist %d, dim %d, bits %d, record %d bytes, %d vectors; this index has %d, %d, %d, %d, %d): %w", b.Path(), h[0], h[1], h[2], h[3], h[4], nl, ix.dim, ix.cfg.Bits, rec, ix.n, engine.ErrInvalidArgument)
	}
	if s, err = rd.Expect("IDIR"); err != nil {
		return nil, err
	}
	if len(s.Data) != nl*12 {
		return nil, rd.Corrupt(s, fmt.Sprintf("%d bytes for %d lists, want %d", len(s.Data), nl, nl*12))
	}
	dl := &diskLists{blob: b, rd: rd, dir: make([]diskDir, nl), rec: rec}
	counts := make([]int, nl)
	total := 0
	for j := range dl.dir {
		d := diskDir{off: int64(le.Uint64(s.Data[12*j:])), count: int(le.Uint32(s.Data[12*j+8:]))}
		if ix.lists[j].ids != nil && d.count != len(ix.lists[j].ids) {
			return nil, rd.Corrupt(s, fmt.Sprintf("list %d has %d entries, the index %d", j, d.count, len(ix.lists[j].ids)))
		}
		counts[j] = d.count
		total += d.count
		dl.dir[j] = d
	}
	if total != ix.entries {
		return nil, rd.Corrupt(s, fmt.Sprintf("lists hold %d entries, the index %d", total, ix.entries))
	}
	// The directory must be the layout the writer follows: every list
	// then lies inside the file, between the directory and the end marker.
	offs, sections := listLayout(counts, rec)
	for j, d := range dl.dir {
		if d.off != offs[j] {
			return nil, rd.Corrupt(s, fmt.Sprintf("list %d recorded at offset %d, the layout puts it at %d", j, d.off, offs[j]))
		}
	}
	if h[5] != int(sections) {
		return nil, fmt.Errorf("ivf: %s: IVFH records %d sections, the layout has %d: %w", b.Path(), h[5], sections, engine.ErrCorrupt)
	}
	end := int64(blockfile.HeaderSize)
	if nl > 0 {
		end = offs[nl-1] + blockfile.SectionHeaderSize + blockfile.SectionTrailer + int64(counts[nl-1])*int64(4+rec)
	}
	if b.Size() != end+blockfile.EndSize {
		return nil, fmt.Errorf("ivf: %s: %d bytes, the lists end at offset %d and the end marker then takes %d (truncated or extended): %w", b.Path(), b.Size(), end, blockfile.EndSize, engine.ErrCorrupt)
	}
	if err := rd.CheckEnd(sections); err != nil {
		return nil, err
	}
	return dl, nil
}

// ListFile returns the open list file, or nil when the lists are resident.
func (ix *Index) ListFile() *store.Blob {
	if ix.disk == nil {
		return nil
	}
	return ix.disk.blob
}

// CloseLists closes the list file; the index cannot search afterwards.
func (ix *Index) CloseLists() error {
	if ix.disk == nil {
		return nil
	}
	return ix.disk.blob.Close()
}

// readList reads list j into the searcher's buffers with one counted
// pread of its LIST section and returns it as a list view.
func (ix *Index) readList(s *searcher, j int, st *Stats) (*list, error) {
	d := ix.disk.dir[j]
	payload := d.count * (4 + ix.disk.rec)
	n := blockfile.SectionHeaderSize + payload + blockfile.SectionTrailer
	if cap(s.listBuf) < n {
		s.listBuf = make([]byte, n)
	}
	buf := s.listBuf[:n]
	if err := ix.disk.blob.ReadAt(buf, d.off, &st.ListIO); err != nil {
		return nil, fmt.Errorf("ivf: list %d: %w", j, err)
	}
	sec, err := ix.disk.rd.DecodeSection(buf, d.off, "LIST")
	if err != nil {
		return nil, fmt.Errorf("ivf: list %d: %w", j, err)
	}
	p := sec.Data
	if cap(s.ids) < d.count {
		s.ids = make([]engine.ID, d.count)
	}
	ids := s.ids[:d.count]
	for i := range ids {
		ids[i] = engine.ID(binary.LittleEndian.Uint32(p[4*i:]))
		if int(ids[i]) >= ix.n {
			return nil, fmt.Errorf("ivf: list file %s: list %d at offset %d holds id %d of %d: %w", ix.disk.blob.Path(), j, d.off, ids[i], ix.n, engine.ErrCorrupt)
		}
	}
	p = p[4*d.count:]
	s.view = list{ids: ids}
	if ix.cfg.Bits == 0 {
		m := d.count * ix.dim
		if cap(s.fvec) < m {
			s.fvec = make([]float32, m)
		}
		v := s.fvec[:m]
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
		}
		s.view.vecs = v
	} else {
		s.view.codes = p
	}
	return &s.view, nil
}
