// Package hook connects the cell-facing display package to whatever
// evaluation core is running cells, without either importing the other.
package hook

import (
	"sync"
	"sync/atomic"
)

// PublishFunc shows a MIME bundle (MIME type → data). A non-empty id makes
// a display that can be updated; update replaces the display with that id.
// A transient display (a progress bar) is shown while its cell runs and
// taken away when the cell ends.
type PublishFunc func(data map[string]any, id string, update, transient bool)

// ClearFunc clears the output shown so far (Jupyter's clear_output); with
// wait the front end clears when the next output arrives.
type ClearFunc func(wait bool)

var (
	mu      sync.RWMutex
	publish PublishFunc
	clearf  ClearFunc
	cell    atomic.Uint64
)

// SetClear installs f as the clearer (nil removes it) and returns the
// previous one.
func SetClear(f ClearFunc) ClearFunc {
	mu.Lock()
	defer mu.Unlock()
	old := clearf
	clearf = f
	return old
}

// GetClear returns the current clearer or nil.
func GetClear() ClearFunc {
	mu.RLock()
	defer mu.RUnlock()
	return clearf
}

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

// StartCell tells displays that a new cell runs (the evaluation core calls
// it as each cell starts): a transient display of an earlier cell has been
// taken away, so its owner shows a new one rather than update it.
func StartCell() { cell.Add(1) }

// Cell returns the number of cells started so far in this process.
func Cell() uint64 { return cell.Load() }
