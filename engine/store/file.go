package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// Options choose how a File reads.
type Options struct {
	// Direct reads with O_DIRECT through page-aligned buffers: every read
	// goes to the device and nothing enters the page cache.
	Direct bool
	// Model adds simulated storage latency and an IOPS ceiling; the zero
	// Model is off.
	Model Model
	// ReadAhead keeps the kernel's read-ahead on buffered reads. It is
	// off by default (posix_fadvise(POSIX_FADV_RANDOM)): rescoring reads
	// are random, and read-ahead would pull neighbouring vectors into the
	// cache and make a cold run look warm.
	ReadAhead bool
	// NoCacheProbe skips the mincore probe before each read (one system
	// call fewer); CachedPages and CachedReads then stay zero.
	NoCacheProbe bool
}

// String describes the options as experiments record them.
func (o Options) String() string {
	mode := "buffered"
	if o.Direct {
		mode = "direct"
	} else if o.ReadAhead {
		mode = "buffered+readahead"
	}
	probe := "mincore"
	if o.NoCacheProbe {
		probe = "off"
	}
	return fmt.Sprintf("store{io:%s probe:%s model:%s}", mode, probe, o.Model)
}

// IOStats counts reads. Reads and Bytes are what was requested of the file
// (for O_DIRECT, Bytes is the aligned span actually transferred).
// CachedPages counts touched pages already resident before the read;
// CachedReads counts reads all of whose pages were resident, i.e. reads the
// device never saw. With O_DIRECT every read goes to the device, so
// CachedReads stays zero even when CachedPages (resident but bypassed) is not.
type IOStats struct {
	Reads       int64
	Bytes       int64
	Pages       int64
	CachedPages int64
	CachedReads int64
	ReadTime    time.Duration // wall time of the real reads (pread or O_DIRECT)
	Simulated   time.Duration // latency added by the Model (zero when off)
	// SimReads counts the reads the Model charged a device latency for:
	// every read when a Model is on, whatever the page cache held (the
	// simulated device serves them).
	SimReads int64
}

// Add accumulates o into s.
func (s *IOStats) Add(o IOStats) {
	s.Reads += o.Reads
	s.Bytes += o.Bytes
	s.Pages += o.Pages
	s.CachedPages += o.CachedPages
	s.CachedReads += o.CachedReads
	s.ReadTime += o.ReadTime
	s.Simulated += o.Simulated
	s.SimReads += o.SimReads
}

// CacheHitRatio returns CachedReads/Reads (0 with no reads).
func (s IOStats) CacheHitRatio() float64 {
	if s.Reads == 0 {
		return 0
	}
	return float64(s.CachedReads) / float64(s.Reads)
}

// DeviceReads returns the reads a device served: those that touched at
// least one page not in the cache (an upper bound on the real device's
// reads), or, when a latency Model simulates the device, every read it
// charged (SimReads), whichever is larger.
func (s IOStats) DeviceReads() int64 { return max(s.Reads-s.CachedReads, s.SimReads) }

// String prints the counters.
func (s IOStats) String() string {
	return fmt.Sprintf("reads=%d bytes=%d pages=%d cached_pages=%d cache_hit_reads=%.3f read_time=%v simulated=%v",
		s.Reads, s.Bytes, s.Pages, s.CachedPages, s.CacheHitRatio(), s.ReadTime, s.Simulated)
}

// File is an open vector file. It implements engine.VectorSource. Its
// handle (handle.go) opens, maps, evicts and closes it; File adds the
// header and the reads of rows.
type File struct {
	handle
	h    header
	bufs sync.Pool // *[]byte read buffers
	res  sync.Pool // *[]byte mincore results of ReadVectors
}

// Open opens the vector file at path, checking its header and size.
func Open(path string, opt Options) (*File, error) { return OpenFS(vfs.Default, path, opt) }

