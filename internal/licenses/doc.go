// Package licenses writes THIRD_PARTY_LICENSES.md, the list of the
// licences of everything veclab ships or installs that is not its own: the
// Go modules linked into its binaries and the npm packages its
// package-lock.json trees pin. veclab itself is under the Apache License
// 2.0 (the repository's LICENSE).
//
//	go generate ./internal/licenses
//
// rewrites the file, and a test fails when the committed file differs
// from what [Render] produces, so a new dependency cannot land without its
// licence being listed.
//
// # What is listed
//
// Go modules: those `go list -deps` names for the module's packages
// (tests excluded) built for linux/amd64 and for js/wasm (the browser
// build), i.e. the modules actually linked into a binary; a module required
// in go.mod only by tests or tools is not listed. The nested generator
// module engine/internal/asmgen (avo) writes source and links into nothing.
// Each module's licence files (LICENSE, COPYING, LICENSE-*, … at its root,
// read from the module cache) are classified by their text into SPDX
// identifiers (https://spdx.org/licenses/); a text it does not recognise
// is an error naming the file, never a guess.
//
// npm packages: every entry of every package-lock.json in the checkout
// (node_modules aside), with the `license` field the lock file records
// (lockfileVersion 2 and 3, https://docs.npmjs.com/cli/configuring-npm/package-lock-json).
// The lock files are read rather than node_modules, so the list and its
// test need no `npm ci`; an entry whose lock records no licence says so.
//
// # Invariants
//
// The output is deterministic: modules, lock files and packages are
// sorted, and nothing of the machine (paths, the Go version) is written.
package licenses

//go:generate go run gen.go
