package store

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// handle is the open file under a [File] and a [Blob]: the one place that
// opens, advises, maps (registered for eviction, see mapreg.go), opens the
// O_DIRECT twin, probes, evicts, warms and closes. File and Blob embed it
// and add only their reads. Before it, the two types each did all of this
// and had drifted (a Blob's mapping was not registered, so evicting a file
// through a File left the pages a Blob's mapping held).
type handle struct {
	path string
	opt  Options
	r    io.ReaderAt // buffered reads: f, or a file on another FS through its simulated cache
	f    *os.File    // fadvise, fsync, mapping; nil on a non-OS FS
	vf   vfs.File    // the file on a non-OS FS (simcache.go); nil on the OS
	sc   *simCache   // the simulated page cache of a file on a non-OS FS
	// devOnly charges the simulator only for reads the simulated device
	// serves (a non-OS file without a Model: DeviceModel prices them);
	// otherwise a Model charges every read.
	devOnly bool
	df      *os.File // O_DIRECT reads when opt.Direct
	size    int64
	mapped  []byte // read-only shared mapping: mincore, and reads when mread
	// mread reads buffered rows through mapped instead of pread (no
	// system call per row): set when the owner asked for it, unless
	// Direct, ReadAhead or a failed map.
	mread bool
	probe bool // mincore before reads (mapped and not NoCacheProbe)
	sim   *simulator

	counters // Stats, ResetStats
	closed   atomic.Bool
}

// openOn opens path on fsys into h: the OS's files (vfs.Default) by open,
// any other FS by openFS (simcache.go).
func (h *handle) openOn(fsys vfs.FS, path string, opt Options, mapReads bool, check func(r io.ReaderAt, size int64) error) error {
	if fsys == nil || fsys == vfs.Default {
		var c func(f *os.File, size int64) error
		if check != nil {
			c = func(f *os.File, size int64) error { return check(f, size) }
		}
		return h.open(path, opt, mapReads, c)
	}
	return h.openFS(fsys, path, opt, check)
}

// open opens path into h. check, when not nil, validates the file (its
// header and size) before anything else is set up. mapReads asks for the
// mapping to serve buffered reads too (a vector File), not only the
// page-cache probe (a Blob). Whatever fails, everything opened is closed.
func (h *handle) open(path string, opt Options, mapReads bool, check func(f *os.File, size int64) error) error {
	if err := opt.Model.Validate(); err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("store: stat %s: %w", path, err)
	}
	if check != nil {
		if err := check(f, st.Size()); err != nil {
			f.Close()
			return err
		}
	}
	h.path, h.opt, h.f, h.r, h.size = path, opt, f, f, st.Size()
	if !opt.ReadAhead {
		if err := sysAdviseRandom(f); err != nil {
			f.Close()
			return fmt.Errorf("store: posix_fadvise(RANDOM) %s: %w", path, err)
		}
	}
	if opt.Model.Enabled() {
		h.sim = &simulator{m: opt.Model}
	}
	buffered := mapReads && !opt.Direct && !opt.ReadAhead
	if h.size > 0 && (!opt.NoCacheProbe || buffered) {
		m, err := sysMap(f, h.size)
		switch {
		case err == nil:
			if err := registerMapping(f, m); err != nil {
				sysUnmap(m)
				f.Close()
				return fmt.Errorf("store: stat %s: %w", path, err)
			}
			h.mapped = m
			h.mread = buffered
			h.probe = !opt.NoCacheProbe
		case !opt.NoCacheProbe:
			f.Close()
			return fmt.Errorf("store: map %s for mincore (set Options.NoCacheProbe to skip): %w", path, err)
		}
		// Without the probe a failed map only costs speed: rows are
		// read with pread.
	}
	if opt.Direct {
		if oDirect < 0 {
			h.Close()
			return fmt.Errorf("store: %s: direct I/O needs Linux: %w", path, engine.ErrInvalidArgument)
		}
		if h.df, err = os.OpenFile(path, os.O_RDONLY|oDirect, 0); err != nil {
			h.Close()
			return fmt.Errorf("store: open %s with O_DIRECT (does the file system support direct I/O?): %w", path, err)
		}
	}
	return nil
}

