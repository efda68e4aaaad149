// Package testenv is the one list of the externals veclab's tests drive —
// programs, headers, Python modules and pinned npm trees that do not come
// with Go — with, for each, how to detect it and which Debian or npm
// package provides it. It is in the spirit of Go's own internal/testenv.
//
// A test that drives an external asks for it first:
//
//	testenv.Need(t, testenv.Hnswlib, testenv.CXX)
//
// When one is missing, outside CI the test is skipped with one line naming
// what to install ("needs libhnswlib-dev: apt-get install -y
// libhnswlib-dev"); under CI=true it fails with the same line, so CI can
// never pass by skipping. The installer, `go run ./internal/testenv/setup`
// (which ./test.sh runs before the tests), reads the same list: it installs
// the missing Debian packages with apt-get when it runs as root and the
// missing npm trees with `npm ci`, and says plainly what it could not
// install and why.
//
// # Keeping the list, the tests and CI together
//
// The package's own tests fail when
//   - a test file runs a program by a literal name or path other than
//     "go", "sh" and "bash" (exec.Command("node", …)), or declares a
//     constant holding such a path ("/usr/bin/python3"): the program must
//     come from this list (testenv.Node.Path(), testenv.Python);
//   - an external has no provider, names an npm package that its
//     directory's package-lock.json does not pin, or requires an external
//     that is not in [All];
//   - .ci/run does not run ./test.sh, or ./test.sh does not run the
//     installer.
//
// The installer installs exactly what [All] names, so nothing the list
// names can be left out of CI's installs.
package testenv
