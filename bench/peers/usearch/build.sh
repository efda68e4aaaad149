#!/usr/bin/env bash
# Builds the USearch peer harness against the C++ headers and NumKong
# kernels of the npm package usearch@2.26.2 pinned in this directory's
# package-lock.json (npm ci here, or `go run ./internal/testenv/setup`),
# as the package's binding.gyp does (USEARCH_USE_NUMKONG=1, NumKong's C
# dispatch sources with NK_DYNAMIC_DISPATCH=1), but with g++/gcc -O3
# -march=native instead of node-gyp's flags.
# Usage: bench/peers/usearch/build.sh [OUTPUT]   (default: ./usearch_bench next to this script)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/usearch_bench}"
pkg="$here/node_modules/usearch"
nk="$pkg/numkong"
if [ ! -f "$pkg/include/usearch/index_dense.hpp" ]; then
	echo "build.sh: $pkg/include/usearch/index_dense.hpp not found; run npm ci in bench/peers/usearch (go run ./internal/testenv/setup does)" >&2
	exit 1
fi
# NumKong's 26 dispatch sources take minutes to compile on a busy 2-core
# machine; their objects are kept in the user's cache, keyed by the pinned
# package version, the compiler and the flags (-march=native resolved).
cflags=(-O3 -march=native -std=c11 -DNK_NATIVE_F16=0 -DNK_NATIVE_BF16=0 -DNK_DYNAMIC_DISPATCH=1
	-Wno-unknown-pragmas -Wno-maybe-uninitialized -Wno-cast-function-type -Wno-switch -Wno-psabi -I"$nk/include")
version="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$pkg/package.json" | head -1)"
key="$( (gcc --version; gcc "${cflags[@]}" -Q --help=target; echo "${cflags[*]}") 2>/dev/null | sha256sum | cut -c1-16)"
objs="${XDG_CACHE_HOME:-$HOME/.cache}/veclab/peers/numkong-$version-$key"
if [ ! -f "$objs/done" ]; then
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	pids=()
	for c in "$nk"/c/numkong.c "$nk"/c/dispatch_*.c; do
		gcc "${cflags[@]}" -c "$c" -o "$tmp/$(basename "$c" .c).o" &
		pids+=($!)
		# two compilers at a time: the machine is shared
		if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
	done
	for p in "${pids[@]}"; do wait "$p"; done
	mkdir -p "$objs"
	cp "$tmp"/*.o "$objs"/
	touch "$objs/done"
fi
exec g++ -O3 -march=native -std=c++17 -pthread -fexceptions \
	-DUSEARCH_USE_NUMKONG=1 -DNK_DYNAMIC_DISPATCH=1 -DNK_NATIVE_F16=0 -DNK_NATIVE_BF16=0 -DUSEARCH_USE_OPENMP=0 \
	-Wno-unknown-pragmas -I"$pkg/include" -I"$nk/include" \
	-o "$out" "$here/usearch_bench.cpp" "$objs"/*.o
