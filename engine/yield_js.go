//go:build js && wasm

package engine

import "runtime"

// yield lets other goroutines run. js/wasm has one thread and no
// preemption, so the goroutine that watches for an interrupt (the browser
// kernel's, wasm/main.go) runs only when the running one yields; Done
// yields, so a long operation that checks Done between chunks can be
// interrupted there.
func yield() { runtime.Gosched() }
