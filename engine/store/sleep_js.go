//go:build js && wasm

package store

import (
	"runtime"
	"time"
)

// sleepUntil waits until t. A browser's timers fire no sooner than a
// millisecond (4 ms once nested), so time.Sleep would stretch every
// simulated read of tens of microseconds to milliseconds; the simulated
// device's wait yields to the other goroutines until t instead (js/wasm
// has one thread: concurrent readers still overlap their waits).
func sleepUntil(t time.Time) {
	for time.Now().Before(t) {
		runtime.Gosched()
	}
}
