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
# 3. At the same time as 2's -race pass (each one's output printed whole
#    when it ends), the other supported Go release (1.26 and 1.27): the
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

# The -race pass and the other Go's pass run side by side: the first keeps
# both cores busy (the detector's arithmetic), the second leaves one idle
# half its time (nbconvert runs the notebooks one by one), and neither
# reads what the other writes (go's build cache is safe for concurrent
# use). Each one's output is kept in a file and printed whole when it
# ends, so the log reads as if they had run one after the other.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

race() {
	VECLAB_TEST_PASS=race go test -timeout 40m -race ./engine/... ./kernel/...
}

other_go() {
	local this other
	this=$(go env GOVERSION)
	case "$this" in
	go1.27*) other=go1.26.8 ;;
	*) other=go1.27.3 ;;
	esac
	other=${VECLAB_OTHER_GO:-$other}
	if [ "$other" = none ]; then
		echo "test.sh: VECLAB_OTHER_GO=none: the other Go release is not tested"
		return 0
	fi
	if ! GOTOOLCHAIN=$other go version; then
		local msg="test.sh: could not fetch the Go toolchain $other from the module proxy (no network?)"
		if [ "${CI:-}" = true ]; then
			echo "$msg" >&2
			return 1
		fi
		echo "$msg; the other supported release is not tested" >&2
		return 0
	fi
	GOTOOLCHAIN=$other go build ./... &&
		GOTOOLCHAIN=$other VECLAB_TEST_PASS=other-go go test -timeout 40m ./kernel/...
}

race >"$logs/race" 2>&1 &
race_pid=$!
other_go >"$logs/other-go" 2>&1 &
other_pid=$!
status=0
report() { # pass pid: wait for it, then print its output whole
	local rc=0
	wait "$2" || rc=$?
	echo "=== test.sh: the $1 pass (exit status $rc)"
	cat "$logs/$1"
	if [ "$rc" != 0 ]; then status=$rc; fi
}
report race "$race_pid"
report other-go "$other_pid"
exit "$status"