// OpenFS is [Open] on fsys. On vfs.Default it is Open; on any other FS (an
// in-memory one in a browser tab) the file has a simulated page cache and
// device (simcache.go): its counters and Evict, Warm and Resident work as
// on Linux, and the reads the device would serve wait [DeviceModel]'s
// latency (or the Options' Model's, for every read), simulated.
// Options.Direct is refused there.
func OpenFS(fsys vfs.FS, path string, opt Options) (*File, error) {
	v := &File{}
	err := v.openOn(fsys, path, opt, true, func(f io.ReaderAt, size int64) error {
		h, err := readLayout(path, f, size)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		v.h = h
		return nil
	})
	if err != nil {
		return nil, err
	}
	span := int(v.h.rowBytes)
	if opt.Direct {
		span = int(v.h.rowBytes) + 2*pageSize
	}
	v.bufs.New = func() any { b := alignedBuf(span); return &b }
	v.res.New = func() any { b := make([]byte, 0, maxProbePages); return &b }
	return v, nil
}

// alignedBuf returns a page-aligned slice of n bytes.
func alignedBuf(n int) []byte {
	raw := make([]byte, n+pageSize)
	off := int(uintptr(unsafe.Pointer(&raw[0])) & (pageSize - 1))
	if off != 0 {
		off = pageSize - off
	}
	return raw[off : off+n : off+n]
}

// Dim returns the vectors' dimension.
func (v *File) Dim() int { return int(v.h.dim) }

// Len returns the number of vectors.
func (v *File) Len() int { return int(v.h.count) }

// Metric returns the metric the vectors were written for (unit-normalised
// under Cosine).
func (v *File) Metric() engine.Metric { return v.h.metric }

// BytesPerVector returns the on-disk bytes per vector, header amortised.
func (v *File) BytesPerVector() float64 {
	if v.h.count == 0 {
		return 0
	}
	return float64(v.size) / float64(v.h.count)
}

// Options returns the options the file was opened with.
func (v *File) Options() Options { return v.opt }

// Vector copies vector id into dst (which must have Dim components) with
// one positioned read, and counts it.
func (v *File) Vector(dst []float32, id engine.ID) ([]float32, error) {
	return v.ReadVector(dst, id, nil)
}

// ReadVector is Vector that also adds this read's counts to st (if not
// nil), so a caller can attribute reads to one query while others run.
//
// A buffered file (neither Direct nor ReadAhead) reads a row the probe
// found resident through its read-only mapping rather than by pread: the
// same bytes and the same counts, without a system call per row (a pread
// costs ~2.5 µs on the lab's VM against ~0.2 µs to copy a row from a
// mapped page; BenchmarkReadVectorParts). A row not resident is read by
// pread: a page fault on the mapping costs several times a pread's device
// read there (bench ivf's cold rescoring: 26.6 against 4.2 ms a query).
// Without the probe (NoCacheProbe) every row is read through the mapping,
// which suits a warm file. Faults on the mapping are reported as errors,
// not crashes (runtime/debug.SetPanicOnFault).
func (v *File) ReadVector(dst []float32, id engine.ID, st *IOStats) ([]float32, error) {
	if err := v.checkRead(len(dst), 1); err != nil {
		return nil, err
	}
	if err := v.checkID(id); err != nil {
		return nil, err
	}
	off := v.rowOff(id)
	n := int64(v.h.rowBytes)
	var one IOStats
	one.Reads = 1

	// Probe the page cache over the pages this read will touch.
	first, last := off/pageSize, (off+n-1)/pageSize
	one.Pages = last - first + 1
	if v.probe {
		var vecb [8]byte
		res := vecb[:0]
		if np := int(one.Pages); np <= len(vecb) {
			res = vecb[:np]
		} else {
			res = make([]byte, np)
		}
		if err := v.mincore(first, last, res); err == nil {
			v.countCached(&one, res)
		}
	}

	// A row the probe found resident is copied from the mapping; one
	// that is not is read by pread (see ReadVectors).
	if v.mread && (!v.probe || one.CachedReads == 1) {
		start := time.Now()
		one1 := [1]engine.ID{id}
		err := v.mappedRows(dst, one1[:])
		end := time.Now()
		if err != nil {
			return nil, err
		}
		one.Bytes = n
		one.ReadTime = end.Sub(start)
		if v.charges(one) {
			one.Simulated = v.sim.wait(start, end, one.Bytes)
			one.SimReads = 1
		}
		v.count(one)
		if st != nil {
			st.Add(one)
		}
		return dst, nil
	}

	bp := v.bufs.Get().(*[]byte)
	defer v.bufs.Put(bp)
	buf := *bp
	start := time.Now()
	var row []byte
	if v.df != nil {
		aoff := off &^ (pageSize - 1)
		aend := (off + n + pageSize - 1) &^ (pageSize - 1)
		span := buf[:aend-aoff]
		got, err := v.df.ReadAt(span, aoff)
		if int64(got) < off+n-aoff {
			return nil, v.readErr(id, off, got, err)
		}
		row = span[off-aoff : off-aoff+n]
		one.Bytes = aend - aoff
	} else {
		row = buf[:n]
		got, err := v.r.ReadAt(row, off)
		if int64(got) < n {
			return nil, v.readErr(id, off, got, err)
		}
		one.Bytes = n
	}
	end := time.Now()
	one.ReadTime = end.Sub(start)
	if v.charges(one) {
		one.Simulated = v.sim.wait(start, end, one.Bytes)
		one.SimReads = 1
	}
	if err := v.decodeRow(dst, id, off, row); err != nil {
		return nil, err
	}
	v.count(one)
	if st != nil {
		st.Add(one)
	}
	return dst, nil
}

