package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/veclab/veclab/engine"
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

// File is an open vector file. It implements engine.VectorSource.
type File struct {
	path   string
	opt    Options
	f      *os.File // buffered reads, fadvise, fsync
	df     *os.File // O_DIRECT reads when opt.Direct
	h      header
	size   int64
	mapped []byte // read-only shared mapping, for mincore only
	sim    *simulator
	bufs   sync.Pool // *[]byte read buffers

	counters // Stats, ResetStats
	closed   atomic.Bool
}

// Open opens the vector file at path, checking its header and size.
func Open(path string, opt Options) (*File, error) {
	if err := opt.Model.Validate(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: stat %s: %w", path, err)
	}
	h, err := readLayout(path, f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	v := &File{path: path, opt: opt, f: f, h: h, size: st.Size()}
	if !opt.ReadAhead {
		if err := sysAdviseRandom(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("store: posix_fadvise(RANDOM) %s: %w", path, err)
		}
	}
	if opt.Model.Enabled() {
		v.sim = &simulator{m: opt.Model}
	}
	if !opt.NoCacheProbe && st.Size() > 0 {
		m, err := sysMap(f, st.Size())
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("store: map %s for mincore (set Options.NoCacheProbe to skip): %w", path, err)
		}
		v.mapped = m
	}
	if opt.Direct {
		if oDirect < 0 {
			v.Close()
			return nil, fmt.Errorf("store: %s: direct I/O needs Linux: %w", path, engine.ErrInvalidArgument)
		}
		df, err := os.OpenFile(path, os.O_RDONLY|oDirect, 0)
		if err != nil {
			v.Close()
			return nil, fmt.Errorf("store: open %s with O_DIRECT (does the file system support direct I/O?): %w", path, err)
		}
		v.df = df
	}
	span := int(h.rowBytes)
	if opt.Direct {
		span = int(h.rowBytes) + 2*pageSize
	}
	v.bufs.New = func() any { b := alignedBuf(span); return &b }
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

// Path returns the file's path.
func (v *File) Path() string { return v.path }

// Dim returns the vectors' dimension.
func (v *File) Dim() int { return int(v.h.dim) }

// Len returns the number of vectors.
func (v *File) Len() int { return int(v.h.count) }

// Metric returns the metric the vectors were written for (unit-normalised
// under Cosine).
func (v *File) Metric() engine.Metric { return v.h.metric }

// Size returns the file's size on disk in bytes.
func (v *File) Size() int64 { return v.size }

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
func (v *File) ReadVector(dst []float32, id engine.ID, st *IOStats) ([]float32, error) {
	if v.closed.Load() {
		return nil, fmt.Errorf("store: vector file %s: %w", v.path, engine.ErrClosed)
	}
	if len(dst) != int(v.h.dim) {
		return nil, fmt.Errorf("store: destination has %d components, %s holds %d: %w", len(dst), v.path, v.h.dim, engine.ErrDimension)
	}
	if uint64(id) >= v.h.count {
		return nil, fmt.Errorf("store: vector %d in %s, which holds %d: %w", id, v.path, v.h.count, engine.ErrNotFound)
	}
	off := int64(v.h.dataOff) + int64(id)*int64(v.h.rowBytes)
	n := int64(v.h.rowBytes)
	var one IOStats
	one.Reads = 1

	// Probe the page cache over the pages this read will touch.
	first, last := off/pageSize, (off+n-1)/pageSize
	one.Pages = last - first + 1
	if v.mapped != nil {
		var vecb [8]byte
		np := int(one.Pages)
		res := vecb[:0]
		if np <= len(vecb) {
			res = vecb[:np]
		} else {
			res = make([]byte, np)
		}
		if err := sysMincore(v.mapped[first*pageSize:min((last+1)*pageSize, int64(len(v.mapped)))], res); err == nil {
			all := true
			for _, r := range res {
				if r&1 != 0 {
					one.CachedPages++
				} else {
					all = false
				}
			}
			if all && v.df == nil {
				one.CachedReads = 1
			}
		}
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
		got, err := v.f.ReadAt(row, off)
		if int64(got) < n {
			return nil, v.readErr(id, off, got, err)
		}
		one.Bytes = n
	}
	end := time.Now()
	one.ReadTime = end.Sub(start)
	if v.sim != nil {
		one.Simulated = v.sim.wait(start, end, one.Bytes)
		one.SimReads = 1
	}

	dim := int(v.h.dim)
	if got, want := crc32.Checksum(row[:4*dim], castagnoli), binary.LittleEndian.Uint32(row[4*dim:]); got != want {
		return nil, fmt.Errorf("store: %s: vector %d at offset %d: checksum %08x, computed %08x: %w", v.path, id, off, want, got, engine.ErrCorrupt)
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:]))
	}
	v.count(one)
	if st != nil {
		st.Add(one)
	}
	return dst, nil
}

