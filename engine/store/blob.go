package store

import (
	"fmt"
	"io"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vfs"
)

// Blob is any file read by counted positioned reads, with the same page
// cache probe, eviction, O_DIRECT and latency model as a vector File (the
// same handle, handle.go). It holds data whose format belongs to its
// caller (engine/ivf's on-disk posting lists); the caller checks its own
// checksums.
type Blob struct {
	handle
}

// OpenBlob opens path for counted reads.
func OpenBlob(path string, opt Options) (*Blob, error) { return OpenBlobFS(vfs.Default, path, opt) }

// OpenBlobFS is [OpenBlob] on fsys, with a simulated page cache and device
// on a non-OS FS as [OpenFS] describes.
func OpenBlobFS(fsys vfs.FS, path string, opt Options) (*Blob, error) {
	b := &Blob{}
	if err := b.openOn(fsys, path, opt, false, nil); err != nil {
		return nil, err
	}
	return b, nil
}

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
	if b.probe {
		res := make([]byte, one.Pages)
		if err := b.mincore(first, last, res); err == nil {
			b.countCached(&one, res)
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
		got, err := b.r.ReadAt(p, off)
		if int64(got) < n {
			return b.readErr(off, got, err)
		}
		one.Bytes = n
	}
	end := time.Now()
	one.ReadTime = end.Sub(start)
	if b.charges(one) {
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