// ReadVectors reads the vectors ids into dst, vector ids[i] into
// dst[i·Dim : (i+1)·Dim], and adds the reads' counts to st (if not nil).
// Every vector is still one read of one row (Reads, Bytes and Pages are
// those of len(ids) ReadVector calls); what a batch saves is per-read
// work. On a buffered, mapped file without a latency Model the resident
// rows are copied from the mapping (the others read by pread, as
// ReadVector does), the page-cache probe is one mincore call per
// cluster of nearby rows (rows at most probeGap pages apart, ids in
// ascending order) instead of one per row, and the counters are updated
// once. A page counts as cached when it was resident before the batch or
// an earlier read of the batch touched it, which is what a ReadVector per
// id, in order, would have counted. Otherwise (O_DIRECT, read-ahead, a
// Model charging each read its latency) it is ReadVector per id. Ids in
// ascending order probe fastest; any order is correct. Nothing is counted
// when it fails.
func (v *File) ReadVectors(dst []float32, ids []engine.ID, st *IOStats) error {
	if err := v.checkRead(len(dst), len(ids)); err != nil {
		return err
	}
	for _, id := range ids {
		if err := v.checkID(id); err != nil {
			return err
		}
	}
	dim := int(v.h.dim)
	if !v.mread || v.sim != nil || int64(v.h.rowBytes) > maxProbePages/2*pageSize {
		var all IOStats
		for i, id := range ids {
			if _, err := v.ReadVector(dst[i*dim:(i+1)*dim], id, &all); err != nil {
				return err
			}
		}
		if st != nil {
			st.Add(all)
		}
		return nil
	}
	n := int64(v.h.rowBytes)
	var all IOStats
	all.Reads = int64(len(ids))
	all.Bytes = all.Reads * n
	for _, id := range ids {
		f, l := v.rowPages(id)
		all.Pages += l - f + 1
	}
	var coldBuf [64]bool
	cold := coldBuf[:0]
	if len(ids) <= len(coldBuf) {
		cold = coldBuf[:len(ids)]
	} else {
		cold = make([]bool, len(ids))
	}
	if v.probe {
		v.probeBatch(&all, ids, cold)
	}
	start := time.Now()
	var err error
	if !v.probe || all.CachedReads == all.Reads {
		err = v.mappedRows(dst, ids)
	} else {
		for i, id := range ids {
			d := dst[i*dim : (i+1)*dim]
			if cold[i] {
				err = v.preadRow(d, id)
			} else {
				err = v.mappedRows(d, ids[i:i+1])
			}
			if err != nil {
				break
			}
		}
	}
	all.ReadTime = time.Since(start)
	if err != nil {
		return err
	}
	v.count(all)
	if st != nil {
		st.Add(all)
	}
	return nil
}

// maxProbePages bounds the span of one mincore call of ReadVectors (and
// its result buffer).
const maxProbePages = 4096

// probeGap is the widest run of pages between two rows of a batch that one
// mincore call still spans rather than making a second call: on the lab's
// VM a system call costs ~2.5 µs and mincore ~25 ns a page
// (BenchmarkReadVectorParts), so spanning 64 pages is the cheaper choice.
const probeGap = 64

