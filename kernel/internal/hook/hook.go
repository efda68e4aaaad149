// Package hook connects the cell-facing display package to whatever
// evaluation core is running cells, without either importing the other.
package hook

import "sync"

// PublishFunc shows a MIME bundle (MIME type → data). A non-empty id makes
// a display that can be updated; update replaces the display with that id.
type PublishFunc func(data map[string]any, id string, update bool)

var (
	mu      sync.RWMutex
	publish PublishFunc
)

// Set installs f as the publisher (nil removes it) and returns the previous one.
func Set(f PublishFunc) PublishFunc {
	mu.Lock()
	defer mu.Unlock()
	old := publish
	publish = f
	return old
}

// Get returns the current publisher or nil.
func Get() PublishFunc {
	mu.RLock()
	defer mu.RUnlock()
	return publish
}
