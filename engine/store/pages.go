package store

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// counters are the read counters File and Blob keep, updated atomically so
// concurrent readers can share one file.
type counters struct {
	reads, bytes, pages, cachedPages, cachedReads, readNanos, simNanos, simReads atomic.Int64
}

// count adds one read's (or one batch's) statistics.
func (c *counters) count(s IOStats) {
	c.reads.Add(s.Reads)
	c.bytes.Add(s.Bytes)
	c.pages.Add(s.Pages)
	c.cachedPages.Add(s.CachedPages)
	c.cachedReads.Add(s.CachedReads)
	c.readNanos.Add(int64(s.ReadTime))
	c.simNanos.Add(int64(s.Simulated))
	c.simReads.Add(s.SimReads)
}

// Stats returns the counters accumulated since Open or ResetStats.
func (c *counters) Stats() IOStats {
	return IOStats{Reads: c.reads.Load(), Bytes: c.bytes.Load(), Pages: c.pages.Load(),
		CachedPages: c.cachedPages.Load(), CachedReads: c.cachedReads.Load(),
		ReadTime: time.Duration(c.readNanos.Load()), Simulated: time.Duration(c.simNanos.Load()), SimReads: c.simReads.Load()}
}

// ResetStats zeroes the counters.
func (c *counters) ResetStats() {
	for _, a := range []*atomic.Int64{&c.reads, &c.bytes, &c.pages, &c.cachedPages, &c.cachedReads, &c.readNanos, &c.simNanos, &c.simReads} {
		a.Store(0)
	}
}

// residentPages counts the pages of f (size bytes) in the page cache with
// mincore, through mapped when the file keeps a probe mapping, else through
// a temporary one; it also returns the file's page count.
func residentPages(f *os.File, path string, size int64, mapped []byte) (cached, total int, err error) {
	m := mapped
	if m == nil {
		mm, err := sysMap(f, size)
		if err != nil {
			return 0, 0, fmt.Errorf("store: map %s for mincore: %w", path, err)
		}
		defer sysUnmap(mm)
		m = mm
	}
	total = (len(m) + pageSize - 1) / pageSize
	res := make([]byte, total)
	if err := sysMincore(m, res); err != nil {
		return 0, total, fmt.Errorf("store: mincore %s: %w", path, err)
	}
	for _, r := range res {
		if r&1 != 0 {
			cached++
		}
	}
	return cached, total, nil
}

// evictPages drops f's pages from the page cache: fsync (dirty pages cannot
// be dropped), then posix_fadvise(POSIX_FADV_DONTNEED) over the whole file.
func evictPages(f *os.File, path string) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("store: fsync %s before evicting: %w", path, err)
	}
	if err := sysDropCache(f); err != nil {
		return fmt.Errorf("store: posix_fadvise(DONTNEED) %s: %w", path, err)
	}
	return nil
}

// warmPages reads the whole file sequentially (not counted) so every page
// is in the cache.
func warmPages(f *os.File, path string, size int64) error {
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(buf)) {
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return fmt.Errorf("store: warm %s at offset %d: %w", path, off, err)
		}
	}
	return nil
}
