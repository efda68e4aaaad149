//go:build (!amd64 && !(js && wasm)) || purego

package f32

// archKernels has no assembly to offer on this architecture or with the
// purego tag: the pure-Go twins (DotGeneric, L2SqGeneric, Dot4Generic,
// L2Sq4Generic) are the only kernels.
func archKernels() []Kernel { return nil }