// probeBatch adds the cached pages and reads of the rows ids to all,
// probing clusters of nearby rows with one mincore call each, and sets
// cold[i] when read i is not served by the page cache alone (or was not
// probed).
func (v *File) probeBatch(all *IOStats, ids []engine.ID, cold []bool) {
	for i := range cold {
		cold[i] = true
	}
	if !slices.IsSorted(ids) {
		v.probeUnsorted(all, ids, cold)
		return
	}
	rp := v.res.Get().(*[]byte)
	defer v.res.Put(rp)
	v.probeSorted(ids, *rp, func(i int, first int64, res []byte) {
		var one IOStats
		v.countCached(&one, res)
		all.CachedPages += one.CachedPages
		all.CachedReads += one.CachedReads
		cold[i] = one.CachedReads == 0
		for i := range res {
			res[i] |= 1 // this read brings the page in for the next
		}
	})
}

// probeSorted walks ascending ids in clusters of rows at most probeGap
// pages apart, probes each cluster with one mincore call into buf, and
// calls row with each id, its first page and its pages' results (a view
// of the cluster's). Rows of one cluster may share pages; rows of two
// clusters never do. A failed probe skips its rows.
func (v *File) probeSorted(ids []engine.ID, buf []byte, row func(i int, first int64, res []byte)) {
	for i := 0; i < len(ids); {
		gfirst, glast := v.rowPages(ids[i])
		j := i + 1
		for ; j < len(ids); j++ {
			f, l := v.rowPages(ids[j])
			if f > glast+probeGap || l-gfirst >= maxProbePages {
				break
			}
			glast = max(glast, l)
		}
		res := buf[:glast-gfirst+1]
		if err := v.mincore(gfirst, glast, res); err == nil {
			for t, id := range ids[i:j] {
				f, l := v.rowPages(id)
				row(i+t, f, res[f-gfirst:l-gfirst+1])
			}
		}
		i = j
	}
}

// probeUnsorted is probeBatch for ids in any order: the pages are probed
// in ascending order, then counted in the reads' order.
func (v *File) probeUnsorted(all *IOStats, ids []engine.ID, cold []bool) {
	rp := v.res.Get().(*[]byte)
	defer v.res.Put(rp)
	resident := map[int64]bool{}
	v.probeSorted(slices.Sorted(slices.Values(ids)), *rp, func(_ int, first int64, res []byte) {
		for i, r := range res {
			resident[first+int64(i)] = r&1 != 0
		}
	})
	for i, id := range ids {
		f, l := v.rowPages(id)
		var one IOStats
		res := make([]byte, l-f+1)
		probed := true
		for p := f; p <= l; p++ {
			r, ok := resident[p]
			probed = probed && ok
			if r {
				res[p-f] = 1
			}
			resident[p] = true // this read brings the page in
		}
		if probed {
			v.countCached(&one, res)
			cold[i] = one.CachedReads == 0
		}
		all.CachedPages += one.CachedPages
		all.CachedReads += one.CachedReads
	}
}

// rowPages returns the first and last page row id occupies.
func (v *File) rowPages(id engine.ID) (int64, int64) {
	off := v.rowOff(id)
	return off / pageSize, (off + int64(v.h.rowBytes) - 1) / pageSize
}

// probePages probes pages first…last of a mapping into res (one byte per
// page, bit 0 set when the page is resident), as mincore(2) does.
func probePages(mapped []byte, first, last int64, res []byte) error {
	return sysMincore(mapped[first*pageSize:min((last+1)*pageSize, int64(len(mapped)))], res)
}

// countResident adds one read's probe result to one: its resident pages,
// and the read as served by the page cache when every page was resident
// and the file is not read with O_DIRECT (direct), which bypasses the
// cache whatever it holds.
func countResident(one *IOStats, res []byte, direct bool) {
	all := true
	for _, r := range res {
		if r&1 != 0 {
			one.CachedPages++
		} else {
			all = false
		}
	}
	if all && !direct {
		one.CachedReads = 1
	}
}

// preadRow reads row id with pread and decodes it into dst.
func (v *File) preadRow(dst []float32, id engine.ID) error {
	bp := v.bufs.Get().(*[]byte)
	defer v.bufs.Put(bp)
	off, n := v.rowOff(id), int64(v.h.rowBytes)
	row := (*bp)[:n]
	if got, err := v.r.ReadAt(row, off); int64(got) < n {
		return v.readErr(id, off, got, err)
	}
	return v.decodeRow(dst, id, off, row)
}

