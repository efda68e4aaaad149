package store

import (
	"fmt"
	"io"
	"sync"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// A file on an FS other than the operating system's (vfs.NewMem in a
// browser tab, where js/wasm has no files) has no page cache to probe,
// evict or warm, and no device under it. Its handle keeps a simulated
// page cache instead: one bit per 4 KiB page, all resident when the file
// is opened (as the pages of a file just written are), cleared by Evict,
// set by Warm and by every read of the page. The probe reads the bits as
// mincore reads the kernel's, so the counters (CachedPages, CachedReads,
// DeviceReads) mean what they mean on Linux; and a read that touches a
// page not resident is a device read of the simulated device (DeviceModel
// when the Options carry no Model), which waits the model's latency:
// simulated, never measured.

// DeviceModel is the device under a file on a non-OS FS when Options.Model
// is off: its reads of pages not in the simulated page cache wait this
// model's latency. Local NVMe stands for the local disk the native lab
// reads.
var DeviceModel = LocalNVMe

// simCache is the simulated page cache of one file on a non-OS FS.
type simCache struct {
	mu       sync.Mutex
	resident []bool // one per page, guarded by mu
}

func newSimCache(size int64) *simCache {
	c := &simCache{resident: make([]bool, (size+pageSize-1)/pageSize)}
	c.fill(true)
	return c
}

func (c *simCache) fill(v bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.resident {
		c.resident[i] = v
	}
}

// probe writes pages first…last's residency into res (bit 0, as mincore).
func (c *simCache) probe(first, last int64, res []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := first; p <= last; p++ {
		res[p-first] = 0
		if p >= 0 && p < int64(len(c.resident)) && c.resident[p] {
			res[p-first] = 1
		}
	}
	return nil
}

// touch makes the pages of n bytes at off resident.
func (c *simCache) touch(off, n int64) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := off / pageSize; p <= (off+n-1)/pageSize && p < int64(len(c.resident)); p++ {
		c.resident[p] = true
	}
}

// count returns the resident pages and the file's page count.
func (c *simCache) count() (cached, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.resident {
		if r {
			cached++
		}
	}
	return cached, len(c.resident)
}

// cachedReader reads a vfs.File, bringing the pages it reads into the
// simulated cache.
type cachedReader struct {
	f vfs.File
	c *simCache
}

func (r cachedReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.f.ReadAt(p, off)
	r.c.touch(off, int64(n))
	return n, err
}

// openFS opens path on fsys (not the OS) into h.
func (h *handle) openFS(fsys vfs.FS, path string, opt Options, check func(r io.ReaderAt, size int64) error) error {
	if err := opt.Model.Validate(); err != nil {
		return err
	}
	if opt.Direct {
		return fmt.Errorf("store: %s: direct I/O needs a file of the operating system, not one in memory: %w", path, engine.ErrInvalidArgument)
	}
	f, err := fsys.Open(path)
	if err != nil {
		return fmt.Errorf("store: open %s: %w", path, err)
	}
	size, err := f.Size()
	if err != nil {
		f.Close()
		return fmt.Errorf("store: stat %s: %w", path, err)
	}
	if check != nil {
		if err := check(f, size); err != nil {
			f.Close()
			return err
		}
	}
	h.path, h.opt, h.vf, h.size = path, opt, f, size
	h.sc = newSimCache(size)
	h.r = cachedReader{f: f, c: h.sc}
	h.probe = true // the simulated probe costs nothing and decides which reads the device serves
	m := opt.Model
	if !m.Enabled() {
		m = DeviceModel
		h.devOnly = true
	}
	h.sim = &simulator{m: m}
	return nil
}
