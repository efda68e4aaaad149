// Package checkout finds the veclab repository checkout: the directory
// whose go.mod declares module [Module]. It is the one place that walks up
// from a directory looking for it; the commands and lab packages that need
// files of the repository which are not compiled in (the wasm sources that
// `veclab serve` builds, the embedded PostgreSQL's and the sentence
// embedder's npm trees, the native benchmark peers under bench/peers, the
// sources the binding generator reads) ask it, then join their own
// relative path.
//
// # Invariants
//
// A directory counts only when its go.mod's module directive names
// [Module] exactly: a go.mod of another module (a nested one such as the
// avo generator's, or a user's project above the checkout) is walked past.
// Nothing is cached: the answer follows the working directory.
//
// The package imports only the standard library, so every layer may use
// it.
package checkout
