// Package f32 holds the trusted float32 distance kernels: generated amd64
// assembly (AVX2+FMA, AVX-512F where present) and pure-Go twins, chosen once
// at start-up. Nothing here checks lengths: callers (engine/vec) do.
//
// # Kernels
//
// [Dot] and [L2Sq] compare one vector with another; [Dot4] and [L2Sq4] compare
// one query with four rows, loading the query once per block (exact search and
// the neighbour scoring of graph indexes score many rows against one query).
// [DotRows] and [L2SqRows] run the four-row kernels' instructions over
// consecutive rows of a slab in one call, with software prefetch ahead, so
// every distance is bit-identical to Dot4's / L2Sq4's for the same row: the
// exact scan of engine/flat uses them without changing any result.
// Every kernel reads exactly len(a) (or len(q)) elements of each argument and
// nothing past them: the assembly tails use masked loads (VMASKMOVPS on AVX2,
// zeroing opmask loads on AVX-512), whose masked-off lanes are neither read
// nor faulted on.
//
// # Why generated
//
// The assembly in dist_amd64.s and its declarations in stubs_amd64.go are
// written by the avo program in engine/internal/asmgen (which generates
// bitsx's kernels too), a nested module so avo never enters the main go.mod. `go generate ./engine/internal/f32` rewrites both, and a
// test regenerates them into a temporary directory and fails on any byte of
// difference, so the generator can never rot away from its output.
//
// # Selection
//
// At start-up the package reads the CPU features (golang.org/x/sys/cpu) and
// stores the best kernel set in the func variables [Dot], [L2Sq], [Dot4] and
// [L2Sq4]: AVX-512F → "avx512", else AVX2 and FMA → "avx2", else "generic".
// [Impl] names the choice, [SetAccelerated] switches between it and the pure-Go
// twins (for tests), and [Available] lists every kernel set this CPU can run,
// for tests and benchmarks that compare them. VECLAB_SIMD caps the sets
// offered (engine/internal/simdenv): "off" leaves the twins only, "avx2"
// stops below AVX-512, so one machine stands in for another in a whole run
// (`VECLAB_SIMD=off veclab reproduce`).
//
// # Twins
//
// Every assembly function has a pure-Go twin that is its specification: the
// doc comment of each stub quotes the reference loop, and the *Generic
// functions implement it (four accumulators, sixteen elements per iteration
// through array pointers so that the bounds are checked once per block: the
// pure-Go build used by wasm and other architectures is not needlessly slow,
// and it sums in the order of the plain four-accumulator loop, bit for bit).
// The build tag purego
// forces the twins everywhere. The kernels sum in a different order from the
// twins, so results agree to a rounding error relative to Σ|a_i·b_i|, not
// bit for bit; each kernel is deterministic on its own.
//
// # Concurrency
//
// The kernels are pure functions, safe for concurrent use. [SetAccelerated]
// writes the package variables and must not race with calls to them: use it
// from tests, before starting goroutines.
package f32

//go:generate go run -C ../asmgen . -gen f32 -out ../f32
