// Package sample is a fixture of the genbind test: one plain function, one
// generic function and one generic type, which genbind must skip with a
// warning.
package sample

// Plain doubles x.
func Plain(x int) int { return 2 * x }

// Map applies f to every element of xs (generic: cannot be bound).
func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// Pair is a generic pair (cannot be bound).
type Pair[K comparable, V any] struct {
	Key K
	Val V
}