// mappedRows decodes rows ids from the mapping into dst. A fault on the
// mapping (the file truncated under it, an I/O error on a page) is
// returned as an error rather than crashing the process.
func (v *File) mappedRows(dst []float32, ids []engine.ID) (err error) {
	dim := int(v.h.dim)
	n := int64(v.h.rowBytes)
	cur := -1
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r) // not a memory fault: a bug, not an I/O error
			}
			id := ids[max(cur, 0)]
			err = fmt.Errorf("store: %s: vector %d at offset %d: fault reading the mapped file (truncated, or a device error?): %v: %w",
				v.path, id, v.rowOff(id), r, engine.ErrCorrupt)
		}
	}()
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	for i, id := range ids {
		cur = i
		off := v.rowOff(id)
		if err := v.decodeRow(dst[i*dim:(i+1)*dim], id, off, v.mapped[off:off+n]); err != nil {
			return err
		}
	}
	return nil
}

// decodeRow checks row's checksum and decodes its components into dst.
func (v *File) decodeRow(dst []float32, id engine.ID, off int64, row []byte) error {
	dim := int(v.h.dim)
	if got, want := crc32.Checksum(row[:4*dim], castagnoli), binary.LittleEndian.Uint32(row[4*dim:]); got != want {
		return fmt.Errorf("store: %s: vector %d at offset %d: checksum %08x, computed %08x: %w", v.path, id, off, want, got, engine.ErrCorrupt)
	}
	if littleEndian {
		// The row's float32s are stored little-endian, as this machine
		// keeps them: copy them as they are.
		copy(dst, unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(row))), dim))
		return nil
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:]))
	}
	return nil
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// checkRead checks that the file is open and that dst (length n) has room
// for count vectors.
func (v *File) checkRead(n, count int) error {
	if v.closed.Load() {
		return fmt.Errorf("store: vector file %s: %w", v.path, engine.ErrClosed)
	}
	if n != count*int(v.h.dim) {
		if count == 1 {
			return fmt.Errorf("store: destination has %d components, %s holds %d: %w", n, v.path, v.h.dim, engine.ErrDimension)
		}
		return fmt.Errorf("store: destination has %d components for %d vectors of %d in %s: %w", n, count, v.h.dim, v.path, engine.ErrDimension)
	}
	return nil
}

func (v *File) checkID(id engine.ID) error {
	if uint64(id) >= v.h.count {
		return fmt.Errorf("store: vector %d in %s, which holds %d: %w", id, v.path, v.h.count, engine.ErrNotFound)
	}
	return nil
}

func (v *File) rowOff(id engine.ID) int64 {
	return int64(v.h.dataOff) + int64(id)*int64(v.h.rowBytes)
}

func (v *File) readErr(id engine.ID, off int64, got int, err error) error {
	if err == nil || err == io.EOF {
		return fmt.Errorf("store: %s: vector %d at offset %d: %v (got %d bytes; file truncated?): %w", v.path, id, off, errShort, got, engine.ErrCorrupt)
	}
	return fmt.Errorf("store: %s: read vector %d at offset %d: %w", v.path, id, off, err)
}

// Verify reads every row and checks its checksum, then the rows
// section's own checksum (not counted).
func (v *File) Verify() error {
	if err := v.verifyRowCRCs(); err != nil {
		return err
	}
	if err := verifyRows(v.path, v.r, v.size); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

func (v *File) verifyRowCRCs() error {
	dim := int(v.h.dim)
	row := make([]byte, v.h.rowBytes)
	for id := uint64(0); id < v.h.count; id++ {
		off := int64(v.h.dataOff) + int64(id)*int64(v.h.rowBytes)
		if _, err := v.r.ReadAt(row, off); err != nil {
			return v.readErr(engine.ID(id), off, 0, err)
		}
		if got, want := crc32.Checksum(row[:4*dim], castagnoli), binary.LittleEndian.Uint32(row[4*dim:]); got != want {
			return fmt.Errorf("store: %s: vector %d at offset %d: checksum %08x, computed %08x: %w", v.path, id, off, want, got, engine.ErrCorrupt)
		}
	}
	return nil
}
