package ivf

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/store"
)

// On-disk posting lists (the regime of E27: the index itself no longer
// fits in RAM, so a probed list is read from disk, one pread per list).
//
// List file format, little-endian; part of the file format, never change
// without bumping listVersion:
//
//	offset  size  field
//	     0     8  magic "VLABIVFL"
//	     8     4  version (1)
//	    12     4  nlist
//	    16     4  dim
//	    20     4  bits (0 = float32 records)
//	    24     4  record bytes (OSQ code size, or 4·dim)
//	    28     4  vectors indexed
//	    32     8  directory offset (4096)
//	    40     4  CRC-32C of bytes 0…39
//	  4096        directory: nlist × {offset u64, count u32, CRC-32C u32},
//	              then the CRC-32C of the directory
//	   ...        lists, each starting on a 4096-byte boundary: count ids
//	              (u32), then count records; the directory CRC covers both
const (
	listMagic   = "VLABIVFL"
	listVersion = 1
	listPage    = 4096
)

var listCRC = crc32.MakeTable(crc32.Castagnoli)

type diskDir struct {
	off   int64
	count int
	crc   uint32
}

// diskLists is an opened list file.
type diskLists struct {
	blob *store.Blob
	dir  []diskDir
	rec  int
}

func (ix *Index) recordBytes() int {
	if ix.cfg.Bits == 0 {
		return 4 * ix.dim
	}
	return ix.codeSize
}

