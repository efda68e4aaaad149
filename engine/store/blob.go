package store

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/veclab/veclab/engine"
)

// Blob is any file read by counted positioned reads, with the same page
// cache probe, eviction, O_DIRECT and latency model as a vector File. It
// holds data whose format belongs to its caller (engine/ivf's on-disk
// posting lists); the caller checks its own checksums.
type Blob struct {
	path   string
	opt    Options
	f, df  *os.File
	size   int64
	mapped []byte
	sim    *simulator

	counters // Stats, ResetStats
	closed   atomic.Bool
}

// OpenBlob opens path for counted reads.
func OpenBlob(path string, opt Options) (*Blob, error) {
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
	b := &Blob{path: path, opt: opt, f: f, size: st.Size()}
	if opt.Model.Enabled() {
		b.sim = &simulator{m: opt.Model}
	}
	if !opt.ReadAhead {
		if err := sysAdviseRandom(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("store: posix_fadvise(RANDOM) %s: %w", path, err)
		}
	}
	if !opt.NoCacheProbe && b.size > 0 {
		if b.mapped, err = sysMap(f, b.size); err != nil {
			f.Close()
			return nil, fmt.Errorf("store: map %s for mincore (set Options.NoCacheProbe to skip): %w", path, err)
		}
	}
	if opt.Direct {
		if oDirect < 0 {
			b.Close()
			return nil, fmt.Errorf("store: %s: direct I/O needs Linux: %w", path, engine.ErrInvalidArgument)
		}
		if b.df, err = os.OpenFile(path, os.O_RDONLY|oDirect, 0); err != nil {
			b.Close()
			return nil, fmt.Errorf("store: open %s with O_DIRECT: %w", path, err)
		}
	}
	return b, nil
}

// Path returns the file's path.
func (b *Blob) Path() string { return b.path }

// Size returns the file's size in bytes.
func (b *Blob) Size() int64 { return b.size }

// ReadAt fills p from offset off with one positioned read, counting it
// into the blob's counters and into st when not nil. A read past the end
// is an error wrapping engine.ErrCorrupt naming the file and offset.
func (b *Blob) ReadAt(p []byte, off int64, st *IOStats) error {
	if b.closed.Load() {
		return fmt.Errorf("store: %s: %w", b.path, engine.ErrClosed)
	}
	n := int64(len(p))
	if off < 0 || off+n > b.size {
		return fmt.Errorf("store: %s: read of %d bytes at offset %d beyond the %d-byte file: %w", b.path, n, off, b.size, engine.ErrCorrupt)
	}
	if n == 0 {
		return nil
	}
	var one IOStats
	one.Reads = 1
	first, last := off/pageSize, (off+n-1)/pageSize
	one.Pages = last - first + 1
	if b.mapped != nil {
		res := make([]byte, one.Pages)
		if err := probePages(b.mapped, first, last, res); err == nil {
			countResident(&one, res, b.df != nil)
		}
	}
	start := time.Now()
	if b.df != nil {
		aoff := off &^ (pageSize - 1)
		aend := (off + n + pageSize - 1) &^ (pageSize - 1)
		buf := alignedBuf(int(aend - aoff))
		got, err := b.df.ReadAt(buf, aoff)
		if int64(got) < off+n-aoff {
			return b.readErr(off, got, err)
		}
		copy(p, buf[off-aoff:])
		one.Bytes = aend - aoff
	} else {
		got, err := b.f.ReadAt(p, off)
		if int64(got) < n {
			return b.readErr(off, got, err)
		}
		one.Bytes = n
	}
	end := time.Now()
	one.ReadTime = end.Sub(start)
	if b.sim != nil {
		one.Simulated = b.sim.wait(start, end, one.Bytes)
		one.SimReads = 1
	}
	b.count(one)
	if st != nil {
		st.Add(one)
	}
	return nil
}

func (b *Blob) readErr(off int64, got int, err error) error {
	if err == nil || err == io.EOF {
		return fmt.Errorf("store: %s: short read at offset %d (got %d bytes; file truncated?): %w", b.path, off, got, engine.ErrCorrupt)
	}
	return fmt.Errorf("store: %s: read at offset %d: %w", b.path, off, err)
}

// Resident returns the pages of the file in the page cache and its page count.
func (b *Blob) Resident() (cached, total int, err error) {
	return residentPages(b.f, b.path, b.size, b.mapped)
}

// Evict drops the file's pages from the page cache (fsync, then
// posix_fadvise DONTNEED) and returns the pages still resident.
func (b *Blob) Evict() (int, error) {
	if err := dropMappedPages(b.f, b.path); err != nil { // a File may have read it mapped
		return 0, err
	}
	if err := evictPages(b.f, b.path); err != nil {
		return 0, err
	}
	c, _, err := b.Resident()
	return c, err
}

// Warm reads the whole file (uncounted) into the page cache and returns
// the pages resident afterwards.
func (b *Blob) Warm() (int, error) {
	if err := warmPages(b.f, b.path, b.size); err != nil {
		return 0, err
	}
	c, _, err := b.Resident()
	return c, err
}

// Close releases the file; it must not run concurrently with reads.
func (b *Blob) Close() error {
	if b.closed.Swap(true) {
		return nil
	}
	var first error
	if b.mapped != nil {
		first = sysUnmap(b.mapped)
		b.mapped = nil
	}
	if b.df != nil {
		if err := b.df.Close(); err != nil && first == nil {
			first = err
		}
	}
	if err := b.f.Close(); err != nil && first == nil {
		first = err
	}
	return first
}
