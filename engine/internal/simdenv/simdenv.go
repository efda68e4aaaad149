// Package simdenv reads VECLAB_SIMD, the switch that caps the engine's
// kernel sets at start-up, so that one machine can stand in for another:
// VECLAB_SIMD=off runs the pure-Go twins everywhere (a machine without
// SIMD), VECLAB_SIMD=avx2 stops at the AVX2 kernels on an AVX-512 CPU (the
// developers' laptop class of machine), and unset (or "on") keeps the best
// this CPU runs. The kernel packages (engine/internal/f32, bitsx) apply it
// once, when they list the sets they offer, so every later
// SetAccelerated(true) installs the capped best: an experiment that compares
// the SIMD kernels with the twins then compares what that other machine
// would.
//
// Under js/wasm the host page or node_exec.js reads the same variable
// (VECLAB_SIMD=off) before the SIMD128 kernels are attached; a set this
// package does not rank, such as "simd128", is kept unless the value is off.
package simdenv

import (
	"fmt"
	"os"
)

// Var names the environment variable.
const Var = "VECLAB_SIMD"

// order ranks the amd64 kernel sets' names, oldest instructions first.
var order = map[string]int{"generic": 0, "popcnt": 1, "avx2": 2, "avx512": 3}

// Keep returns how many of the kernel sets named by names (ordered worst
// first, "generic" first) the setting keeps: a prefix, so that the last
// kept set is the best the setting allows. An unknown setting keeps every
// set and returns an error naming the variable and the values it takes.
func Keep(names []string, setting string) (int, error) {
	limit := len(order)
	switch setting {
	case "", "on":
		return len(names), nil
	case "off", "generic":
		limit = 0
	default:
		r, ok := order[setting]
		if !ok {
			return len(names), fmt.Errorf("%s=%q: want off (the pure-Go kernels), popcnt, avx2 or avx512 (the best kernels up to that instruction set), or on (the best this CPU runs; the default)", Var, setting)
		}
		limit = r
	}
	for i, n := range names {
		r, ranked := order[n]
		if i > 0 && ((ranked && r > limit) || (!ranked && limit == 0)) {
			return i, nil
		}
	}
	return len(names), nil
}

// Setting returns the value of VECLAB_SIMD in this process's environment.
func Setting() string { return os.Getenv(Var) }

// Cap keeps the prefix of ks (ordered worst first, the pure-Go set first)
// that VECLAB_SIMD allows, name giving each set's name: the one rule of
// Keep for every kernel package, whatever its Kernel type.
func Cap[K any](ks []K, name func(K) string) ([]K, error) {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = name(k)
	}
	n, err := Keep(names, Setting())
	return ks[:n], err
}
