// Package layering holds the test that keeps veclab's imports pointing down
// the layers of the module (docs/architecture.md, "Map of the tree"):
//
//	cmd/veclab ─┐
//	kernel ─────┼──► lab ──► engine
//	wasm ───────┘
//
// bench/peers (the drivers of the native peers the lab is measured
// against) stands beside lab, and internal/ under everything:
//
//	cmd/veclab ─┐
//	kernel ─────┼──► lab ─────────────────► engine ──► internal
//	wasm ───────┘     └──► bench/peers ───────┘
//
// The rules, checked on every package of the module with `go list`:
//
//   - engine/... depends (transitively, non-test code) on nothing of lab,
//     bench, kernel, wasm or cmd;
//   - lab/... depends on nothing of kernel, wasm or cmd;
//   - bench/... depends on nothing of lab, kernel, wasm or cmd: a peer
//     measured against the lab runs no lab code;
//   - internal/... (internal/checkout, internal/testenv: what every layer
//     may use) depends on no layer above it;
//   - only kernel/... and wasm/... import gomacro (github.com/cosmos72/gomacro);
//   - only kernel/... imports zmq4 (github.com/go-zeromq/zmq4);
//   - tests of engine, lab, bench and internal may use lower layers and
//     their own layer, but never kernel, wasm, cmd, gomacro or zmq4.
//
// internal/depsanchor, which only keeps modules required in go.mod, is
// exempt.
//
// A second test keeps the repository self-contained: no file of the module
// may cite the project's private working notes (the research and
// experiment notes, the architecture, style and interpreter notes, which
// are not in the repository); code and docs cite the primary source
// instead — the paper, the store's source file with its version, or the
// documentation page. A third checks the error convention, `pkg: what:
// %w` (see errors_test.go). The package has no code outside its tests.
package layering
