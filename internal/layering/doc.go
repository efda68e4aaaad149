// Package layering holds the test that keeps veclab's imports pointing down
// the layers of ARCHITECTURE.md:
//
//	cmd/veclab ─┐
//	kernel ─────┼──► lab ──► engine
//	wasm ───────┘
//
// The rules, checked on every package of the module with `go list`:
//
//   - engine/... depends (transitively, non-test code) on nothing of lab,
//     kernel, wasm or cmd;
//   - lab/... depends on nothing of kernel, wasm or cmd;
//   - only kernel/... and wasm/... import gomacro (github.com/cosmos72/gomacro);
//   - only kernel/... imports zmq4 (github.com/go-zeromq/zmq4);
//   - tests of engine and lab may use lower layers and their own layer, but
//     never kernel, wasm, cmd, gomacro or zmq4.
//
// internal/depsanchor, which only keeps modules required in go.mod, is
// exempt. The package has no code outside its test.
package layering
