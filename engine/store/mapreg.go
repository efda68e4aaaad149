package store

import (
	"fmt"
	"os"
	"sync"
)

// Reads through a mapping leave the pages in this process's page tables,
// and POSIX_FADV_DONTNEED does not drop a page that is mapped. So that
// evicting a file empties the cache whichever File of this process read
// it (a bench keeps a warm, a cold and a direct File open on one path),
// every live mapping is registered here, and Evict first drops the
// page-table entries of every mapping of the same file
// (madvise(MADV_DONTNEED), which leaves the page cache alone).
//
// The registry's lock also orders an unmap in Close against that madvise,
// so a range is never advised after it was unmapped (and perhaps reused).
var mappings struct {
	mu   sync.Mutex // guards live and every unmap of a registered mapping
	live []mapping
}

type mapping struct {
	info os.FileInfo
	m    []byte
}

// registerMapping records mapping m of the file f.
func registerMapping(f *os.File, m []byte) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	mappings.mu.Lock()
	mappings.live = append(mappings.live, mapping{info, m})
	mappings.mu.Unlock()
	return nil
}

// unmap unregisters and unmaps m.
func unmap(m []byte) error {
	mappings.mu.Lock()
	defer mappings.mu.Unlock()
	for i, x := range mappings.live {
		if len(x.m) > 0 && &x.m[0] == &m[0] {
			mappings.live = append(mappings.live[:i], mappings.live[i+1:]...)
			break
		}
	}
	return sysUnmap(m)
}

// dropMappedPages drops the page-table entries of every registered
// mapping of the file f.
func dropMappedPages(f *os.File, path string) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("store: stat %s: %w", path, err)
	}
	mappings.mu.Lock()
	defer mappings.mu.Unlock()
	for _, x := range mappings.live {
		if os.SameFile(x.info, info) {
			if err := sysUnmapPages(x.m); err != nil {
				return fmt.Errorf("store: madvise(DONTNEED) %s: %w", path, err)
			}
		}
	}
	return nil
}