// charges reports whether the simulator prices the read one (probed): every
// read under a Model, only a device read (a page not resident) under
// DeviceModel.
func (h *handle) charges(one IOStats) bool {
	return h.sim != nil && (!h.devOnly || one.CachedReads == 0)
}

// Path returns the file's path.
func (h *handle) Path() string { return h.path }

// Size returns the file's size on disk in bytes.
func (h *handle) Size() int64 { return h.size }

// mincore probes pages first…last of the file into res.
func (h *handle) mincore(first, last int64, res []byte) error {
	if h.sc != nil {
		return h.sc.probe(first, last, res)
	}
	return probePages(h.mapped, first, last, res)
}

// countCached counts the resident pages of one read's probe result.
func (h *handle) countCached(one *IOStats, res []byte) { countResident(one, res, h.df != nil) }

// Resident returns how many of the file's pages are in the page cache, and
// how many pages it has.
func (h *handle) Resident() (cached, total int, err error) {
	if h.sc != nil {
		cached, total = h.sc.count()
		return cached, total, nil
	}
	return residentPages(h.f, h.path, h.size, h.mapped)
}

// Evict drops the file's pages from the page cache: the page-table
// entries of every mapping of the file in this process (see mapreg.go),
// fsync (dirty pages cannot be dropped), posix_fadvise(POSIX_FADV_DONTNEED)
// over the whole file, then a mincore check. It returns the pages still
// resident, which is zero unless another process holds them (e.g. mapped
// and locked).
//
// A file on a non-OS FS empties its simulated cache.
func (h *handle) Evict() (stillCached int, err error) {
	if h.sc != nil {
		h.sc.fill(false)
		return 0, nil
	}
	// Pages this process has mapped (read through any File's mapping of
	// this file) are not dropped by POSIX_FADV_DONTNEED: their page-table
	// entries go first (see mapreg.go).
	if err := dropMappedPages(h.f, h.path); err != nil {
		return 0, err
	}
	if err := evictPages(h.f, h.path); err != nil {
		return 0, err
	}
	c, _, err := h.Resident()
	return c, err
}

// Warm reads the whole file sequentially (not counted) so every page is in
// the cache, and returns the pages resident afterwards.
//
// A file read through its mapping also gets the mapping's page-table
// entries filled (madvise(MADV_POPULATE_READ), where the kernel has it):
// the mapping is advised MADV_RANDOM, so without this the first read of
// every page would take a minor fault, about a system call's cost on the
// lab's VM, and a warm file would read at pread's speed until every page
// had been touched once.
func (h *handle) Warm() (int, error) {
	if h.sc != nil {
		h.sc.fill(true)
		c, _ := h.sc.count()
		return c, nil
	}
	if err := warmPages(h.f, h.path, h.size); err != nil {
		return 0, err
	}
	if h.mread {
		_ = sysPopulate(h.mapped) // an old kernel (EINVAL) only costs the first-touch faults
	}
	c, _, err := h.Resident()
	return c, err
}

// Close releases the file. Reads after Close fail with engine.ErrClosed;
// Close must not run concurrently with reads (the probe mapping goes away).
func (h *handle) Close() error {
	if h.closed.Swap(true) {
		return nil
	}
	var first error
	if h.mapped != nil {
		if err := unmap(h.mapped); err != nil {
			first = err
		}
		h.mapped = nil
	}
	if h.df != nil {
		if err := h.df.Close(); err != nil && first == nil {
			first = err
		}
	}
	if h.vf != nil {
		if err := h.vf.Close(); err != nil && first == nil {
			first = err
		}
	} else if err := h.f.Close(); err != nil && first == nil {
		first = err
	}
	return first
}
