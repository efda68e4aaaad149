//go:build (!amd64 && !(js && wasm)) || purego

package bitsx

// archKernels has no assembly to offer on this architecture or with the
// purego tag: the pure-Go twins are the only kernels.
func archKernels() []Kernel { return nil }
