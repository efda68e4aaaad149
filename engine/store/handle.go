package store

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/veclab/veclab/engine"
)

// handle is the open file under a [File] and a [Blob]: the one place that
// opens, advises, maps (registered for eviction, see mapreg.go), opens the
// O_DIRECT twin, probes, evicts, warms and closes. File and Blob embed it
// and add only their reads. Before it, the two types each did all of this
// and had drifted (a Blob's mapping was not registered, so evicting a file
// through a File left the pages a Blob's mapping held).
type handle struct {
	path   string
	opt    Options
	f      *os.File // buffered reads, fadvise, fsync
	df     *os.File // O_DIRECT reads when opt.Direct
	size   int64
	mapped []byte // read-only shared mapping: mincore, and reads when mread
	// mread reads buffered rows through mapped instead of pread (no
	// system call per row): set when the owner asked for it, unless
	// Direct, ReadAhead or a failed map.
	mread bool
	probe bool // mincore before reads (mapped and not NoCacheProbe)
	sim   *simulator

	counters // Stats, ResetStats
	closed   atomic.Bool
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
	h.path, h.opt, h.f, h.size = path, opt, f, st.Size()
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

// Path returns the file's path.
func (h *handle) Path() string { return h.path }

// Size returns the file's size on disk in bytes.
func (h *handle) Size() int64 { return h.size }

// mincore probes pages first…last of the file into res.
func (h *handle) mincore(first, last int64, res []byte) error {
	return probePages(h.mapped, first, last, res)
}

// countCached counts the resident pages of one read's probe result.
func (h *handle) countCached(one *IOStats, res []byte) { countResident(one, res, h.df != nil) }

// Resident returns how many of the file's pages are in the page cache, and
// how many pages it has.
func (h *handle) Resident() (cached, total int, err error) {
	return residentPages(h.f, h.path, h.size, h.mapped)
}

// Evict drops the file's pages from the page cache: the page-table
// entries of every mapping of the file in this process (see mapreg.go),
// fsync (dirty pages cannot be dropped), posix_fadvise(POSIX_FADV_DONTNEED)
// over the whole file, then a mincore check. It returns the pages still
// resident, which is zero unless another process holds them (e.g. mapped
// and locked).
func (h *handle) Evict() (stillCached int, err error) {
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
	if err := h.f.Close(); err != nil && first == nil {
		first = err
	}
	return first
}
