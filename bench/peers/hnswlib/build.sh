#!/usr/bin/env bash
# Builds the hnswlib anchor harness against Debian's libhnswlib-dev headers.
# Usage: bench/peers/hnswlib/build.sh [OUTPUT]   (default: ./hnswlib_bench next to this script)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/hnswlib_bench}"
if [ ! -f /usr/include/hnswlib/hnswlib.h ]; then
	echo "build.sh: /usr/include/hnswlib/hnswlib.h not found; install Debian's libhnswlib-dev" >&2
	exit 1
fi
exec g++ -O3 -march=native -std=c++17 -pthread -o "$out" "$here/hnswlib_bench.cpp"