// WriteLists writes the posting lists to a new file at path (atomically:
// temporary file, fsync, rename).
func (ix *Index) WriteLists(path string) error {
	if ix.lists == nil {
		return fmt.Errorf("%w: ivf: no lists to write (call Add)", engine.ErrEmpty)
	}
	if ix.lists[0].ids == nil && ix.disk != nil {
		return fmt.Errorf("%w: ivf: lists already live on disk in %s", engine.ErrInvalidArgument, ix.disk.blob.Path())
	}
	rec := ix.recordBytes()
	nl := len(ix.lists)
	dirBytes := nl*16 + 4
	off := int64(listPage + (dirBytes+listPage-1)/listPage*listPage)
	dir := make([]diskDir, nl)
	var regions [][]byte
	for j := range ix.lists {
		l := &ix.lists[j]
		b := make([]byte, len(l.ids)*(4+rec))
		for i, id := range l.ids {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(id))
		}
		p := b[4*len(l.ids):]
		if ix.cfg.Bits == 0 {
			for i, v := range l.vecs {
				binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(v))
			}
		} else {
			copy(p, l.codes)
		}
		dir[j] = diskDir{off: off, count: len(l.ids), crc: crc32.Checksum(b, listCRC)}
		regions = append(regions, b)
		off += int64((len(b) + listPage - 1) / listPage * listPage)
	}
	hdr := make([]byte, listPage)
	copy(hdr, listMagic)
	binary.LittleEndian.PutUint32(hdr[8:], listVersion)
	binary.LittleEndian.PutUint32(hdr[12:], uint32(nl))
	binary.LittleEndian.PutUint32(hdr[16:], uint32(ix.dim))
	binary.LittleEndian.PutUint32(hdr[20:], uint32(ix.cfg.Bits))
	binary.LittleEndian.PutUint32(hdr[24:], uint32(rec))
	binary.LittleEndian.PutUint32(hdr[28:], uint32(ix.n))
	binary.LittleEndian.PutUint64(hdr[32:], listPage)
	binary.LittleEndian.PutUint32(hdr[40:], crc32.Checksum(hdr[:40], listCRC))
	db := make([]byte, (dirBytes+listPage-1)/listPage*listPage)
	for j, d := range dir {
		binary.LittleEndian.PutUint64(db[16*j:], uint64(d.off))
		binary.LittleEndian.PutUint32(db[16*j+8:], uint32(d.count))
		binary.LittleEndian.PutUint32(db[16*j+12:], d.crc)
	}
	binary.LittleEndian.PutUint32(db[nl*16:], crc32.Checksum(db[:nl*16], listCRC))

	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("ivf: write lists %s: %w", path, err)
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("ivf: write lists %s: %w", path, err)
	}
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return fail(err)
	}
	if _, err := f.WriteAt(db, listPage); err != nil {
		return fail(err)
	}
	for j, b := range regions {
		pad := (len(b) + listPage - 1) / listPage * listPage
		if _, err := f.WriteAt(append(b, make([]byte, pad-len(b))...), dir[j].off); err != nil {
			return fail(err)
		}
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("ivf: write lists %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("ivf: write lists %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// UseDiskLists opens a list file written by WriteLists for this index and
// releases the resident lists: from then on every probed list is read with
// one counted pread (Stats.ListIO). The file is checked against the index
// (magic, version, shape, checksums of header and directory). It must not
// run concurrently with searches; searches afterwards are safe together.
func (ix *Index) UseDiskLists(path string, opt store.Options) error {
	if ix.lists == nil {
		return fmt.Errorf("%w: ivf: index has no lists", engine.ErrEmpty)
	}
	b, err := store.OpenBlob(path, opt)
	if err != nil {
		return err
	}
	fail := func(format string, args ...any) error {
		b.Close()
		return fmt.Errorf("%w: ivf: list file %s: "+format, append([]any{engine.ErrCorrupt, path}, args...)...)
	}
	hdr := make([]byte, 44)
	if err := b.ReadAt(hdr, 0, nil); err != nil {
		b.Close()
		return err
	}
	if string(hdr[:8]) != listMagic {
		return fail("offset 0: bad magic %q", hdr[:8])
	}
	if v := binary.LittleEndian.Uint32(hdr[8:]); v != listVersion {
		b.Close()
		return fmt.Errorf("%w: ivf: list file %s: offset 8: version %d, this build reads %d", engine.ErrVersion, path, v, listVersion)
	}
	if got, want := crc32.Checksum(hdr[:40], listCRC), binary.LittleEndian.Uint32(hdr[40:]); got != want {
		return fail("offset 40: header checksum %08x, computed %08x", want, got)
	}
	nl, rec := len(ix.lists), ix.recordBytes()
	if int(binary.LittleEndian.Uint32(hdr[12:])) != nl || int(binary.LittleEndian.Uint32(hdr[16:])) != ix.dim ||
		int(binary.LittleEndian.Uint32(hdr[20:])) != ix.cfg.Bits || int(binary.LittleEndian.Uint32(hdr[24:])) != rec ||
		int(binary.LittleEndian.Uint32(hdr[28:])) != ix.n {
		b.Close()
		return fmt.Errorf("%w: ivf: list file %s was written for another index (nlist/dim/bits/record/n differ)", engine.ErrInvalidArgument, path)
	}
	db := make([]byte, nl*16+4)
	if err := b.ReadAt(db, listPage, nil); err != nil {
		b.Close()
		return err
	}
	if got, want := crc32.Checksum(db[:nl*16], listCRC), binary.LittleEndian.Uint32(db[nl*16:]); got != want {
		return fail("offset %d: directory checksum %08x, computed %08x", listPage, want, got)
	}
	dl := &diskLists{blob: b, dir: make([]diskDir, nl), rec: rec}
	for j := range dl.dir {
		d := diskDir{off: int64(binary.LittleEndian.Uint64(db[16*j:])), count: int(binary.LittleEndian.Uint32(db[16*j+8:])),
			crc: binary.LittleEndian.Uint32(db[16*j+12:])}
		if d.count != len(ix.lists[j].ids) && ix.lists[j].ids != nil {
			return fail("offset %d: list %d has %d entries, index has %d", listPage+16*j, j, d.count, len(ix.lists[j].ids))
		}
		if d.off < listPage || d.off+int64(d.count*(4+rec)) > b.Size() {
			return fail("offset %d: list %d at %d (%d entries) lies outside the %d-byte file", listPage+16*j, j, d.off, d.count, b.Size())
		}
		dl.dir[j] = d
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

// readList reads list j into the searcher's buffers and returns it as a
// list view.
func (ix *Index) readList(s *searcher, j int, st *Stats) (*list, error) {
	d := ix.disk.dir[j]
	n := d.count * (4 + ix.disk.rec)
	if cap(s.listBuf) < n {
		s.listBuf = make([]byte, n)
	}
	buf := s.listBuf[:n]
	if err := ix.disk.blob.ReadAt(buf, d.off, &st.ListIO); err != nil {
		return nil, fmt.Errorf("ivf: list %d: %w", j, err)
	}
	if got := crc32.Checksum(buf, listCRC); got != d.crc {
		return nil, fmt.Errorf("%w: ivf: list file %s: list %d at offset %d: checksum %08x, computed %08x", engine.ErrCorrupt, ix.disk.blob.Path(), j, d.off, d.crc, got)
	}
	if cap(s.ids) < d.count {
		s.ids = make([]engine.ID, d.count)
	}
	ids := s.ids[:d.count]
	for i := range ids {
		ids[i] = engine.ID(binary.LittleEndian.Uint32(buf[4*i:]))
		if int(ids[i]) >= ix.n {
			return nil, fmt.Errorf("%w: ivf: list file %s: list %d holds id %d of %d", engine.ErrCorrupt, ix.disk.blob.Path(), j, ids[i], ix.n)
		}
	}
	p := buf[4*d.count:]
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
