package bitsx

//go:generate go run -C ../asmgen . -gen bitsx -out ../bitsx

import "github.com/veclab/veclab/engine/internal/simdenv"

// Kernel selection. Every exported kernel above is a func variable holding,
// after start-up, the fastest implementation this CPU runs: the generated
// amd64 assembly of codes_amd64.s (written by the "bitsx" generator of
// engine/internal/asmgen, see its bitsx.go) where it pays, else the
// pure-Go *Generic twin. All implementations return the same exact integer;
// the tests compare every one with a plain loop. The build tag purego (and
// every architecture but amd64) keeps the twins only.

// Kernel is one complete set of code kernels, named after the instruction
// set its assembly needs.
type Kernel struct {
	Name          string // "generic", "popcnt", "avx2" or "avx512"
	DotBytes      func(a, b []byte) int32
	SqDiffBytes   func(a, b []byte) int32
	DotNibbles    func(a, b []byte) int32
	SqDiffNibbles func(a, b []byte) int32
	AndPopCount   func(a, b []byte) int
	Dot1x4        func(q, d []byte, words int) int64
	DotPlanes     func(x []byte, xBits int, y []byte, yBits int, words int) int64
	DotQ4Batch    func(dst []int64, codes []byte, stride, xBits int, q []byte, words int)
}

// Generic is the pure-Go kernel set, available everywhere.
var Generic = Kernel{
	Name:          "generic",
	DotBytes:      DotBytesGeneric,
	SqDiffBytes:   SqDiffBytesGeneric,
	DotNibbles:    DotNibblesGeneric,
	SqDiffNibbles: SqDiffNibblesGeneric,
	AndPopCount:   AndPopCountGeneric,
	Dot1x4:        Dot1x4Generic,
	DotPlanes:     DotPlanesGeneric,
	DotQ4Batch:    DotQ4BatchGeneric,
}

var (
	// available lists the sets this CPU runs, generic first and best last,
	// capped by VECLAB_SIMD (engine/internal/simdenv) so that one machine
	// can stand in for one with fewer instructions.
	available, settingErr = simdenv.Cap(append([]Kernel{Generic}, archKernels()...), func(k Kernel) string { return k.Name })
	current               = Generic
)

// SettingErr reports a VECLAB_SIMD value the package did not understand
// (it then keeps every set this CPU runs); nil when the value is fine.
func SettingErr() error { return settingErr }

func init() { SetAccelerated(true) }

// Available returns every kernel set this CPU can run, the pure-Go one first
// and the one chosen by SetAccelerated(true) last. The slice is a copy.
func Available() []Kernel { return append([]Kernel(nil), available...) }

// SetAccelerated installs the best kernel set of this CPU (true) or the
// pure-Go twins (false) into the exported kernel variables. It is not safe
// to call while other goroutines use the kernels.
func SetAccelerated(on bool) {
	k := Generic
	if on {
		k = available[len(available)-1]
	}
	install(k)
}

func install(k Kernel) {
	current = k
	DotBytes, SqDiffBytes = k.DotBytes, k.SqDiffBytes
	DotNibbles, SqDiffNibbles = k.DotNibbles, k.SqDiffNibbles
	AndPopCount, Dot1x4, DotPlanes = k.AndPopCount, k.Dot1x4, k.DotPlanes
	DotQ4Batch = k.DotQ4Batch
}

// Impl names the kernel set in use: "avx512", "avx2", "popcnt" or "generic".
func Impl() string { return current.Name }
