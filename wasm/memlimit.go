//go:build js && wasm

package main

import (
	"os"
	"runtime/debug"
)

// codeBase is the lowest address a function has under js/wasm: the Go
// linker numbers functions from funcValueOffset 0x1000 and a function's
// address is its number shifted left 16 bits (cmd/link/internal/wasm,
// asm.go), so every code address lies at or above 256 MB of linear
// memory.
const codeBase = 0x1000 << 16

// heapLimit is the soft memory limit the kernel sets for itself (unless
// GOMEMLIMIT is set): codeBase less the module's data below the heap
// (about 40 MB for veclab.wasm: the first heap objects of a session sit
// near 0x02a00000) and a margin for the allocator's slack.
const heapLimit = codeBase - 64<<20

// keepHeapUnderCode sets the soft memory limit so that the heap's
// addresses stay below the first code address while the session's live
// data allows it. Above it the Go runtime (Go 1.26 and 1.27) can crash
// the program: reflect's Method keeps a method's code address in a
// pointer-typed cell, which gomacro creates for every method of the types
// it imports, and the collector takes that address for a pointer into
// the heap — to a free object, "found pointer to free object"
// (docs/testing.md). Notebook 03 at small scale holds 162 MB live at its
// end and reaches 296 MB of heap on the default GOGC: past codeBase.
// The limit only makes the collector run sooner; a session whose live
// data exceeds it grows past it (and is exposed again).
func keepHeapUnderCode() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(heapLimit)
}