func (v *File) readErr(id engine.ID, off int64, got int, err error) error {
	if err == nil || err == io.EOF {
		return fmt.Errorf("store: %s: vector %d at offset %d: %v (got %d bytes; file truncated?): %w", v.path, id, off, errShort, got, engine.ErrCorrupt)
	}
	return fmt.Errorf("store: %s: read vector %d at offset %d: %w", v.path, id, off, err)
}

// Resident returns how many of the file's pages are in the page cache, and
// how many pages it has.
func (v *File) Resident() (cached, total int, err error) {
	return residentPages(v.f, v.path, v.size, v.mapped)
}

// Evict drops the file's pages from the page cache: fsync (dirty pages
// cannot be dropped), posix_fadvise(POSIX_FADV_DONTNEED) over the whole
// file, then a mincore check. It returns the pages still resident, which
// is zero unless another process holds them (e.g. mapped and locked).
func (v *File) Evict() (stillCached int, err error) {
	if err := evictPages(v.f, v.path); err != nil {
		return 0, err
	}
	c, _, err := v.Resident()
	return c, err
}

// Warm reads the whole file sequentially (not counted) so every page is in
// the cache, and returns the pages resident afterwards.
func (v *File) Warm() (int, error) {
	if err := warmPages(v.f, v.path, v.size); err != nil {
		return 0, err
	}
	c, _, err := v.Resident()
	return c, err
}

// Verify reads every row and checks its checksum, then the rows
// section's own checksum (not counted).
func (v *File) Verify() error {
	if err := v.verifyRowCRCs(); err != nil {
		return err
	}
	if err := verifyRows(v.path, v.f, v.size); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

func (v *File) verifyRowCRCs() error {
	dim := int(v.h.dim)
	row := make([]byte, v.h.rowBytes)
	for id := uint64(0); id < v.h.count; id++ {
		off := int64(v.h.dataOff) + int64(id)*int64(v.h.rowBytes)
		if _, err := v.f.ReadAt(row, off); err != nil {
			return v.readErr(engine.ID(id), off, 0, err)
		}
		if got, want := crc32.Checksum(row[:4*dim], castagnoli), binary.LittleEndian.Uint32(row[4*dim:]); got != want {
			return fmt.Errorf("store: %s: vector %d at offset %d: checksum %08x, computed %08x: %w", v.path, id, off, want, got, engine.ErrCorrupt)
		}
	}
	return nil
}

// Close releases the file. Reads after Close fail with engine.ErrClosed;
// Close must not run concurrently with reads (the probe mapping goes away).
func (v *File) Close() error {
	if v.closed.Swap(true) {
		return nil
	}
	var first error
	if v.mapped != nil {
		if err := sysUnmap(v.mapped); err != nil {
			first = err
		}
		v.mapped = nil
	}
	if v.df != nil {
		if err := v.df.Close(); err != nil && first == nil {
			first = err
		}
	}
	if err := v.f.Close(); err != nil && first == nil {
		first = err
	}
	return first
}
