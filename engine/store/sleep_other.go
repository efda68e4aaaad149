//go:build !(js && wasm)

package store

import "time"

// sleepUntil waits until t (see sleep_js.go for the browser's).
func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}
