//go:build !(js && wasm)

package engine

// yield is a no-op where goroutines are preempted (see yield_js.go).
func yield() {}
