#!/usr/bin/env bash
# Builds the C exact-search peer: a plain loop, vectorised by the compiler.
# Usage: bench/peers/cflat/build.sh [OUTPUT]   (default: ./flat_bench next to this script)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/flat_bench}"
exec g++ -O3 -march=native -mprefer-vector-width=512 -fopenmp-simd -std=c++17 -o "$out" "$here/flat_bench.cpp"
