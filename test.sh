#!/usr/bin/env bash
# The tests, as a newcomer and CI run them (.ci/run calls exactly this).
#
# 1. Install what the tests drive and is missing — the Debian packages
#    (apt-get install -y, as root) and the pinned npm trees (npm ci) that
#    internal/testenv lists — saying what could not be installed and why.
# 2. The whole suite on this machine's Go, then the packages with
#    concurrent code again under the race detector (the lab's and the
#    command's experiment-sized tests stay out of -race, where they run
#    ten times slower). In that -race pass (VECLAB_TEST_PASS=race) the
#    kernel's tests that drive the veclab binary skip: go build makes it
#    without -race, so they would run the first pass's binary again with
#    no race detector in it (kernel/jupyter_test.go's veclabBinary).
# 3. The other supported Go release (1.26 and 1.27 are supported): the
#    build, and the kernel's and the binding generator's tests, the parts
#    that depend on the Go version (go/types, export data, gomacro). In
#    that pass (VECLAB_TEST_PASS=other-go) the tests of a Jupyter front
#    end in chromium (JupyterLab, the classic Notebook) skip: they check
#    the front end's side, no Go version dependent code; the cells they
#    run are the protocol tests' and nbconvert's, which stay in.
#    A test skipped in a pass runs in the first pass.
#    VECLAB_OTHER_GO=none skips it; VECLAB_OTHER_GO=go1.27.3 names it.
#
# A plain `go test ./...` works too: tests whose external is missing skip
# with one line naming what to install (they fail under CI=true).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

go run ./internal/testenv/setup

# -timeout: the browser and notebook tests of one package outlast go
# test's default 10 minutes on a loaded two-core machine.
go version
go test -timeout 40m ./...
VECLAB_TEST_PASS=race go test -timeout 40m -race ./engine/... ./kernel/...

this=$(go env GOVERSION)
case "$this" in
go1.27*) other=go1.26.8 ;;
*) other=go1.27.3 ;;
esac
other=${VECLAB_OTHER_GO:-$other}
if [ "$other" = none ]; then
	echo "test.sh: VECLAB_OTHER_GO=none: the other Go release is not tested"
	exit 0
fi
if ! GOTOOLCHAIN=$other go version; then
	msg="test.sh: could not fetch the Go toolchain $other from the module proxy (no network?)"
	if [ "${CI:-}" = true ]; then
		echo "$msg" >&2
		exit 1
	fi
	echo "$msg; the other supported release is not tested" >&2
	exit 0
fi
GOTOOLCHAIN=$other go build ./...
GOTOOLCHAIN=$other VECLAB_TEST_PASS=other-go go test -timeout 40m ./kernel/...
